//go:build unix

// These tests protect the warm pool (SPEC §11, §14): new claims a ready
// entry (a rename, a branch, and only the files that changed since the
// entry was made), two new never take the same entry, a dirty entry is
// never handed out nor deleted, and a fill or a claim killed at any step
// leaves nothing doctor --fix cannot repair.
package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// poolSandbox is a repository with a pool of n entries, each marked by
// wt.poolInit with an ignored file holding a number of its own, so that
// a task made from an entry is told from a fresh checkout, and two tasks
// from the same entry are told apart. Every fill git-wt started in the
// background has ended before the sandbox goes.
func poolSandbox(t *testing.T, n string) *testutil.Sandbox {
	s := testutil.NewSandbox(t)
	s.Write(".gitignore", "STATE.json\nbuild/\nnode_modules/\n")
	for _, f := range []string{"a/keep.txt", "a/change.txt", "b/delete.txt"} {
		s.Write(f, f+"\n")
	}
	s.Git(s.Repo, "add", ".")
	s.Git(s.Repo, "commit", "-q", "-m", "files")
	s.Git(s.Repo, "config", "wt.pool", n)
	s.Git(s.Repo, "config", "wt.poolInit", `mkdir -p node_modules && echo "$$-$(date +%N)" > node_modules/entry && test "$WT_PATH" = "$PWD"`)
	s.Git(s.Repo, "config", "wt.orphanGrace", "0")
	t.Cleanup(func() { waitForFills(t, s) })
	return s
}

// waitForFills waits until no git wt pool --fill runs in the repository.
func waitForFills(t *testing.T, s *testutil.Sandbox) {
	t.Helper()
	waitFor(t, func() bool { return !testutil.FillRunning(s.Repo) })
}

// poolEntries reads pool --status --json.
func poolEntries(t *testing.T, s *testutil.Sandbox) (ready int, paths []string) {
	t.Helper()
	var r struct {
		Ready   int
		Entries []struct{ Path string }
	}
	if err := json.Unmarshal([]byte(s.MustWT("pool", "--json").Stdout), &r); err != nil {
		t.Fatal(err)
	}
	for _, e := range r.Entries {
		paths = append(paths, e.Path)
	}
	return r.Ready, paths
}

// fromEntry is the mark of the pool entry a task was made from, "" for a
// fresh checkout.
func fromEntry(path string) string {
	data, _ := os.ReadFile(filepath.Join(path, "node_modules", "entry"))
	return strings.TrimSpace(string(data))
}

func TestNewClaimsAReadyPoolEntry(t *testing.T) {
	s := poolSandbox(t, "2")
	s.Git(s.Repo, "config", "wt.init", `echo "$WT_TASK $WT_BRANCH" > node_modules/task`)
	if r := s.MustWT("pool", "--fill"); !strings.Contains(r.Stderr, "2 of 2") {
		t.Fatalf("fill: %s", r)
	}
	ready, entries := poolEntries(t, s)
	if ready != 2 || len(entries) != 2 {
		t.Fatalf("after the fill: %d ready, %v", ready, entries)
	}
	path := s.MustWT("new", "T").Out()
	if fromEntry(path) == "" {
		t.Fatalf("the task was not made from a pool entry")
	}
	claimed := 0
	for _, e := range entries {
		if !testutil.Exists(e) {
			claimed++
		}
	}
	if claimed != 1 {
		t.Fatalf("%d entries left the pool folder, want 1", claimed)
	}
	if got := s.Git(path, "symbolic-ref", "HEAD"); got != "refs/heads/wt/T" {
		t.Errorf("HEAD is %q", got)
	}
	clean(t, s, path)
	if data, _ := os.ReadFile(filepath.Join(path, "node_modules", "task")); string(data) != "T wt/T\n" {
		t.Errorf("the task's own init did not run with its environment: %q", data)
	}
	if rec := readRecord(t, s, "T"); rec["state"] != "active" || rec["path"] != path {
		t.Errorf("record %v", rec)
	}
	// Entries are not tasks; list --all shows them, and the pool tops up.
	waitForFills(t, s)
	if r := s.MustWT("count"); r.Out() != "1" {
		t.Errorf("count says %s", r.Out())
	}
	if out := s.MustWT("list").Stdout; strings.Contains(out, ".pool") {
		t.Errorf("list shows pool entries:\n%s", out)
	}
	if out := s.MustWT("list", "--all").Stdout; strings.Count(out, "/.pool/") != 2 {
		t.Errorf("list --all does not show the two entries:\n%s", out)
	}
	if ready, _ := poolEntries(t, s); ready != 2 {
		t.Errorf("the pool was not topped up: %d ready", ready)
	}
	if r := s.WT("doctor"); r.Code != 0 {
		t.Errorf("doctor: %s", r)
	}
}

