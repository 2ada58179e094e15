//go:build unix

// These tests protect SPEC §15, "unknown is never dead": where git-wt
// cannot see every process — /proc hidden under an empty tmpfs, absent in
// a chroot, a PID namespace of its own (with its own /proc, or its
// parent's), or the fallback build — a live process's work is never
// removed, rolled back or unlocked. Each case runs git-wt there while the
// live process runs outside, as an agent in a sandbox beside others would.
package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/place"
	"github.com/git-wt/git-wt/internal/proc"
	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/testutil"
)

// blindSh runs "$@" in folder $2 in the blind place $1.
const blindSh = `mode=$1 dir=$2; shift 2
case $mode in
empty-proc) exec unshare -m --propagation private sh -c 'mount -t tmpfs none /proc && cd "$0" && exec "$@"' "$dir" "$@" ;;
chroot) exec unshare -m --propagation private sh -c 'r=$(mktemp -d) && mount --rbind / "$r" && umount -l "$r/proc" && exec chroot "$r" sh -c "cd \"\$0\" && exec \"\$@\"" "$0" "$@"' "$dir" "$@" ;;
pidns) cd "$dir" && exec unshare --pid --fork --mount-proc "$@" ;;
pidns-host-proc) cd "$dir" && exec unshare --pid --fork "$@" ;;
fallback) cd "$dir" && exec "$@" ;;
esac
echo "unknown mode $mode" >&2; exit 99`

// blindPlaces are the places where git-wt cannot see every process.
var blindPlaces = []string{"empty-proc", "chroot", "pidns", "pidns-host-proc", "fallback"}

// forEachBlindPlace runs test once in each blind place, with a function
// that runs git-wt there; the namespaces need root.
func forEachBlindPlace(t *testing.T, test func(t *testing.T, blind func(s *testutil.Sandbox, dir string, args ...string) testutil.Result)) {
	if !testutil.IsRoot() {
		t.Skip("running git-wt in a mount or PID namespace needs root (CI runs as root)")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare (util-linux) is not installed")
	}
	for _, mode := range blindPlaces {
		t.Run(mode, func(t *testing.T) {
			test(t, func(s *testutil.Sandbox, dir string, args ...string) testutil.Result {
				t.Helper()
				return blindWT(t, s, mode, dir, args...)
			})
		})
	}
}

// blindWT runs git-wt with args in dir in the blind place mode.
func blindWT(t *testing.T, s *testutil.Sandbox, mode, dir string, args ...string) testutil.Result {
	t.Helper()
	bin := testutil.BinDir(t)
	env := s.Env
	if mode == "fallback" {
		bin = testutil.FallbackBinDir(t)
		env = replaceEnv(env, "PATH", bin+":"+os.Getenv("PATH")) // git wt and the hooks find it first
	}
	argv := append([]string{"-c", blindSh, "blind", mode, dir, filepath.Join(bin, "git-wt")}, args...)
	cmd := exec.Command("sh", argv...)
	cmd.Env = env
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := testutil.Result{Stdout: stdout.String(), Stderr: stderr.String(), Code: exitStatus(t, err)}
	if r.Code == 99 || strings.Contains(r.Stderr, "unshare: ") || strings.Contains(r.Stderr, "mount: ") {
		t.Fatalf("cannot make the blind place %s: %s", mode, r)
	}
	return r
}

