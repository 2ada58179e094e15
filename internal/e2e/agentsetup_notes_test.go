//go:build unix

package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// agent-setup's notes in .git/wt/agent-setup say what undo may give back
// (a settings file's bytes before setup): they are the user's alone (mode
// 0600, SPEC §19), and written never through a link planted where git-wt
// writes them, which anything that can write the git dir can do.
func TestAgentSetupNotesArePrivateAndWrittenNeverThroughALink(t *testing.T) {
	t.Parallel()
	s := testutil.NewSandbox(t)
	notes := filepath.Join(s.Repo, ".git", "wt", "agent-setup")
	victim := filepath.Join(s.Home, "victim")
	s.Write(victim, "keep\n")
	if err := os.MkdirAll(notes, 0o755); err != nil {
		t.Fatal(err)
	}
	// Every name a note could be written through first: the temporary
	// files beside the notes, whose names are known in advance.
	for _, note := range []string{"wt.copy.json", noteName(filepath.Join(s.Repo, ".claude", "settings.local.json")), noteName(filepath.Join(s.Repo, ".claude", "settings.json"))} {
		if err := os.Symlink(victim, filepath.Join(notes, note+".git-wt.tmp")); err != nil {
			t.Fatal(err)
		}
	}
	s.MustWT("agent-setup", "claude")
	s.MustWT("agent-setup", "claude", "--project")
	if data, _ := os.ReadFile(victim); string(data) != "keep\n" {
		t.Fatalf("agent-setup wrote its note through a planted link: the file it names holds %q", data)
	}
	entries, _ := os.ReadDir(notes)
	seen := 0
	for _, e := range entries {
		if e.Type().IsRegular() {
			seen++
			if st, _ := e.Info(); st.Mode().Perm() != 0o600 {
				t.Errorf("the note %s has mode %v, want 0600", e.Name(), st.Mode().Perm())
			}
		}
	}
	if seen == 0 {
		t.Fatalf("agent-setup wrote no note in %s: %v", notes, entries)
	}
}

// noteName is the name of agent-setup's note of the settings file path.
func noteName(path string) string {
	if real, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		path = filepath.Join(real, filepath.Base(path))
	}
	sum := sha256.Sum256([]byte(path))
	return hex.EncodeToString(sum[:8]) + ".json"
}
