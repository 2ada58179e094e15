package lifecycle

import (
	"cmp"
	"context"
	"errors"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/setup"
	"github.com/git-wt/git-wt/internal/slug"
	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/text"
)

// CreateOptions are the inputs of `git wt new`.
type CreateOptions struct {
	TaskID string
	Branch string // --branch; default wt.branchPrefix + slug
	Base   string // --base; default the main worktree's branch
	Path   string // --path; default <base dir>/<slug>
	NoInit bool
	NoCopy bool
	// Sparse are the directories --sparse named: only they (and the
	// files at the root) are checked out.
	Sparse []string
	// StartAt is the commit a branch new makes starts at, when it is not
	// the base's (new --pr: the pull request's head); the base stays the
	// task's base.
	StartAt string
	// ForRunner is a creation an agent runner asked for (SPEC §13): its
	// Base applies only to a task that does not exist yet, and a Base that
	// is a bare commit records as the task's base the branch checked out
	// where git-wt was started.
	ForRunner bool
	// Fill, for git wt restore, writes the worktree's files once it is
	// checked out, before its setup (restore.go). With Fill the task and
	// its branch must not exist yet: either is a refusal (exit 3).
	Fill func(ctx context.Context, dir string) error
}

// Created is what `new` made, or found.
type Created struct {
	Record  *record.Record
	Existed bool // the task was there already and nothing new was made
}

// Create makes the task's branch, worktree and record, or returns the task
// that exists already (SPEC §2, `new`). A failure removes whatever this
// call made before it returns.
func (m *Handler) Create(ctx context.Context, o CreateOptions) (*Created, error) {
	c, err := m.create(ctx, o)
	if code := exitcode.Of(err); code == exitcode.Refused || code == exitcode.Limit {
		m.LogEvent(&record.Record{Task: o.TaskID}, "refused", err.Error())
	}
	return c, err
}

func (m *Handler) create(ctx context.Context, o CreateOptions) (*Created, error) {
	if err := checkTaskID(o.TaskID); err != nil {
		return nil, err
	}
	if o.Branch != "" {
		if err := m.CheckBranchName(ctx, o.Branch); err != nil {
			return nil, err
		}
	}
	deadline := time.Now().Add(m.Settings.LockTimeout)
	races := 0
	for {
		seen, err := m.sight(ctx, o)
		if err != nil {
			return nil, err
		}
		e := seen.task(o.TaskID)
		if e != nil && o.Fill != nil {
			return nil, exitcode.RefusedAs(exitcode.KindConflict, "task %q exists (%s): remove it first (git wt rm), then restore again", o.TaskID, e.Record.Path)
		}
		if e == nil {
			c, err := m.createNew(ctx, o, seen)
			if joinable(err) && races < task.MaxRaces {
				races++
				continue // someone created it meanwhile: join them
			}
			return c, err
		}
		c, err := m.existing(ctx, e, o)
		if joinable(err) && races < task.MaxRaces {
			races++
			continue
		}
		if !errors.Is(err, errBusy) {
			return c, err
		}
		if m.Settings.LockTimeout > 0 && time.Now().After(deadline) {
			return nil, exitcode.Failedf("task %q is still being created by process %d on %s after %s: try again later", o.TaskID, e.Record.CreatorPID, e.Record.CreatorHost, m.Settings.LockTimeout)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(task.PollInterval):
		}
	}
}

var (
	errRaced = errors.New("task created concurrently")
	errBusy  = errors.New("task being created by another process")
)

// checkTaskID refuses the task ids that cannot be kept or found again:
// any text is a task id, but it must be UTF-8 (records are JSON), and "."
// means "the worktree I am in" to every other command.
func checkTaskID(id string) error {
	switch {
	case id == "":
		return exitcode.Usagef("the task id is empty")
	case id == ".":
		return exitcode.Usagef(`"." is not a task id: it names the current worktree`)
	case !utf8.ValidString(id):
		return exitcode.Usagef("the task id %q is not valid UTF-8", id)
	}
	return nil
}

