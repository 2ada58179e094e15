package workflow

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/gh"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/slug"
	"github.com/git-wt/git-wt/internal/task"
)

// ForgeStart is what `new --pr N` or `new --issue N` starts a task from
// (SPEC §17): its default id, branch and base, and the pull request or
// issue to record on it. For a pull request, Fetch brings its commits
// and sets Base and StartAt, once new's claim is taken.
type ForgeStart struct {
	TaskID, Branch, Base string
	// StartAt is where the task's branch starts when new makes it: the
	// pull request's head, fetched.
	StartAt string
	PR      *record.PR
	Issue   *record.Issue
	head    *gh.Head // the pull request's branches, nil for an issue
	number  int      // the pull request's, as asked
}

// forgeRemote is the remote a pull request's commits are fetched from:
// the one gh takes for the repository by default.
const forgeRemote = "origin"

// FromPR asks gh for pull request n: the task's id, and its branch (the
// PR's head branch, or for a fork the task's own branch). It reads only:
// nothing is fetched or made before new's checks (SPEC §19). Without gh,
// or when gh fails (offline), it fails (exit 1).
func (m *Flow) FromPR(ctx context.Context, n int, id string) (*ForgeStart, error) {
	if n <= 0 {
		return nil, exitcode.Usagef("--pr %d is not a pull request number", n)
	}
	head, err := gh.Runner{Dir: m.Repo.MainDir}.PRHead(ctx, n)
	if err != nil {
		return nil, forgeError("pull request", n, err)
	}
	fs := &ForgeStart{TaskID: id, PR: &head.PR, head: head, number: n}
	if fs.TaskID == "" {
		fs.TaskID = "pr-" + strconv.Itoa(n)
	}
	if err := m.checkForgeBranches(ctx, n, head); err != nil {
		return nil, err
	}
	fs.Branch = head.HeadBranch
	if head.Fork {
		fs.Branch = m.Settings.BranchPrefix + slug.Make(fs.TaskID)
	}
	return fs, nil
}

// Fetch fetches a pull request's head, a branch of this repository into
// its remote-tracking ref, a fork's (refs/pull/N/head) into a ref of
// git-wt's own, and its base; the task's branch starts there when new
// makes it. An issue has nothing to fetch. When the fetch fails
// (offline), it fails (exit 1) with nothing made.
func (m *Flow) Fetch(ctx context.Context, fs *ForgeStart) (err error) {
	if fs.head == nil {
		return nil
	}
	n, head := fs.number, fs.head
	src, fetched := "refs/heads/"+head.HeadBranch, "refs/remotes/"+forgeRemote+"/"+head.HeadBranch
	if head.Fork {
		src, fetched = fmt.Sprintf("refs/pull/%d/head", n), fmt.Sprintf("refs/git-wt/pull/%d", n)
	}
	if err := m.Git.FetchRef(ctx, m.Repo.MainDir, forgeRemote, src, fetched); err != nil {
		return exitcode.Failedf("cannot fetch pull request #%d (%s) from %s: %v; nothing was made", n, src, forgeRemote, err)
	}
	fs.StartAt = fetched
	fs.Base, err = m.prBase(ctx, head.BaseBranch)
	return err
}

// checkForgeBranches refuses a pull request whose branches git would not
// take as branch names, or that start with "-" (SPEC §19): whoever opens
// a pull request names them, and they become refs, refspecs and git's
// arguments here. A fork's head branch is not used: its commits are
// fetched by the PR's number.
func (m *Flow) checkForgeBranches(ctx context.Context, n int, head *gh.Head) error {
	names := []string{head.BaseBranch}
	if !head.Fork {
		names = append(names, head.HeadBranch)
	}
	for _, name := range names {
		if name == "" {
			continue // no base named: the main worktree's branch
		}
		if m.CheckBranchName(ctx, name) != nil {
			return exitcode.RefusedAs(exitcode.KindConflict, "pull request #%d names the branch %q, which git does not take as a branch name: refused, nothing was made", n, name)
		}
	}
	return nil
}

// prBase is the base of a PR's task: the local branch the PR targets, or
// its remote-tracking ref, fetched.
func (m *Flow) prBase(ctx context.Context, branch string) (string, error) {
	if branch == "" {
		return "", nil // the main worktree's branch
	}
	local := "refs/heads/" + branch
	if objs, err := m.Git.ReadObjects(ctx, m.Repo.MainDir, local); err == nil && !objs[0].Missing {
		return local, nil
	}
	remote := "refs/remotes/" + forgeRemote + "/" + branch
	if err := m.Git.FetchRef(ctx, m.Repo.MainDir, forgeRemote, local, remote); err != nil {
		return "", exitcode.Failedf("cannot fetch the pull request's base %s from %s: %v; nothing was made", branch, forgeRemote, err)
	}
	return remote, nil
}

// FromIssue asks gh for issue n: the task is issue-N unless named, on the
// branch wt.branchPrefix plus the slug of the issue's title.
func (m *Flow) FromIssue(ctx context.Context, n int, id string) (*ForgeStart, error) {
	if n <= 0 {
		return nil, exitcode.Usagef("--issue %d is not an issue number", n)
	}
	is, err := gh.Runner{Dir: m.Repo.MainDir}.Issue(ctx, n)
	if err != nil {
		return nil, forgeError("issue", n, err)
	}
	fs := &ForgeStart{TaskID: id, Issue: is}
	if fs.TaskID == "" {
		fs.TaskID = "issue-" + strconv.Itoa(n)
	}
	name := slug.Make(is.Title)
	if strings.Trim(name, "-_.") == "" {
		name = slug.Make(fs.TaskID) // a title of no letters or digits
	}
	fs.Branch = m.Settings.BranchPrefix + name
	return fs, nil
}

// forgeError is the one line of a gh that is missing or failed.
func forgeError(what string, n int, err error) error {
	if errors.Is(err, gh.ErrNotInstalled) {
		return exitcode.Failedf("%v: install it (https://cli.github.com) to start a task from %s #%d; nothing was made", err, what, n)
	}
	return exitcode.Failedf("cannot read %s #%d through gh (offline, or not signed in?): %v; nothing was made", what, n, err)
}

// RecordForge writes the pull request or issue a task was started from
// into its record.
func (m *Flow) RecordForge(ctx context.Context, rec *record.Record, fs *ForgeStart) error {
	e, err := m.Find(ctx, rec.Slug)
	if err != nil {
		return err
	}
	if e.Err != nil {
		return task.Unreadable(e)
	}
	err = m.Update(ctx, e, func(r *record.Record) error {
		if fs.PR != nil {
			r.PR = fs.PR
		}
		if fs.Issue != nil {
			r.Issue = fs.Issue
		}
		return nil
	})
	if err == nil {
		m.LogEvent(e.Record, "forge-recorded", fmt.Sprintf("pr %v issue %v", fs.PR != nil, fs.Issue != nil))
	}
	return err
}
