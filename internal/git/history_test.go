// These tests hold the config, history and ref reads to their argv and
// their parsing, against the fake git of gittest.
package git_test

import (
	"context"
	"io"
	"reflect"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/git/gittest"
)

func TestResolveCommitNamesTheRefWhenItIsOne(t *testing.T) {
	ctx := context.Background()
	f := gittest.New(t)
	f.Expect("rev-parse", "main^{commit}", "--symbolic-full-name", "main").Out(h1 + "\nrefs/heads/main\n")
	f.Expect("rev-parse", h2+"^{commit}", "--symbolic-full-name", h2).Out(h2 + "\n")
	g := f.Git()
	if sha, ref, err := g.History().ResolveCommit(ctx, "/r", "main"); sha != h1 || ref != "refs/heads/main" || err != nil {
		t.Errorf("main: %q %q %v", sha, ref, err)
	}
	if sha, ref, err := g.History().ResolveCommit(ctx, "/r", h2); sha != h2 || ref != "" || err != nil {
		t.Errorf("a commit id: %q %q %v", sha, ref, err)
	}
}

func TestRefExistsTellsAbsenceFromFailure(t *testing.T) {
	for _, tc := range []struct {
		code   int
		exists bool
		err    bool
	}{{0, true, false}, {1, false, false}, {128, false, true}} {
		f := gittest.New(t)
		call := f.Expect("rev-parse", "--verify", "-q", "refs/heads/wt/t")
		if tc.code != 0 {
			call.Fail(tc.code, "")
		}
		exists, err := f.Git().History().RefExists(context.Background(), "/r", "refs/heads/wt/t")
		if exists != tc.exists || (err != nil) != tc.err {
			t.Errorf("exit %d: %v, %v", tc.code, exists, err)
		}
	}
}

func TestValidBranchNameIsTheNameGitPrintsBack(t *testing.T) {
	for _, tc := range []struct {
		name, out string
		code      int
		valid     bool
	}{
		{"wt/T", "wt/T\n", 0, true},
		{"@{-1}", "main\n", 0, false}, // git expands it to another branch's name
		{"a..b", "", 128, false},
	} {
		f := gittest.New(t)
		call := f.Expect("check-ref-format", "--branch", tc.name).Out(tc.out)
		if tc.code != 0 {
			call.Fail(tc.code, "fatal: '"+tc.name+"' is not a valid branch name")
		}
		if got := f.Git().History().ValidBranchName(context.Background(), "/r", tc.name); got != tc.valid {
			t.Errorf("%q: valid %v, want %v", tc.name, got, tc.valid)
		}
	}
}

func TestLastMovedReadsTheNewestReflogEntry(t *testing.T) {
	f := gittest.New(t)
	f.Expect("reflog", "show", "-1", "--date=unix", "--format=%gd", "refs/heads/wt/x", "--").Out("refs/heads/wt/x@{1795350689}\n")
	f.Expect("reflog", "show", "-1", "--date=unix", "--format=%gd", "refs/heads/wt/y", "--")
	g := f.Git()
	if at, ok := g.History().LastMoved(context.Background(), "/r", "refs/heads/wt/x"); !ok || !at.Equal(time.Unix(1795350689, 0)) {
		t.Errorf("got %v, %v", at, ok)
	}
	if _, ok := g.History().LastMoved(context.Background(), "/r", "refs/heads/wt/y"); ok {
		t.Error("a branch with no reflog has no time")
	}
}

func TestTreeFilesSkipsSubmodules(t *testing.T) {
	f := gittest.New(t)
	f.Expect("ls-tree", "-r", "-l", "-z", "--full-tree", h1).
		Out("100644 blob " + h2 + "     120\ta b.txt\x00160000 commit " + h3 + "       -\tsub\x00100755 blob " + h3 + "    4096\tbin/run\x00")
	got, err := f.Git().History().TreeFiles(context.Background(), "/r", h1)
	if err != nil || !reflect.DeepEqual(got, []int64{120, 4096}) {
		t.Fatalf("got %v, %v", got, err)
	}
}

