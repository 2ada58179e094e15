//go:build unix

// These tests protect cleanup: doctor finds each kind of orphan, gc and
// doctor --fix repair them within the rules (grace, dirty, mass-missing),
// retention removes only clean merged or pushed work, least recently used
// first, and locked worktrees survive.
package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/testutil"
)

func TestDoctorFindsAndFixesEachOrphan(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "config", "wt.orphanGrace", "0")
	s.MustWT("new", "healthy-1")
	s.MustWT("new", "healthy-2")
	missing := s.MustWT("new", "missing").Out()
	os.RemoveAll(missing)
	foreign := filepath.Join(filepath.Dir(s.Repo), "foreign")
	s.Git(s.Repo, "worktree", "add", "-q", foreign)
	gone := filepath.Join(filepath.Dir(s.Repo), "gone")
	s.Git(s.Repo, "worktree", "add", "-q", "--detach", gone)
	os.RemoveAll(gone)
	s.Git(s.Repo, "branch", "wt/leftover")

	r := s.WT("doctor", "--json")
	if r.Code != 1 {
		t.Fatalf("doctor: %s", r)
	}
	var problems []struct{ Kind, Path, Branch string }
	if err := json.Unmarshal([]byte(r.Stdout), &problems); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, p := range problems {
		kinds[p.Kind] = p.Path
		if p.Kind == string(task.LeftoverBranch) {
			kinds[p.Kind] = p.Branch
		}
	}
	want := map[string]string{
		string(task.MissingWorktree): missing, string(task.ForeignWorktree): foreign, string(task.PrunableEntry): gone,
		string(task.LeftoverBranch): "wt/leftover",
	}
	for k, v := range want {
		if kinds[k] != v {
			t.Errorf("doctor reports %s as %q, want %q (all: %v)", k, kinds[k], v, kinds)
		}
	}
	if r := s.WT("doctor", "--fix"); r.Code != 0 {
		t.Fatalf("doctor --fix: %s", r)
	}
	if r := s.WT("doctor"); r.Code != 0 {
		t.Fatalf("doctor after --fix: %s", r)
	}
	if !testutil.Exists(foreign) || readRecord(t, s, "foreign")["state"] != "adopted" {
		t.Fatal("a foreign worktree must be adopted, never removed")
	}
	if s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/wt/leftover") {
		t.Fatal("the leftover branch was kept")
	}
}

func TestRepairLeavesYoungAndDirtyOrphans(t *testing.T) {
	s := testutil.NewSandbox(t)
	// A branch made just now (its reflog says so) is younger than the grace.
	fresh := exec.Command("git", "branch", "wt/fresh")
	fresh.Dir, fresh.Env = s.Repo, replaceEnv(replaceEnv(s.Env, "GIT_COMMITTER_DATE", ""), "GIT_AUTHOR_DATE", "")
	if out, err := fresh.CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	// A worktree whose admin entry git lost: its status cannot be read, so
	// it counts as dirty; this one really is.
	path := s.MustWT("new", "dirty").Out()
	s.Write(filepath.Join(path, "unsaved.txt"), "work")
	os.RemoveAll(filepath.Join(s.Repo, ".git", "worktrees", "dirty"))
	r := s.WT("doctor", "--fix")
	if r.Code != 1 || !strings.Contains(r.Stdout, task.LeftYoung) || !strings.Contains(r.Stdout, string(task.UnregisteredFolder)) || !strings.Contains(r.Stdout, "kept: ") {
		t.Fatalf("doctor --fix must leave the young branch and the dirty orphan: %s", r)
	}
	if !s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/wt/fresh") {
		t.Fatal("a young branch was deleted")
	}
	if !testutil.Exists(filepath.Join(path, "unsaved.txt")) {
		t.Fatal("a dirty orphan was deleted without --force")
	}
	s.WT("doctor", "--fix", "--force")
	if testutil.Exists(path) {
		t.Fatal("--force must delete the dirty orphan")
	}
}

func TestRepairRefusesWhenMostWorktreesLookMissing(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "config", "wt.orphanGrace", "0s") // orphans go at once
	var paths []string
	for _, id := range []string{"a", "b", "c"} {
		paths = append(paths, s.MustWT("new", id).Out())
	}
	os.RemoveAll(paths[0])
	os.RemoveAll(paths[1])
	r := s.WT("gc")
	if !strings.Contains(r.Stdout, "most worktrees look missing") {
		t.Fatalf("gc with 2 of 3 worktrees missing: %s", r)
	}
	if !s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/git-wt/tasks/a") {
		t.Fatal("gc pruned while most worktrees looked missing")
	}
	s.MustWT("gc", "--force")
	if s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/git-wt/tasks/a") || !s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/git-wt/tasks/c") {
		t.Fatal("gc --force must drop the missing tasks and keep the present one")
	}
}

