//go:build unix

// These tests protect what a task record may make git-wt do (SPEC §19):
// records are refs that anything able to write the git dir can write, so a
// hand-edited record is never a removal of a folder git-wt cannot prove
// is the task's worktree, nor a signal to a process group git-wt did not
// start for the task.
package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// otherRepoWorktree makes, beside the sandbox's repository, another
// repository with a clean linked worktree that holds an ignored .env (a
// secret nobody committed), and returns the worktree and the secret.
func otherRepoWorktree(t *testing.T, s *testutil.Sandbox) (wt, secret string) {
	t.Helper()
	root := filepath.Dir(s.Repo)
	other := filepath.Join(root, "other")
	s.Git(root, "init", "-q", "-b", "main", "other")
	s.Write(filepath.Join(other, ".gitignore"), ".env\n")
	s.Git(other, "add", ".")
	s.Git(other, "commit", "-q", "-m", "other")
	wt = filepath.Join(root, "other-wt")
	s.Git(other, "worktree", "add", "-q", "-b", "feat", wt)
	secret = filepath.Join(wt, ".env")
	s.Write(secret, "TOKEN=s3cret\n")
	return wt, secret
}

// A record written by hand that names another repository's clean
// worktree is no removal of it: not by gc, doctor --fix or rm (the
// review's repro: all three deleted it, its ignored .env included).
func TestForgedRecordNeverRemovesAnotherRepositorysWorktree(t *testing.T) {
	for _, args := range [][]string{{"gc"}, {"doctor", "--fix"}, {"rm", "v"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			s := testutil.NewSandbox(t)
			s.Git(s.Repo, "config", "wt.orphanGrace", "0s")
			s.MustWT("new", "a")
			victim, secret := otherRepoWorktree(t, s)
			rec := readRecord(t, s, "a")
			rec["task"], rec["slug"], rec["path"] = "v", "v", victim
			rec["created_at"], rec["last_access_at"] = "2020-01-01T00:00:00Z", "2020-01-01T00:00:00Z"
			writeRecord(t, s, "v", rec)
			r := s.WT(args...)
			if !testutil.Exists(secret) {
				t.Fatalf("git wt %s deleted another repository's worktree %s that a forged record named: %s", strings.Join(args, " "), victim, r)
			}
			if args[0] == "rm" && (r.Code != 3 || strings.Count(r.Stderr, "\n") != 1) {
				t.Fatalf("rm of a record that names another repository's worktree: want exit 3 with one line, got %s", r)
			}
		})
	}
}

// rm --force of a record whose path was rewritten to a folder outside the
// base dir (the user's home, in the review) refuses and deletes nothing.
func TestForcedRmOfARewrittenRecordLeavesAFolderOutside(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.MustWT("new", "a")
	outside := filepath.Join(s.Home, "precious")
	s.Write(filepath.Join(outside, "notes.txt"), "mine\n")
	rec := readRecord(t, s, "a")
	rec["path"] = outside
	writeRecord(t, s, "a", rec)
	r := s.WT("rm", "--force", "a")
	if !testutil.Exists(filepath.Join(outside, "notes.txt")) {
		t.Fatalf("rm --force deleted %s, a folder outside the base dir that a forged record named: %s", outside, r)
	}
	if r.Code != 3 || strings.Count(r.Stderr, "\n") != 1 {
		t.Fatalf("rm --force of a record that names a folder outside the base dir: want exit 3 with one line, got %s", r)
	}
}

// A record stuck in creation and an admin entry, both written by hand,
// that name a folder outside the base dir never have git-wt make that
// folder a worktree (finish the "killed" add by writing a .git file into
// it), which its rollback would then delete, ignored files and all.
func TestForgedStuckCreationNeverAdoptsAFolderOutside(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.MustWT("new", "x")
	outside := filepath.Join(s.Home, "precious")
	s.Write(filepath.Join(outside, "STATE.json"), "{}\n") // ignored by the repository's .gitignore
	rec := readRecord(t, s, "x")
	rec["state"], rec["creator_pid"], rec["creator_start"], rec["path"] = "creating", 999999999, "", outside
	writeRecord(t, s, "x", rec)
	s.Write(filepath.Join(s.Repo, ".git", "worktrees", "precious", "gitdir"), filepath.Join(outside, ".git")+"\n")
	r := s.WT("doctor", "--fix")
	if !testutil.Exists(filepath.Join(outside, "STATE.json")) {
		t.Fatalf("doctor --fix deleted %s, a folder outside the base dir that a forged record named: %s", outside, r)
	}
	if testutil.Exists(filepath.Join(outside, ".git")) {
		t.Fatalf("doctor --fix wrote a .git file into %s, a folder outside the base dir", outside)
	}
}

// A record that names a process group git-wt did not start (the leader's
// start time is public, so it proves nothing) never has that group
// killed: new of the stuck task leaves it alive.
func TestForgedRecordNeverKillsAProcessGroup(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.MustWT("new", "x")
	victim := exec.Command("sleep", "1000")
	victim.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { victim.Process.Kill(); victim.Wait() })
	pid := victim.Process.Pid
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Skip("no /proc here")
	}
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		t.Skip("no PID namespace link here")
	}
	fields := strings.Fields(string(stat)[strings.LastIndexByte(string(stat), ')')+1:])
	rec := readRecord(t, s, "x")
	rec["state"], rec["creator_pid"], rec["creator_start"] = "creating", 999999999, ""
	rec["init"] = map[string]any{"ran": true, "status": "running", "pgid": pid, "pgid_start": fields[19],
		"pgid_pidns": strings.TrimSuffix(strings.TrimPrefix(ns, "pid:["), "]")}
	writeRecord(t, s, "x", rec)
	r := s.WT("new", "x")
	if !alive(pid) {
		t.Fatalf("new of a forged record killed process group %d, which git-wt never started: %s", pid, r)
	}
	if !strings.Contains(r.Stderr, "left alone") {
		t.Fatalf("new left process group %d alone without saying so: %s", pid, r)
	}
}