func TestAClaimAfterTheBaseMovedHasTheBasesFilesExactly(t *testing.T) {
	s := poolSandbox(t, "1")
	s.MustWT("pool", "--fill")
	s.Write("a/change.txt", "changed\n")
	s.Write("c/added.txt", "added\n")
	os.Remove(filepath.Join(s.Repo, "b", "delete.txt"))
	s.Git(s.Repo, "add", "-A")
	s.Git(s.Repo, "commit", "-q", "-m", "the base moves on")
	path := s.MustWT("new", "T").Out()
	if fromEntry(path) == "" {
		t.Fatal("the task was not made from the pool entry")
	}
	clean(t, s, path)
	if d := s.Git(path, "diff", "--stat", "main"); d != "" {
		t.Errorf("the task differs from its base:\n%s", d)
	}
	if data, _ := os.ReadFile(filepath.Join(path, "a", "change.txt")); string(data) != "changed\n" {
		t.Errorf("a/change.txt holds %q", data)
	}
	if !testutil.Exists(filepath.Join(path, "c", "added.txt")) || testutil.Exists(filepath.Join(path, "b", "delete.txt")) {
		t.Error("the added file is missing or the deleted one is still there")
	}
	if got := s.Git(s.Repo, "rev-parse", "wt/T"); got != s.Git(s.Repo, "rev-parse", "main") {
		t.Errorf("the branch starts at %s, not at the base", got)
	}
}

func TestConcurrentNewNeverShareAPoolEntry(t *testing.T) {
	s := poolSandbox(t, "3")
	s.MustWT("pool", "--fill")
	starts := make([]*exec.Cmd, 0, 10)
	said := make([]strings.Builder, 10)
	for i := 0; i < 10; i++ {
		c := s.Cmd(s.Repo, "new", "t"+string(rune('a'+i)))
		c.Stderr = &said[i]
		starts = append(starts, c)
	}
	startTogether(t, starts)
	for i, c := range starts {
		if code := exitCode(c); code != 0 {
			t.Fatalf("new %d exited %d: %s", i, code, said[i].String())
		}
	}
	defer func() {
		if t.Failed() {
			for i := range said {
				t.Logf("new %d said: %s", i, said[i].String())
			}
			log, _ := os.ReadFile(filepath.Join(s.Repo, ".git", "wt", "logs", "pool.log"))
			t.Logf("pool log: %s", log)
		}
	}()
	waitForFills(t, s)
	seen := map[string]string{}
	for i := 0; i < 10; i++ {
		id := "t" + string(rune('a'+i))
		path := s.MustWT("path", id).Out()
		clean(t, s, path)
		if got := s.Git(path, "symbolic-ref", "--short", "HEAD"); got != "wt/"+id {
			t.Errorf("%s is on %q", id, got)
		}
		if mark := fromEntry(path); mark != "" {
			if other, ok := seen[mark]; ok {
				t.Errorf("%s and %s were made from the same pool entry", other, id)
			}
			seen[mark] = id
		}
	}
	if len(seen) < 3 {
		t.Errorf("only %d tasks came from the pool of 3", len(seen))
	}
	if r := s.WT("doctor"); r.Code != 0 {
		t.Errorf("doctor: %s", r)
	}
}