// sighting is what new saw before claiming a task, with one git process:
// the records under the task id's two candidate slugs, whether the
// branches those slugs would use exist, and, without --base, the main
// worktree's HEAD, the default base.
type sighting struct {
	cands    [2]string
	entries  []record.Entry
	branches map[string]git.Object // branch name → what it points at (Missing when absent)
	head     *task.Base            // nil: not read, or not certain (resolveBase will ask)
}

func (m *Handler) sight(ctx context.Context, o CreateOptions) (*sighting, error) {
	seen := &sighting{cands: slug.Candidates(o.TaskID), branches: map[string]git.Object{}}
	names := []string{task.BranchRef(m.branchFor(o, seen.cands[0])), task.BranchRef(m.branchFor(o, seen.cands[1]))}
	// The default base is the branch the main worktree's HEAD file names:
	// the same cat-file reads HEAD's commit and that branch's, which must
	// agree (else, or detached with another commit, rev-parse decides).
	headRef, headOID, headOK := "", "", false
	if o.Base == "" {
		if headRef, headOID, headOK = git.ReadHead(m.Repo.CommonDir); headOK {
			names = append(names, "HEAD", cmp.Or(headRef, "HEAD"))
		}
	}
	entries, objs, err := m.Store.GetAlong(ctx, seen.cands[:], names...)
	if err != nil {
		return nil, err
	}
	seen.entries = entries
	for i, c := range seen.cands {
		seen.branches[m.branchFor(o, c)] = objs[i]
	}
	if headOK {
		head, named := objs[2], objs[3]
		if head.Type == "commit" && !named.Missing && named.OID == head.OID && (headRef != "" || headOID == head.OID) {
			seen.head = &task.Base{Ref: headRef, SHA: head.OID}
		}
	}
	return seen, nil
}

// task is the record of exactly this task id (not a task whose slug merely
// equals it: two task ids never share a worktree), or a corrupt record in
// its place.
func (seen *sighting) task(id string) *record.Entry {
	e := task.Pick(id, seen.cands, seen.entries)
	if e == nil || e.Err != nil || slug.SameID(e.Record.Task, id) {
		return e
	}
	return nil
}

// branchFor is the branch a task stored under slug uses: --branch, else
// wt.branchPrefix and the slug.
func (m *Handler) branchFor(o CreateOptions, slug string) string {
	if o.Branch != "" {
		return o.Branch
	}
	return m.Settings.BranchPrefix + slug
}

// existing handles `new` for a task that has a record.
func (m *Handler) existing(ctx context.Context, e *record.Entry, o CreateOptions) (*Created, error) {
	if e.Err != nil {
		return nil, task.Unreadable(e)
	}
	rec := e.Record
	if err := m.checkAskedAgain(ctx, rec, o); err != nil {
		return nil, err
	}
	switch rec.State {
	case record.Creating, record.Initializing:
		gone, err := m.OwnerGone(ctx, e)
		switch {
		case err != nil && !errors.Is(err, task.ErrMovedOn):
			return nil, err
		case gone:
			if rec.Init.Rerun {
				// git wt init of an existing task died: keep the task as
				// it is (failed); git wt init runs its setup again.
				if err := m.FailInterruptedInit(ctx, e); err != nil {
					return nil, err
				}
				return nil, m.InitFailed(e.Record)
			}
			return m.resume(ctx, e, o)
		default:
			return nil, errBusy
		}
	case record.Removing:
		if gone, err := m.OwnerGone(ctx, e); !gone || errors.Is(err, task.ErrMovedOn) {
			if err != nil && !errors.Is(err, task.ErrMovedOn) {
				return nil, err
			}
			return nil, errBusy // removed, or put back, soon (or already): then look again
		}
		return nil, exitcode.Refusedf("task %q was left half removed (state removing): run git wt rm %s to finish removing it, then git wt new again", rec.Task, rec.Slug)
	}
	if _, err := os.Lstat(rec.Path); err != nil {
		return m.resume(ctx, e, o) // record but no directory: make it again
	}
	if rec.State == record.Failed {
		return nil, m.InitFailed(rec)
	}
	m.ClearInitializingLock(ctx, rec)
	if m.Ports().Missing(rec) {
		if err := m.ReadyEnvironment(ctx, e); err != nil {
			return nil, err
		}
	}
	if rec.Reclaimed != nil && !o.NoInit {
		// gc reclaimed its build output (SPEC §20): the task resumed is
		// set up again, as git wt init would.
		if err := m.Setup(ctx, e, setup.Options{Copy: !o.NoCopy, Init: true}); err != nil {
			return nil, err
		}
	}
	return &Created{Record: e.Record, Existed: true}, nil
}