// Row 1: rm while a process outside works in the task's folder.
func TestBlindRmRefusesWhatItCannotSee(t *testing.T) {
	forEachBlindPlace(t, func(t *testing.T, blind func(*testutil.Sandbox, string, ...string) testutil.Result) {
		s := testutil.NewSandbox(t)
		path := s.MustWT("new", "-q", "T").Out()
		startIn(t, path, "sleep", "300")
		r := blind(s, s.Repo, "rm", "T")
		if r.Code != 3 || !strings.Contains(r.Stderr, "cannot tell whether a process works in it") || !testutil.Exists(path) {
			t.Fatalf("rm of a task whose users cannot be seen must refuse (exit 3) and keep it: %s", r)
		}
		var doc []struct {
			Error struct{ Kind string } `json:"error"`
		}
		r = blind(s, s.Repo, "rm", "--json", "T")
		if err := json.Unmarshal([]byte(r.Stdout), &doc); err != nil || len(doc) != 1 || doc[0].Error.Kind != "in_use" {
			t.Fatalf("rm --json: want one entry of kind in_use: %s", r)
		}
		// --ignore-in-use skips that check only: a dirty task is still kept.
		s.Write(filepath.Join(path, "work.txt"), "the agent's work\n")
		if r := blind(s, s.Repo, "rm", "--ignore-in-use", "T"); r.Code != 3 || !testutil.Exists(filepath.Join(path, "work.txt")) {
			t.Fatalf("rm --ignore-in-use of a dirty task must keep it: %s", r)
		}
		os.Remove(filepath.Join(path, "work.txt"))
		if r := blind(s, s.Repo, "rm", "-q", "--ignore-in-use", "T"); r.Code != 0 || testutil.Exists(path) {
			t.Fatalf("rm --ignore-in-use of a clean task: %s", r)
		}
		other := s.MustWT("new", "-q", "U").Out()
		startIn(t, other, "sleep", "300")
		if r := blind(s, s.Repo, "rm", "-q", "--force", "U"); r.Code != 0 || testutil.Exists(other) {
			t.Fatalf("rm --force still removes: %s", r)
		}
	})
}

// Row 2: doctor --fix and gc while a creation runs outside.
func TestBlindRepairsLeaveALiveCreation(t *testing.T) {
	forEachBlindPlace(t, func(t *testing.T, blind func(*testutil.Sandbox, string, ...string) testutil.Result) {
		s := testutil.NewSandbox(t)
		creator, release := stopAtUntil(t, s, "new:checked-out", "new", "T")
		for _, repair := range [][]string{{"doctor", "--fix"}, {"gc"}} {
			r := blind(s, s.Repo, repair...)
			if state := readRecord(t, s, "T")["state"]; state != "creating" {
				t.Fatalf("%v rolled back a live creation (state %v): %s", repair, state, r)
			}
		}
		// Where kill(pid, 0) reaches the creator it is alive; elsewhere
		// doctor says it cannot tell. Never that it stopped.
		r := blind(s, s.Repo, "doctor")
		if strings.Contains(r.Stdout, "stopped in state") {
			t.Fatalf("doctor calls a live creation stopped: %s", r)
		}
		os.WriteFile(release, nil, 0o644)
		if code := exitCode(creator); code != 0 {
			t.Fatalf("the creation itself failed: exit %d", code)
		}
		if state := readRecord(t, s, "T")["state"]; state != "active" {
			t.Fatalf("the creation ended %v", state)
		}
	})
}

// Row 3: doctor --fix while live gits hold an index.lock and a ref lock.
func TestBlindDoctorKeepsLiveLocks(t *testing.T) {
	forEachBlindPlace(t, func(t *testing.T, blind func(*testutil.Sandbox, string, ...string) testutil.Result) {
		s := testutil.NewSandbox(t)
		s.MustWT("new", "-q", "T")
		index := filepath.Join(s.Repo, ".git", "worktrees", "T", "index.lock")
		holdOpen(t, index)
		ref := holdRefLock(t, s, "refs/heads/held")
		r := blind(s, s.Repo, "doctor", "--fix")
		if !testutil.Exists(index) || !testutil.Exists(ref) {
			t.Fatalf("doctor --fix deleted a lock a live process holds: %s", r)
		}
		if !strings.Contains(r.Stdout, "cannot be told here") {
			t.Fatalf("doctor must say it cannot tell who holds the locks: %s", r)
		}
		if r := s.WT("doctor", "--fix"); !testutil.Exists(index) || !testutil.Exists(ref) {
			t.Fatalf("doctor --fix outside deleted a held lock: %s", r)
		}
		// A person who knows better deletes them with --force.
		blind(s, s.Repo, "doctor", "--fix", "--force")
		if testutil.Exists(index) || testutil.Exists(ref) {
			t.Fatal("doctor --fix --force kept the locks")
		}
	})
}