// Nobody looks into an entry another process holds (a new claiming it):
// that new may be moving it and bringing its files, and a git status
// there would take the entry's index lock from under its read-tree (the
// entry was then left unused, for doctor to report). Not another new, nor
// the gc that runs after it, nor doctor, nor a drain.
func TestAnEntryAnotherProcessHoldsIsLeftUntouched(t *testing.T) {
	s := poolSandbox(t, "1")
	s.MustWT("pool", "--fill")
	_, entries := poolEntries(t, s)
	holdFlock(t, filepath.Join(s.Repo, ".git", "wt", "pool", filepath.Base(entries[0])+".lock"))
	trace := filepath.Join(t.TempDir(), "trace2.json")
	traced := *s
	traced.Env = append(slices.Clip(s.Env), "GIT_TRACE2_EVENT="+trace)
	if fromEntry(traced.MustWT("new", "T").Out()) != "" {
		t.Fatal("new took an entry another process holds")
	}
	waitForFills(t, s)
	if r := traced.WT("doctor"); r.Code != 0 {
		t.Fatalf("doctor reported an entry another process holds: %s", r)
	}
	traced.WT("pool", "--drain")
	traced.WT("pool", "--drain", "--force")
	if data, _ := os.ReadFile(trace); len(data) == 0 || bytes.Contains(data, []byte(entries[0])) {
		t.Fatalf("a git ran in the entry another process holds (or none was traced: %d bytes)", len(data))
	}
	if ready, now := poolEntries(t, s); ready != 1 || !slices.Equal(now, entries) || !testutil.Exists(entries[0]) {
		t.Fatalf("the held entry is no longer in the pool: %d ready, %v", ready, now)
	}
}

// git worktree add writes its admin files one by one, commondir empty for
// a moment, and a git worktree move that reads them then dies ("failed to
// read .git/worktrees/x/commondir"): the claimed entry was left unused
// for doctor. A claim moves its entry under the repository lock, which
// every worktree add of git-wt holds.
func TestAClaimMovesItsEntryOnlyBetweenWorktreeAdds(t *testing.T) {
	s := poolSandbox(t, "1")
	s.MustWT("pool", "--fill")
	cmd, _, stderr, goOn := paused(t, s, s.Repo, "new:record", "new", "T")
	half := filepath.Join(s.Repo, ".git", "worktrees", "half")
	s.Write(filepath.Join(half, "gitdir"), filepath.Join(s.Home, "half", ".git")+"\n")
	s.Write(filepath.Join(half, "commondir"), "")
	holder := holdFlock(t, filepath.Join(s.Repo, ".git", "wt", "lock"))
	goOn()
	waitFor(t, func() bool { return waitsForLock(cmd.Process.Pid) })
	if err := os.RemoveAll(half); err != nil {
		t.Fatal(err)
	}
	holder.Process.Kill()
	holder.Wait()
	if code := exitCode(cmd); code != 0 {
		t.Fatalf("new exited %d: %s", code, stderr)
	}
	if fromEntry(s.MustWT("path", "T").Out()) == "" {
		t.Fatalf("the task was not made from the entry it claimed: %s", stderr)
	}
	if r := s.WT("doctor"); r.Code != 0 {
		t.Fatalf("doctor: %s", r)
	}
}