func TestCommitTreeNamesItsParentsInOrder(t *testing.T) {
	f := gittest.New(t)
	f.Expect("commit-tree", h1, "-p", h2, "-p", h3, "-m", "Merge branch 'wt/t' into main").Out(h3 + "\n")
	if got, err := f.Git().History().CommitTree(context.Background(), "/r", h1, "Merge branch 'wt/t' into main", h2, h3); got != h3 || err != nil {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestConfigUnsetLocalOfNothingIsNoError(t *testing.T) {
	f := gittest.New(t)
	f.Expect("config", "--local", "--unset-all", "wt.trusted").Fail(5, "")
	f.Expect("config", "--local", "--unset-all", "wt.trusted")
	g := f.Git()
	if unset, err := g.Config().UnsetLocal(context.Background(), "/r", "wt.trusted"); unset || err != nil {
		t.Errorf("nothing set: %v, %v", unset, err)
	}
	if unset, err := g.Config().UnsetLocal(context.Background(), "/r", "wt.trusted"); !unset || err != nil {
		t.Errorf("set: %v, %v", unset, err)
	}
}

func TestConfigAddLocalAddsAValueOnce(t *testing.T) {
	f := gittest.New(t)
	f.Expect("config", "--local", "--fixed-value", "--get", "wt.copy", "/a b").Fail(1, "")
	f.Expect("config", "--local", "--add", "wt.copy", "/a b")
	f.Expect("config", "--local", "--fixed-value", "--get", "wt.copy", "/a b").Out("/a b\n")
	f.Expect("config", "--local", "--fixed-value", "--unset-all", "wt.copy", "/a b")
	f.Expect("config", "--local", "--fixed-value", "--unset-all", "wt.copy", "/a b").Fail(5, "")
	g, ctx := f.Git(), context.Background()
	for _, want := range []bool{true, false} {
		if added, err := g.Config().AddLocal(ctx, "/r", "wt.copy", "/a b"); added != want || err != nil {
			t.Errorf("add: %v, %v; want %v", added, err, want)
		}
	}
	for _, want := range []bool{true, false} {
		if unset, err := g.Config().UnsetLocalValue(ctx, "/r", "wt.copy", "/a b"); unset != want || err != nil {
			t.Errorf("unset: %v, %v; want %v", unset, err, want)
		}
	}
}

func TestOnABranchOnlyADetachedHeadIsNot(t *testing.T) {
	for code, want := range map[int]bool{0: true, 1: false, 128: true} {
		f := gittest.New(t)
		call := f.Expect("symbolic-ref", "-q", "HEAD")
		if code != 0 {
			call.Fail(code, "")
		}
		if got := f.Git().OnABranch(context.Background(), "/w"); got != want {
			t.Errorf("exit %d: OnABranch = %v, want %v", code, got, want)
		}
	}
}

func TestColorSettingsAreReadNULSeparated(t *testing.T) {
	f := gittest.New(t)
	f.Expect("config", "--null", "--get-regexp", `^color\.(wt|ui)$`).Out("color.ui\nauto\x00color.wt\nnever\x00")
	got := f.Git().Config().ColorSettings(context.Background(), "/w")
	if !reflect.DeepEqual(got, map[string]string{"color.ui": "auto", "color.wt": "never"}) {
		t.Fatalf("got %v", got)
	}
}

func TestCountFoundNowhereElseLeavesTheBranchItselfOut(t *testing.T) {
	f := gittest.New(t)
	f.Expect("rev-list", "--count", "--ignore-missing", "refs/heads/wt/t", "--not", "--exclude=wt/t", "--branches", "--remotes", h1, "--").Out("3\n")
	if n, err := f.Git().History().CountFoundNowhereElse(context.Background(), "/r", "wt/t", h1); n != 3 || err != nil {
		t.Fatalf("got %d, %v", n, err)
	}
}

func TestNotOnRemotesReadsTheGraphOfEveryHeadInOneProcess(t *testing.T) {
	f := gittest.New(t)
	call := f.Expect("rev-list", "--parents", "--stdin", "--not", "--remotes", "refs/heads/main", "--").Out(h1 + " " + h2 + "\n" + h2 + "\n")
	got, err := f.Git().History().NotOnRemotes(context.Background(), "/r", []string{h1, "-not-an-id", h3}, "refs/heads/main")
	if err != nil || !reflect.DeepEqual(got, map[string][]string{h1: {h2}, h2: {}}) {
		t.Fatalf("got %v, %v", got, err)
	}
	if in, _ := io.ReadAll(call.Got.Stdin); string(in) != h1+"\n"+h3+"\n" {
		t.Errorf("stdin %q: only the commit ids", in)
	}
}

func TestBlobsOfATreeSkipFoldersAndSubmodules(t *testing.T) {
	f := gittest.New(t)
	f.Expect("--literal-pathspecs", "ls-tree", "-r", "-z", "--full-tree", h1, "--", "a b.txt", "sub", "bin/run").
		Out("100644 blob " + h2 + "\ta b.txt\x00160000 commit " + h3 + "\tsub\x00100755 blob " + h3 + "\tbin/run\x00")
	got, err := f.Git().History().Blobs(context.Background(), "/r", h1, []string{"a b.txt", "sub", "bin/run"})
	if err != nil || !reflect.DeepEqual(got, map[string]string{"a b.txt": h2, "bin/run": h3}) {
		t.Fatalf("got %v, %v", got, err)
	}
}

func TestSparseTreeFilesReadsOnlyTheCone(t *testing.T) {
	f := gittest.New(t)
	f.Expect("--literal-pathspecs", "ls-tree", "-l", "-z", "--full-tree", "-r", h1, "--", "a/b/", "c/").
		Out("100644 blob " + h2 + "     120\ta/b/x\x00")
	f.Expect("--literal-pathspecs", "ls-tree", "-l", "-z", "--full-tree", h1, "--", "./", "a/").
		Out("100644 blob " + h3 + "       7\tREADME\x00040000 tree " + h2 + "       -\ta\x00100644 blob " + h3 + "       9\ta/y\x00")
	got, err := f.Git().History().SparseTreeFiles(context.Background(), "/r", h1, []string{"c", "a/b", "a/b/deeper"})
	if err != nil || !reflect.DeepEqual(got, []int64{120, 7, 9}) {
		t.Fatalf("got %v, %v", got, err)
	}
}

func TestLongestPathCountsCharacters(t *testing.T) {
	f := gittest.New(t)
	f.Expect("ls-tree", "-r", "-z", "--full-tree", "--name-only", "HEAD").Out("a\x00src/d\u00e9j\u00e0/x.go\x00b/c\x00")
	if n, err := f.Git().History().LongestPath(context.Background(), "/r", "HEAD"); n != 13 || err != nil {
		t.Errorf("LongestPath = %d, %v; want 13, not its 15 bytes (src/d\u00e9j\u00e0/x.go)", n, err)
	}
}
