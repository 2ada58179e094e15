//go:build unix

// These tests protect `git wt sync` (SPEC §12): a never-pushed task is
// rebased, a pushed one merged; stacks sync parents first, and children
// of a squash-merged parent move onto its base; dirty, locked and
// conflicting tasks are left exactly as they were; a dry run changes
// nothing; and a sync killed anywhere is ended by doctor --fix.
package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/testutil"
)

// syncDoc is sync --json.
type syncDoc struct {
	Tasks []struct {
		Task      string
		Outcome   string
		How       string
		Base      string
		From, To  string
		Conflicts []string
		DryRun    bool `json:"dry_run"`
		Error     *struct{ Kind string }
	}
}

// syncJSON runs sync --json with args, wants exit code want, and returns
// each task's outcome by task id.
func syncJSON(t *testing.T, s *testutil.Sandbox, want int, args ...string) (map[string]string, syncDoc) {
	t.Helper()
	r := s.WT(append([]string{"sync", "--json"}, args...)...)
	if r.Code != want {
		t.Fatalf("sync %v: want exit %d: %s", args, want, r)
	}
	var doc syncDoc
	if err := json.Unmarshal([]byte(r.Stdout), &doc); err != nil {
		t.Fatalf("sync --json: %v\n%s", err, r.Stdout)
	}
	outcomes := map[string]string{}
	for _, task := range doc.Tasks {
		outcomes[task.Task] = task.Outcome
	}
	return outcomes, doc
}

// newTaskWithCommit makes a task (with extra new args) and commits a file
// named after it there; it returns the worktree.
func newTaskWithCommit(s *testutil.Sandbox, id string, args ...string) string {
	s.T.Helper()
	path := s.MustWT(append([]string{"new", "-q", id}, args...)...).Out()
	commitFile(s, path, id+".txt", id+"\n", id+" work")
	return path
}

// taskBehindMain is a sandbox with a task T that has a commit of its
// own, and main moved on by a commit that writes name; it returns T's
// worktree and tip, and main's tip.
func taskBehindMain(t *testing.T, name, content string) (s *testutil.Sandbox, path, tip, mainTip string) {
	s = testutil.NewSandbox(t)
	path = newTaskWithCommit(s, "T")
	tip = s.Git(s.Repo, "rev-parse", "wt/T")
	mainTip = commitFile(s, s.Repo, name, content, "main moves on")
	return s, path, tip, mainTip
}

// recordBlob is the blob the task's record ref points at.
func recordBlob(s *testutil.Sandbox, slug string) string {
	return s.Git(s.Repo, "rev-parse", "refs/git-wt/tasks/"+slug)
}

func clean(t *testing.T, s *testutil.Sandbox, dir string) {
	t.Helper()
	if st := s.Git(dir, "status", "--porcelain"); st != "" {
		t.Errorf("%s is not clean after the sync:\n%s", dir, st)
	}
}

func TestSyncRebasesATaskThatWasNeverPushed(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := newTaskWithCommit(s, "T")
	mainTip := commitFile(s, s.Repo, "main.txt", "main\n", "main moves on")
	outcomes, doc := syncJSON(t, s, 0, "T")
	if outcomes["T"] != "rebased" || doc.Tasks[0].How != "rebase" {
		t.Fatalf("outcome %+v, want rebased", doc.Tasks)
	}
	if p := parents(s, "wt/T"); len(p) != 1 || p[0] != mainTip {
		t.Errorf("the task's commit has parents %v, want only main's tip %s (a rebase)", p, mainTip)
	}
	if !testutil.Exists(filepath.Join(path, "main.txt")) || !testutil.Exists(filepath.Join(path, "T.txt")) {
		t.Error("the worktree's files did not follow the branch")
	}
	clean(t, s, path)
	if rec := readRecord(t, s, "T"); rec["base_sha"] != mainTip || rec["state"] != "active" || rec["sync"] != nil {
		t.Errorf("record after sync: base_sha %v, state %v, sync %v", rec["base_sha"], rec["state"], rec["sync"])
	}
	if _, doc := syncJSON(t, s, 0, "T"); doc.Tasks[0].Outcome != "up_to_date" {
		t.Errorf("a second sync: %+v, want up_to_date", doc.Tasks)
	}
}

