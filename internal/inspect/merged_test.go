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

// A MERGED pull request merged its branch up to its recorded head commit
// (SPEC §19): the task is merged while its tip is there or behind it, and
// otherwise (commits made after the merge, a head that is not here, no
// head recorded) only if git's own checks find it merged: here the
// branch changed a path the base left alone, so it is not.
func TestAMergedPullRequestMergesTheBranchUpToItsHead(t *testing.T) {
	const headSHA = "7777777777777777777777777777777777777777"
	for _, c := range []struct {
		name       string
		head       string // the recorded head_oid
		tipAndHead string // what cat-file says of the branch's tip and the head
		isAncestor int    // merge-base --is-ancestor's exit; -1: not asked
		want       bool
	}{
		{"the tip is the head", headSHA, tipSHA + "\n" + tipSHA + "\n", -1, true},
		{"the tip is behind the head", headSHA, tipSHA + "\n" + headSHA + "\n", 0, true},
		{"commits made after the head", headSHA, tipSHA + "\n" + headSHA + "\n", 1, false},
		{"the head is not here", headSHA, tipSHA + "\n" + headSHA + "^{commit} missing\n", -1, false},
		{"no head recorded", "", "", -1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := gittest.New(t)
			if c.tipAndHead != "" {
				f.Expect("cat-file", "--batch-check=%(objectname)").Out(c.tipAndHead)
			}
			if c.isAncestor >= 0 {
				call := f.Expect("merge-base", "--is-ancestor", tipSHA, headSHA)
				if c.isAncestor != 0 {
					call.Fail(c.isAncestor, "")
				}
			}
			if !c.want {
				expectNotMergedByGit(f)
			}
			rec := taskOn("refs/heads/main")
			rec.PR = &record.PR{State: "MERGED", HeadOID: c.head}
			merged, err := inspectorOn(f).Merged(context.Background(), rec)
			if err != nil || merged != c.want {
				t.Fatalf("Merged = %v, %v; want %v", merged, err, c.want)
			}
		})
	}
}

// expectNotMergedByGit answers git's checks of a branch that is not an
// ancestor of its base and changed a path (a.txt) the base left alone.
func expectNotMergedByGit(f *gittest.Fake) {
	expectTips(f, tipSHA)
	f.Expect("for-each-ref", "--format=%(refname)", "--merged="+mainSHA, "refs/heads/wt/T")
	f.Expect("diff-tree", "--stdin", "--always", "-r", "-z", "--no-renames").
		Out(tipSHA + " " + baseSHA + "\x00:100644 100644 " + blobOld + " " + blobNew + " M\x00a.txt\x00" +
			mainSHA + " " + baseSHA + "\x00:100644 100644 " + blobOld + " " + blobNew + " M\x00b.txt\x00")
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
	expectNotMergedByGit(f)
	merged, err := inspectorOn(f).Merged(context.Background(), taskOn("refs/heads/main"))
	if err != nil || merged {
		t.Fatalf("Merged = %v, %v; want false", merged, err)
	}
}
