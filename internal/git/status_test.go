// These tests hold git status and rev-list to their argv and their output
// parsing, against the fake git of gittest.
package git_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/git/gittest"
)

const (
	h1 = "1111111111111111111111111111111111111111"
	h2 = "2222222222222222222222222222222222222222"
	h3 = "3333333333333333333333333333333333333333"
)

func TestStatusArgv(t *testing.T) {
	base := []string{"status", "--porcelain=v2", "-z", "--no-renames"}
	for _, tc := range []struct {
		name string
		o    git.StatusOptions
		want []string
	}{
		{"defaults", git.StatusOptions{},
			append(base, "--untracked-files=normal", "--ignore-submodules=none")},
		{"moved aside", git.StatusOptions{IgnoreSubmodules: "all"},
			append(base, "--untracked-files=normal", "--ignore-submodules=all")},
		{"all untracked", git.StatusOptions{Untracked: "all"},
			append(base, "--untracked-files=all", "--ignore-submodules=none")},
		{"branch", git.StatusOptions{Branch: true},
			append(base, "--untracked-files=normal", "--ignore-submodules=none", "--branch", "--no-ahead-behind")},
		{"branch counted against a base", git.StatusOptions{Branch: true, CountBranch: "wt/a b", CountBase: "refs/heads/main"},
			append(base, "--untracked-files=normal", "--ignore-submodules=none", "--branch", "--ahead-behind")},
		{"a count needs the branch", git.StatusOptions{CountBranch: "wt/a", CountBase: "refs/heads/main"},
			append(base, "--untracked-files=normal", "--ignore-submodules=none")},
		{"stuck creation, through an index of its own", git.StatusOptions{Untracked: "all", Env: []string{"GIT_INDEX_FILE=/tmp/i"}},
			append(base, "--untracked-files=all", "--ignore-submodules=none")},
		{"a count needs a base", git.StatusOptions{Branch: true, CountBranch: "wt/a"},
			append(base, "--untracked-files=normal", "--ignore-submodules=none", "--branch", "--no-ahead-behind")},
		{"refreshing, as rm's first look in an unused worktree", git.StatusOptions{Branch: true, Refresh: true},
			append(base, "--untracked-files=normal", "--ignore-submodules=none", "--branch", "--no-ahead-behind")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := gittest.New(t)
			call := f.Expect(slices.Clone(tc.want)...)
			if _, err := f.Git().Status(context.Background(), "/r/wt", tc.o); err != nil {
				t.Fatal(err)
			}
			env := append([]string{"GIT_OPTIONAL_LOCKS=0"}, tc.o.Env...)
			if tc.o.Refresh {
				env = tc.o.Env // the index lock if free, as git status takes it
			}
			if got := call.Got; got == nil || got.Dir != "/r/wt" || !got.InWorktree || !slices.Equal(got.Env, env) {
				t.Errorf("ran %+v, want in /r/wt, InWorktree, without optional locks unless refreshing", got)
			}
			if got := call.Got; got != nil && len(got.Config) != 0 && tc.o.CountBase == "" {
				t.Errorf("config %q for a status that counts nothing", got.Config)
			}
		})
	}
}

// The branch counted against its base reaches git only through
// Cmd.Config, whole: a name may hold "=" (where -c would split it into
// another key) or start with "-".
func TestStatusCountsThroughConfigOnly(t *testing.T) {
	argv := append([]string{"status", "--porcelain=v2", "-z", "--no-renames"},
		"--untracked-files=normal", "--ignore-submodules=none", "--branch", "--ahead-behind")
	for _, branch := range []string{"wt/a", "wt/a b", "wt/a=b", "wt/x=y.merge=refs/heads/evil", "-c"} {
		t.Run(branch, func(t *testing.T) {
			f := gittest.New(t)
			call := f.Expect(slices.Clone(argv)...)
			o := git.StatusOptions{Branch: true, CountBranch: branch, CountBase: "refs/heads/main"}
			if _, err := f.Git().Status(context.Background(), "/r/wt", o); err != nil {
				t.Fatal(err)
			}
			want := []git.ConfigPair{{Key: "branch." + branch + ".remote", Value: "."}, {Key: "branch." + branch + ".merge", Value: "refs/heads/main"}}
			if got := call.Got; got == nil || !slices.Equal(got.Config, want) {
				t.Errorf("ran %+v, want config %q", got, want)
			}
		})
	}
}