func TestSyncMergesATaskThatWasPushed(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(filepath.Dir(s.Repo), "init", "-q", "--bare", "origin.git")
	s.Git(s.Repo, "remote", "add", "origin", filepath.Join(filepath.Dir(s.Repo), "origin.git"))
	path := newTaskWithCommit(s, "T")
	s.Git(path, "push", "-q", "-u", "origin", "wt/T")
	pushed := s.Git(path, "rev-parse", "HEAD")
	mainTip := commitFile(s, s.Repo, "main.txt", "main\n", "main moves on")
	if outcomes, _ := syncJSON(t, s, 0, "--all"); outcomes["T"] != "merged" {
		t.Fatalf("outcomes %v, want merged", outcomes)
	}
	if p := parents(s, "wt/T"); len(p) != 2 || p[0] != pushed || p[1] != mainTip {
		t.Errorf("the new tip has parents %v, want the pushed tip then main's (history others have is kept)", p)
	}
	if !testutil.Exists(filepath.Join(path, "main.txt")) {
		t.Error("the worktree's files did not follow the branch")
	}
	clean(t, s, path)
	// --rebase wins over the default.
	commitFile(s, s.Repo, "main2.txt", "main\n", "main moves again")
	if outcomes, _ := syncJSON(t, s, 0, "--rebase", "T"); outcomes["T"] != "rebased" {
		t.Errorf("sync --rebase of a pushed task: %v", outcomes)
	}
}

func TestSyncBringsAThreeDeepStackUpAfterMainMoved(t *testing.T) {
	s := testutil.NewSandbox(t)
	pa := newTaskWithCommit(s, "a")
	pb := newTaskWithCommit(s, "b", "--base", "a") // a task id names its branch
	pc := newTaskWithCommit(s, "c", "--base", "b")
	if rec := readRecord(t, s, "c"); rec["base"] != "refs/heads/wt/b" {
		t.Fatalf("new --base b recorded base %v, want b's branch", rec["base"])
	}
	mainTip := commitFile(s, s.Repo, "main.txt", "main\n", "main moves on")
	// Named children first: the sync still goes parents first.
	outcomes, doc := syncJSON(t, s, 0, "c", "b", "a")
	if got := []string{doc.Tasks[0].Task, doc.Tasks[1].Task, doc.Tasks[2].Task}; strings.Join(got, ",") != "a,b,c" {
		t.Errorf("synced in the order %v, want a,b,c", got)
	}
	for _, id := range []string{"a", "b", "c"} {
		if outcomes[id] != "rebased" {
			t.Errorf("%s: %s, want rebased", id, outcomes[id])
		}
	}
	for _, link := range [][2]string{{"main", "wt/a"}, {"wt/a", "wt/b"}, {"wt/b", "wt/c"}} {
		if n := s.Git(s.Repo, "rev-list", "--count", link[0]+".."+link[1]); n != "1" {
			t.Errorf("%s..%s has %s commits, want the task's own one", link[0], link[1], n)
		}
	}
	if !s.GitOK(s.Repo, "merge-base", "--is-ancestor", mainTip, "wt/c") {
		t.Error("the top of the stack does not have main's new commit")
	}
	for _, p := range []string{pa, pb, pc} {
		clean(t, s, p)
		if !testutil.Exists(filepath.Join(p, "main.txt")) {
			t.Errorf("%s lacks main's file", p)
		}
	}
}

