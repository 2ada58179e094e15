package place

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
