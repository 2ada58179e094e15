package git_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/git/gittest"
)

func TestPushRefsLeasesEachRefAndNeverRunsHooks(t *testing.T) {
	f := gittest.New(t)
	f.Expect("push", "--porcelain", "--no-verify", "--quiet", "--atomic",
		"--force-with-lease=refs/git-wt/claims/a:", "--force-with-lease=refs/git-wt/claims/b:"+h1,
		"--", "origin", "refs/heads/wt/b:refs/heads/wt/b", h2+":refs/git-wt/claims/a", h1+":refs/git-wt/claims/b", ":refs/git-wt/claims/c").Fail(1, "")
	err := f.Git().PushRefs(context.Background(), "/r", "origin", []git.RefPush{
		{Src: "refs/heads/wt/b", Dst: "refs/heads/wt/b"},
		{Src: h2, Dst: "refs/git-wt/claims/a", Leased: true},
		{Src: h1, Dst: "refs/git-wt/claims/b", Leased: true, Lease: h1},
		{Dst: "refs/git-wt/claims/c"},
	}, true)
	if git.ExitCode(err) != 1 {
		t.Errorf("a refused push is git's error: %v", err)
	}
}

func TestRemoteRefsKeepsOnlyTheRefsAskedFor(t *testing.T) {
	f := gittest.New(t)
	f.Expect("ls-remote", "--refs", "--", "origin", "refs/git-wt/claims/a", "refs/heads/c/*").
		Out(h1 + "\trefs/git-wt/claims/a\n" + h2 + "\trefs/other/refs/git-wt/claims/a\n" + h2 + "\trefs/heads/c/x\n")
	refs, err := f.Git().RemoteRefs(context.Background(), "/r", "origin", "refs/git-wt/claims/a", "refs/heads/c/")
	want := []git.Ref{{Name: "refs/git-wt/claims/a", OID: h1}, {Name: "refs/heads/c/x", OID: h2}}
	if err != nil || !reflect.DeepEqual(refs, want) {
		t.Errorf("got %v, %v; want %v", refs, err, want)
	}
}

func TestFetchRefsPrunesIntoItsOwnFolder(t *testing.T) {
	f := gittest.New(t)
	f.Expect("fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-auto-maintenance", "--recurse-submodules=no",
		"--prune", "--", "origin", "+refs/git-wt/claims/*:refs/git-wt/seen/origin/*")
	if err := f.Git().FetchRefs(context.Background(), "/r", "origin", "refs/git-wt/claims/", "refs/git-wt/seen/origin/"); err != nil {
		t.Error(err)
	}
}

func TestRecordCommitIsACommitOfTheEmptyTreeByGitWt(t *testing.T) {
	const empty = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
	f := gittest.New(t)
	c := f.Expect("commit-tree", empty, "-p", h2, "-m", "msg").Out(h1 + "\n")
	got, err := f.Git().RecordCommit(context.Background(), "/r", "msg", h2)
	if err != nil || got != h1 {
		t.Fatalf("got %q, %v", got, err)
	}
	if len(c.Got.Env) != 4 {
		t.Errorf("the commit names git-wt as author and committer: %v", c.Got.Env)
	}
	// A SHA-256 repository knows no SHA-1 empty tree: it is written.
	f = gittest.New(t)
	f.Expect("commit-tree", empty, "-m", "msg").Fail(128, "")
	f.Expect("hash-object", "-w", "-t", "tree", "--stdin").Out(h2 + "\n")
	f.Expect("commit-tree", h2, "-m", "msg").Out(h1 + "\n")
	if got, err := f.Git().RecordCommit(context.Background(), "/r", "msg", ""); err != nil || got != h1 {
		t.Fatalf("root commit in another format: %q, %v", got, err)
	}
}