func TestSyncMovesTheChildrenOfASquashMergedParentOntoItsBase(t *testing.T) {
	for _, keep := range []bool{true, false} {
		t.Run(map[bool]string{true: "parent kept", false: "parent removed"}[keep], func(t *testing.T) {
			s := testutil.NewSandbox(t)
			newTaskWithCommit(s, "p")
			c1 := newTaskWithCommit(s, "c1", "--base", "p")
			c2 := newTaskWithCommit(s, "c2", "--base", "p")
			commitFile(s, s.Repo, "main.txt", "main\n", "main moves on")
			args := []string{"merge", "-q", "--squash", "p"}
			if keep {
				args = append(args, "--keep")
			}
			s.MustWT(args...)
			outcomes, _ := syncJSON(t, s, 0, "--all")
			want := map[string]string{"c1": "reparented", "c2": "reparented"}
			if keep {
				want["p"] = "up_to_date" // merged: left alone
			} else {
				// rm moved the children's base to main already.
				want = map[string]string{"c1": "rebased", "c2": "rebased"}
			}
			for id, o := range want {
				if outcomes[id] != o {
					t.Errorf("%s: %s, want %s", id, outcomes[id], o)
				}
			}
			for _, c := range []struct{ id, path string }{{"c1", c1}, {"c2", c2}} {
				if n := s.Git(s.Repo, "rev-list", "--count", "main..wt/"+c.id); n != "1" {
					t.Errorf("main..wt/%s has %s commits, want only the child's own (the parent's are in main's squash)", c.id, n)
				}
				if rec := readRecord(t, s, c.id); rec["base"] != "refs/heads/main" {
					t.Errorf("%s's record has base %v, want main", c.id, rec["base"])
				}
				if !testutil.Exists(filepath.Join(c.path, "p.txt")) || !testutil.Exists(filepath.Join(c.path, c.id+".txt")) {
					t.Errorf("%s lost the parent's or its own file", c.path)
				}
				clean(t, s, c.path)
			}
		})
	}
}

func TestSyncSkipsDirtyAndLockedTasksAndSyncsTheRest(t *testing.T) {
	s := testutil.NewSandbox(t)
	dirty := newTaskWithCommit(s, "dirty")
	newTaskWithCommit(s, "locked")
	newTaskWithCommit(s, "fine")
	s.Write(filepath.Join(dirty, "wip.txt"), "uncommitted\n")
	s.MustWT("lock", "locked")
	before := map[string]string{"dirty": s.Git(s.Repo, "rev-parse", "wt/dirty"), "locked": s.Git(s.Repo, "rev-parse", "wt/locked")}
	commitFile(s, s.Repo, "main.txt", "main\n", "main moves on")
	outcomes, doc := syncJSON(t, s, 3, "--all")
	if outcomes["dirty"] != "skipped_dirty" || outcomes["locked"] != "skipped_locked" || outcomes["fine"] != "rebased" {
		t.Fatalf("outcomes %v", outcomes)
	}
	for _, task := range doc.Tasks {
		if strings.HasPrefix(task.Outcome, "skipped") && (task.Error == nil || task.Error.Kind == "") {
			t.Errorf("%s was skipped without an error object: %+v", task.Task, task)
		}
	}
	for id, tip := range before {
		if got := s.Git(s.Repo, "rev-parse", "wt/"+id); got != tip {
			t.Errorf("the skipped task %s moved to %s", id, got)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dirty, "wip.txt")); string(b) != "uncommitted\n" {
		t.Error("the dirty task's uncommitted file changed")
	}
}

