// These tests hold the index and merge operations to their argv and
// their parsing, against the fake git of gittest.
package git_test

import (
	"context"
	"io"
	"reflect"
	"slices"
	"testing"

	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/git/gittest"
)

func TestMergeArgv(t *testing.T) {
	for _, tc := range []struct {
		how  git.MergeHow
		want []string
	}{
		{git.MergeNoFF, []string{"merge", "-q", "--no-edit", "--no-ff", "-m", "Merge it", "refs/heads/wt/t"}},
		{git.MergeFFOnly, []string{"merge", "-q", "--no-edit", "--ff-only", "refs/heads/wt/t"}},
		{git.MergeSquash, []string{"merge", "-q", "--no-edit", "--squash", "refs/heads/wt/t"}},
	} {
		f := gittest.New(t)
		f.Expect(tc.want...)
		if err := f.Git().Index().Merge(context.Background(), "/w", "refs/heads/wt/t", tc.how, "Merge it"); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAbortUsesGitsOwnAbortWhereGitRecordedTheOperation(t *testing.T) {
	for op, want := range map[string][]string{
		git.OpMerge:     {"merge", "--abort"},
		git.OpRebase:    {"rebase", "--abort"},
		"a cherry-pick": {"reset", "--merge", "-q"},
		"":              {"reset", "--merge", "-q"},
	} {
		f := gittest.New(t)
		f.Expect(want...)
		f.Git().Index().Abort(context.Background(), "/w", op)
	}
}

func TestHasStagedReadsTheExitCode(t *testing.T) {
	for code, want := range map[int]bool{0: false, 1: true} {
		f := gittest.New(t)
		call := f.Expect("diff-index", "--cached", "--quiet", "HEAD", "--")
		if code != 0 {
			call.Fail(code, "")
		}
		got, err := f.Git().Index().HasStaged(context.Background(), "/w")
		if err != nil || got != want {
			t.Errorf("exit %d: HasStaged = %v, %v; want %v", code, got, err, want)
		}
	}
	f := gittest.New(t)
	f.Expect("diff-index", "--cached", "--quiet", "HEAD", "--").Fail(128, "fatal: bad revision 'HEAD'")
	if _, err := f.Git().Index().HasStaged(context.Background(), "/w"); git.ExitCode(err) != 128 {
		t.Errorf("a failing diff-index must be an error, got %v", err)
	}
}

func TestUnmergedPathsAreListedOnceEach(t *testing.T) {
	f := gittest.New(t)
	f.Expect("ls-files", "--unmerged", "-z").Out("100644 " + h1 + " 1\ta b.txt\x00100644 " + h2 + " 2\ta b.txt\x00100644 " + h3 + " 3\tsub/c\x00")
	if got, want := f.Git().Index().UnmergedPaths(context.Background(), "/w"), []string{"a b.txt", "sub/c"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestTracked(t *testing.T) {
	f := gittest.New(t)
	f.Expect("ls-files", "-z", "--", ".env.local").Out(".env.local\x00")
	f.Expect("ls-files", "-z", "--", "new.txt")
	g := f.Git()
	if tracked, _ := g.Index().Tracked(context.Background(), "/w", ".env.local"); !tracked {
		t.Error("a listed path is tracked")
	}
	if tracked, _ := g.Index().Tracked(context.Background(), "/w", "new.txt"); tracked {
		t.Error("an unlisted path is not tracked")
	}
}

func TestCheckIgnoreFeedsPathsAndReadsTheIgnoredOnes(t *testing.T) {
	f := gittest.New(t)
	f.Expect("check-ignore", "-z", "--stdin").Out(".env\x00node_modules\x00")
	got, err := f.Git().Index().CheckIgnore(context.Background(), "/r", []string{".env", "node_modules/", "src/x.go"})
	if err != nil || !reflect.DeepEqual(got, map[string]bool{".env": true, "node_modules": true}) {
		t.Fatalf("got %v, %v", got, err)
	}
	f = gittest.New(t)
	f.Expect("check-ignore", "-z", "--stdin").Fail(1, "")
	if got, err := f.Git().Index().CheckIgnore(context.Background(), "/r", []string{"src/x.go"}); err != nil || len(got) != 0 {
		t.Fatalf("none ignored (exit 1) is no error: %v, %v", got, err)
	}
}

func TestReadTreeIntoUsesItsOwnIndex(t *testing.T) {
	f := gittest.New(t)
	call := f.Expect("read-tree", "HEAD")
	if err := f.Git().Index().ReadTreeInto(context.Background(), "/w", "/tmp/i/index", "HEAD"); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(call.Got.Env, "GIT_INDEX_FILE=/tmp/i/index") || !call.Got.InWorktree {
		t.Fatalf("read-tree ran with %+v: it must use the given index, inside the worktree", call.Got)
	}
}

func TestTheCopyListings(t *testing.T) {
	ctx := context.Background()
	f := gittest.New(t)
	f.Expect("ls-files", "-z", "--others", "--ignored", "--directory", "--exclude-from=/r/.worktreeinclude", "--exclude=.env", "--exclude=node_modules/").
		Out(".env\x00node_modules/\x00")
	got, err := f.Git().Index().IgnoredMatching(ctx, "/r", "/r/.worktreeinclude", []string{".env", "node_modules/"})
	if err != nil || !reflect.DeepEqual(got, []string{".env", "node_modules/"}) {
		t.Fatalf("got %q, %v", got, err)
	}
	f = gittest.New(t)
	ignored := f.Expect("ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--", "a b/")
	f.Expect("ls-files", "-z", "--others", "--exclude-standard", "--", "a b/")
	f.Git().Index().Untracked(ctx, "/r", true, []string{"a b/"})
	f.Git().Index().Untracked(ctx, "/r", false, []string{"a b/"})
	if !slices.Contains(ignored.Got.Env, "GIT_LITERAL_PATHSPECS=1") {
		t.Errorf("folder names are read as literal paths, not patterns: env %v", ignored.Got.Env)
	}
}

func TestHashFilesFeedsPathsAndReadsOneIDEach(t *testing.T) {
	f := gittest.New(t)
	call := f.Expect("hash-object", "--stdin-paths").Out(h1 + "\n" + h2 + "\n")
	got, err := f.Git().Index().HashFiles(context.Background(), "/w", []string{"a b.txt", "odd\nname", "sub/c"})
	if err != nil || !reflect.DeepEqual(got, map[string]string{"a b.txt": h1, "sub/c": h2}) {
		t.Fatalf("got %v, %v (a path with a line break is left out)", got, err)
	}
	if data, _ := io.ReadAll(call.Got.Stdin); string(data) != "a b.txt\nsub/c\n" || !call.Got.InWorktree || !slices.Contains(call.Got.Env, "GIT_OPTIONAL_LOCKS=0") {
		t.Fatalf("hash-object ran with %+v, input %q", call.Got, data)
	}
	f = gittest.New(t)
	f.Expect("hash-object", "--stdin-paths").Out(h1 + "\n")
	if _, err := f.Git().Index().HashFiles(context.Background(), "/w", []string{"a", "b"}); err == nil {
		t.Fatal("fewer ids than paths must be an error")
	}
}

func TestUnstageTakesLiteralPaths(t *testing.T) {
	f := gittest.New(t)
	call := f.Expect("reset", "-q", "--", "a*.txt", "sub/c")
	if err := f.Git().Index().Unstage(context.Background(), "/w", []string{"a*.txt", "sub/c"}); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(call.Got.Env, "GIT_LITERAL_PATHSPECS=1") || !call.Got.InWorktree {
		t.Fatalf("reset ran with %+v", call.Got)
	}
}

func TestIgnoredFoldersKeepsTheFoldersGitListsWhole(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, out string
		want      []string
	}{
		{"folders, files and a link", "build/out.o\x00node_modules/\x00packages/a/node_modules/\x00target\x00", []string{"node_modules", "packages/a/node_modules"}},
		{"a name with a space and a line break", "a b/\x00odd\nname/\x00", []string{"a b", "odd\nname"}},
		{"nothing ignored", "", nil},
	} {
		f := gittest.New(t)
		call := f.Expect("ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory").Out(tc.out)
		got, err := f.Git().Index().IgnoredFolders(ctx, "/w")
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %q, %v; want %q", tc.name, got, err, tc.want)
		}
		if !call.Got.InWorktree || !slices.Contains(call.Got.Env, "GIT_OPTIONAL_LOCKS=0") {
			t.Errorf("%s: ls-files ran with %+v: inside the proven worktree, taking no lock", tc.name, call.Got)
		}
	}
	f := gittest.New(t)
	f.Expect("ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory").Fail(128, "fatal: not a git repository")
	if _, err := f.Git().Index().IgnoredFolders(ctx, "/w"); err == nil {
		t.Error("a failed listing must be an error, never no folders")
	}
}

func TestHiddenEntriesAreTheAssumeUnchangedAndSkipWorktreeOnes(t *testing.T) {
	f := gittest.New(t)
	out := "H 100644 " + h1 + " 0\tplain.txt\x00" +
		"h 100644 " + h1 + " 0\tlocal edit.conf\x00" + // assume-unchanged
		"S 100644 " + h2 + " 0\tsparse/out.txt\x00" + // skip-worktree
		"s 100644 " + h2 + " 0\tboth\x00" + // both bits
		"h 160000 " + h2 + " 0\tsub\x00" + // a submodule: its own repository
		"M 100644 " + h1 + " 0\tunmerged\x00"
	call := f.Expect("ls-files", "-v", "-s", "-z").Out(out)
	got, err := f.Git().Index().HiddenEntries(context.Background(), "/w")
	want := map[string]string{"local edit.conf": h1, "sparse/out.txt": h2, "both": h2}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("HiddenEntries = %v, %v; want %v", got, err, want)
	}
	if !call.Got.InWorktree || !slices.Contains(call.Got.Env, "GIT_OPTIONAL_LOCKS=0") {
		t.Errorf("ls-files ran with %+v: want it pinned to the worktree, without the index lock", call.Got)
	}
}

func TestIgnoredFilesNamesThePatternFileThatIgnoresEach(t *testing.T) {
	ctx := context.Background()
	f := gittest.New(t)
	f.Expect("ls-files", "-z", "--others", "--ignored", "--exclude-standard").Out("build/o\x00notes/w.txt\x00odd\nname\x00gone\x00")
	call := f.Expect("check-ignore", "-z", "-v", "--no-index", "--stdin").
		Out(".gitignore\x001\x00build/\x00build/o\x00" +
			"/r/.git/info/exclude\x007\x00*\x00notes/w.txt\x00" +
			"sub/.gitignore\x002\x00odd*\x00odd\nname\x00")
	got, err := f.Git().Index().IgnoredFiles(ctx, "/w")
	want := []git.IgnoredFile{{Path: "build/o", Source: ".gitignore"}, {Path: "notes/w.txt", Source: "/r/.git/info/exclude"},
		{Path: "odd\nname", Source: "sub/.gitignore"}, {Path: "gone"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("IgnoredFiles = %q, %v; want %q", got, err, want)
	}
	if !call.Got.InWorktree || !slices.Contains(call.Got.Env, "GIT_OPTIONAL_LOCKS=0") {
		t.Errorf("check-ignore ran with %+v: inside the proven worktree, taking no lock", call.Got)
	}

	f = gittest.New(t)
	f.Expect("ls-files", "-z", "--others", "--ignored", "--exclude-standard").Out("")
	if got, err := f.Git().Index().IgnoredFiles(ctx, "/w"); got != nil || err != nil {
		t.Errorf("nothing ignored: %q, %v (and no check-ignore)", got, err)
	}
	f = gittest.New(t)
	f.Expect("ls-files", "-z", "--others", "--ignored", "--exclude-standard").Out("a\x00")
	f.Expect("check-ignore", "-z", "-v", "--no-index", "--stdin").Fail(128, "fatal: bad")
	if _, err := f.Git().Index().IgnoredFiles(ctx, "/w"); err == nil {
		t.Error("a failed check-ignore must be an error, never files ignored for no reason")
	}
}
