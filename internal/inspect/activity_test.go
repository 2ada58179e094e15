// This test protects SPEC §20's last activity, shared by list --all's
// verdict and gc --reclaim's idle rule: the newest of the worktree's
// index, HEAD's reflog and its top-level entries, nothing deeper.
package inspect

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestLastActivityIsTheNewestOfIndexReflogAndTopLevelEntries(t *testing.T) {
	root := t.TempDir()
	admin, dir := filepath.Join(root, "admin"), filepath.Join(root, "wt")
	os.MkdirAll(filepath.Join(admin, "logs"), 0o755)
	os.MkdirAll(filepath.Join(dir, "src", "deep"), 0o755)
	old := time.Now().Add(-240 * time.Hour).Truncate(time.Second)
	files := map[string]time.Time{
		filepath.Join(admin, "index"):        old,
		filepath.Join(admin, "logs", "HEAD"): old.Add(time.Hour),
		filepath.Join(dir, "README"):         old.Add(2 * time.Hour),
		filepath.Join(dir, "src"):            old.Add(3 * time.Hour),
		filepath.Join(dir, "src", "deep"):    old.Add(100 * time.Hour), // below the top level: not looked at
	}
	for p, at := range files {
		if _, err := os.Stat(p); err != nil {
			os.WriteFile(p, nil, 0o644)
		}
		os.Chtimes(p, at, at)
	}
	if got, want := LastActivity(dir, admin), old.Add(3*time.Hour); !got.Equal(want) {
		t.Fatalf("LastActivity = %v, want %v (src, the newest top-level entry)", got, want)
	}
	os.Chtimes(filepath.Join(admin, "index"), old.Add(5*time.Hour), old.Add(5*time.Hour))
	if got, want := LastActivity(dir, admin), old.Add(5*time.Hour); !got.Equal(want) {
		t.Fatalf("LastActivity = %v, want %v (the index, written by a git add)", got, want)
	}
}
