//go:build unix

// These tests protect SPEC §20 for worktrees git-wt did not make: list
// --all names who made each (laid out, by plain git, as each tool lays
// them out) and says whether it can go; gc --foreign removes exactly the
// safe ones, as plain git worktree remove, and leaves every other byte
// where it was; where processes cannot be seen, nothing is safe.
package e2e

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/testutil"
)

// foreignLayout is a repository pushed to a remote, with a worktree laid
// out as each tool lays it out (made by plain git at that path), a
// near-miss of one, a plain one and a git-wt task, all clean and idle.
type foreignLayout struct {
	s     *testutil.Sandbox
	paths map[string]string // by the maker list --all must name
}

func newForeignLayout(t *testing.T) *foreignLayout {
	t.Helper()
	s := testutil.NewSandbox(t)
	root := filepath.Dir(s.Repo)
	s = withVars(s, "CODEX_HOME="+filepath.Join(root, "codex-home"))
	s.Git(root, "init", "-q", "--bare", "origin.git")
	s.Git(s.Repo, "remote", "add", "origin", filepath.Join(root, "origin.git"))
	s.Git(s.Repo, "push", "-q", "-u", "origin", "main")
	s.Write(filepath.Join(s.Repo, ".git", "info", "exclude"), ".claude/\n") // as Claude Code's docs advise
	l := &foreignLayout{s: s, paths: map[string]string{
		"claude":       filepath.Join(s.Repo, ".claude", "worktrees", "feature-auth"),
		"codex":        filepath.Join(root, "codex-home", "worktrees", "ab12", "repo"),
		"cursor":       filepath.Join(s.Home, ".cursor", "worktrees", "repo", "k3j"),
		"copilot":      filepath.Join(root, "repo.worktrees", "copilot-worktree-2026-06-09T07-53-51"),
		"conductor":    filepath.Join(s.Home, "conductor", "workspaces", "repo", "warsaw"),
		"worktrunk":    filepath.Join(root, "repo.feature-auth"),
		"workmux":      filepath.Join(root, "repo__worktrees", "user-auth"),
		"gwq":          filepath.Join(s.Home, "worktrees", "github.com", "o", "repo", "fix-x"),
		"git":          filepath.Join(root, "plain"),
		"git:nearmiss": filepath.Join(s.Home, ".cursor", "worktreesX", "repo", "n"),
	}}
	branches := map[string]string{"claude": "worktree-feature-auth", "copilot": "copilot-worktree-2026-06-09T07-53-51",
		"cursor": "", "codex": "", "conductor": "warsaw", "worktrunk": "feature/auth", "workmux": "user-auth",
		"gwq": "fix/x", "git": "plain", "git:nearmiss": ""}
	for maker, path := range l.paths {
		if b := branches[maker]; b != "" {
			s.Git(s.Repo, "worktree", "add", "-q", "-b", b, path)
		} else {
			s.Git(s.Repo, "worktree", "add", "-q", "--detach", path)
		}
	}
	l.paths["git-wt"] = s.MustWT("new", "T").Out()
	for _, path := range l.paths {
		l.idle(path)
	}
	return l
}

// idle sets the worktree's index, HEAD's reflog and top-level entries a
// month into the past: idle for wt.idleAfter, without waiting a week.
func (l *foreignLayout) idle(path string) {
	t := l.s.T
	t.Helper()
	past := time.Now().Add(-30 * 24 * time.Hour)
	gitDir := l.s.Git(path, "rev-parse", "--absolute-git-dir")
	touched := []string{filepath.Join(gitDir, "index"), filepath.Join(gitDir, "logs", "HEAD")}
	entries, err := os.ReadDir(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		touched = append(touched, filepath.Join(path, e.Name()))
	}
	for _, p := range touched {
		if err := os.Chtimes(p, past, past); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
}

// listedAll is list --all --json by path.
func listedAll(t *testing.T, r testutil.Result) map[string]map[string]any {
	t.Helper()
	if r.Code != 0 {
		t.Fatalf("list --all: %s", r)
	}
	var views []map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &views); err != nil {
		t.Fatalf("%v\n%s", err, r.Stdout)
	}
	byPath := map[string]map[string]any{}
	for _, v := range views {
		byPath[v["path"].(string)] = v
	}
	return byPath
}