func TestADirtyPoolEntryIsNeverHandedOutNorDeleted(t *testing.T) {
	s := poolSandbox(t, "1")
	s.MustWT("pool", "--fill")
	_, entries := poolEntries(t, s)
	work := filepath.Join(entries[0], "notes.txt")
	s.Write(work, "someone's work\n")
	r := s.MustWT("new", "T")
	if fromEntry(r.Out()) != "" || !strings.Contains(r.Stderr, "not handed out") {
		t.Fatalf("the dirty entry was handed out: %s", r)
	}
	waitForFills(t, s)
	if !testutil.Exists(work) {
		t.Fatal("the dirty entry's file is gone")
	}
	d := s.WT("doctor")
	if d.Code != 1 || !strings.Contains(d.Stdout, "dirty-pool-entry") {
		t.Fatalf("doctor: %s", d)
	}
	s.WT("doctor", "--fix")
	s.WT("pool", "--drain")
	if !testutil.Exists(work) {
		t.Fatal("doctor --fix or pool --drain deleted the dirty entry")
	}
	if r := s.WT("doctor", "--fix", "--force"); r.Code != 0 || testutil.Exists(entries[0]) {
		t.Fatalf("doctor --fix --force: %s", r)
	}
}

func TestKilledFillIsRepairedByDoctor(t *testing.T) {
	for _, cp := range []string{"pool:added", "pool:checked-out"} {
		t.Run(cp, func(t *testing.T) {
			s := poolSandbox(t, "1")
			kill(stopAt(t, s, cp, "pool", "--fill"))
			r := s.WT("doctor")
			if r.Code != 1 || !strings.Contains(r.Stdout, "unfinished-pool-entry") {
				t.Fatalf("doctor after a kill at %s: %s", cp, r)
			}
			if r := s.WT("doctor", "--fix"); r.Code != 0 {
				t.Fatalf("doctor --fix: %s", r)
			}
			if dirs, _ := os.ReadDir(filepath.Join(filepath.Dir(s.Repo), "repo-worktrees", ".pool")); len(dirs) != 0 {
				t.Fatalf("left in the pool folder: %v", dirs)
			}
			if r := s.WT("doctor"); r.Code != 0 {
				t.Fatalf("doctor after the fix: %s", r)
			}
			s.MustWT("pool", "--fill")
			if ready, _ := poolEntries(t, s); ready != 1 {
				t.Fatalf("%d ready after a new fill", ready)
			}
		})
	}
}

func TestKilledClaimIsRepairedByDoctor(t *testing.T) {
	for _, cp := range []string{"new:record", "new:pool-moved", "new:pool-files"} {
		t.Run(cp, func(t *testing.T) {
			s := poolSandbox(t, "1")
			s.MustWT("pool", "--fill")
			commitFile(s, s.Repo, "a/change.txt", "changed\n", "the base moves on")
			kill(stopAt(t, s, cp, "new", "T"))
			if r := s.WT("doctor", "--fix"); r.Code != 0 {
				t.Fatalf("doctor --fix after a kill at %s: %s", cp, r)
			}
			if r := s.WT("doctor"); r.Code != 0 {
				t.Fatalf("doctor after the fix: %s", r)
			}
			path := s.MustWT("new", "T").Out()
			clean(t, s, path)
			if d := s.Git(path, "diff", "--stat", "main"); d != "" {
				t.Errorf("the task differs from its base:\n%s", d)
			}
			consistentWithPool(t, s)
		})
	}
}

func TestSparseNoCopyAndExistingBranchesNeverClaim(t *testing.T) {
	s := poolSandbox(t, "1")
	s.MustWT("pool", "--fill")
	s.Git(s.Repo, "branch", "feature") // a branch that exists has files of its own
	for _, args := range [][]string{{"new", "S", "--sparse", "a"}, {"new", "N", "--no-copy"}, {"new", "B", "--branch", "feature"}} {
		if path := s.MustWT(args...).Out(); fromEntry(path) != "" {
			t.Errorf("%v claimed a pool entry", args)
		}
	}
	if ready, _ := poolEntries(t, s); ready != 1 {
		t.Errorf("%d ready: an entry was taken", ready)
	}
}

