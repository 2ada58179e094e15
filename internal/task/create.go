package task

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/proc"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/slug"
)

// CreateOptions are the inputs of `git wt new`.
type CreateOptions struct {
	TaskID string
	Branch string // --branch; default wt.branchPrefix + slug
	Base   string // --base; default the main worktree's branch
	Path   string // --path; default <base dir>/<slug>
	NoInit bool
	NoCopy bool
}

// Created is what `new` made, or found.
type Created struct {
	Record  *record.Record
	Existed bool // the task was there already and nothing new was made
}

// pollInterval is how often `new` looks at a task another process is
// creating.
const pollInterval = 25 * time.Millisecond

// Create makes the task's branch, worktree and record, or returns the task
// that exists already (SPEC §2, `new`). A failure removes whatever this
// call made before it returns.
func (m *Manager) Create(ctx context.Context, o CreateOptions) (*Created, error) {
	if o.TaskID == "" {
		return nil, exitcode.Usagef("the task id is empty")
	}
	if o.Branch != "" {
		if err := m.checkBranchName(ctx, o.Branch); err != nil {
			return nil, err
		}
	}
	deadline := time.Now().Add(m.Settings.LockTimeout)
	races := 0
	for {
		e, err := m.byTaskID(ctx, o.TaskID)
		if err != nil {
			return nil, err
		}
		if e == nil {
			c, err := m.createNew(ctx, o)
			if errors.Is(err, errRaced) && races < maxRaces {
				races++
				continue // someone created it meanwhile: join them
			}
			return c, err
		}
		c, err := m.existing(ctx, e, o)
		if !errors.Is(err, errBusy) {
			return c, err
		}
		if m.Settings.LockTimeout > 0 && time.Now().After(deadline) {
			return nil, exitcode.Failedf("task %q is still being created by process %d on %s after %s: try again later", o.TaskID, e.Record.CreatorPID, e.Record.CreatorHost, m.Settings.LockTimeout)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(pollInterval):
		}
	}
}

// maxRaces bounds how often `new` starts over because another process
// created the same task between its look and its lock.
const maxRaces = 10

var (
	errRaced = errors.New("task created concurrently")
	errBusy  = errors.New("task being created by another process")
)

// byTaskID finds the record of exactly this task id (not a task whose
// slug merely equals it: two task ids never share a worktree).
func (m *Manager) byTaskID(ctx context.Context, id string) (*record.Entry, error) {
	e, err := m.byID(ctx, id)
	if e == nil || err != nil || e.Err != nil || e.Record.Task == id {
		return e, err
	}
	return nil, nil
}

// existing handles `new` for a task that has a record.
func (m *Manager) existing(ctx context.Context, e *record.Entry, o CreateOptions) (*Created, error) {
	if e.Err != nil {
		return nil, exitcode.Failedf("%v: run git wt doctor", e.Err)
	}
	rec := e.Record
	switch rec.State {
	case record.Creating, record.Initializing:
		switch proc.Check(creator(rec)) {
		case proc.Dead:
			return m.resume(ctx, e, o)
		default:
			return nil, errBusy
		}
	}
	if _, err := os.Lstat(rec.Path); err != nil {
		return m.resume(ctx, e, o) // record but no directory: make it again
	}
	if rec.State == record.Failed {
		return nil, m.initFailed(rec)
	}
	return &Created{Record: rec, Existed: true}, nil
}

func creator(rec *record.Record) proc.ID {
	return proc.ID{PID: rec.CreatorPID, Host: rec.CreatorHost, Start: rec.CreatorStart}
}

// createNew makes a task that has no record yet.
func (m *Manager) createNew(ctx context.Context, o CreateOptions) (c *Created, err error) {
	b, err := m.resolveBase(ctx, o.Base)
	if err != nil {
		return nil, err
	}
	baseDir, err := m.baseDir()
	if err != nil {
		return nil, err
	}
	var u undo
	defer func() {
		if err != nil {
			u.run(m, rollbackReason(err))
		}
	}()

	l, err := m.lock(ctx)
	if err != nil {
		return nil, err
	}
	e, err := m.claim(ctx, o, b, baseDir, &u)
	if err == nil {
		err = m.addWorktree(ctx, e.Record, b.SHA, &u)
	}
	l.Release()
	if err != nil {
		return nil, err
	}
	if err = m.finish(ctx, e, o); err != nil {
		if errors.Is(err, ErrInitFailed) {
			u = undo{} // the worktree stays, in state failed, for the user to look at
		}
		return nil, err
	}
	m.logEvent(e.Record, "created", "")
	return &Created{Record: e.Record}, nil
}

