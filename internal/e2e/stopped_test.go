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

// doctor --fix read a removal under way; that rm finished and exited,
// and new made the task again at the same path. The removal doctor read
// is over, not stopped: the creation under way is new's, and doctor
// leaves it alone (it used to set it active and remove its worktree).
func TestRepairNeverTouchesACreationThatBeganAfterItLooked(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	remover, removerGo := stopAtUntil(t, s, "rm:renamed", "rm", "T")
	doctor, doctorGo := stopAtUntil(t, s, "doctor:records", "doctor", "--fix")
	goOn(t, removerGo)
	if code := exitCode(remover); code != 0 {
		t.Fatalf("rm exited %d", code)
	}
	creator, creatorGo := stopAtUntil(t, s, "new:checked-out", "new", "T")
	goOn(t, doctorGo)
	code := exitCode(doctor)
	out := doctor.Stdout.(*bytes.Buffer).String()
	if !s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/git-wt/tasks/T") {
		t.Fatalf("doctor --fix (exit %d) rolled back the creation of T under way (its record is gone); doctor said:\n%s", code, out)
	}
	rec := readRecord(t, s, "T")
	if code != 0 || out != "" || rec["state"] != "creating" || rec["creator_pid"] != float64(creator.Process.Pid) {
		t.Fatalf("doctor --fix (exit %d) touched the creation of T under way: the record is %v, process %d's; doctor said:\n%s", code, rec["state"], creator.Process.Pid, out)
	}
	goOn(t, creatorGo)
	if code := exitCode(creator); code != 0 || !testutil.Exists(path+"/README.md") {
		t.Fatalf("new T exited %d after doctor --fix", code)
	}
	if r := s.WT("doctor"); r.Code != 0 {
		t.Fatalf("doctor after the race: %s", r)
	}
}

// git wt init read the task active; then it was removed and made again,
// and new is creating it. init does not sign that creation as its own
// setup (its record would say a setup run again, which a kill keeps
// rather than rolls back): it refuses, and the creation goes on.
func TestInitNeverTakesOverACreationThatBeganAfterItLooked(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "config", "wt.init", "echo set up > init.txt")
	path := s.MustWT("new", "T").Out()
	init, initGo := stopAtUntil(t, s, "init:examined", "init", "T")
	s.MustWT("rm", "--force", "T")
	creator, creatorGo := stopAtUntil(t, s, "new:checked-out", "new", "T")
	goOn(t, initGo)
	code := exitCode(init)
	rec := readRecord(t, s, "T")
	if code == 0 || rec["state"] != "creating" || rec["creator_pid"] != float64(creator.Process.Pid) {
		t.Fatalf("git wt init (exit %d) took over the creation of T under way: the record is %v by process %v, not creating by %d", code, rec["state"], rec["creator_pid"], creator.Process.Pid)
	}
	goOn(t, creatorGo)
	if code := exitCode(creator); code != 0 || !testutil.Exists(path+"/init.txt") {
		t.Fatalf("new T exited %d after init", code)
	}
	if state := readRecord(t, s, "T")["state"]; state != "active" {
		t.Fatalf("task T in state %v, want active", state)
	}
}

// rm read a removal under way (another rm's); that rm finished and
// exited, and new is making the task again. The removal rm read is over,
// not stopped: rm looks at the task as it is now, a creation under way,
// and refuses (it used to finish the removal it had read on new's task,
// and remove the worktree new was making).
func TestRmNeverFinishesARemovalThatEndedWhileItLooked(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	first, firstGo := stopAtUntil(t, s, "rm:renamed", "rm", "T")
	second, secondGo := stopAtUntil(t, s, "rm:examined", "rm", "T")
	goOn(t, firstGo)
	if code := exitCode(first); code != 0 {
		t.Fatalf("the first rm exited %d", code)
	}
	creator, creatorGo := stopAtUntil(t, s, "new:checked-out", "new", "T")
	goOn(t, secondGo)
	code := exitCode(second)
	if !s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/git-wt/tasks/T") {
		t.Fatalf("the second rm (exit %d) removed the creation of T under way", code)
	}
	if rec := readRecord(t, s, "T"); code != 3 || rec["state"] != "creating" || rec["creator_pid"] != float64(creator.Process.Pid) {
		t.Fatalf("the second rm (exit %d, want 3: busy) touched the creation of T under way: the record is %v by process %v, not creating by %d", code, rec["state"], rec["creator_pid"], creator.Process.Pid)
	}
	goOn(t, creatorGo)
	if code := exitCode(creator); code != 0 || !testutil.Exists(path+"/README.md") {
		t.Fatalf("new T exited %d after the second rm", code)
	}
}
