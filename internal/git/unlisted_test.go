// This test protects which admin entries count as debris git lists no
// worktree for (Unlisted): only one whose gitdir file is missing or
// empty, unlocked, and left so for a while — never one a git is making.
package git

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestOnlyASettledUnlockedEntryWithoutGitdirIsUnlisted(t *testing.T) {
	const settled = 2 * time.Second
	long := time.Minute
	for _, c := range []struct {
		name  string
		files map[string]string // file in the entry → content
		age   time.Duration     // of the entry and its files
		fresh string            // a file written a moment ago
		want  bool
	}{
		{"its gitdir gone, an index.lock left", map[string]string{"index.lock": "", "HEAD": "ref: refs/heads/x\n"}, long, "", true},
		{"its gitdir left empty", map[string]string{"gitdir": "", "HEAD": "ref: refs/heads/x\n"}, long, "", true},
		{"nothing but an index.lock", map[string]string{"index.lock": ""}, long, "", true},
		{"a gitdir naming a folder", map[string]string{"gitdir": "/w/x/.git\n"}, long, "", false},
		{"a worktree add at work, locked", map[string]string{"locked": "initializing"}, long, "", false},
		{"a user's lock", map[string]string{"locked": "mine", "HEAD": "ref: refs/heads/x\n"}, long, "", false},
		{"made a moment ago", map[string]string{"HEAD": "ref: refs/heads/x\n"}, 0, "", false},
		{"its gitdir emptied a moment ago (a move writing it)", map[string]string{"gitdir": ""}, long, "gitdir", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			common := filepath.Join(t.TempDir(), ".git")
			admin := writeEntry(t, common, "x", c.files, c.age)
			if c.fresh != "" {
				now := time.Now()
				os.Chtimes(filepath.Join(admin, c.fresh), now, now)
			}
			if got := Unlisted(admin, settled); got != c.want {
				t.Fatalf("Unlisted: %v, want %v", got, c.want)
			}
			if got := slices.Contains(UnlistedEntries(common, settled), admin); got != c.want {
				t.Fatalf("UnlistedEntries has it: %v, want %v", got, c.want)
			}
		})
	}
}

func TestAnEntryThatIsALinkIsNeverUnlisted(t *testing.T) {
	root := t.TempDir()
	common := filepath.Join(root, ".git")
	elsewhere := filepath.Join(root, "elsewhere")
	os.MkdirAll(filepath.Join(common, "worktrees"), 0o777)
	os.MkdirAll(elsewhere, 0o777)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(elsewhere, old, old)
	if err := os.Symlink(elsewhere, filepath.Join(common, "worktrees", "x")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	if got := UnlistedEntries(common, time.Second); len(got) != 0 {
		t.Fatalf("a link to a folder is an entry to delete: %v", got)
	}
}

func TestAnEntryWithHeadAndCommondirCouldServeAWorktree(t *testing.T) {
	for _, c := range []struct {
		files []string
		want  bool
	}{
		{[]string{"HEAD", "commondir", "index"}, true},
		{[]string{"HEAD", "commondir"}, true},
		{[]string{"HEAD", "index", "index.lock"}, false},
		{[]string{"commondir"}, false},
		{[]string{"index.lock"}, false},
	} {
		admin := t.TempDir()
		for _, f := range c.files {
			os.WriteFile(filepath.Join(admin, f), nil, 0o666)
		}
		if got := Serviceable(admin); got != c.want {
			t.Errorf("an entry with %v: Serviceable %v, want %v", c.files, got, c.want)
		}
	}
}

func TestKilledAddEntryOfIsOnlyAnUnfinishedEntryNamedForTheFolder(t *testing.T) {
	for _, c := range []struct {
		name  string
		entry string            // its name
		files map[string]string // file in the entry → content
		want  bool
	}{
		{"locked initializing, no gitdir", "merge-7-ab", map[string]string{"locked": "initializing"}, true},
		{"named with a number", "merge-7-ab1", map[string]string{"locked": "initializing"}, true},
		{"its gitdir written", "merge-7-ab", map[string]string{"locked": "initializing", "gitdir": "/elsewhere/.git\n"}, false},
		{"a user's lock", "merge-7-ab", map[string]string{"locked": "mine"}, false},
		{"not locked", "merge-7-ab", map[string]string{"HEAD": "ref: refs/heads/x\n"}, false},
		{"able to serve a worktree", "merge-7-ab", map[string]string{"locked": "initializing", "HEAD": "ref: refs/heads/x\n", "commondir": "../..\n"}, false},
		{"named for another folder", "merge-7-abc", map[string]string{"locked": "initializing"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			common := filepath.Join(root, ".git")
			writeEntry(t, common, c.entry, c.files, time.Minute)
			got, settled := KilledAddEntryOf(common, filepath.Join(root, "tmp", "merge-7-ab"))
			if (got != "") != c.want || c.want && (filepath.Base(got) != c.entry || !settled) {
				t.Fatalf("KilledAddEntryOf: %q, want the entry: %v", got, c.want)
			}
		})
	}
}

func TestAnEntryLockedAMomentAgoHasNotSettled(t *testing.T) {
	root := t.TempDir()
	common := filepath.Join(root, ".git")
	writeEntry(t, common, "merge-7-ab", map[string]string{"locked": "initializing"}, 0)
	if got, settled := KilledAddEntryOf(common, filepath.Join(root, "tmp", "merge-7-ab")); got == "" || settled {
		t.Fatalf("KilledAddEntryOf = %q, settled %v: an add that locked its entry a moment ago may still be writing it", got, settled)
	}
}

// writeEntry makes the admin entry name in the common dir common, with
// files (name → content), and sets its time and theirs to age ago.
func writeEntry(t *testing.T, common, name string, files map[string]string, age time.Duration) string {
	t.Helper()
	admin := filepath.Join(common, "worktrees", name)
	if err := os.MkdirAll(admin, 0o777); err != nil {
		t.Fatal(err)
	}
	when := time.Now().Add(-age)
	for file, content := range files {
		os.WriteFile(filepath.Join(admin, file), []byte(content), 0o666)
		os.Chtimes(filepath.Join(admin, file), when, when)
	}
	os.Chtimes(admin, when, when)
	return admin
}