func TestSyncConflictLeavesTaskExactlyAsItWas(t *testing.T) {
	for _, mode := range []string{"--rebase", "--merge"} {
		t.Run(mode, func(t *testing.T) {
			s := testutil.NewSandbox(t)
			path := s.MustWT("new", "-q", "T").Out()
			commitFile(s, path, "README.md", "the task's words\n", "task edits")
			newTaskWithCommit(s, "other")
			commitFile(s, s.Repo, "README.md", "main's words\n", "main edits")
			tip, blob := s.Git(s.Repo, "rev-parse", "wt/T"), recordBlob(s, "T")
			worktrees := s.Git(s.Repo, "worktree", "list", "--porcelain")
			outcomes, doc := syncJSON(t, s, 1, mode, "--all")
			if outcomes["T"] != "conflict" || outcomes["other"] == "conflict" {
				t.Fatalf("outcomes %v: want T to conflict and the other to sync", outcomes)
			}
			for _, task := range doc.Tasks {
				if task.Task == "T" && (len(task.Conflicts) != 1 || task.Conflicts[0] != "README.md" || task.Error.Kind != "conflict") {
					t.Errorf("the conflict's report: %+v", task)
				}
			}
			if got := s.Git(s.Repo, "rev-parse", "wt/T"); got != tip {
				t.Errorf("the branch moved to %s", got)
			}
			if got := recordBlob(s, "T"); got != blob {
				t.Error("the record changed")
			}
			if b, _ := os.ReadFile(filepath.Join(path, "README.md")); string(b) != "the task's words\n" {
				t.Errorf("the file is now %q", b)
			}
			clean(t, s, path)
			if s.GitOK(path, "rev-parse", "-q", "--verify", "REBASE_HEAD") || s.GitOK(path, "rev-parse", "-q", "--verify", "MERGE_HEAD") {
				t.Error("an operation was left in progress in the task")
			}
			if got := s.Git(s.Repo, "worktree", "list", "--porcelain"); strings.Count(got, "worktree ") != strings.Count(worktrees, "worktree ") {
				t.Errorf("worktrees after the conflict:\n%s\nbefore:\n%s", got, worktrees)
			}
		})
	}
}

func TestSyncDryRunChangesNothing(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := newTaskWithCommit(s, "T")
	commitFile(s, s.Repo, "main.txt", "main\n", "main moves on")
	tip, blob := s.Git(s.Repo, "rev-parse", "wt/T"), recordBlob(s, "T")
	outcomes, doc := syncJSON(t, s, 0, "--dry-run", "T")
	if outcomes["T"] != "rebased" || !doc.Tasks[0].DryRun {
		t.Errorf("dry run: %+v, want what would be done (rebased)", doc.Tasks)
	}
	if s.Git(s.Repo, "rev-parse", "wt/T") != tip || recordBlob(s, "T") != blob || testutil.Exists(filepath.Join(path, "main.txt")) {
		t.Error("the dry run changed the branch, the record or the files")
	}
}

// A dry run gives the real answer: a rebase that would conflict is a
// conflict (exit 1), found in a temporary worktree thrown away after,
// and nothing changes.
func TestSyncDryRunSaysARebaseWouldConflict(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "-q", "T").Out()
	commitFile(s, path, "README.md", "the task's words\n", "task edits")
	commitFile(s, s.Repo, "README.md", "main's words\n", "main edits")
	tip, blob := s.Git(s.Repo, "rev-parse", "wt/T"), recordBlob(s, "T")
	worktrees := s.Git(s.Repo, "worktree", "list", "--porcelain")
	outcomes, doc := syncJSON(t, s, 1, "--dry-run", "--rebase", "T")
	if outcomes["T"] != "conflict" || len(doc.Tasks[0].Conflicts) != 1 || doc.Tasks[0].Conflicts[0] != "README.md" {
		t.Errorf("a dry run of a rebase that conflicts: %+v", doc.Tasks)
	}
	if s.Git(s.Repo, "rev-parse", "wt/T") != tip || recordBlob(s, "T") != blob || s.Git(s.Repo, "worktree", "list", "--porcelain") != worktrees {
		t.Error("the dry run changed the branch, the record or the worktrees")
	}
	clean(t, s, path)
}

// Each task named is synced on its own (SPEC §2): one that does not
// exist gets its own entry, not_found, and the others still sync; the
// exit code is the worst met (5).
func TestSyncOfATaskThatDoesNotExistSyncsTheOthers(t *testing.T) {
	s := testutil.NewSandbox(t)
	newTaskWithCommit(s, "ui")
	commitFile(s, s.Repo, "main.txt", "main\n", "main moves on")
	outcomes, doc := syncJSON(t, s, 5, "ui", "nosuch")
	if outcomes["ui"] != "rebased" || outcomes["nosuch"] != "not_found" {
		t.Fatalf("outcomes %v: want ui rebased and nosuch not_found", outcomes)
	}
	for _, task := range doc.Tasks {
		if task.Task == "nosuch" && (task.Error == nil || task.Error.Kind != "not_found") {
			t.Errorf("the missing task's entry: %+v", task)
		}
	}
	if r := s.WT("sync", "nosuch", "ui"); r.Code != 5 || !strings.Contains(r.Stderr, "nosuch") || strings.Contains(r.Stdout, "error") {
		t.Errorf("sync without --json: %s", r)
	}
}