// A record whose path was rewritten to a place outside the base dir never
// has new make the task's worktree there (a plugin folder, say, which
// another program runs code from): new refuses, exit 3, nothing written.
func TestForgedRecordNeverHasNewWriteOutsideTheBaseDir(t *testing.T) {
	for _, state := range []string{"active", "creating"} {
		t.Run(state, func(t *testing.T) {
			s := testutil.NewSandbox(t)
			path := s.MustWT("new", "x").Out()
			rec := readRecord(t, s, "x")
			s.MustWT("rm", "--wait", "x")
			outside := filepath.Join(s.Home, ".vim", "pack", "x", "start", "x")
			rec["path"] = outside
			if state == "creating" {
				rec["state"], rec["creator_pid"], rec["creator_start"] = "creating", 999999999, ""
			}
			writeRecord(t, s, "x", rec)
			r := s.WT("new", "x")
			if testutil.Exists(outside) {
				t.Fatalf("new made the worktree %s outside the base dir (not %s) for a forged record: %s", outside, path, r)
			}
			if r.Code != 3 || strings.Count(r.Stderr, "\n") != 1 {
				t.Fatalf("new of a record that names a path outside the base dir: want exit 3 with one line, got %s", r)
			}
		})
	}
}

// .git/worktrees swapped for a link to another clone's worktrees folder
// makes git list that clone's worktrees as this repository's: a record
// naming one (and its branch) is still no removal of it (the second
// review's repro: plain rm deleted it and its admin entry).
func TestLinkedWorktreesFolderNeverRemovesAnotherClonesWorktree(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.MustWT("new", "a")
	root := filepath.Dir(s.Repo)
	other, victim := filepath.Join(root, "other"), filepath.Join(root, "other-wt")
	s.Git(root, "clone", "-q", s.Repo, other)
	s.Git(other, "worktree", "add", "-q", "-b", "feat", victim)
	secret := filepath.Join(victim, ".env")
	s.Write(secret, "TOKEN=s3cret\n")
	for _, repo := range []string{other, s.Repo} {
		s.Write(filepath.Join(repo, ".git", "info", "exclude"), ".env\n")
	}
	worktrees := filepath.Join(s.Repo, ".git", "worktrees")
	if err := os.Rename(worktrees, worktrees+".bak"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(other, ".git", "worktrees"), worktrees); err != nil {
		t.Fatal(err)
	}
	rec := readRecord(t, s, "a")
	rec["task"], rec["slug"], rec["path"], rec["branch"] = "v", "v", victim, "feat"
	writeRecord(t, s, "v", rec)
	r := s.WT("rm", "v")
	if !testutil.Exists(secret) {
		t.Fatalf("rm v deleted another clone's worktree %s reached through a linked .git/worktrees: %s", victim, r)
	}
	if r.Code != 3 || strings.Count(r.Stderr, "\n") != 1 {
		t.Fatalf("rm of another clone's worktree: want exit 3 with one line, got %s", r)
	}
}

// takenOver makes the tasks a and b, an ignored .env in b's worktree, and
// rewrites a's record to name b's worktree (change edits it further).
func takenOver(t *testing.T, change func(rec map[string]any)) (s *testutil.Sandbox, b, secret string) {
	t.Helper()
	s = testutil.NewSandbox(t)
	s.MustWT("new", "a")
	b = s.MustWT("new", "b").Out()
	s.Write(filepath.Join(s.Repo, ".git", "info", "exclude"), ".env\n")
	secret = filepath.Join(b, ".env")
	s.Write(secret, "TOKEN=s3cret\n")
	rec := readRecord(t, s, "a")
	rec["path"] = b
	if change != nil {
		change(rec)
	}
	writeRecord(t, s, "a", rec)
	return s, b, secret
}

// A record that names ANOTHER task's worktree is no removal of it, even
// with --force (the second review's repro: rm a deleted b, its .env too).
func TestRmOfARecordNamingAnotherTasksWorktreeKeepsIt(t *testing.T) {
	for _, args := range [][]string{{"rm", "a"}, {"rm", "--force", "a"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			s, b, secret := takenOver(t, nil)
			r := s.WT(args...)
			if !testutil.Exists(secret) {
				t.Fatalf("git wt %s deleted b's worktree %s, which a's record named: %s", strings.Join(args, " "), b, r)
			}
			if r.Code != 3 || strings.Count(r.Stderr, "\n") != 1 || !strings.Contains(r.Stderr, b) {
				t.Fatalf("want exit 3 with one line naming %s, got %s", b, r)
			}
		})
	}
}

// A stuck creation whose record names another task's worktree does not
// take it over (the second review's repro: new a pointed b's HEAD at wt/a).
func TestResumedCreationNeverTakesOverAnotherTasksWorktree(t *testing.T) {
	s, b, _ := takenOver(t, func(rec map[string]any) {
		rec["state"], rec["creator_pid"] = "creating", 999999
		rec["created_at"], rec["changed_at"] = "2020-01-01T00:00:00Z", "2020-01-01T00:00:00Z"
	})
	r := s.WT("new", "a")
	if head := s.Git(b, "symbolic-ref", "HEAD"); head != "refs/heads/wt/b" {
		t.Fatalf("new a moved b's worktree to %s: %s", head, r)
	}
	if r.Code != 3 || strings.Count(r.Stderr, "\n") != 1 {
		t.Fatalf("new a over b's worktree: want exit 3 with one line, got %s", r)
	}
}