// runnerBaseBranch records as the base of a runner's task started at a
// bare commit the branch checked out where git-wt was started (SPEC §13):
// the branch starts at the commit, and merges back there. When that
// branch does not hold the commit, sync would replay only the task's
// commits after it onto the branch and drop the commit's own content:
// the task's own commits then count from the merge base of the two, so
// that sync replays that content too, and the hook says so.
func (m *Handler) runnerBaseBranch(ctx context.Context, b *task.Base) {
	h := m.Git.History()
	tip, ref, err := h.ResolveCommit(ctx, m.Repo.Toplevel, "HEAD")
	if err != nil || !strings.HasPrefix(ref, "refs/heads/") {
		return
	}
	b.Ref = ref
	if holds, err := h.IsAncestor(ctx, m.Repo.MainDir, b.SHA, tip); err != nil || holds {
		return
	}
	since, err := h.MergeBase(ctx, m.Repo.MainDir, b.SHA, tip)
	if err != nil {
		since = tip // no common history: every commit of the task is its own
	}
	b.Since = since
	branch := strings.TrimPrefix(ref, "refs/heads/")
	m.Warn("the runner's base commit %s is not on the branch %s checked out here: the task's base is %s, and the commits from their merge base %s to %s count as the task's own, so that git wt sync and merge carry their content", text.ShortID(b.SHA), branch, branch, text.ShortID(since), text.ShortID(b.SHA))
}

// startAt makes the task's branch, when new makes it, start at rev
// instead of at the base's commit: the commits from their merge base to
// rev are the task's own (a pull request's), as a runner's base commit's
// are.
func (m *Handler) startAt(ctx context.Context, b *task.Base, rev string) error {
	h := m.Git.History()
	sha, _, err := h.ResolveCommit(ctx, m.Repo.MainDir, rev)
	if err != nil {
		return err
	}
	since, err := h.MergeBase(ctx, m.Repo.MainDir, sha, b.SHA)
	if err != nil {
		since = b.SHA // no common history: every commit of rev is the task's own
	}
	b.SHA, b.Since = sha, since
	return nil
}