// Row 4: a second new of a task whose first new runs outside.
func TestBlindNewDoesNotResumeALiveCreation(t *testing.T) {
	forEachBlindPlace(t, func(t *testing.T, blind func(*testutil.Sandbox, string, ...string) testutil.Result) {
		s := testutil.NewSandbox(t)
		creator, release := stopAtUntil(t, s, "new:checked-out", "new", "T")
		quick := withVars(s, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=wt.lockTimeout", "GIT_CONFIG_VALUE_0=1s")
		r := blind(quick, s.Repo, "new", "T")
		if r.Code == 0 || strings.Contains(r.Stderr, "resumed") {
			t.Fatalf("a second new resumed a live creation: %s", r)
		}
		if pid := readRecord(t, s, "T")["creator_pid"]; int(pid.(float64)) != creator.Process.Pid {
			t.Fatalf("the record was taken over by process %v", pid)
		}
		os.WriteFile(release, nil, 0o644)
		if code := exitCode(creator); code != 0 {
			t.Fatalf("the first new failed: exit %d", code)
		}
		if r := blind(s, s.Repo, "new", "T"); r.Code != 0 || !testutil.Exists(filepath.Join(r.Out(), "README.md")) {
			t.Fatalf("new of the finished task: %s", r)
		}
	})
}

// holdOpen makes the file at path and keeps it open in a live process
// (as a git holds its lock), started outside any namespace.
func holdOpen(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	holder := exec.Command("sleep", "300")
	holder.ExtraFiles = []*os.File{f}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	t.Cleanup(func() { holder.Process.Kill(); holder.Wait() })
}

// holdRefLock has a real git hold the lock of ref: a git update-ref
// --stdin transaction prepared and not yet committed. It returns the
// lock file.
func holdRefLock(t *testing.T, s *testutil.Sandbox, ref string) string {
	t.Helper()
	head := s.Git(s.Repo, "rev-parse", "HEAD")
	cmd := exec.Command("git", "update-ref", "--stdin")
	cmd.Dir, cmd.Env = s.Repo, s.Env
	in, out := startPiped(t, cmd)
	t.Cleanup(func() { in.Close(); cmd.Process.Kill(); cmd.Wait() })
	io.WriteString(in, "start\ncreate "+ref+" "+strings.TrimSpace(head)+"\nprepare\n")
	buf := make([]byte, len("start: ok\nprepare: ok\n"))
	if _, err := io.ReadFull(out, buf); err != nil {
		t.Fatalf("git update-ref --stdin did not prepare: %v", err)
	}
	lock := filepath.Join(s.Repo, ".git", filepath.FromSlash(ref)+".lock")
	if !testutil.Exists(lock) {
		t.Fatalf("no lock file %s", lock)
	}
	return lock
}

// A creation's rollback drops only what is still its own (SPEC §15). Here
// a process that cannot see the creator took the task over once
// wt.orphanGrace (0) had passed: doctor marked it failed because an
// agent's file was in it, or a second new resumed it. The first creator,
// let go, must then leave the task alone, and report what became of it.
func TestARolledBackCreationLeavesATaskTakenOver(t *testing.T) {
	if !testutil.IsRoot() {
		t.Skip("a PID namespace needs root (CI runs as root)")
	}
	noGrace := func(s *testutil.Sandbox) *testutil.Sandbox {
		return withVars(s, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=wt.orphanGrace", "GIT_CONFIG_VALUE_0=0s")
	}
	t.Run("doctor marked it failed", func(t *testing.T) {
		s := testutil.NewSandbox(t)
		creator, release := stopAtUntil(t, s, "new:checked-out", "new", "T")
		path := readRecord(t, s, "T")["path"].(string)
		work := filepath.Join(path, "agent.txt")
		s.Write(work, "the agent's work\n")
		if r := blindWT(t, noGrace(s), "pidns", s.Repo, "doctor", "--fix"); readRecord(t, s, "T")["state"] != "failed" {
			t.Fatalf("doctor in a PID namespace, past the grace, did not mark the creation failed: %s", r)
		}
		os.WriteFile(release, nil, 0o644)
		exitCode(creator)
		if !testutil.Exists(work) {
			t.Fatal("the first creator's rollback deleted the agent's file in a task doctor kept")
		}
		if state := readRecord(t, s, "T")["state"]; state != "failed" {
			t.Fatalf("the task doctor kept is %v now", state)
		}
	})
	t.Run("a second new resumed it", func(t *testing.T) {
		s := testutil.NewSandbox(t)
		creator, release := stopAtUntil(t, s, "new:checked-out", "new", "T")
		second := blindWT(t, noGrace(s), "pidns", s.Repo, "new", "T")
		if second.Code != 0 {
			t.Fatalf("the second new: %s", second)
		}
		os.WriteFile(release, nil, 0o644)
		if code := exitCode(creator); code != 0 {
			t.Fatalf("the first new was not told about the task the second made: exit %d", code)
		}
		if state := readRecord(t, s, "T")["state"]; state != "active" || !testutil.Exists(filepath.Join(second.Out(), "README.md")) {
			t.Fatalf("the task both made is %v, its folder %s", state, second.Out())
		}
	})
}

// What git-wt names after a process (a merge's temporary folder, a
// removal's folder in the trash) is judged by the stamp beside it, never
// by its pid alone: in PID namespaces of their own, sandboxed git-wts are
// process 1 or 2, which on the host are always alive. A stamp its merge
// left before making its worktree is removed once that merge is dead; a
// trash folder named for process 1 goes once wt.orphanGrace (0) passed.
func TestNamesWithAPidAreJudgedByTheirStamp(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "-q", "T").Out()
	base := filepath.Dir(path)
	tmp := filepath.Join(base, place.MergeTmpDir)
	stamp := place.StampOf(deadMergesFolder(t, s, tmp))
	trashed := filepath.Join(base, place.TrashDir, "old.1")
	s.Write(filepath.Join(trashed, "x.txt"), "what an rm in a sandbox was deleting\n")
	noGrace := withVars(s, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=wt.orphanGrace", "GIT_CONFIG_VALUE_0=0s")
	r := noGrace.WT("doctor", "--fix")
	if testutil.Exists(stamp) || testutil.Exists(tmp) {
		t.Fatalf("doctor --fix kept the stamp of a dead merge that made no worktree: %s", r)
	}
	if testutil.Exists(trashed) {
		t.Fatalf("doctor --fix kept a trash folder named for process 1 past the grace: %s", r)
	}
	if !testutil.Exists(filepath.Join(path, "README.md")) {
		t.Fatal("the task was touched")
	}
}

// deadMergesFolder is the path of the temporary worktree of a merge that
// died, in the folder of temporary worktrees tmp, with the stamp of that
// merge written beside it.
func deadMergesFolder(t *testing.T, s *testutil.Sandbox, tmp string) string {
	t.Helper()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	dead := proc.Self()
	dead.PID, dead.Start = gone.Process.Pid, "1"
	stampData, _ := json.Marshal(dead)
	path := filepath.Join(tmp, fmt.Sprintf("merge-%d-0000abcd", dead.PID))
	s.Write(place.StampOf(path), string(stampData))
	return path
}

// A merge killed while git made its temporary worktree — after git made
// its admin entry and locked it "initializing", before it wrote the
// entry's gitdir file (and maybe before it made the folder) — leaves a
// folder and an entry git does not list, and that git worktree prune
// keeps for its lock: doctor reports them once the merge is dead, and
// --fix deletes them with the merge's stamp (the stress test's stray
// .git-wt-tmp).
func TestAMergeKilledWhileGitMadeItsTemporaryWorktreeLeavesNothing(t *testing.T) {
	for _, folderMade := range []bool{true, false} {
		t.Run(fmt.Sprintf("folder made %v", folderMade), func(t *testing.T) {
			s := testutil.NewSandbox(t)
			base := filepath.Dir(s.MustWT("new", "-q", "T").Out())
			tmp := filepath.Join(base, place.MergeTmpDir)
			path := deadMergesFolder(t, s, tmp)
			if folderMade {
				if err := os.Mkdir(path, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			entry := filepath.Join(s.Repo, ".git", "worktrees", filepath.Base(path))
			s.Write(filepath.Join(entry, "locked"), "initializing")
			mine := filepath.Join(s.Repo, ".git", "worktrees", "mine")
			s.Write(filepath.Join(mine, "locked"), "initializing")
			if r := s.WT("doctor"); r.Code != 1 || !strings.Contains(r.Stdout, "leftover-merge-worktree") {
				t.Fatalf("doctor after a merge killed while git made its temporary worktree: %s", r)
			}
			s.WT("doctor", "--fix")
			if !testutil.Exists(entry) || !testutil.Exists(place.StampOf(path)) {
				t.Fatal("doctor --fix went on while git may still be adding the worktree (its entry was locked a moment ago), or dropped the stamp by which the entry is found again")
			}
			ageAll(t, entry, time.Minute) // git writes gitdir right after the lock
			s.WT("doctor", "--fix")
			for _, left := range []string{path, place.StampOf(path), entry, tmp} {
				if testutil.Exists(left) {
					t.Errorf("doctor --fix left %s", left)
				}
			}
			if !testutil.Exists(filepath.Join(mine, "locked")) {
				t.Error("doctor --fix deleted an entry no merge of git-wt's made")
			}
		})
	}
}

// A detached git gc --auto killed with its sandbox (the end of a PID
// namespace kills every process in it) leaves gc.log.lock, on which every
// later auto gc there dies: doctor --fix deletes it when nobody holds
// it, and keeps it while a process does.
func TestDoctorDeletesAKilledAutoGCsLock(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.MustWT("new", "-q", "T")
	stale := filepath.Join(s.Repo, ".git", "worktrees", "T", "gc.log.lock")
	s.Write(stale, "")
	held := filepath.Join(s.Repo, ".git", "gc.log.lock")
	holdOpen(t, held)
	r := s.WT("doctor", "--fix")
	if testutil.Exists(stale) || !strings.Contains(r.Stdout, "stale-gc-lock") {
		t.Fatalf("doctor --fix kept a gc.log.lock nobody holds: %s", r)
	}
	if !testutil.Exists(held) {
		t.Fatalf("doctor --fix deleted a gc.log.lock a live process holds: %s", r)
	}
}

// Every git-wt that runs as the first process of a PID namespace has pid
// 1 there, on the same host: pid and host alone do not say two processes
// are one. The stress test lost files so: an rm in one sandbox was killed
// with the task's folder in the trash; a doctor --fix in another took
// that removal for its own (pid 1 on the same host), skipped the look at
// the folder, said the worktree was already gone and dropped the record,
// and gc then deleted the folder as leftover trash. The doctor must judge
// the removal as another process's and put the folder back.
func TestARemovalByPid1ElsewhereIsNotTakenForOnesOwn(t *testing.T) {
	if !testutil.IsRoot() {
		t.Skip("running git-wt in a PID namespace needs root (CI runs as root)")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare (util-linux) is not installed")
	}
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "-q", "T").Out()
	reached := filepath.Join(t.TempDir(), "reached")
	rm := exec.Command("sh", "-c", blindSh, "blind", "pidns", s.Repo, filepath.Join(testutil.BinDir(t), "git-wt"), "rm", "--ignore-in-use", "T")
	rm.Env = append(append([]string(nil), s.Env...), task.CheckpointEnv+"=rm:renamed", task.CheckpointEnv+"_FILE="+reached)
	rm.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // a sandbox sees no process outside: --ignore-in-use
	if err := rm.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return testutil.Exists(reached) })
	syscall.Kill(-rm.Process.Pid, syscall.SIGKILL) // the sandbox ends: its pid 1 and all in it
	rm.Wait()
	trash := filepath.Join(filepath.Dir(path), place.TrashDir, "T.1")
	if !testutil.Exists(trash) {
		t.Fatalf("the killed rm did not leave the folder at %s: the test tests nothing", trash)
	}
	// Written just before the move: the second look rm never made would
	// have seen it.
	s.Write(filepath.Join(trash, "late.txt"), "the agent's last file\n")
	noGrace := withVars(s, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=wt.orphanGrace", "GIT_CONFIG_VALUE_0=0s")
	r := blindWT(t, noGrace, "pidns", s.Repo, "doctor", "--fix")
	noGrace.WT("gc")
	if data, err := os.ReadFile(filepath.Join(path, "late.txt")); err != nil || string(data) != "the agent's last file\n" {
		t.Fatalf("the file in the killed removal's folder is not back in the task (%v); doctor --fix in another PID namespace said:\n%s", err, r)
	}
	if r := s.WT("doctor"); r.Code != 0 {
		t.Fatalf("doctor after the repair: %s", r)
	}
}