func TestSyncKilledAnywhereIsEndedByDoctor(t *testing.T) {
	for _, cp := range []string{"sync:syncing", "sync:moved"} {
		t.Run(cp, func(t *testing.T) {
			s, path, tip, mainTip := taskBehindMain(t, "main.txt", "main\n")
			kill(stopAt(t, s, cp, "sync", "T"))
			if state := taskState(t, s); state != "syncing" {
				t.Fatalf("killed at %s: state %s, want syncing", cp, state)
			}
			if r := s.WT("rm", "T"); r.Code != 3 {
				t.Errorf("rm of a task that is syncing: %s", r)
			}
			s.MustWT("doctor", "--fix")
			rec := readRecord(t, s, "T")
			if rec["state"] != "active" || rec["sync"] != nil {
				t.Fatalf("after doctor --fix: state %v, sync %v", rec["state"], rec["sync"])
			}
			clean(t, s, path)
			got := s.Git(s.Repo, "rev-parse", "wt/T")
			if cp == "sync:syncing" {
				if got != tip || rec["base_sha"] == mainTip || testutil.Exists(filepath.Join(path, "main.txt")) {
					t.Errorf("a sync killed before the branch moved: branch %s (was %s), base_sha %v", got, tip, rec["base_sha"])
				}
				return
			}
			if got == tip || rec["base_sha"] != mainTip || !testutil.Exists(filepath.Join(path, "main.txt")) {
				t.Errorf("a sync killed after the branch moved: branch %s, base_sha %v; the files must follow", got, rec["base_sha"])
			}
		})
	}
}

func TestSyncRefusesACycleOfBases(t *testing.T) {
	s := testutil.NewSandbox(t)
	newTaskWithCommit(s, "a")
	newTaskWithCommit(s, "b", "--base", "a")
	rec := readRecord(t, s, "a")
	rec["base"] = "refs/heads/wt/b"
	writeRecord(t, s, "a", rec)
	if r := s.WT("sync", "--all"); r.Code != 2 || !strings.Contains(r.Stderr, "circle") {
		t.Errorf("a cycle of bases: %s", r)
	}
}

func TestListSaysHowStaleATaskIs(t *testing.T) {
	s := testutil.NewSandbox(t)
	newTaskWithCommit(s, "T")
	commitFile(s, s.Repo, "main.txt", "main\n", "main moves on")
	stale := func() bool {
		var views []struct {
			Behind int
			Stale  *bool
		}
		json.Unmarshal([]byte(s.MustWT("list", "--json").Stdout), &views)
		if len(views) != 1 || views[0].Behind != 1 || views[0].Stale == nil {
			t.Fatalf("list --json: %+v", views)
		}
		return *views[0].Stale
	}
	if stale() {
		t.Error("1 commit behind is stale with the default wt.staleAfter (50)")
	}
	s.Git(s.Repo, "config", "wt.staleAfter", "0")
	if !stale() {
		t.Error("1 commit behind is not stale with wt.staleAfter 0")
	}
}

func TestSyncSkipsTasksInUseOnAnotherBranchOrMidRebase(t *testing.T) {
	s := testutil.NewSandbox(t)
	used := newTaskWithCommit(s, "used")
	elsewhere := newTaskWithCommit(s, "elsewhere")
	stopped := s.MustWT("new", "-q", "stopped").Out()
	commitFile(s, stopped, "README.md", "the task's words\n", "task edits")
	commitFile(s, s.Repo, "README.md", "main's words\n", "main edits")
	agent := exec.Command("sleep", "60") // an agent working in the worktree
	agent.Dir = used
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { agent.Process.Kill(); agent.Wait() })
	s.Git(elsewhere, "checkout", "-q", "-b", "side")
	if s.GitOK(stopped, "rebase", "-q", "main") {
		t.Fatal("the rebase was meant to stop on a conflict")
	}
	outcomes, _ := syncJSON(t, s, 3, "--all")
	want := map[string]string{"used": "skipped_in_use", "elsewhere": "skipped_other_branch", "stopped": "skipped_dirty"}
	for id, o := range want {
		if outcomes[id] != o {
			t.Errorf("%s: %s, want %s", id, outcomes[id], o)
		}
	}
	// Doctor knows the rebase, and leaves it to a person.
	r := s.WT("doctor", "--fix")
	if r.Code == 0 || !strings.Contains(r.Stdout+r.Stderr, "operation-in-progress") {
		t.Errorf("doctor --fix with a rebase stopped in a task: %s", r)
	}
	if !s.GitOK(stopped, "rev-parse", "-q", "--verify", "REBASE_HEAD") {
		t.Error("doctor touched the rebase in progress")
	}
}