// age makes a task look unused for d: its record and its access stamp.
func age(t *testing.T, s *testutil.Sandbox, slug string, d time.Duration) {
	t.Helper()
	then := time.Now().Add(-d).UTC()
	rec := readRecord(t, s, slug)
	rec["created_at"], rec["last_access_at"] = then.Format(time.RFC3339Nano), then.Format(time.RFC3339Nano)
	writeRecord(t, s, slug, rec)
	os.Chtimes(filepath.Join(s.Repo, ".git", "wt", "access", slug), then, then)
}

func TestRetentionRemovesOnlyCleanMergedOrPushedWork(t *testing.T) {
	s := testutil.NewSandbox(t)
	for _, id := range []string{"old-clean", "old-dirty", "old-unpushed", "old-locked", "recent"} {
		s.MustWT("new", "--quiet", id)
	}
	wts := filepath.Join(filepath.Dir(s.Repo), "repo-worktrees")
	s.Write(filepath.Join(wts, "old-dirty", "x.txt"), "x")
	s.Write(filepath.Join(wts, "old-unpushed", "y.txt"), "y")
	s.Git(filepath.Join(wts, "old-unpushed"), "add", ".")
	s.Git(filepath.Join(wts, "old-unpushed"), "commit", "-qm", "y")
	s.MustWT("lock", "old-locked")
	for _, id := range []string{"old-clean", "old-dirty", "old-unpushed", "old-locked"} {
		age(t, s, id, 10*24*time.Hour)
	}
	dry := s.MustWT("gc", "--max-age", "7d", "--dry-run")
	if !strings.Contains(dry.Stdout, "old-clean") || !strings.Contains(dry.Stdout, "would remove") {
		t.Fatalf("gc --dry-run:\n%s", dry.Stdout)
	}
	if !testutil.Exists(filepath.Join(wts, "old-clean")) {
		t.Fatal("--dry-run removed something")
	}
	r := s.MustWT("gc", "--max-age", "7d")
	for id, want := range map[string]string{"old-clean": "removed", "old-dirty": "uncommitted", "old-unpushed": "neither merged nor pushed", "old-locked": "locked"} {
		if !strings.Contains(r.Stdout, filepath.Join(wts, id)) || !strings.Contains(lineWith(r.Stdout, id), want) {
			t.Errorf("gc output for %s lacks %q:\n%s", id, want, r.Stdout)
		}
	}
	for id, kept := range map[string]bool{"old-clean": false, "old-dirty": true, "old-unpushed": true, "old-locked": true, "recent": true} {
		if testutil.Exists(filepath.Join(wts, id)) != kept {
			t.Errorf("%s kept=%v, want %v", id, !kept, kept)
		}
	}
	s.MustWT("unlock", "old-locked")
	s.MustWT("gc", "--max-age", "7d")
	if testutil.Exists(filepath.Join(wts, "old-locked")) {
		t.Fatal("an unlocked old worktree survived gc")
	}
}

func lineWith(out, id string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "/"+id+" ") {
			return l
		}
	}
	return ""
}

func TestRetentionMaxCountAndSizeRemoveLeastRecentlyUsed(t *testing.T) {
	s := testutil.NewSandbox(t)
	for i, id := range []string{"a", "b", "c", "d"} {
		s.MustWT("new", "--quiet", id)
		age(t, s, id, time.Duration(10-i)*time.Hour) // a is the least recently used
	}
	s.MustWT("path", "a") // now a is the most recently used
	s.MustWT("gc", "--max-count", "2")
	wts := filepath.Join(filepath.Dir(s.Repo), "repo-worktrees")
	for id, kept := range map[string]bool{"a": true, "b": false, "c": false, "d": true} {
		if testutil.Exists(filepath.Join(wts, id)) != kept {
			t.Errorf("max-count 2: %s kept=%v, want %v", id, !kept, kept)
		}
	}
	s.Git(s.Repo, "config", "wt.maxTotalSize", "1k")
	s.MustWT("gc")
	if r := s.MustWT("count"); r.Out() != "0" {
		t.Fatalf("wt.maxTotalSize 1k must remove every clean worktree: %s", r)
	}
}

func TestLockedWorktreeRefusesRm(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	s.MustWT("lock", "T", "--reason", "agent 7 is on it")
	if !strings.Contains(s.Git(s.Repo, "worktree", "list", "--porcelain"), "locked agent 7 is on it") {
		t.Fatal("lock must use git worktree lock")
	}
	if r := s.WT("rm", "T"); r.Code != 3 || !strings.Contains(r.Stderr, "locked") {
		t.Fatalf("rm of a locked worktree: %s", r)
	}
	if r := s.MustWT("show", "--json", "T"); !strings.Contains(r.Stdout, `"locked": true`) {
		t.Fatalf("show of a locked task:\n%s", r.Stdout)
	}
	s.MustWT("unlock", "T")
	s.MustWT("rm", "T")
	if testutil.Exists(path) {
		t.Fatal("rm after unlock")
	}
}