// staleEntries fills a pool of two, then makes both entries stale (two
// commits behind, wt.poolMaxBehind 1); it returns their paths.
func staleEntries(t *testing.T) (*testutil.Sandbox, []string) {
	s := poolSandbox(t, "2")
	s.MustWT("pool", "--fill")
	s.Git(s.Repo, "config", "wt.poolMaxBehind", "1")
	commitFile(s, s.Repo, "x.txt", "1\n", "one")
	commitFile(s, s.Repo, "x.txt", "2\n", "two")
	_, stale := poolEntries(t, s)
	return s, stale
}

func TestDrainAndGCRemoveEntries(t *testing.T) {
	s, stale := staleEntries(t)
	var gc struct {
		Pool []struct{ Path, Outcome string }
	}
	json.Unmarshal([]byte(s.MustWT("gc", "--json").Stdout), &gc)
	if len(gc.Pool) != 2 || gc.Pool[0].Outcome != "removed" {
		t.Fatalf("gc drained %+v", gc.Pool)
	}
	waitForFills(t, s)
	ready, fresh := poolEntries(t, s)
	if ready != 2 || slices.Contains(fresh, stale[0]) || slices.Contains(fresh, stale[1]) {
		t.Fatalf("after gc: %d ready, %v (stale %v)", ready, fresh, stale)
	}
	if r := s.MustWT("pool", "--drain"); !strings.Contains(r.Stderr, "removed 2") {
		t.Fatalf("drain: %s", r)
	}
	if ready, paths := poolEntries(t, s); ready != 0 || len(paths) != 0 || strings.Contains(s.Git(s.Repo, "worktree", "list"), ".pool") {
		t.Fatalf("after the drain: %d ready, %v", ready, paths)
	}
}

func TestAPoolInitThatLeavesTheEntryDirtyFailsIt(t *testing.T) {
	s := poolSandbox(t, "1")
	s.Git(s.Repo, "config", "wt.poolInit", "echo x > generated.txt")
	r := s.WT("pool", "--fill")
	if r.Code != 1 || !strings.Contains(r.Stderr, "generated.txt") {
		t.Fatalf("fill: %s", r)
	}
	if ready, paths := poolEntries(t, s); ready != 0 || len(paths) != 0 {
		t.Fatalf("a failed entry stayed: %v", paths)
	}
	if r := s.WT("doctor"); r.Code != 0 {
		t.Fatalf("doctor: %s", r)
	}
}

func TestAnUntrustedGitwtPoolIsIgnored(t *testing.T) {
	s := testutil.NewSandbox(t)
	t.Cleanup(func() { waitForFills(t, s) })
	s.Write(".gitwt", "[wt]\n\tpool = 2\n")
	s.Git(s.Repo, "add", ".gitwt")
	s.Git(s.Repo, "commit", "-q", "-m", "gitwt")
	r := s.MustWT("pool", "--fill")
	if ready, paths := poolEntries(t, s); ready != 0 || len(paths) != 0 || !strings.Contains(r.Stderr, "trust") {
		t.Fatalf("an untrusted wt.pool made entries: %s", r)
	}
}

// oneEntry fills a pool of one and turns wt.pool off (no refill to wait
// for); it returns the entry's folder, whose ref it drops if asked.
func oneEntry(t *testing.T, s *testutil.Sandbox, dropRef bool) string {
	t.Helper()
	s.Git(s.Repo, "config", "wt.pool", "1")
	s.MustWT("pool", "--fill")
	s.Git(s.Repo, "config", "wt.pool", "0")
	_, entries := poolEntries(t, s)
	if dropRef {
		s.Git(s.Repo, "update-ref", "-d", "refs/git-wt/pool/"+filepath.Base(entries[0]))
	}
	return entries[0]
}

// fixedByDoctor runs doctor --fix, which must remove the pool folder
// gone and leave doctor silent.
func fixedByDoctor(t *testing.T, s *testutil.Sandbox, gone string) {
	t.Helper()
	if r := s.WT("doctor", "--fix"); r.Code != 0 || testutil.Exists(gone) {
		t.Fatalf("doctor --fix: %s", r)
	}
	if r := s.WT("doctor"); r.Code != 0 || strings.Contains(s.Git(s.Repo, "worktree", "list"), ".pool") {
		t.Fatalf("doctor after the fix: %s", r)
	}
}

