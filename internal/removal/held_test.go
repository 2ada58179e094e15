package removal

import (
	"errors"
	"testing"

	"github.com/git-wt/git-wt/internal/proc"
	"github.com/git-wt/git-wt/internal/record"
)

// fakeHolders makes holdersIn answer users and err for the test's length.
func fakeHolders(t *testing.T, users []proc.User, err error) {
	t.Helper()
	real := holdersIn
	holdersIn = func(string) ([]proc.User, error) { return users, err }
	t.Cleanup(func() { holdersIn = real })
}

// A removal Windows refused names the processes that hold a file in the
// folder where the system can tell (SPEC §21), a few of them, and says
// "a program" where it cannot.
func TestHeldRefusalNamesTheHoldersTheSystemNames(t *testing.T) {
	code := proc.User{PID: 1234, Name: "code.exe"}
	node := proc.User{PID: 5678, Name: "node.exe"}
	git := proc.User{PID: 42, Name: "git.exe"}
	const tail = ` (the process cannot access the file), so nothing was changed: close it (an editor, a shell, a dev server), then run git wt rm 'fix login' again`
	for _, tc := range []struct {
		name  string
		users []proc.User
		err   error
		want  string
	}{
		{"one holder", []proc.User{code}, nil, `C:\wt\fix is in use: process 1234 (code.exe) holds a file in it open` + tail},
		{"two holders", []proc.User{code, node}, nil, `C:\wt\fix is in use: processes 1234 (code.exe) and 5678 (node.exe) hold files in it open` + tail},
		{"more holders than are named", []proc.User{code, node, git}, nil, `C:\wt\fix is in use: processes 1234 (code.exe), 5678 (node.exe) and 1 more hold files in it open` + tail},
		{"the system names nobody (Wine)", nil, nil, `C:\wt\fix is in use: a program holds a file in it open` + tail},
		{"the system cannot tell", nil, errors.New("this system does not say which process has a file open"), `C:\wt\fix is in use: a program holds a file in it open` + tail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fakeHolders(t, tc.users, tc.err)
			rec := &record.Record{Task: "fix login", Path: `C:\wt\fix`}
			got := heldRefusal(rec, errors.New("the process cannot access the file"))
			if got != tc.want {
				t.Fatalf("heldRefusal =\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// An error that is not a held file is left as it is, and nobody is
// looked for.
func TestHeldErrorLeavesOtherErrorsAlone(t *testing.T) {
	real := holdersIn
	holdersIn = func(string) ([]proc.User, error) {
		t.Fatal("the holders were looked for")
		return nil, nil
	}
	t.Cleanup(func() { holdersIn = real })
	other := errors.New("no space left on device")
	if got := heldError("/wt/trash/fix", other); got != other {
		t.Fatalf("heldError = %v, want %v", got, other)
	}
	if got := heldError("/wt/trash/fix", nil); got != nil {
		t.Fatalf("heldError(nil) = %v", got)
	}
}
