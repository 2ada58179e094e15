// These tests protect exec on Windows, which has no execve: the program
// runs as git-wt's child in the folder and with the environment it was
// given, writes to git-wt's own stdout, and git-wt ends with its status.
package child

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/exitcode"
)

// tempDir is a new folder, removed at the test's end as far as it can be
// (t.TempDir fails a test whose folder Wine cannot delete).
func tempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "exec-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// execTestBinary runs the test binary through Exec in dir and returns
// what Exec returned and what the program printed on git-wt's stdout.
func execTestBinary(t *testing.T, dir, code string) (printed string, err error) {
	t.Helper()
	t.Chdir(tempDir(t)) // Exec enters dir: the test's folder comes back after
	out, err := os.Create(filepath.Join(tempDir(t), "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	realStdout := os.Stdout
	os.Stdout = out
	defer func() { os.Stdout = realStdout }()
	err = Cmd{Path: os.Args[0], Dir: dir, Env: []string{"GIT_WT_TEST_EXEC_EXIT=" + code, "WT_TASK=t1"}}.Exec()
	written, _ := os.ReadFile(out.Name())
	return strings.TrimSpace(string(written)), err
}

func TestExecRunsTheProgramInItsFolderAndPassesItsStatus(t *testing.T) {
	dir := tempDir(t)
	printed, err := execTestBinary(t, dir, "7")
	var exited *exitcode.Exited
	if !errors.As(err, &exited) || exited.Code != 7 || exitcode.Of(err) != 7 {
		t.Fatalf("Exec returned %v, want the program's status 7", err)
	}
	gotDir, task, _ := strings.Cut(printed, "|")
	if !strings.EqualFold(filepath.Clean(gotDir), filepath.Clean(dir)) || task != "t1" {
		t.Fatalf("the program printed %q, want %s|t1", printed, dir)
	}
	if _, err := execTestBinary(t, dir, "0"); err != nil {
		t.Fatalf("a program that exits 0: Exec returned %v, want nil", err)
	}
}

func TestExecOfAMissingProgramIsNotFound(t *testing.T) {
	err := Cmd{Path: "git-wt-no-such-program"}.Exec()
	if !errors.Is(err, exec.ErrNotFound) {
		t.Fatalf("Exec of a missing program returned %v, want exec.ErrNotFound", err)
	}
}
