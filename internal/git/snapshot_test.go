// These tests hold the operations that save and restore a worktree's
// state (SPEC §20) to their argv, their index file and their parsing,
// against the fake git of gittest.
package git_test

import (
	"context"
	"io"
	"slices"
	"testing"

	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/git/gittest"
)

func TestSnapshotTreeStagesEverythingIntoItsOwnIndex(t *testing.T) {
	f := gittest.New(t)
	oid := "1111111111111111111111111111111111111111"
	// A local edit marked assume-unchanged, and a sparse checkout's
	// file that is not on disk (/w is no folder here).
	list := f.Expect("ls-files", "-v", "-s", "-z").Out("h 100644 " + oid + " 0\tlocal.conf\x00S 100644 " + oid + " 0\tsparse/absent\x00H 100644 " + oid + " 0\tplain\x00")
	unhide := f.Expect("update-index", "--no-assume-unchanged", "-z", "--stdin")
	add := f.Expect("add", "-A")
	write := f.Expect("write-tree").Out("4b825dc642cb6eb9a060e54bf8d69288fbee4904\n")
	tree, err := f.Git().Index().SnapshotTree(context.Background(), "/w", "/tmp/idx")
	if err != nil || tree != "4b825dc642cb6eb9a060e54bf8d69288fbee4904" {
		t.Fatalf("SnapshotTree = %q, %v", tree, err)
	}
	if paths, _ := io.ReadAll(unhide.Got.Stdin); string(paths) != "local.conf\x00" {
		t.Errorf("update-index --no-assume-unchanged was fed %q: want the marked file alone", paths)
	}
	for _, c := range []*gittest.Call{list, unhide, add, write} {
		if !slices.Contains(c.Got.Env, "GIT_INDEX_FILE=/tmp/idx") || !c.Got.InWorktree {
			t.Errorf("git %v ran with env %v, in worktree %v: want its own index, pinned to the worktree", c.Got.Args, c.Got.Env, c.Got.InWorktree)
		}
	}
}

// ChangedTree writes a tree only where the staged files are not HEAD's,
// and counts a moved submodule whatever submodule.<name>.ignore says.
func TestChangedTreeWritesATreeOnlyWhereTheFilesAreNotHEADs(t *testing.T) {
	const empty = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
	for _, tc := range []struct {
		name     string
		diffCode int // diff-index's exit code: 0 the same, 1 not
		want     string
		wantErr  bool
	}{
		{"HEAD's files: no tree", 0, "", false},
		{"changed: the tree", 1, empty, false},
		{"git failed (no HEAD): an error, never HEAD's", 128, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := gittest.New(t)
			// No entry hidden from add -A: nothing to unhide.
			calls := []*gittest.Call{f.Expect("ls-files", "-v", "-s", "-z"), f.Expect("add", "-A")}
			diff := f.Expect("diff-index", "--cached", "--quiet", "--ignore-submodules=none", "HEAD", "--")
			calls = append(calls, diff)
			if tc.diffCode != 0 {
				diff.Fail(tc.diffCode, "")
			}
			if tc.diffCode == 1 {
				calls = append(calls, f.Expect("write-tree").Out(empty+"\n"))
			}
			tree, err := f.Git().Index().ChangedTree(context.Background(), "/w", "/tmp/idx")
			if tree != tc.want || (err != nil) != tc.wantErr {
				t.Fatalf("ChangedTree = %q, %v; want %q, error %v", tree, err, tc.want, tc.wantErr)
			}
			for _, c := range calls {
				if !slices.Contains(c.Got.Env, "GIT_INDEX_FILE=/tmp/idx") || !c.Got.InWorktree {
					t.Errorf("git %v ran with env %v, in worktree %v: want its own index, pinned to the worktree", c.Got.Args, c.Got.Env, c.Got.InWorktree)
				}
			}
		})
	}
}

