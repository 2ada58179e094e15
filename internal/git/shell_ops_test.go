// These tests hold ExecPath, which finds Git for Windows' sh.exe, to its
// argv and its parsing, against the fake git of gittest.
package git_test

import (
	"testing"

	"github.com/git-wt/git-wt/internal/git/gittest"
)

func TestExecPathIsGitsAnswerTrimmed(t *testing.T) {
	f := gittest.New(t)
	f.Expect("--exec-path").Out("C:/Program Files/Git/mingw64/libexec/git-core\n")
	got, err := f.Git().ExecPath(t.Context(), "/repo")
	if err != nil || got != "C:/Program Files/Git/mingw64/libexec/git-core" {
		t.Fatalf("ExecPath = %q, %v", got, err)
	}
}
