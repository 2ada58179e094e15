//go:build unix

// These tests protect git wt list --machine (SPEC §20): every repository
// git-wt ran in and every one under an agent runner's worktree root is
// listed once, largest first, with totals that add up; the other
// repositories are read, never written; what cannot be trusted (a gone
// repository, a hostile registry line, a hostile .git under a runner's
// root) is skipped; and registrations from many processes at once all
// land.
package e2e

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/git-wt/git-wt/internal/testutil"
)

// worktreeView is one worktree in list --machine --json.
type worktreeView struct {
	Path      string `json:"path"`
	Main      bool   `json:"main"`
	SizeBytes *int64 `json:"size_bytes"`
	MadeBy    string `json:"made_by"`
	Verdict   string `json:"verdict"`
	// BuildBytes is a task's build output, which gc --reclaim frees.
	BuildBytes *int64 `json:"reclaimable_build_bytes"`
}

// machineReport is list --machine --json, the fields the tests read.
type machineReport struct {
	Repositories []struct {
		CommonDir        string         `json:"common_dir"`
		Registered       bool           `json:"registered"`
		FoundUnder       []string       `json:"found_under"`
		Worktrees        []worktreeView `json:"worktrees"`
		WorktreeCount    int            `json:"worktree_count"`
		SafeCount        int            `json:"safe_count"`
		SizeBytes        *int64         `json:"size_bytes"`
		ReclaimableBytes *int64         `json:"reclaimable_bytes"`
	} `json:"repositories"`
	Skipped []struct{ Path, Reason string } `json:"skipped"`
	Total   struct {
		WorktreeCount    int    `json:"worktree_count"`
		SafeCount        int    `json:"safe_count"`
		SizeBytes        *int64 `json:"size_bytes"`
		ReclaimableBytes *int64 `json:"reclaimable_bytes"`
	} `json:"total"`
}

// machineSandbox is a home with five repositories: three git-wt ran in
// (repo, with a task; r2 and r3, registered by a list) and two it never
// did, each with a worktree plain git made under an agent runner's root
// (~/.codex/worktrees, ~/.cursor/worktrees; the Cursor one with a commit
// of its own); c1 counts a worktree idle
// at once (wt.idleAfter 0), so its Codex worktree is safe. It returns the
// common dirs, the registered ones first.
func machineSandbox(t *testing.T) (*testutil.Sandbox, []string) {
	s := testutil.NewSandbox(t)
	root := filepath.Dir(s.Repo)
	s.MustWT("new", "t1", "--quiet")
	// Build output in the task (build/ is ignored, and in wt.reclaim):
	// reclaimable though the task is not safe to remove (active).
	s.Write(filepath.Join(filepath.Dir(s.Repo), "repo-worktrees", "t1", "build", "out.bin"), strings.Repeat("b", 256<<10))
	repos := []string{s.Repo}
	for i, name := range []string{"r2", "r3", "c1", "c2"} {
		dir := filepath.Join(root, name)
		s.Git(root, "init", "-q", "-b", "main", name)
		// Sizes differ by far more than a folder's blocks: the order is
		// known.
		s.Write(filepath.Join(dir, "data.bin"), strings.Repeat("x", (i+1)*64<<10))
		s.Git(dir, "add", ".")
		s.Git(dir, "commit", "-q", "-m", "data")
		repos = append(repos, dir)
	}
	for _, r := range repos[1:3] {
		if res := s.WTIn(r, "list", "--no-status"); res.Code != 0 {
			t.Fatalf("list in %s: %s", r, res)
		}
	}
	s.Git(repos[3], "config", "wt.idleAfter", "0")
	s.Git(repos[3], "worktree", "add", "-q", "-b", "codex-task", filepath.Join(s.Home, ".codex", "worktrees", "ab12", "c1"))
	cursor := filepath.Join(s.Home, ".cursor", "worktrees", "c2", "feature")
	s.Git(repos[4], "worktree", "add", "-q", "-b", "feature", cursor)
	// A commit on no remote and merged nowhere, whose file main changed
	// too: the survey's merged check runs git merge-tree, which writes
	// the conflicted merge's objects (into a scratch folder only).
	commitFile(s, cursor, "new.txt", "work\n", "work")
	commitFile(s, repos[4], "new.txt", "other\n", "other")
	var commons []string
	for _, r := range repos {
		commons = append(commons, realPath(t, filepath.Join(r, ".git")))
	}
	return s, commons
}

