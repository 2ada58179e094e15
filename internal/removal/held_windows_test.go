package removal

import (
	"errors"
	"os"
	"testing"

	"github.com/git-wt/git-wt/internal/proc"
	"golang.org/x/sys/windows"
)

// A delete or rename Windows refused because a file is held names the
// holders, and stays the error it was.
func TestWindowsHeldErrorNamesTheHolders(t *testing.T) {
	fakeHolders(t, []proc.User{{PID: 1234, Name: "code.exe"}}, nil)
	held := &os.LinkError{Op: "rename", Old: `C:\wt\fix`, New: `C:\wt\.trash\fix`, Err: windows.ERROR_SHARING_VIOLATION}
	got := heldError(`C:\wt\fix`, held)
	if !errors.Is(got, windows.ERROR_SHARING_VIOLATION) {
		t.Fatalf("heldError = %v, no longer the sharing violation", got)
	}
	if want := held.Error() + ": process 1234 (code.exe) holds a file in it open"; got.Error() != want {
		t.Fatalf("heldError = %q, want %q", got, want)
	}
}