func TestCommitSnapshotIsUnsignedByGitWtWithTheMessageOnStdin(t *testing.T) {
	f := gittest.New(t)
	c := f.Expect("commit-tree", "--no-gpg-sign", "-p", "aaa", "-p", "bbb", "-F", "-", "ttt").Out("ccc\n")
	got, err := f.Git().History().CommitSnapshot(context.Background(), "/m", "ttt", "-m is not an option here", "aaa", "bbb")
	if err != nil || got != "ccc" {
		t.Fatalf("CommitSnapshot = %q, %v", got, err)
	}
	msg, _ := io.ReadAll(c.Got.Stdin)
	if string(msg) != "-m is not an option here" || !slices.Contains(c.Got.Env, "GIT_COMMITTER_NAME=git-wt") {
		t.Errorf("message %q, env %v", msg, c.Got.Env)
	}
}

func TestWriteFilesOfMovesOnlyItsOwnIndex(t *testing.T) {
	f := gittest.New(t)
	c := f.Expect("read-tree", "-m", "-u", "--no-recurse-submodules", "aaa", "bbb")
	if err := f.Git().Index().WriteFilesOf(context.Background(), "/w", "/tmp/idx", "aaa", "bbb"); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(c.Got.Env, "GIT_INDEX_FILE=/tmp/idx") {
		t.Errorf("env %v: want its own index", c.Got.Env)
	}
}

func TestCommitParents(t *testing.T) {
	a := "1111111111111111111111111111111111111111"
	b := "2222222222222222222222222222222222222222"
	for _, tc := range []struct {
		data string
		want []string
	}{
		{"tree " + a + "\nparent " + a + "\nparent " + b + "\nauthor x\n\nparent " + b + "\n", []string{a, b}},
		{"tree " + a + "\nauthor x\n\nmsg\n", nil},
		{"tree " + a + "\nparent not-an-id\n\n", nil},
		{"", nil},
	} {
		if got := git.CommitParents([]byte(tc.data)); !slices.Equal(got, tc.want) {
			t.Errorf("CommitParents(%q) = %v, want %v", tc.data, got, tc.want)
		}
	}
}

func TestSnapshotFolderNamesTheRepositoryAndTheFolder(t *testing.T) {
	f := gittest.New(t)
	calls := []*gittest.Call{f.Expect("read-tree", "aaa"), f.Expect("add", "-A"), f.Expect("write-tree").Out("ttt\n")}
	tree, err := f.Git().Index().SnapshotFolder(context.Background(), "/r/.git", "/w", "/r/.git/idx", "aaa")
	if err != nil || tree != "ttt" {
		t.Fatalf("SnapshotFolder = %q, %v", tree, err)
	}
	for _, c := range calls {
		for _, v := range []string{"GIT_DIR=/r/.git", "GIT_WORK_TREE=/w", "GIT_INDEX_FILE=/r/.git/idx"} {
			if !slices.Contains(c.Got.Env, v) {
				t.Errorf("git %v: env %v lacks %s", c.Got.Args, c.Got.Env, v)
			}
		}
	}
}

func TestNewGitlinksListsOnlyRepositoriesTheFromSideLacks(t *testing.T) {
	f := gittest.New(t)
	z := "0000000000000000000000000000000000000000"
	o := "1111111111111111111111111111111111111111"
	out := ":000000 160000 " + z + " " + o + " A\x00inner\x00" + // a repository made in the worktree
		":100644 160000 " + o + " " + o + " T\x00was-a-file\x00" + // a file replaced by one
		":160000 160000 " + o + " " + o + " M\x00sub\x00" + // a submodule that moved: its store keeps it
		":000000 100644 " + z + " " + o + " A\x00new.txt\x00"
	f.Expect("diff-tree", "-r", "-z", "--no-renames", "hhh", "ttt", "--").Out(out)
	got, err := f.Git().History().NewGitlinks(context.Background(), "/m", "hhh", "ttt")
	if err != nil || !slices.Equal(got, []string{"inner", "was-a-file"}) {
		t.Fatalf("NewGitlinks = %q, %v", got, err)
	}
}