// realPath is path with its links resolved, as list --machine and the
// registry name repositories (a temporary folder may lie behind a link:
// macOS's /var).
func realPath(t *testing.T, path string) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// listMachine runs list --machine --json (--size) from the home folder,
// outside every repository.
func listMachine(t *testing.T, s *testutil.Sandbox, args ...string) machineReport {
	t.Helper()
	r := s.WTIn(s.Home, append([]string{"list", "--machine", "--json"}, args...)...)
	if r.Code != 0 {
		t.Fatalf("list --machine: %s", r)
	}
	var report machineReport
	if err := json.Unmarshal([]byte(r.Stdout), &report); err != nil {
		t.Fatalf("%v\n%s", err, r.Stdout)
	}
	inst, _ := jsonschema.UnmarshalJSON(strings.NewReader(r.Stdout))
	if err := loadSchemas(t)["list-machine"].Validate(inst); err != nil {
		t.Errorf("output does not match list-machine.schema.json: %v", err)
	}
	return report
}

// gitDirSnapshot is every file and folder under a git dir with its size,
// mode and modification time: what a write anywhere in it changes.
func gitDirSnapshot(t *testing.T, dirs []string) map[string]string {
	t.Helper()
	snap := map[string]string{}
	for _, dir := range dirs {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			snap[p] = fmt.Sprintf("%v %d %d", info.Mode(), info.Size(), info.ModTime().UnixNano())
			return nil
		})
	}
	return snap
}

func TestListMachineListsEveryRepositoryOnceLargestFirstAndWritesNone(t *testing.T) {
	s, commons := machineSandbox(t)
	before := gitDirSnapshot(t, commons)
	report := listMachine(t, s, "--size")
	if after := gitDirSnapshot(t, commons); !maps.Equal(before, after) {
		t.Errorf("list --machine wrote in a repository's git dir: %s", snapshotDiff(before, after))
	}
	var got []string
	var total, reclaimable int64
	worktrees := 0
	for i, r := range report.Repositories {
		got = append(got, r.CommonDir)
		if i > 0 && *r.SizeBytes > *report.Repositories[i-1].SizeBytes {
			t.Errorf("%s (%d bytes) listed after a smaller repository", r.CommonDir, *r.SizeBytes)
		}
		wantRegistered := slices.Index(commons, r.CommonDir) < 3
		if r.Registered != wantRegistered {
			t.Errorf("%s registered: %v, want %v", r.CommonDir, r.Registered, wantRegistered)
		}
		var sum int64
		for _, w := range r.Worktrees {
			sum += *w.SizeBytes
		}
		if sum != *r.SizeBytes || r.WorktreeCount != len(r.Worktrees) {
			t.Errorf("%s: size %d, its worktrees' %d; count %d of %d", r.CommonDir, *r.SizeBytes, sum, r.WorktreeCount, len(r.Worktrees))
		}
		total += *r.SizeBytes
		reclaimable += *r.ReclaimableBytes
		worktrees += r.WorktreeCount
	}
	slices.Sort(got)
	want := slices.Sorted(slices.Values(commons))
	if !slices.Equal(got, want) {
		t.Fatalf("listed %q, want each of %q once", got, want)
	}
	// repo: main and t1; r2, r3: their main; c1, c2: main and the
	// runner's worktree.
	if worktrees != 8 || report.Total.WorktreeCount != 8 || *report.Total.SizeBytes != total || *report.Total.ReclaimableBytes != reclaimable {
		t.Errorf("total %+v; the repositories add up to %d worktrees, %d bytes", report.Total, worktrees, total)
	}
	for _, r := range report.Repositories {
		switch r.CommonDir {
		case commons[3]:
			// The Codex worktree: clean, at main's commit, idle (wt.idleAfter
			// 0), no process in it: safe, and all of it reclaimable.
			w := r.Worktrees[slices.IndexFunc(r.Worktrees, func(w worktreeView) bool { return !w.Main })]
			if !slices.Equal(r.FoundUnder, []string{"codex"}) || w.MadeBy != "codex" || w.Verdict != "safe" ||
				r.SafeCount != 1 || *r.ReclaimableBytes != *w.SizeBytes {
				t.Errorf("c1: found under %q, its worktree %+v, %d safe, %d reclaimable", r.FoundUnder, w, r.SafeCount, *r.ReclaimableBytes)
			}
		case commons[4]:
			w := r.Worktrees[slices.IndexFunc(r.Worktrees, func(w worktreeView) bool { return !w.Main })]
			if !slices.Equal(r.FoundUnder, []string{"cursor"}) || w.MadeBy != "cursor" || w.Verdict != "unpushed 1" || *r.ReclaimableBytes != 0 {
				t.Errorf("c2: found under %q, its worktree %+v, %d reclaimable", r.FoundUnder, w, *r.ReclaimableBytes)
			}
		case commons[0]:
			w := r.Worktrees[slices.IndexFunc(r.Worktrees, func(w worktreeView) bool { return !w.Main })]
			if w.MadeBy != "git-wt" || w.BuildBytes == nil || *w.BuildBytes < 256<<10 || *r.ReclaimableBytes != *w.BuildBytes {
				t.Errorf("task t1 %+v; repository reclaimable %d: want its build output", w, *r.ReclaimableBytes)
			}
		}
	}
	if report.Total.SafeCount != 1 {
		t.Errorf("%d safe worktrees in all, want c1's one", report.Total.SafeCount)
	}
	if len(report.Skipped) != 0 {
		t.Errorf("skipped %+v", report.Skipped)
	}
	// The human table: a line per repository and the total.
	table := s.WTIn(s.Home, "list", "--machine")
	if lines := strings.Split(strings.TrimSpace(table.Stdout), "\n"); table.Code != 0 || len(lines) != 7 || !strings.HasPrefix(lines[6], "total") {
		t.Errorf("table:\n%s", table)
	}
}