// consistentWithPool is consistent, leaving the pool's entries out.
func consistentWithPool(t *testing.T, s *testutil.Sandbox) {
	t.Helper()
	waitForFills(t, s)
	s.MustWT("pool", "--drain")
	consistent(t, s)
}

// A folder someone fills at the task's path after new checked it and
// before the worktree is there is not new's: git refuses it, and the
// rollback leaves it alone, with or without a pool.
func TestAFolderFilledAtTheTasksPathMeanwhileSurvivesTheRollback(t *testing.T) {
	for _, n := range []string{"0", "1"} {
		t.Run("pool "+n, func(t *testing.T) {
			s := poolSandbox(t, n)
			if n != "0" {
				s.MustWT("pool", "--fill")
			}
			cmd, _, stderr, goOn := paused(t, s, s.Repo, "new:record", "new", "T")
			path := filepath.Join(filepath.Dir(s.Repo), "repo-worktrees", "T")
			s.Write(filepath.Join(path, "notes.txt"), "someone's notes\n")
			goOn()
			if code := exitCode(cmd); code == 0 {
				t.Fatalf("new made a task over someone's folder: %s", stderr)
			}
			if data, err := os.ReadFile(filepath.Join(path, "notes.txt")); err != nil || string(data) != "someone's notes\n" {
				t.Fatalf("the folder's file was lost: %v %q", err, data)
			}
		})
	}
}

// On a full disk, new drains pool entries, oldest first, before it would
// remove any task; a fill makes no entry without room for it and as much
// again (SPEC §14).
func TestAFullDiskDrainsPoolEntriesBeforeAnyTask(t *testing.T) {
	s := poolSandbox(t, "3")
	small := smallDisk(t, s, "2m")
	s.Write("big.bin", strings.Repeat("x", 600<<10))
	s.Git(s.Repo, "add", ".")
	s.Git(s.Repo, "commit", "-qm", "big")
	s.Git(s.Repo, "config", "wt.baseDir", small)
	s.MustWT("pool", "--fill")
	ready, _ := poolEntries(t, s)
	if ready == 0 || ready == 3 {
		t.Fatalf("%d entries on a 2 MiB disk of 600 KiB checkouts: a fill must keep room for a task", ready)
	}
	for _, id := range []string{"A", "B", "C"} {
		if path := s.MustWT("new", "--no-copy", id).Out(); !testutil.Exists(filepath.Join(path, "big.bin")) {
			t.Fatalf("task %s has no checkout", id)
		}
		waitForFills(t, s)
	}
	if ready, _ := poolEntries(t, s); ready != 0 {
		t.Errorf("%d entries left once the disk filled up with tasks", ready)
	}
	if r := s.MustWT("count"); r.Out() != "3" {
		t.Errorf("%s tasks, want 3", r.Out())
	}
}

func TestPoolEntriesCountTowardMaxTotalSize(t *testing.T) {
	s := poolSandbox(t, "2")
	s.Write("big.bin", strings.Repeat("x", 400<<10))
	s.Git(s.Repo, "add", ".")
	s.Git(s.Repo, "commit", "-qm", "big")
	s.MustWT("new", "--no-copy", "T")
	s.MustWT("pool", "--fill")
	s.Git(s.Repo, "config", "wt.maxTotalSize", "1200k")
	s.Git(s.Repo, "config", "wt.pool", "0") // gc refills only a wanted pool
	s.MustWT("gc")
	if ready, _ := poolEntries(t, s); ready != 1 {
		t.Errorf("%d entries after gc: 3 checkouts of 400 KiB over 1200k must cost one entry", ready)
	}
	if r := s.MustWT("count"); r.Out() != "1" {
		t.Errorf("gc removed a task (%s left) before the pool's entries", r.Out())
	}
}