func TestSyncFetchesARemoteBaseFirst(t *testing.T) {
	s := testutil.NewSandbox(t)
	root := filepath.Dir(s.Repo)
	s.Git(root, "init", "-q", "--bare", "-b", "main", "origin.git")
	s.Git(s.Repo, "remote", "add", "origin", filepath.Join(root, "origin.git"))
	s.Git(s.Repo, "push", "-q", "origin", "main")
	s.Git(s.Repo, "fetch", "-q", "origin")
	path := newTaskWithCommit(s, "T", "--base", "origin/main")
	// Someone else pushes to main.
	s.Git(root, "clone", "-q", filepath.Join(root, "origin.git"), "other")
	pushed := commitFile(s, filepath.Join(root, "other"), "theirs.txt", "theirs\n", "pushed by someone else")
	s.Git(filepath.Join(root, "other"), "push", "-q", "origin", "main")
	if outcomes, _ := syncJSON(t, s, 0, "T"); outcomes["T"] != "up_to_date" {
		t.Errorf("without --fetch the task is up to date with what this clone knows: %v", outcomes)
	}
	if outcomes, _ := syncJSON(t, s, 0, "--fetch", "T"); outcomes["T"] != "rebased" {
		t.Fatalf("sync --fetch: %v", outcomes)
	}
	if p := parents(s, "wt/T"); len(p) != 1 || p[0] != pushed {
		t.Errorf("the task now stands on %v, want the pushed commit %s", p, pushed)
	}
	if !testutil.Exists(filepath.Join(path, "theirs.txt")) {
		t.Error("the worktree lacks the fetched file")
	}
}

func TestConcurrentSyncsRebaseEachTaskOnce(t *testing.T) {
	s := testutil.NewSandbox(t)
	ids := []string{"a", "b", "c", "d", "e"}
	paths := map[string]string{}
	for _, id := range ids {
		paths[id] = newTaskWithCommit(s, id)
	}
	mainTip := commitFile(s, s.Repo, "main.txt", "main\n", "main moves on")
	var cmds []*exec.Cmd
	for range 4 {
		cmds = append(cmds, s.Cmd(s.Repo, "sync", "--all", "--json"))
	}
	startTogether(t, cmds)
	for _, c := range cmds {
		// Each ends: 0, or 3 where another sync had the task (busy, or
		// its branch moved meanwhile); never 1.
		if code := exitStatus(t, c.Wait()); code != 0 && code != 3 {
			t.Errorf("a concurrent sync exited %d", code)
		}
	}
	for _, id := range ids {
		if n := s.Git(s.Repo, "rev-list", "--count", mainTip+"..wt/"+id); n != "1" {
			t.Errorf("%s has %s commits on main, want its own one, rebased once", id, n)
		}
		if p := parents(s, "wt/"+id); len(p) != 1 || p[0] != mainTip {
			t.Errorf("%s stands on %v, want main's tip", id, p)
		}
		rec := readRecord(t, s, id)
		if rec["state"] != "active" || rec["base_sha"] != mainTip {
			t.Errorf("%s: state %v, base_sha %v", id, rec["state"], rec["base_sha"])
		}
		clean(t, s, paths[id])
		if !testutil.Exists(filepath.Join(paths[id], id+".txt")) || !testutil.Exists(filepath.Join(paths[id], "main.txt")) {
			t.Errorf("%s lost files", id)
		}
	}
	if r := s.WT("doctor"); r.Code != 0 {
		t.Errorf("doctor after concurrent syncs: %s", r)
	}
}

