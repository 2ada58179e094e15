package place

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil/platform"
)

// A deleter's note is read as data of bounded size: a note someone wrote
// huge into the trash costs a command no more than its first 4 KiB.
func TestReadNoteIsBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "T.1"+FailedSuffix)
	if err := os.WriteFile(path, []byte(strings.Repeat("x", 1<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadNote(path)
	if err != nil || len(got) != 4<<10 {
		t.Fatalf("ReadNote of a 1 MiB note = %d bytes, %v; want 4096", len(got), err)
	}
}

// A link in the trash named as a note is not read: what it points at may
// be a file the one who planted it cannot read.
func TestReadNoteDoesNotFollowALink(t *testing.T) {
	platform.RequireSymlinks(t)
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret")
	os.WriteFile(secret, []byte("secret"), 0o600)
	link := filepath.Join(dir, "T.1"+FailedSuffix)
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadNote(link); err == nil || got != "" {
		t.Fatalf("ReadNote through a link = %q, %v; want an error", got, err)
	}
}