// What is left of an entry when its folder or its ref went by hand (or a
// drain was killed between the two) is found and repaired by doctor.
func TestDoctorRepairsWhatIsLeftOfAPoolEntry(t *testing.T) {
	for _, tc := range []struct {
		name              string
		dropRef, dropFile bool
	}{{"folder gone", false, true}, {"ref and folder gone", true, true}, {"ref gone", true, false}} {
		t.Run(tc.name, func(t *testing.T) {
			s := poolSandbox(t, "0")
			entry := oneEntry(t, s, tc.dropRef)
			if tc.dropFile {
				os.RemoveAll(entry)
			}
			if r := s.WT("doctor"); r.Code != 1 || !strings.Contains(r.Stdout, "orphan-pool-entry") {
				t.Fatalf("doctor: %s", r)
			}
			fixedByDoctor(t, s, entry)
		})
	}
}

// A fill after wt.pool went down drains the entries beyond it, oldest
// first.
func TestAFillDrainsEntriesBeyondWtPool(t *testing.T) {
	s := poolSandbox(t, "3")
	s.MustWT("pool", "--fill")
	_, before := poolEntries(t, s)
	s.Git(s.Repo, "config", "wt.pool", "1")
	var f struct{ Dropped []string }
	json.Unmarshal([]byte(s.MustWT("pool", "--fill", "--json").Stdout), &f)
	ready, after := poolEntries(t, s)
	if ready != 1 || len(f.Dropped) != 2 || after[0] != before[2] {
		t.Fatalf("after wt.pool went from 3 to 1: %d ready %v (dropped %v, before %v)", ready, after, f.Dropped, before)
	}
}

// A drain leaves the entry a running fill is making: its ref is the
// fill's until it is ready (the fill's own write of it would fail, and
// its half-made worktree stay behind).
func TestADrainLeavesTheEntryAFillIsMaking(t *testing.T) {
	s := poolSandbox(t, "1")
	cmd, _, stderr, goOn := paused(t, s, s.Repo, "pool:checked-out", "pool", "--fill")
	s.MustWT("pool", "--drain")
	goOn()
	if code := exitCode(cmd); code != 0 {
		t.Fatalf("the fill exited %d: %s", code, stderr)
	}
	if ready, paths := poolEntries(t, s); ready != 1 || len(paths) != 1 {
		t.Fatalf("after the fill: %d ready %v", ready, paths)
	}
	if r := s.WT("doctor"); r.Code != 0 {
		t.Fatalf("doctor: %s", r)
	}
}

// A pool folder with no ref and no .git (a removal or a fill killed half
// way) is no worktree anyone can work in: doctor --fix removes it.
func TestDoctorRemovesAHalfRemovedPoolFolder(t *testing.T) {
	s := poolSandbox(t, "0")
	entry := oneEntry(t, s, true)
	os.Remove(filepath.Join(entry, ".git"))
	fixedByDoctor(t, s, entry)
}

// A drain killed while it deleted an entry's files leaves an entry no
// claim takes, which doctor --fix finishes removing; a folder left half
// removed without its ref is removed too (what went is in git).
func TestAKilledDrainIsFinishedByDoctor(t *testing.T) {
	s := poolSandbox(t, "0")
	entry := oneEntry(t, s, false)
	kill(stopAt(t, s, "pool:dropping", "pool", "--drain"))
	os.RemoveAll(filepath.Join(entry, "a")) // as git's removal had begun
	if path := s.MustWT("new", "T").Out(); fromEntry(path) != "" {
		t.Fatal("an entry being removed was handed out")
	}
	fixedByDoctor(t, s, entry)
}