// A git wt commit while a sync has moved the branch but not yet the files
// would stage the old files on the new tip, undoing the sync in the
// commit: the commit waits for the sync instead.
func TestCommitDuringASyncWaitsForIt(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := newTaskWithCommit(s, "T")
	commitFile(s, s.Repo, "main.txt", "main\n", "main moves on")
	goFile := filepath.Join(t.TempDir(), "go")
	reached := filepath.Join(t.TempDir(), "reached")
	sync := s.Cmd(s.Repo, "sync", "T")
	sync.Env = append(sync.Env, task.CheckpointEnv+"=sync:moved", task.CheckpointEnv+"_FILE="+reached, task.CheckpointEnv+"_GO="+goFile)
	if err := sync.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sync.Process.Kill(); sync.Wait() })
	waitFor(t, func() bool { return testutil.Exists(reached) })
	s.Write(filepath.Join(path, "wip.txt"), "wip\n")
	commit := s.Cmd(s.Repo, "commit", "T", "-m", "wip")
	if err := commit.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- commit.Wait() }()
	lockFile := filepath.Join(s.Repo, ".git", "wt", "commit", "T.lock")
	var commitErr error
	finished := false
	waitFor(t, func() bool {
		select {
		case commitErr = <-done:
			finished = true
			return true
		default:
			return hasOpen(commit.Process.Pid, lockFile) && !holdsLock(s, commit.Process.Pid)
		}
	})
	os.WriteFile(goFile, nil, 0o644)
	if err := sync.Wait(); err != nil {
		t.Fatalf("the sync: %v", err)
	}
	if !finished {
		commitErr = <-done
	}
	if commitErr != nil {
		t.Fatalf("the commit: %v", commitErr)
	}
	if !s.GitOK(s.Repo, "cat-file", "-e", "wt/T:main.txt") || !s.GitOK(s.Repo, "cat-file", "-e", "wt/T:wip.txt") {
		t.Errorf("the commit made during the sync lost the synced files or its own:\n%s", s.Git(s.Repo, "show", "--stat", "wt/T"))
	}
	clean(t, s, path)
}

// waitsForLock reports whether process pid waits for a flock, as
// /proc/locks says (a waiter's line has "->").
func waitsForLock(pid int) bool {
	data, _ := os.ReadFile("/proc/locks")
	for _, l := range strings.Split(string(data), "\n") {
		if f := strings.Fields(l); len(f) > 5 && f[1] == "->" && f[2] == "FLOCK" && f[5] == strconv.Itoa(pid) {
			return true
		}
	}
	return false
}

// holdsLock reports whether process pid holds a flock, as /proc/locks says.
func holdsLock(s *testutil.Sandbox, pid int) bool {
	data, _ := os.ReadFile("/proc/locks")
	for _, l := range strings.Split(string(data), "\n") {
		if f := strings.Fields(l); len(f) > 4 && f[1] == "FLOCK" && f[4] == strconv.Itoa(pid) && !strings.Contains(l, "->") {
			return true
		}
	}
	return false
}