// createNew makes a task that has no record yet.
func (m *Handler) createNew(ctx context.Context, o CreateOptions, seen *sighting) (c *Created, err error) {
	var b task.Base
	if seen.head != nil {
		b = *seen.head
	} else if b, err = m.ResolveBase(ctx, o.Base); err != nil {
		return nil, err
	}
	if o.ForRunner && b.Ref == "" {
		m.runnerBaseBranch(ctx, &b)
	}
	if o.StartAt != "" {
		if err := m.startAt(ctx, &b, o.StartAt); err != nil {
			return nil, err
		}
	}
	if o.Sparse, err = m.sparseDirs(ctx, o.Sparse); err != nil {
		return nil, err
	}
	pc := m.poolClaimFor(ctx, o, b, seen) // its first entry's check starts now
	if pc != nil {
		defer m.pool.StartFill() // tops the pool up, in the background
		defer pc.release()
	}
	// A .git this user may not write to (read-only, another user's) would
	// fail inside git, in git's words ("Unable to add (null) to
	// database"), after the base dir was made: say so first, in one line
	// naming the folder, and make nothing.
	if dir := git.Unwritable(m.Repo.CommonDir); dir != "" {
		return nil, exitcode.Failedf("cannot write to %s, where git keeps the new task's record, branch and worktree: make it writable for this user, or run git wt as the repository's owner", dir)
	}
	baseDir, err := m.Place.PlaceNew(ctx, b.SHA)
	if err != nil {
		return nil, err
	}
	// The checkout's size is read while the lock is taken and the worktree
	// registered, so the disk check costs no time on the way.
	size := make(chan int64, 1)
	go func() {
		n, _ := m.CheckoutSize(ctx, b.SHA, o.Sparse)
		size <- n
	}()
	u := Undo{task: &record.Record{Task: o.TaskID}}
	defer func() {
		if err != nil {
			u.run(m, rollbackReason(err))
		}
	}()

	e, branchMade, err := m.claimLocked(ctx, o, b, baseDir, &u, seen, pc)
	if err != nil {
		return nil, err
	}
	u.entry = e
	m.Place.WarnLongPaths(ctx, e.Record.Path, b.SHA)
	task.Checkpoint(ctx, "new:record")
	claimed, err := m.settleClaimed(ctx, e.Record, b, pc, &u)
	if err != nil {
		return nil, err
	}
	if !claimed {
		if err := m.AddWorktree(ctx, e.Record, b.SHA, &u, branchMade); err != nil {
			return nil, err
		}
		task.Checkpoint(ctx, "new:worktree")
		if err := m.EnsureSpace(ctx, baseDir, <-size); err != nil {
			return nil, err
		}
	}
	if err = m.finish(ctx, e, o, claimed); err != nil {
		if errors.Is(err, setup.ErrInitFailed) {
			u = Undo{} // the worktree stays, in state failed, for the user to look at
		}
		return nil, err
	}
	m.LogEvent(e.Record, "created", "")
	return &Created{Record: e.Record}, nil
}

// finish checks the worktree out and sets it up (Setup: copy, init), then
// runs the post-checkout hook as `git worktree add` would have. The task
// ends active, or failed when its setup failed (a setup.ErrInitFailed error).
// A worktree made from a pool entry (fromPool) has its files, and the
// copies were made with the entry: only the task's own init runs.
func (m *Handler) finish(ctx context.Context, e *record.Entry, o CreateOptions, fromPool bool) error {
	rec := e.Record
	plan := m.PlanSetup(setup.Options{Copy: !o.NoCopy && !fromPool, Init: !o.NoInit})
	settleCtx := ctx
	if rec.State == record.Creating && plan.Empty() {
		// With nothing to set up, the record's last content is known
		// now: its blob is written while git checks the worktree out.
		next, owner := *rec, task.Self()
		next.Move(record.Active, owner) // as settleState will: creating → active is a legal move
		plan.SettleEmpty(&next)
		m.Store.Prewrite(ctx, &next)
		settleCtx = task.SigningAs(ctx, owner) // the settle signs as the blob written ahead does
	}
	if rec.State == record.Creating && !fromPool {
		if err := m.shapeCheckout(ctx, rec); err != nil {
			return err
		}
		if err := m.CheckOut(ctx, rec.Path, rec.Branch); err != nil {
			return err
		}
		task.Checkpoint(ctx, "new:checked-out")
	}
	if o.Fill != nil && rec.State == record.Creating {
		if err := o.Fill(ctx, rec.Path); err != nil {
			return err
		}
	}
	err := m.Apply(settleCtx, e, plan)
	if err == nil || errors.Is(err, setup.ErrInitFailed) {
		m.runCheckoutHook(ctx, e.Record)
	}
	return err
}

// joinable says whether a creation failed because another process made
// the task meanwhile, or took it over (a second new resumed it): then
// this new looks again, and reports the task the other one makes.
func joinable(err error) bool {
	return errors.Is(err, errRaced) || errors.Is(err, task.ErrTakenOver)
}

// busyIfStale is errBusy for a record someone else changed meanwhile
// (look again), and err itself for any other failure.
func busyIfStale(err error) error {
	if errors.Is(err, git.ErrStale) {
		return errBusy
	}
	return err
}

// rollbackReason says in the event log why a creation was undone.
func rollbackReason(err error) string {
	if errors.Is(err, context.Canceled) {
		return "interrupted"
	}
	return err.Error()
}