func TestListAllNamesWhoMadeEachWorktreeAndCallsTheCleanPushedIdleOnesSafe(t *testing.T) {
	l := newForeignLayout(t)
	views := listedAll(t, l.s.WT("list", "--all", "--json"))
	for maker, path := range l.paths {
		v := views[path]
		if v == nil {
			t.Errorf("%s: %s is not listed", maker, path)
			continue
		}
		want, _, _ := strings.Cut(maker, ":")
		if v["made_by"] != want || v["verdict"] != "safe" || v["in_use"] != "none" {
			t.Errorf("%s: made_by %v, verdict %v, in_use %v; want %s, safe, none", path, v["made_by"], v["verdict"], v["in_use"], want)
		}
	}
	if v := views[l.s.Repo]; v["verdict"] != "main" {
		t.Errorf("the main worktree: verdict %v, want main", v["verdict"])
	}
	table := l.s.MustWT("list", "--all").Stdout
	for _, col := range []string{"MADE BY", "VERDICT", "worktrunk", "safe"} {
		if !strings.Contains(table, col) {
			t.Errorf("list --all's table lacks %q:\n%s", col, table)
		}
	}
}

// holdWork gives four worktrees each a reason to stay: worktrunk's a
// change, workmux's a commit on no remote, gwq's a lock, conductor's a
// process. It returns the verdict each must get.
func (l *foreignLayout) holdWork(t *testing.T) map[string]string {
	t.Helper()
	s := l.s
	s.Write(filepath.Join(l.paths["worktrunk"], "wip.txt"), "work in progress\n")
	commitFile(s, l.paths["workmux"], "only-here.txt", "local\n", "a commit on no remote")
	l.idle(l.paths["workmux"])
	s.Git(s.Repo, "worktree", "lock", l.paths["gwq"])
	startIn(t, l.paths["conductor"], "sleep", "300")
	return map[string]string{"worktrunk": "dirty 1", "workmux": "unpushed 1", "gwq": "locked", "conductor": "in use"}
}

func TestTheVerdictNamesWhatKeepsAWorktree(t *testing.T) {
	l := newForeignLayout(t)
	s := l.s
	want := l.holdWork(t)
	s.Write(filepath.Join(l.paths["copilot"], "fresh.txt"), "just now\n")
	s.Git(l.paths["copilot"], "add", "fresh.txt")
	s.Git(l.paths["copilot"], "commit", "-q", "-m", "fresh")
	s.Git(l.paths["copilot"], "push", "-q", "origin", "HEAD")

	want["copilot"], want["codex"] = "active 0s ago", "safe"
	views := listedAll(t, s.WT("list", "--all", "--json"))
	for maker, want := range want {
		if got := views[l.paths[maker]]["verdict"]; got != want {
			t.Errorf("%s's worktree: verdict %v, want %q", maker, got, want)
		}
	}
	if v := views[l.paths["conductor"]]; v["in_use"] != "alive" {
		t.Errorf("a sleep works in conductor's worktree: in_use %v, want alive", v["in_use"])
	}
}

func TestGCForeignRemovesExactlyTheSafeOnesAndNoOtherByte(t *testing.T) {
	l := newForeignLayout(t)
	s := l.s
	verdicts := l.holdWork(t)
	kept := map[string]bool{"git-wt": true}
	for maker := range verdicts {
		kept[maker] = true
	}
	branches := s.Git(s.Repo, "for-each-ref", "--format=%(refname) %(objectname)")

	before := hashTrees(t, s, l.paths)
	for _, args := range [][]string{{"gc", "--foreign", "--dry-run"}, {"gc"}, {"gc", "--dry-run"}} {
		if r := s.WT(args...); r.Code != 0 {
			t.Fatalf("git wt %s: %s", strings.Join(args, " "), r)
		}
		if after := hashTrees(t, s, l.paths); after != before {
			t.Fatalf("git wt %s changed a worktree made by another tool:\n%s\nwas\n%s", strings.Join(args, " "), after, before)
		}
	}

	r := s.WT("gc", "--foreign", "--json")
	if r.Code != 0 {
		t.Fatalf("gc --foreign: %s", r)
	}
	var report struct {
		Foreign []struct{ Path, Verdict, Outcome string }
	}
	if err := json.Unmarshal([]byte(r.Stdout), &report); err != nil {
		t.Fatal(err)
	}
	outcomes := map[string]string{}
	for _, f := range report.Foreign {
		outcomes[f.Path] = f.Outcome + " " + f.Verdict
	}
	for maker, path := range l.paths {
		switch {
		case kept[maker] && testutil.Exists(path):
		case kept[maker]:
			t.Errorf("%s's worktree %s was removed (%s)", maker, path, outcomes[path])
		case testutil.Exists(path) || strings.Contains(s.Git(s.Repo, "worktree", "list", "--porcelain"), path+"\n"):
			t.Errorf("%s's safe worktree %s is still there (%s)", maker, path, outcomes[path])
		}
	}
	if got := s.Git(s.Repo, "for-each-ref", "--format=%(refname) %(objectname)"); got != branches {
		t.Errorf("gc --foreign changed a branch:\n%s\nwas\n%s", got, branches)
	}
	keptPaths := map[string]string{}
	for maker := range kept {
		keptPaths[maker] = l.paths[maker]
	}
	if after, want := hashTrees(t, s, keptPaths), hashOf(before, keptPaths); after != want {
		t.Errorf("gc --foreign changed a worktree it kept:\n%s\nwas\n%s", after, want)
	}
	for maker, verdict := range verdicts {
		if got := outcomes[l.paths[maker]]; got != "kept "+verdict {
			t.Errorf("%s's worktree: %q, want kept %s", maker, got, verdict)
		}
	}
}