// One temporary worktree serves every rebase of a sync: git goes from the
// last tip it made straight to the next base, so each task's rebase writes
// its own files, not a whole checkout. A conflict, which git's rebase
// --abort takes back, keeps it too (issue 35: under a fleet's load a
// checkout of the whole base after each conflict made sync --all run for
// minutes), and the tasks after it rebase onto the right base with their
// own work.
func TestSyncRebasesEveryTaskInOneTemporaryWorktree(t *testing.T) {
	s := testutil.NewSandbox(t)
	for _, id := range []string{"a", "b", "c"} {
		newTaskWithCommit(s, id)
	}
	conflicting := s.MustWT("new", "-q", "bb").Out()
	commitFile(s, conflicting, "README.md", "the task's words\n", "task edits")
	newTaskWithCommit(s, "d")
	mainTip := commitFile(s, s.Repo, "README.md", "main's words\n", "main moves on")
	trace := filepath.Join(t.TempDir(), "trace")
	traced := *s
	traced.Env = append(append([]string(nil), s.Env...), "GIT_TRACE="+trace)
	outcomes, _ := syncJSON(t, &traced, 1, "--rebase", "a", "b", "bb", "c", "d")
	want := map[string]string{"a": "rebased", "b": "rebased", "bb": "conflict", "c": "rebased", "d": "rebased"}
	for id, o := range want {
		if outcomes[id] != o {
			t.Fatalf("outcomes %v, want %v", outcomes, want)
		}
	}
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	// one for all: rebase --abort leaves it clean after the conflict
	if n := strings.Count(string(data), "git worktree add"); n != 1 {
		t.Errorf("%d temporary worktrees made for 5 rebases with one conflict, want 1", n)
	}
	for _, id := range []string{"a", "b", "c", "d"} {
		branch := "wt/" + id
		if got := s.Git(s.Repo, "rev-parse", branch+"~1"); got != mainTip {
			t.Errorf("%s's parent is %s, want main's tip %s", branch, got, mainTip)
		}
		if got := s.Git(s.Repo, "diff", "--name-only", mainTip, branch); got != id+".txt" {
			t.Errorf("%s changes %q, want only %s.txt", branch, got, id)
		}
	}
	if got := s.Git(s.Repo, "worktree", "list", "--porcelain"); strings.Count(got, "worktree ") != 6 {
		t.Errorf("a temporary worktree was left:\n%s", got)
	}
}

// Sync's look at a task nobody works in writes back the refreshed index
// (its read-tree then checks the files it changes by their stat data); a
// task a process works in is looked at read-only.
func TestSyncRefreshesTheIndexOnlyWhereNobodyWorks(t *testing.T) {
	s := testutil.NewSandbox(t)
	free := newTaskWithCommit(s, "free")
	used := newTaskWithCommit(s, "used")
	commitFile(s, s.Repo, "main.txt", "main\n", "main moves on")
	var indexes []string
	var before []time.Time
	for _, path := range []string{free, used} {
		s.Write(filepath.Join(path, "untracked.txt"), "keeps the task dirty, so that sync stops at its look")
		indexes = append(indexes, staleStatData(t, s, path, "README.md"))
		before = append(before, modTime(t, indexes[len(indexes)-1]))
	}
	startIn(t, used, "sleep", "60")
	outcomes, _ := syncJSON(t, s, 3, "--all")
	if outcomes["free"] != "skipped_dirty" || outcomes["used"] != "skipped_dirty" {
		t.Fatalf("outcomes %v: want both skipped as dirty", outcomes)
	}
	if !modTime(t, indexes[0]).After(before[0]) {
		t.Error("the index of the task nobody works in was not refreshed")
	}
	if !modTime(t, indexes[1]).Equal(before[1]) {
		t.Error("sync wrote the index of a task a process works in")
	}
}

// A sync's state moves are compare-and-swap writes the lifecycle checks:
// they do not wait for the repository lock, which a fleet's new and rm
// hold all the time (issue 35: a sync --all waited up to 15 s of its
// minute for it). Here another process holds the lock throughout.
func TestSyncDoesNotWaitForTheRepositoryLock(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := newTaskWithCommit(s, "T")
	mainTip := commitFile(s, s.Repo, "main.txt", "main\n", "main moves on")
	s.Git(s.Repo, "config", "wt.lockTimeout", "1s")
	holdFlock(t, filepath.Join(s.Repo, ".git", "wt", "lock"))
	if r := s.WT("sync", "--merge", "T"); r.Code != 0 {
		t.Fatalf("sync while another process holds the repository lock: %s", r)
	}
	if rec := readRecord(t, s, "T"); rec["state"] != "active" || rec["base_sha"] != mainTip {
		t.Fatalf("after the sync: state %v, base_sha %v", rec["state"], rec["base_sha"])
	}
	if !testutil.Exists(filepath.Join(path, "main.txt")) {
		t.Fatal("the task's files did not follow the sync")
	}
}