func TestLogSaysWhoRemovedAWorktreeAndWhy(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	s.Write(filepath.Join(path, "x"), "x")
	s.WT("rm", "T")
	os.Remove(filepath.Join(path, "x"))
	s.MustWT("rm", "T")
	r := s.MustWT("log", "T")
	for _, want := range []string{"new", "created", "refused", "dirty", "rm", "removed", "pid"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("log T lacks %q:\n%s", want, r.Stdout)
		}
	}
	var evs []map[string]any
	if err := json.Unmarshal([]byte(s.MustWT("log", "--json", "-n", "1").Stdout), &evs); err != nil || len(evs) != 1 || evs[0]["outcome"] != "removed" {
		t.Fatalf("log --json -n 1: %v %v", err, evs)
	}
}

func TestNewRunsTheOrphanPartOfGCOncePerInterval(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "config", "wt.orphanGrace", "0s") // orphans go at once
	first := s.MustWT("new", "first").Out()
	os.RemoveAll(first)
	s.MustWT("new", "second") // the stamp was written by the first new: not due
	if !s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/git-wt/tasks/first") {
		t.Fatal("gc --auto ran before wt.gcInterval passed")
	}
	old := time.Now().Add(-48 * time.Hour)
	os.Chtimes(filepath.Join(s.Repo, ".git", "wt", "gc-stamp"), old, old)
	s.MustWT("new", "third")
	if s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/git-wt/tasks/first") {
		t.Fatal("gc --auto did not clean the orphan once due")
	}
}

func TestNewOnAFullDiskFailsCleanly(t *testing.T) {
	s := testutil.NewSandbox(t)
	small := smallDisk(t, s, "1m")
	s.Write("big.bin", strings.Repeat("x", 3<<20))
	s.Git(s.Repo, "add", ".")
	s.Git(s.Repo, "commit", "-qm", "big")
	s.Git(s.Repo, "config", "wt.baseDir", small)
	r := s.WT("new", "T")
	if r.Code != 1 || !strings.Contains(r.Stderr, "not enough disk space") || !strings.Contains(r.Stderr, "needs") {
		t.Fatalf("new on a full disk: %s", r)
	}
	assertNothingLeft(t, s)
	if entries, _ := os.ReadDir(small); len(entries) != 0 {
		t.Fatalf("left in the base dir: %v", entries)
	}
}

// SPEC §14: `gc --max-count 0` / `--max-age 0` mean no limit and override
// the settings; 0 must not fall back to wt.maxCount / wt.maxAge.
func TestGCZeroLimitFlagsOverrideTheSettings(t *testing.T) {
	s := testutil.NewSandbox(t)
	for _, id := range []string{"a", "b"} {
		s.MustWT("new", "--quiet", id)
		age(t, s, id, 10*24*time.Hour)
	}
	count := func() string { return s.MustWT("count").Out() }
	s.Git(s.Repo, "config", "wt.maxAge", "1d")
	s.MustWT("gc", "--max-age", "0")
	if n := count(); n != "2" {
		t.Fatalf("gc --max-age 0 with wt.maxAge=1d must remove nothing, %s tasks left", n)
	}
	s.Git(s.Repo, "config", "--unset", "wt.maxAge")
	s.Git(s.Repo, "config", "wt.maxCount", "1")
	s.MustWT("gc", "--max-count", "0")
	if n := count(); n != "2" {
		t.Fatalf("gc --max-count 0 with wt.maxCount=1 must remove nothing, %s tasks left", n)
	}
	s.MustWT("gc")
	if n := count(); n != "1" {
		t.Fatalf("gc with wt.maxCount=1 must keep one task, %s left", n)
	}
}

// A record whose folder vanished is an orphan like any other (acode
// FR-040: cleanup respects the age threshold): the folder may be away for
// a moment, so the record goes only once wt.orphanGrace has passed since
// it last changed.
func TestAMissingFolderWaitsOutTheGrace(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	os.RemoveAll(path)
	r := s.WT("doctor", "--fix")
	if !s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/git-wt/tasks/T") || !strings.Contains(r.Stdout, "younger than wt.orphanGrace") {
		t.Fatalf("doctor --fix dropped a record whose folder vanished a moment ago: %s", r)
	}
	s.Git(s.Repo, "config", "wt.orphanGrace", "0s")
	s.MustWT("doctor", "--fix")
	if s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/git-wt/tasks/T") {
		t.Fatal("doctor --fix kept the record past the grace")
	}
}
