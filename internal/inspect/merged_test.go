// These tests protect the definition of "merged" (SPEC §7) against a fake
// git: which answers make a task merged, and that the cheap checks rule a
// task in or out before the costly ones run (a call the fake does not
// expect fails the test).
package inspect

import (
	"context"
	"testing"

	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/git/gittest"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
)

const (
	baseSHA = "1111111111111111111111111111111111111111"
	tipSHA  = "2222222222222222222222222222222222222222"
	mainSHA = "3333333333333333333333333333333333333333"
	mainTre = "4444444444444444444444444444444444444444"
	blobOld = "5555555555555555555555555555555555555555"
	blobNew = "6666666666666666666666666666666666666666"
)

func inspectorOn(f *gittest.Fake) *Inspector {
	return New(&task.Manager{Git: f.Git(), Repo: &git.Repo{MainDir: "/r"}}, nil)
}

func taskOn(base string) *record.Record {
	return &record.Record{Task: "T", Slug: "T", Branch: "wt/T", Base: base, BaseSHA: baseSHA}
}

// expectTips answers the one cat-file that reads the branch's tip and the
// base's commit and tree.
func expectTips(f *gittest.Fake, tip string) {
	f.Expect("cat-file", "--batch-check=%(objectname)").Out(tip + "\n" + mainSHA + "\n" + mainTre + "\n")
}

func TestATaskWhosePullRequestMergedIsMergedWithoutAskingGit(t *testing.T) {
	rec := taskOn("refs/heads/main")
	rec.PR = &record.PR{State: "MERGED"}
	merged, err := inspectorOn(gittest.New(t)).Merged(context.Background(), rec)
	if err != nil || !merged {
		t.Fatalf("Merged = %v, %v; want true", merged, err)
	}
}

func TestAFreshTaskIsNeverMerged(t *testing.T) {
	f := gittest.New(t)
	expectTips(f, baseSHA) // the branch is still at base_sha: no commits of its own
	merged, err := inspectorOn(f).Merged(context.Background(), taskOn("refs/heads/main"))
	if err != nil || merged {
		t.Fatalf("Merged = %v, %v; want false", merged, err)
	}
}

func TestABranchThatIsAnAncestorOfItsBaseIsMerged(t *testing.T) {
	f := gittest.New(t)
	expectTips(f, tipSHA)
	f.Expect("for-each-ref", "--format=%(refname)", "--merged="+mainSHA, "refs/heads/wt/T").Out("refs/heads/wt/T\n")
	merged, err := inspectorOn(f).Merged(context.Background(), taskOn("refs/heads/main"))
	if err != nil || !merged {
		t.Fatalf("Merged = %v, %v; want true", merged, err)
	}
}

// A branch that changed a path the base left alone cannot be in the base
// by any kind of merge: no merge-tree, no patch ids are asked for.
func TestABranchThatChangedAPathTheBaseLeftAloneIsNotMerged(t *testing.T) {
	f := gittest.New(t)
	expectTips(f, tipSHA)
	f.Expect("for-each-ref", "--format=%(refname)", "--merged="+mainSHA, "refs/heads/wt/T") // not an ancestor
	f.Expect("diff-tree", "--stdin", "--always", "-r", "-z", "--no-renames").
		Out(tipSHA + " " + baseSHA + "\x00:100644 100644 " + blobOld + " " + blobNew + " M\x00a.txt\x00" +
			mainSHA + " " + baseSHA + "\x00:100644 100644 " + blobOld + " " + blobNew + " M\x00b.txt\x00") // the base left a.txt alone
	merged, err := inspectorOn(f).Merged(context.Background(), taskOn("refs/heads/main"))
	if err != nil || merged {
		t.Fatalf("Merged = %v, %v; want false", merged, err)
	}
}