func TestDoctorRemovesARefLessHalfRemovedPoolWorktree(t *testing.T) {
	s := poolSandbox(t, "0")
	entry := oneEntry(t, s, true)
	os.RemoveAll(filepath.Join(entry, "a"))
	fixedByDoctor(t, s, entry)
	// A changed file is someone's work: that one stays without --force.
	entry = oneEntry(t, s, true)
	s.Write(filepath.Join(entry, "a", "change.txt"), "someone's change\n")
	s.WT("doctor", "--fix")
	if !testutil.Exists(filepath.Join(entry, "a", "change.txt")) {
		t.Fatal("doctor --fix removed a pool worktree with a changed file")
	}
}

// An entry whose ref names a folder outside the pool folder is never
// handed out, and that folder is never deleted: only the ref goes.
func TestAMisplacedPoolEntryIsNeverHandedOut(t *testing.T) {
	s := poolSandbox(t, "0")
	entry := oneEntry(t, s, false)
	ref := "refs/git-wt/pool/" + filepath.Base(entry)
	var e map[string]any
	json.Unmarshal([]byte(s.Git(s.Repo, "cat-file", "blob", ref)), &e)
	e["path"] = s.Repo // the main worktree
	data, _ := json.Marshal(e)
	blobFile := filepath.Join(t.TempDir(), "entry.json")
	os.WriteFile(blobFile, data, 0o644)
	s.Git(s.Repo, "update-ref", ref, s.Git(s.Repo, "hash-object", "-w", blobFile))
	if path := s.MustWT("new", "T").Out(); fromEntry(path) != "" {
		t.Fatal("a misplaced entry was handed out")
	}
	s.WT("doctor", "--fix")
	if !testutil.Exists(filepath.Join(s.Repo, "README.md")) || s.GitOK(s.Repo, "rev-parse", "--verify", "-q", ref) {
		t.Fatal("the folder the ref named was touched, or the ref stayed")
	}
}

// Between its transaction and the move, a claimed entry has no ref and is
// still in the pool folder: a doctor --fix or gc then (another new's gc
// --auto, say) must not take it for an orphan and delete it under the
// claim.
func TestAnEntryBeingClaimedIsNoOrphan(t *testing.T) {
	for _, repair := range [][]string{{"doctor", "--fix"}, {"gc"}} {
		t.Run(strings.Join(repair, " "), func(t *testing.T) {
			s := poolSandbox(t, "0")
			entry := oneEntry(t, s, false)
			s.Git(s.Repo, "config", "wt.pool", "1")
			cmd, _, stderr, goOn := paused(t, s, s.Repo, "new:record", "new", "T")
			s.WT(repair...)
			if !testutil.Exists(filepath.Join(entry, "a", "keep.txt")) {
				t.Fatalf("%v deleted the entry a claim is moving", repair)
			}
			goOn()
			if code := exitCode(cmd); code != 0 {
				t.Fatalf("new exited %d: %s", code, stderr)
			}
			path := s.MustWT("path", "T").Out()
			if fromEntry(path) == "" {
				t.Fatalf("the task was not made from the entry it claimed: %s", stderr)
			}
			clean(t, s, path)
			if r := s.WT("doctor"); r.Code != 0 {
				t.Fatalf("doctor: %s", r)
			}
		})
	}
}

// A claim while a fill runs: the claim's own fill finds the fill busy and
// does nothing, so the running fill tops the pool up again for it before
// it ends.
func TestAFillTopsUpForWhatWasClaimedWhileItRan(t *testing.T) {
	s := poolSandbox(t, "2")
	cmd, _, stderr, goOn := paused(t, s, s.Repo, "pool:ready", "pool", "--fill")
	if path := s.MustWT("new", "T").Out(); fromEntry(path) == "" {
		t.Fatal("the task was not made from the ready entry")
	}
	goOn()
	if code := exitCode(cmd); code != 0 {
		t.Fatalf("the fill exited %d: %s", code, stderr)
	}
	waitForFills(t, s)
	if ready, paths := poolEntries(t, s); ready != 2 {
		t.Fatalf("after the fill: %d ready %v, want 2", ready, paths)
	}
}
