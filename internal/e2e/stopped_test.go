//go:build unix

// These tests protect the judgement that a task's process stopped in the
// middle of its change (issue 24): doctor, gc, rm, new and init read a
// record, then ask whether the process that signed it is alive; one that
// finished its change and exited between the two is no stopped process,
// and its record, read before it finished, is no longer the task. Nothing
// may be reported, repaired or taken over on such a read.
package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/testutil"
)

// goOn lets a process stopped by stopAtUntil go on.
func goOn(t *testing.T, release string) {
	t.Helper()
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A creation that finished (and whose process exited) after doctor or gc
// read the records is not stuck: none of them reports it, or touches it.
func TestACreationThatFinishedWhileDoctorLookedIsNotStuck(t *testing.T) {
	for _, look := range [][]string{{"doctor"}, {"doctor", "--fix"}, {"gc"}} {
		t.Run(strings.Join(look, " "), func(t *testing.T) {
			s := testutil.NewSandbox(t)
			creator, creatorGo := stopAtUntil(t, s, "new:checked-out", "new", "T")
			checker, checkerGo := stopAtUntil(t, s, "doctor:records", look...)
			goOn(t, creatorGo)
			if code := exitCode(creator); code != 0 {
				t.Fatalf("new exited %d", code)
			}
			goOn(t, checkerGo)
			code := exitCode(checker)
			out := checker.Stdout.(*bytes.Buffer).String()
			if code != 0 || strings.Contains(out, string(task.StuckCreation)) {
				t.Fatalf("git wt %s, having read the records while new T ran, judged it stopped once it had exited (exit %d):\n%s", strings.Join(look, " "), code, out)
			}
			if state := readRecord(t, s, "T")["state"]; state != "active" {
				t.Fatalf("task T in state %v, want active", state)
			}
		})
	}
}

// A command read the task while a removal was under way (doctor --fix,
// rm), or while it was active (init); that removal ended, or an rm
// --force removed the task, and new is making the task again at the same
// path. What the command read is over, not stopped: the creation under way
// is new's, and the command leaves it alone (doctor --fix and rm used to
// finish the removal they had read on new's task and remove its worktree;
// init signed the creation as its own setup run again, which a kill keeps
// rather than rolls back).
func TestNothingTouchesACreationThatBeganAfterItLooked(t *testing.T) {
	for _, c := range []struct {
		look     []string
		at       string // where it stops, having read the task
		removing bool   // it reads a removal under way, else an active task
		wantCode int
	}{
		{[]string{"doctor", "--fix"}, "doctor:records", true, 0},
		{[]string{"rm", "T"}, "rm:examined", true, 3},
		{[]string{"init", "T"}, "init:examined", false, 3},
	} {
		t.Run(strings.Join(c.look, " "), func(t *testing.T) {
			s := testutil.NewSandbox(t)
			s.Git(s.Repo, "config", "wt.init", "echo set up > init.txt")
			s.Write(s.Repo+"/.git/info/exclude", "init.txt\n") // not work rm must keep
			path := s.MustWT("new", "T").Out()
			var remover *exec.Cmd
			var removerGo string
			if c.removing {
				remover, removerGo = stopAtUntil(t, s, "rm:renamed", "rm", "T")
			}
			looker, lookerGo := stopAtUntil(t, s, c.at, c.look...)
			if c.removing {
				goOn(t, removerGo)
				if code := exitCode(remover); code != 0 {
					t.Fatalf("rm exited %d", code)
				}
			} else {
				s.MustWT("rm", "--force", "T")
			}
			creator, creatorGo := stopAtUntil(t, s, "new:checked-out", "new", "T")
			goOn(t, lookerGo)
			code := exitCode(looker)
			out := looker.Stdout.(*bytes.Buffer).String()
			if !s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/git-wt/tasks/T") {
				t.Fatalf("git wt %s (exit %d) rolled back the creation of T under way (its record is gone):\n%s", strings.Join(c.look, " "), code, out)
			}
			rec := readRecord(t, s, "T")
			if code != c.wantCode || c.wantCode == 0 && out != "" || rec["state"] != "creating" || rec["creator_pid"] != float64(creator.Process.Pid) {
				t.Fatalf("git wt %s (exit %d, want %d) touched the creation of T under way: the record is %v by process %v, not creating by %d; it said:\n%s",
					strings.Join(c.look, " "), code, c.wantCode, rec["state"], rec["creator_pid"], creator.Process.Pid, out)
			}
			goOn(t, creatorGo)
			if code := exitCode(creator); code != 0 || !testutil.Exists(path+"/init.txt") {
				t.Fatalf("new T exited %d after git wt %s", code, strings.Join(c.look, " "))
			}
			if state := readRecord(t, s, "T")["state"]; state != "active" {
				t.Fatalf("task T in state %v, want active", state)
			}
		})
	}
}