func snapshotDiff(a, b map[string]string) string {
	var d []string
	for k, v := range a {
		if b[k] != v {
			d = append(d, fmt.Sprintf("%s: %q -> %q", k, v, b[k]))
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			d = append(d, k+": new")
		}
	}
	return strings.Join(d, "\n")
}

func TestListMachineSkipsWhatItCannotTrust(t *testing.T) {
	s, commons := machineSandbox(t)
	registry := filepath.Join(s.Home, ".local", "state", "git-wt", "repos")
	notRepo := filepath.Join(s.Home, "plain")
	os.MkdirAll(notRepo, 0o755)
	notRepo = realPath(t, notRepo)
	f, err := os.OpenFile(registry, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "relative/.git\n%s\x1b]0;owned\x07\n%s\n", commons[1], notRepo)
	f.Close()
	// A deleted repository.
	os.RemoveAll(filepath.Dir(commons[2]))
	// Under a runner's root: a .git file pointing at a folder that is no
	// repository, and a .git that is a fifo (reading it would hang).
	evil := filepath.Join(s.Home, ".codex", "worktrees", "evil", "w")
	s.Write(filepath.Join(evil, ".git"), "gitdir: "+filepath.Join(notRepo, "worktrees", "w")+"\n")
	fifo := filepath.Join(s.Home, ".cursor", "worktrees", "fifo", "w")
	os.MkdirAll(fifo, 0o755)
	if err := syscall.Mkfifo(filepath.Join(fifo, ".git"), 0o644); err != nil {
		t.Fatal(err)
	}
	report := listMachine(t, s)
	var got []string
	for _, r := range report.Repositories {
		got = append(got, r.CommonDir)
	}
	slices.Sort(got)
	want := slices.Sorted(slices.Values([]string{commons[0], commons[1], commons[3], commons[4]}))
	if !slices.Equal(got, want) {
		t.Errorf("listed %q, want %q", got, want)
	}
	skipped := map[string]string{}
	for _, sk := range report.Skipped {
		skipped[sk.Path] = sk.Reason
	}
	if skipped[commons[2]] != "missing" || skipped[notRepo] != "not a repository" || len(skipped) != 2 {
		t.Errorf("skipped %+v: want the deleted repository (missing) and the plain folder (not a repository)", report.Skipped)
	}
	if report.Total.SizeBytes != nil {
		t.Errorf("sizes without --size: %+v", report.Total)
	}
}

