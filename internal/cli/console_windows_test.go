// These tests protect the colour decision's Windows fact: what is not a
// console (a buffer, a pipe, Git Bash's mintty) shows colour sequences
// as they are, so only a console is ever asked, and changed.
package cli

import (
	"bytes"
	"os"
	"testing"
)

func TestWhatIsNotAConsoleShowsColor(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if !showsColor(&bytes.Buffer{}) || !showsColor(w) {
		t.Fatal("a buffer or a pipe counts as unable to show colour")
	}
}