// claim runs under the lock: it picks the slug, checks the limit, the
// branch and the path, and writes the record in state "creating" before
// anything else exists, so that a crash never leaves a worktree without
// a record.
func (m *Manager) claim(ctx context.Context, o CreateOptions, b base, baseDir string, u *undo) (*record.Entry, error) {
	cands := slug.Candidates(o.TaskID)
	entries, err := m.Store.Get(ctx, cands[0], cands[1])
	if err != nil {
		return nil, err
	}
	taken := map[string]bool{}
	for _, e := range entries {
		if e.Record != nil && e.Record.Task == o.TaskID {
			return nil, errRaced
		}
		taken[e.Slug] = true
	}
	name := cands[0]
	if taken[name] {
		name = cands[1]
	}
	if taken[name] {
		return nil, exitcode.Usagef("task id %q collides with two existing tasks (%s, %s): choose another id", o.TaskID, cands[0], cands[1])
	}
	if err := m.checkLimit(ctx); err != nil {
		return nil, err
	}
	branch := o.Branch
	if branch == "" {
		branch = m.Settings.BranchPrefix + name
		if m.Settings.BranchPrefix != "wt/" {
			if err := m.checkBranchName(ctx, branch); err != nil {
				return nil, exitcode.Usagef("invalid branch %q (check wt.branchPrefix)", branch)
			}
		}
	}
	path, err := worktreePath(baseDir, m.Settings.BaseDir, name, o.Path)
	if err != nil {
		return nil, err
	}
	me := proc.Self()
	now := time.Now().UTC()
	rec := &record.Record{
		Task: o.TaskID, Slug: name, Branch: branch, Path: path,
		Base: b.Name(), BaseSHA: b.SHA, State: record.Creating,
		CreatedAt: now, LastAccessAt: now,
		CreatorPID: me.PID, CreatorHost: me.Host, CreatorStart: me.Start,
	}
	oid, err := m.Store.Create(ctx, rec)
	if errors.Is(err, git.ErrStale) {
		return nil, errRaced
	}
	if err != nil {
		return nil, err
	}
	e := &record.Entry{Slug: name, OID: oid, Record: rec}
	u.push(func(ctx context.Context) error { return m.dropRecord(ctx, e) })
	return e, nil
}

// checkLimit enforces wt.maxWorktrees; it runs under the lock, so the
// limit holds exactly under a burst of concurrent `new`.
func (m *Manager) checkLimit(ctx context.Context) error {
	max := m.Settings.MaxWorktrees
	if max <= 0 {
		return nil
	}
	refs, err := m.Git.ListRefs(ctx, m.Repo.Toplevel, record.RefPrefix)
	if err != nil {
		return err
	}
	if len(refs) >= max {
		return exitcode.Limitf("%d task worktrees exist and wt.maxWorktrees is %d: remove one (git wt rm, git wt gc) or raise the limit", len(refs), max)
	}
	return nil
}

// addWorktree registers the worktree on the task's branch (without
// checking it out: that happens after the lock is released), creating the
// branch at startSHA if it does not exist. Runs under the lock.
//
// The branch is always named by its full ref. `git worktree add BRANCH`
// would look the short name up, and "wt/<slug>" resolves to the record
// refs/wt/<slug> before refs/heads/wt/<slug>: so the worktree is added
// detached and HEAD then pointed at the branch.
func (m *Manager) addWorktree(ctx context.Context, rec *record.Record, startSHA string, u *undo) error {
	bs, err := m.inspectBranch(ctx, rec.Branch)
	if err != nil {
		return err
	}
	if bs.CheckedOut != "" {
		return exitcode.Refusedf("branch %s is checked out in %s: a branch can be checked out in one worktree only", rec.Branch, bs.CheckedOut)
	}
	ref := branchRef(rec.Branch)
	if bs.Exists {
		startSHA = bs.SHA
	} else {
		if err := m.Git.UpdateRef(ctx, m.Repo.Toplevel, ref, startSHA, ""); err != nil {
			return fmt.Errorf("cannot create branch %s: %w", rec.Branch, err)
		}
		// Undo runs last-in first-out: the worktree goes before its branch.
		u.push(func(ctx context.Context) error { return m.dropNewBranch(ctx, rec.Branch, startSHA) })
	}
	_, err = m.Git.Run(ctx, m.Repo.Toplevel, "worktree", "add", "--no-checkout", "--detach", "--", rec.Path, startSHA)
	// Undo even after a failure: git may have made the folder or the
	// admin entry before it failed.
	u.push(func(ctx context.Context) error { return m.dropWorktree(ctx, rec.Path) })
	if err == nil {
		_, err = m.Git.RunIn(ctx, rec.Path, "symbolic-ref", "HEAD", ref)
	}
	if err != nil {
		return fmt.Errorf("cannot add the worktree %s: %w", rec.Path, err)
	}
	return nil
}