func TestConcurrentRegistrationsKeepEveryRepository(t *testing.T) {
	s := testutil.NewSandbox(t)
	root := filepath.Dir(s.Repo)
	var cmds []*exec.Cmd
	var want []string
	for i := range 20 {
		name := fmt.Sprintf("repo-%02d", i)
		s.Git(root, "init", "-q", name)
		want = append(want, realPath(t, filepath.Join(root, name, ".git")))
		cmds = append(cmds, s.Cmd(filepath.Join(root, name), "count"))
	}
	startTogether(t, cmds)
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("git wt count: %v", err)
		}
	}
	data, err := os.ReadFile(filepath.Join(s.Home, ".local", "state", "git-wt", "repos"))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("registry after 20 at once:\n%s\nwant each of %q", data, want)
	}
}

func TestARegistryThatCannotBeWrittenFailsNothing(t *testing.T) {
	s := testutil.NewSandbox(t)
	// A file where the state folder would go: no registry can be made.
	s.Write(filepath.Join(s.Home, ".local", "state"), "")
	if r := s.WT("path", "--main"); r.Code != 0 || r.Stderr != "" {
		t.Errorf("with no registry to write: %s", r)
	}
}

func TestListMachineTakesNoRepositoryFlags(t *testing.T) {
	s := testutil.NewSandbox(t)
	for _, flag := range []string{"--all", "--remote", "--no-status"} {
		r := s.WT("list", "--machine", flag, "--json")
		if r.Code != 2 || !strings.Contains(r.Stderr, "--machine cannot be used with "+flag) || !strings.Contains(r.Stdout, `"kind": "usage"`) {
			t.Errorf("list --machine %s: %s", flag, r)
		}
	}
}

// The human table ends with a total that reads as English for one
// repository too.
func TestListMachineTotalOfOneRepository(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.MustWT("list") // registers the repository
	r := s.MustWT("list", "--machine")
	if !strings.Contains(r.Stdout, "total (1 repository)") {
		t.Errorf("list --machine of one repository: %s", r)
	}
}

// The main worktree's verdict is main whatever it holds: list --machine
// reads neither its changes nor its unpushed commits (a git status and a
// rev-list a repository), while list --all, which shows them, still does.
func TestListMachineSkipsTheMainWorktreesChangesThatListAllShows(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Write(filepath.Join(s.Repo, "wip.txt"), "work in progress\n")
	if main := listedAll(t, s.WT("list", "--all", "--json"))[s.Repo]; main["dirty"] != 1.0 || main["unpushed"] == nil {
		t.Errorf("list --all's main worktree: dirty %v, unpushed %v; want 1 and a count", main["dirty"], main["unpushed"])
	}
	r := s.WTIn(s.Home, "list", "--machine", "--json", "--verbose")
	if r.Code != 0 {
		t.Fatalf("list --machine: %s", r)
	}
	var report struct {
		Repositories []struct {
			Worktrees []map[string]any `json:"worktrees"`
		} `json:"repositories"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &report); err != nil || len(report.Repositories) != 1 {
		t.Fatalf("%v\n%s", err, r.Stdout)
	}
	for _, w := range report.Repositories[0].Worktrees {
		if _, dirty := w["dirty"]; w["main"] == true && (dirty || w["unpushed"] != nil || w["verdict"] != "main") {
			t.Errorf("list --machine's main worktree %v: want verdict main, no dirty, no unpushed", w)
		}
	}
	for _, line := range strings.Split(r.Stderr, "\n") {
		if strings.Contains(line, "] git status") || strings.Contains(line, "] git rev-list") {
			t.Errorf("list --machine ran %q", line)
		}
	}
}
