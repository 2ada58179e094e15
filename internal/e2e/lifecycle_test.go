// These tests protect the task lifecycle's refusals: a command that would
// move a task out of a state it may not leave (a failed setup, another
// process's operation) is refused with exit 3 and a line that says what to
// do, and changes nothing.
package e2e

import (
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

func TestMergeOfAFailedTaskIsRefused(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "config", "wt.init", "exit 7")
	if r := s.WT("new", "T"); r.Code != 1 {
		t.Fatalf("new with a failing init: %s", r)
	}
	path := readRecord(t, s, "T")["path"].(string)
	commitFile(s, path, "task.txt", "task\n", "task work")
	mainTip := s.Git(s.Repo, "rev-parse", "main")
	r := s.WT("merge", "T")
	if r.Code != 3 || !strings.HasPrefix(r.Stderr, "git-wt: ") || !strings.Contains(r.Stderr, "git wt init T") {
		t.Fatalf("merge of a failed task: %s", r)
	}
	if got := s.Git(s.Repo, "rev-parse", "main"); got != mainTip {
		t.Errorf("a refused merge moved main to %s", got)
	}
	if state := taskState(t, s); state != "failed" {
		t.Errorf("state %q after a refused merge, want failed", state)
	}
}