func TestStatusParse(t *testing.T) {
	z := func(entries ...string) string { return strings.Join(entries, "\x00") + "\x00" }
	counted := git.StatusOptions{Branch: true, CountBranch: "wt/a", CountBase: "refs/heads/main"}
	for _, tc := range []struct {
		name string
		o    git.StatusOptions
		out  string
		want git.Status
	}{
		{"clean", git.StatusOptions{}, "", git.Status{}},
		{"changed, staged and deleted",
			git.StatusOptions{},
			z("1 .M N... 100644 100644 100644 "+h1+" "+h1+" a.txt",
				"1 A. N... 000000 100644 100644 "+h2+" "+h2+" new.txt",
				"1 .D N... 100644 100644 000000 "+h1+" "+h1+" gone"),
			git.Status{Entries: []git.StatusEntry{
				{Kind: '1', XY: ".M", Submodule: "N...", Path: "a.txt"},
				{Kind: '1', XY: "A.", Submodule: "N...", Path: "new.txt"},
				{Kind: '1', XY: ".D", Submodule: "N...", Path: "gone"},
			}}},
		{"paths with spaces and newlines",
			git.StatusOptions{},
			z("1 .M N... 100644 100644 100644 "+h1+" "+h1+" a b  c.txt",
				"? new\nline",
				"? # not a header"),
			git.Status{Entries: []git.StatusEntry{
				{Kind: '1', XY: ".M", Submodule: "N...", Path: "a b  c.txt"},
				{Kind: '?', Path: "new\nline"},
				{Kind: '?', Path: "# not a header"},
			}}},
		{"untracked and ignored",
			git.StatusOptions{Untracked: "all"},
			z("? dir/file", "! build/out"),
			git.Status{Entries: []git.StatusEntry{{Kind: '?', Path: "dir/file"}, {Kind: '!', Path: "build/out"}}}},
		{"unmerged",
			git.StatusOptions{},
			z("u UU N... 100644 100644 100644 100644 " + h1 + " " + h2 + " " + h3 + " both changed.txt"),
			git.Status{Entries: []git.StatusEntry{{Kind: 'u', XY: "UU", Submodule: "N...", Path: "both changed.txt"}}}},
		{"submodules",
			git.StatusOptions{},
			z("1 .M SC.. 160000 160000 160000 "+h1+" "+h1+" sub",
				"1 .M S.MU 160000 160000 160000 "+h1+" "+h1+" lib/other sub"),
			git.Status{Entries: []git.StatusEntry{
				{Kind: '1', XY: ".M", Submodule: "SC..", Path: "sub"},
				{Kind: '1', XY: ".M", Submodule: "S.MU", Path: "lib/other sub"},
			}}},
		{"a rename (when renames are on) is one entry with its origin",
			git.StatusOptions{},
			z("2 R. N... 100644 100644 100644 "+h1+" "+h1+" R100 new name", "old name", "? x"),
			git.Status{Entries: []git.StatusEntry{
				{Kind: '2', XY: "R.", Submodule: "N...", Path: "new name", OrigPath: "old name"},
				{Kind: '?', Path: "x"},
			}}},
		{"branch, not counted",
			git.StatusOptions{Branch: true},
			z("# branch.oid "+h1, "# branch.head wt/a", "? x"),
			git.Status{OID: h1, Branch: "wt/a", Entries: []git.StatusEntry{{Kind: '?', Path: "x"}}}},
		{"detached",
			git.StatusOptions{Branch: true},
			z("# branch.oid "+h1, "# branch.head (detached)"),
			git.Status{OID: h1}},
		{"unborn",
			git.StatusOptions{Branch: true},
			z("# branch.oid (initial)", "# branch.head main"),
			git.Status{OID: "(initial)", Branch: "main"}},
		{"counted against the base",
			counted,
			z("# branch.oid "+h1, "# branch.head wt/a", "# branch.upstream refs/heads/main", "# branch.ab +3 -12"),
			git.Status{OID: h1, Branch: "wt/a", HasAheadBehind: true, Ahead: 3, Behind: 12}},
		{"another branch's own upstream does not count",
			counted,
			z("# branch.oid "+h1, "# branch.head other", "# branch.upstream origin/other", "# branch.ab +1 -0"),
			git.Status{OID: h1, Branch: "other"}},
		{"a base that is gone is no count",
			counted,
			z("# branch.oid "+h1, "# branch.head wt/a", "# branch.upstream refs/heads/main"),
			git.Status{OID: h1, Branch: "wt/a"}},
		{"a header git may add later is skipped",
			git.StatusOptions{Branch: true},
			z("# stash 2", "# branch.oid "+h1, "# branch.head wt/a"),
			git.Status{OID: h1, Branch: "wt/a"}},
		{"an entry not as documented still counts",
			git.StatusOptions{},
			z("1 .M odd"),
			git.Status{Entries: []git.StatusEntry{{Kind: '1', Path: "1 .M odd"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := gittest.New(t)
			f.Expect(statusArgvOf(tc.o)...).Out(tc.out)
			got, err := f.Git().Status(context.Background(), "/r/wt", tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// statusArgvOf is the argv TestStatusArgv holds Status to.
func statusArgvOf(o git.StatusOptions) []string {
	u, s := o.Untracked, o.IgnoreSubmodules
	if u == "" {
		u = "normal"
	}
	if s == "" {
		s = "none"
	}
	args := []string{"status", "--porcelain=v2", "-z", "--no-renames", "--untracked-files=" + u, "--ignore-submodules=" + s}
	if o.Branch {
		if o.CountBranch != "" && o.CountBase != "" {
			return append(args, "--branch", "--ahead-behind")
		}
		return append(args, "--branch", "--no-ahead-behind")
	}
	return args
}

func TestStatusFailureIsGitsError(t *testing.T) {
	f := gittest.New(t)
	f.Expect(statusArgvOf(git.StatusOptions{})...).Out("? x\x00").Fail(128, "fatal: not a git repository")
	st, err := f.Git().Status(context.Background(), "/r/wt", git.StatusOptions{})
	if git.ExitCode(err) != 128 || len(st.Entries) != 0 {
		t.Errorf("got %+v, %v; want no entries and git's exit 128", st, err)
	}
}

func TestAheadBehind(t *testing.T) {
	for _, tc := range []struct {
		name          string
		out           string
		code          int
		ahead, behind int
	}{
		{"counted", "12\t3\n", 0, 3, 12},
		{"even", "0\t0\n", 0, 0, 0},
		{"not two numbers", "7\n", 0, 0, 0},
		{"failed", "", 128, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := gittest.New(t)
			call := f.Expect("rev-list", "--left-right", "--count", "refs/heads/main...refs/heads/wt/a", "--").Out(tc.out)
			if tc.code != 0 {
				call.Fail(tc.code, "fatal: bad revision")
			}
			ahead, behind, err := f.Git().AheadBehind(context.Background(), "/r", "refs/heads/main", "refs/heads/wt/a")
			if git.ExitCode(err) != map[bool]int{true: -1, false: tc.code}[tc.code == 0] {
				t.Errorf("err %v, want exit %d", err, tc.code)
			}
			if ahead != tc.ahead || behind != tc.behind {
				t.Errorf("ahead %d behind %d, want %d %d", ahead, behind, tc.ahead, tc.behind)
			}
			if got := call.Got; got == nil || got.Dir != "/r" || got.InWorktree || !slices.Equal(got.Env, []string{"GIT_OPTIONAL_LOCKS=0"}) {
				t.Errorf("ran %+v, want in /r, without optional locks", got)
			}
		})
	}
}

// TestStatusParsesRealGit checks the parser against git itself, on the
// paths that a careless split would cut: spaces, a newline, a deletion.
func TestStatusParsesRealGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	// Status runs in a task worktree: a linked worktree of the
	// repository the runner located.
	repo, dir := t.TempDir(), filepath.Join(t.TempDir(), "wt")
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(git.ScrubbedEnv(os.Environ()), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(name, data string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run("init", "-q", "-b", "main")
	run("commit", "-q", "--allow-empty", "-m", "root")
	run("worktree", "add", "-q", "-b", "task", dir)
	write("a b.txt", "1\n")
	write("gone", "1\n")
	run("-C", dir, "add", ".")
	run("-C", dir, "commit", "-q", "-m", "one")
	write("a b.txt", "2\n")
	os.Remove(filepath.Join(dir, "gone"))
	want := map[string]string{"a b.txt": "1.M", "gone": "1.D", "staged": "1A."}
	if runtime.GOOS != "windows" { // where a name holds no newline
		write("new\nline", "x")
		want["new\nline"] = "?"
	}
	write("staged", "x")
	run("-C", dir, "add", "staged")
	r := &git.Runner{}
	if _, err := r.Locate(context.Background(), repo); err != nil {
		t.Fatal(err)
	}
	st, err := r.Status(context.Background(), dir, git.StatusOptions{Branch: true})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range st.Entries {
		got[e.Path] = string(e.Kind) + e.XY
	}
	if !reflect.DeepEqual(got, want) || st.Branch != "task" || len(st.OID) < 40 {
		t.Errorf("got %q on %q at %q, want %q on task", got, st.Branch, st.OID, want)
	}
}

func TestAReadOnlyRunnersStatusRunsNoGitInASubmodule(t *testing.T) {
	f := gittest.New(t)
	r := f.Git()
	r.ReadOnly("/other/.git", "/tmp/scratch")
	call := f.Expect("status", "--porcelain=v2", "-z", "--no-renames", "--untracked-files=normal", "--ignore-submodules=dirty")
	if _, err := r.Status(context.Background(), "/other", git.StatusOptions{}); err != nil || call.Got == nil {
		t.Fatal(err)
	}
	// Its config (core.fsmonitor=false...) is added where the process
	// starts, past the fake: TestListMachineRunsNothingAnotherRepositoryNames.
}