// finish checks the worktree out and sets it up (Setup: copy, init), then
// runs the post-checkout hook as `git worktree add` would have. The task
// ends active, or failed when its setup failed (an ErrInitFailed error).
func (m *Manager) finish(ctx context.Context, e *record.Entry, o CreateOptions) error {
	rec := e.Record
	if rec.State == record.Creating {
		if _, err := m.Git.RunIn(ctx, rec.Path, "reset", "--hard", "--no-recurse-submodules", "-q"); err != nil {
			return fmt.Errorf("cannot check out %s in %s: %w", rec.Branch, rec.Path, err)
		}
	}
	err := m.Setup(ctx, e, SetupOptions{Copy: !o.NoCopy, Init: !o.NoInit})
	if err == nil || errors.Is(err, ErrInitFailed) {
		m.runCheckoutHook(ctx, e.Record)
	}
	return err
}

// save writes an updated record over the one read as e.OID.
func (m *Manager) save(ctx context.Context, e *record.Entry) error {
	oid, err := m.Store.Update(ctx, e.Record, e.OID)
	if err != nil {
		return err
	}
	e.OID = oid
	return nil
}

// resume takes over a task whose record exists but whose creation did not
// finish (its creator died) or whose directory has gone: it makes what is
// missing, under the lock, and finishes the job.
func (m *Manager) resume(ctx context.Context, e *record.Entry, o CreateOptions) (c *Created, err error) {
	var u undo
	defer func() {
		if err != nil {
			u.run(m, rollbackReason(err))
		}
	}()
	l, err := m.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { l.Release() }()
	fresh, err := m.Store.Get(ctx, e.Slug)
	if err != nil {
		return nil, err
	}
	if len(fresh) != 1 || fresh[0].OID != e.OID {
		return nil, errBusy // changed since we looked: look again
	}
	rec := e.Record
	me := proc.Self()
	rec.CreatorPID, rec.CreatorHost, rec.CreatorStart = me.PID, me.Host, me.Start
	_, statErr := os.Lstat(rec.Path)
	registered := m.registered(ctx, rec.Path)
	if statErr == nil && !registered {
		if entries, _ := os.ReadDir(rec.Path); len(entries) > 0 {
			return nil, exitcode.Refusedf("%s exists but is not a worktree of this repository: move it away, then run git wt new again", rec.Path)
		}
	}
	if statErr != nil || !registered {
		// Drop what is left (git's stale admin entry, an empty folder),
		// then add the worktree again from the branch or the base commit.
		if err := m.dropWorktree(ctx, rec.Path); err != nil {
			return nil, err
		}
		rec.State = record.Creating
		if err := m.save(ctx, e); err != nil {
			return nil, errBusy
		}
		if err := m.addWorktree(ctx, rec, rec.BaseSHA, &u); err != nil {
			return nil, err
		}
	} else if err := m.save(ctx, e); err != nil {
		return nil, errBusy
	}
	l.Release()
	if err = m.finish(ctx, e, o); err != nil {
		if errors.Is(err, ErrInitFailed) {
			u = undo{}
		}
		return nil, err
	}
	m.logEvent(rec, "created", "resumed an unfinished creation")
	return &Created{Record: rec}, nil
}

// rollbackReason says in the event log why a creation was undone.
func rollbackReason(err error) string {
	if errors.Is(err, context.Canceled) {
		return "interrupted"
	}
	return err.Error()
}