func TestGCForeignKeepsAWorktreeThatBecameDirtyAfterTheSurvey(t *testing.T) {
	l := newForeignLayout(t)
	s := l.s
	cmd, goOn := pauseAt(t, s, "gc-foreign:surveyed", "gc", "--foreign")
	late := filepath.Join(l.paths["codex"], "written-late.txt")
	s.Write(late, "the agent wrote this after gc looked\n")
	goOn()
	if code := exitCode(cmd); code != 0 {
		t.Fatalf("gc --foreign exited %d: it must keep the worktree itself, not leave it to git's refusal", code)
	}
	if !testutil.Exists(late) {
		t.Fatal("the file written after the survey is gone")
	}
	if testutil.Exists(l.paths["cursor"]) {
		t.Error("the worktrees still safe should go")
	}
}

func TestNothingIsSafeWhereProcessesCannotBeSeen(t *testing.T) {
	l := newForeignLayout(t)
	before := hashTrees(t, l.s, l.paths)
	forEachBlindPlace(t, func(t *testing.T, blind func(s *testutil.Sandbox, dir string, args ...string) testutil.Result) {
		views := listedAll(t, blind(l.s, l.s.Repo, "list", "--all", "--json"))
		for maker, path := range l.paths {
			if v := views[path]; v["verdict"] != "cannot see" || v["in_use"] != "unknown" {
				t.Errorf("%s's worktree: verdict %v, in_use %v; want cannot see, unknown", maker, v["verdict"], v["in_use"])
			}
		}
		if r := blind(l.s, l.s.Repo, "gc", "--foreign"); r.Code != 0 {
			t.Fatalf("gc --foreign: %s", r)
		}
		if after := hashTrees(t, l.s, l.paths); after != before {
			t.Fatalf("gc --foreign removed or changed a worktree it could not see into:\n%s\nwas\n%s", after, before)
		}
	})
}

// hashTrees is one line per worktree of paths: a hash of every file's
// path, mode and content (links by their target) and of its git admin
// dir (the index included: list and gc --foreign must not write it).
func hashTrees(t *testing.T, s *testutil.Sandbox, paths map[string]string) string {
	t.Helper()
	var lines []string
	for maker, path := range paths {
		h := sha256.New()
		for _, dir := range []string{path, adminDirOf(path)} {
			filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					fmt.Fprintf(h, "%s: %v\n", p, err)
					return nil
				}
				info, _ := d.Info()
				fmt.Fprintf(h, "%s %v %v\n", p, info.Mode(), info.ModTime().UnixNano())
				switch {
				case info.Mode()&fs.ModeSymlink != 0:
					target, _ := os.Readlink(p)
					fmt.Fprintf(h, "-> %s\n", target)
				case info.Mode().IsRegular():
					data, _ := os.ReadFile(p)
					h.Write(data)
				}
				return nil
			})
		}
		lines = append(lines, fmt.Sprintf("%s %x", maker, h.Sum(nil)))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// hashOf keeps the lines of hashed that name a maker of paths.
func hashOf(hashed string, paths map[string]string) string {
	var kept []string
	for _, line := range strings.Split(hashed, "\n") {
		maker, _, _ := strings.Cut(line, " ")
		if _, ok := paths[maker]; ok {
			kept = append(kept, line)
		}
	}
	return strings.Join(kept, "\n")
}

// adminDirOf is the git admin dir a linked worktree's .git file names.
func adminDirOf(path string) string {
	data, err := os.ReadFile(filepath.Join(path, ".git"))
	if err != nil {
		return filepath.Join(path, "no-admin-dir")
	}
	return strings.TrimSpace(strings.TrimPrefix(string(data), "gitdir:"))
}

func TestGCForeignTakesNoneOfPlainGCsFlags(t *testing.T) {
	s := testutil.NewSandbox(t)
	for _, flag := range []string{"--force", "--max-age=1d", "--merged"} {
		if r := s.WT("gc", "--foreign", flag); r.Code != 2 || !strings.Contains(r.Stderr, "--foreign does not take") {
			t.Errorf("gc --foreign %s: %s", flag, r)
		}
	}
}
