//go:build unix

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/testutil"
)

// An init that runs longer than wt.orphanGrace keeps its task: its git-wt
// renews its lease on the record while the init runs (SPEC §15), so a
// doctor --fix or a gc that cannot see that git-wt (in a PID namespace of
// its own) leaves the task initializing, however many graces pass. Once
// the owner is really gone, doctor says the lease was not renewed, names
// the owner's process, never its own, and never says it died.
func TestALongInitRenewsItsLeaseForThoseWhoCannotSeeIt(t *testing.T) {
	if !testutil.IsRoot() {
		t.Skip("a PID namespace needs root (CI runs as root)")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare (util-linux) is not installed")
	}
	const grace = 4 * time.Second // the lease is renewed every 2 s, the least
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "config", "wt.orphanGrace", "4s")
	release := filepath.Join(t.TempDir(), "release")
	s.Git(s.Repo, "config", "wt.init", "while [ ! -e '"+release+"' ]; do sleep 0.1; done")
	creator := s.Cmd(s.Repo, "new", "-q", "T")
	if err := creator.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { creator.Process.Kill(); creator.Wait() })
	state := func() any {
		if !s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/git-wt/tasks/T") {
			return nil
		}
		return readRecord(t, s, "T")["state"]
	}
	waitFor(t, func() bool { return state() == "initializing" })
	for end := time.Now().Add(2*grace + grace/2); time.Now().Before(end); {
		time.Sleep(grace / 2) // the lease's own time: nothing to wait for but the clock
		for _, args := range [][]string{{"doctor", "--fix"}, {"gc"}} {
			blindWT(t, s, "pidns", s.Repo, args...)
			if got := state(); got != "initializing" {
				t.Fatalf("after %s in a PID namespace the running init's task is %v, want initializing", args[0], got)
			}
		}
	}

	// Really gone: killed, and its init ended by its supervisor.
	owner := creator.Process.Pid
	kill(creator)
	time.Sleep(grace + time.Second) // the lease runs out
	r := blindWT(t, s, "pidns", s.Repo, "doctor")
	if r.Code != 1 || !strings.Contains(r.Stdout, "not renewed for") || !strings.Contains(r.Stdout, fmt.Sprintf("process %d ", owner)) || strings.Contains(r.Stdout, "died") {
		t.Fatalf("doctor must name the lease that ran out and process %d: %s", owner, r)
	}
	fix := blindWT(t, s, "pidns", s.Repo, "doctor", "--fix")
	rec := readRecord(t, s, "T")
	why := fmt.Sprint(rec["init"].(map[string]any)["error"])
	if rec["state"] != "failed" || !strings.Contains(why, fmt.Sprintf("process %d", owner)) || !strings.Contains(why, "not renewed for") || strings.Contains(why, "died") {
		t.Fatalf("the init whose lease ran out must be marked failed naming process %d and its lease: %v %q\n%s", owner, rec["state"], why, fix)
	}
	os.WriteFile(release, nil, 0o644)
}

// A sync, a merge or a removal that is held up longer than wt.orphanGrace
// renews its lease as an init does: a doctor --fix that cannot see its
// process leaves the task in its operation, which then ends as it would
// have.
func TestLongOperationsRenewTheirLease(t *testing.T) {
	if !testutil.IsRoot() {
		t.Skip("a PID namespace needs root (CI runs as root)")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare (util-linux) is not installed")
	}
	const grace = 4 * time.Second
	for _, c := range []struct {
		checkpoint, state string
		args              []string
	}{
		{"sync:moved", "syncing", []string{"sync", "T"}},
		{"merge:merging", "merging", []string{"merge", "T"}},
		{"rm:renamed", "removing", []string{"rm", "T"}},
	} {
		t.Run(c.args[0], func(t *testing.T) {
			t.Parallel()
			s := testutil.NewSandbox(t)
			path := s.MustWT("new", "-q", "T").Out()
			s.Write(filepath.Join(path, "work.txt"), "the task's work\n")
			s.Git(path, "add", "work.txt")
			s.Git(path, "commit", "-qm", "work")
			s.Write(filepath.Join(s.Repo, "main.txt"), "the base moves on\n")
			s.Git(s.Repo, "add", "main.txt")
			s.Git(s.Repo, "commit", "-qm", "base")
			s.Git(s.Repo, "config", "wt.orphanGrace", "4s")
			op, release := stopAtUntil(t, s, c.checkpoint, c.args...)
			for end := time.Now().Add(2*grace + grace/2); time.Now().Before(end); {
				time.Sleep(grace / 2) // the lease's own time: nothing to wait for but the clock
				r := blindWT(t, s, "pidns", s.Repo, "doctor", "--fix")
				if got := readRecord(t, s, "T")["state"]; got != c.state {
					t.Fatalf("doctor --fix in a PID namespace while %s runs left the task %v, want %s: %s", c.args[0], got, c.state, r)
				}
				if regexp.MustCompile(`leftover-merge-worktree: .*\[fixed\]`).MatchString(r.Stdout) {
					t.Fatalf("doctor --fix in a PID namespace took the temporary worktree %s works in: %s", c.args[0], r)
				}
			}
			os.WriteFile(release, nil, 0o644)
			if code := exitCode(op); code != 0 {
				t.Fatalf("%s, held past the grace, exited %d", c.args[0], code)
			}
		})
	}
}
