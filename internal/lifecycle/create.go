package lifecycle

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/lock"
	"github.com/git-wt/git-wt/internal/place"
	"github.com/git-wt/git-wt/internal/proc"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/setup"
	"github.com/git-wt/git-wt/internal/slug"
	"github.com/git-wt/git-wt/internal/task"
)

// CreateOptions are the inputs of `git wt new`.
type CreateOptions struct {
	TaskID string
	Branch string // --branch; default wt.branchPrefix + slug
	Base   string // --task.Base; default the main worktree's branch
	Path   string // --path; default <task.Base dir>/<slug>
	NoInit bool
	NoCopy bool
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
		if e == nil {
			c, err := m.createNew(ctx, o, seen)
			if errors.Is(err, errRaced) && races < task.MaxRaces {
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
// branches those slugs would use exist, and, without --task.Base, the main
// worktree's HEAD, the default task.Base.
type sighting struct {
	cands    [2]string
	entries  []record.Entry
	branches map[string]git.Object // branch name → what it points at (Missing when absent)
	head     *task.Base            // nil: not read, or not certain (resolveBase will ask)
}

func (m *Handler) sight(ctx context.Context, o CreateOptions) (*sighting, error) {
	seen := &sighting{cands: slug.Candidates(o.TaskID), branches: map[string]git.Object{}}
	names := []string{task.BranchRef(m.branchFor(o, seen.cands[0])), task.BranchRef(m.branchFor(o, seen.cands[1]))}
	// The default task.Base is the branch the main worktree's HEAD file names:
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
	if e == nil || e.Err != nil || e.Record.Task == id {
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
		switch proc.Check(task.Owner(rec)) {
		case proc.Dead:
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
		if proc.Check(task.Owner(rec)) == proc.Alive {
			return nil, errBusy // removed, or put back, soon: then look again
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
	return &Created{Record: rec, Existed: true}, nil
}

// createNew makes a task that has no record yet.
func (m *Handler) createNew(ctx context.Context, o CreateOptions, seen *sighting) (c *Created, err error) {
	var b task.Base
	if seen.head != nil {
		b = *seen.head
	} else if b, err = m.ResolveBase(ctx, o.Base); err != nil {
		return nil, err
	}
	baseDir, err := m.Place.PlaceNew(ctx, b.SHA)
	if err != nil {
		return nil, err
	}
	// The checkout's size is read while the lock is taken and the worktree
	// registered, so the disk check costs no time on the way.
	size := make(chan int64, 1)
	go func() {
		n, _ := m.CheckoutSize(ctx, b.SHA)
		size <- n
	}()
	var u Undo
	defer func() {
		if err != nil {
			u.run(m, rollbackReason(err))
		}
	}()

	e, branchMade, err := m.claimLocked(ctx, o, b, baseDir, &u, seen)
	if err != nil {
		return nil, err
	}
	task.Checkpoint(ctx, "new:record")
	if err := m.AddWorktree(ctx, e.Record, b.SHA, &u, branchMade); err != nil {
		return nil, err
	}
	task.Checkpoint(ctx, "new:worktree")
	if err := m.EnsureSpace(ctx, baseDir, <-size); err != nil {
		return nil, err
	}
	if err = m.finish(ctx, e, o); err != nil {
		if errors.Is(err, setup.ErrInitFailed) {
			u = Undo{} // the worktree stays, in state failed, for the user to look at
		}
		return nil, err
	}
	m.LogEvent(e.Record, "created", "")
	return &Created{Record: e.Record}, nil
}

// claimLocked is claim, under the lock when wt.maxWorktrees is set: the
// count and the new record must then not interleave with another new's,
// so what was seen before the lock is read again. Without a limit the
// record's compare-and-swap is all it takes.
func (m *Handler) claimLocked(ctx context.Context, o CreateOptions, b task.Base, baseDir string, u *Undo, seen *sighting) (*record.Entry, bool, error) {
	if m.Settings.MaxWorktrees <= 0 {
		return m.claim(ctx, o, b, baseDir, u, seen)
	}
	l, err := m.Lock(ctx)
	if err != nil {
		return nil, false, err
	}
	defer l.Release()
	if seen, err = m.sight(ctx, o); err != nil {
		return nil, false, err
	}
	return m.claim(ctx, o, b, baseDir, u, seen)
}

// claim picks the slug, checks the limit, the branch name and the path,
// and writes the record in state "creating" before anything else exists,
// so that a crash never leaves a worktree without a record. A branch that
// does not exist yet is created in the same transaction as the record;
// branchMade says so.
func (m *Handler) claim(ctx context.Context, o CreateOptions, b task.Base, baseDir string, u *Undo, seen *sighting) (e *record.Entry, branchMade bool, err error) {
	cands := seen.cands
	// Both the case check and the limit need every record: read them
	// once (the blobs from the cache), and only if either is on.
	var all []record.Entry
	var allErr error
	listed := false
	records := func() ([]record.Entry, error) {
		if !listed {
			all, allErr = m.Store.All(ctx)
			listed = true
		}
		return all, allErr
	}
	taken := map[string]bool{}
	for _, e := range seen.entries {
		if e.Record != nil && e.Record.Task == o.TaskID {
			return nil, false, errRaced
		}
		taken[e.Slug] = true
	}
	if m.Settings.IgnoreCase {
		if err := m.takenIgnoringCase(cands, taken, records); err != nil {
			return nil, false, err
		}
	}
	name := cands[0]
	if taken[name] {
		name = cands[1]
	}
	if taken[name] {
		return nil, false, exitcode.Usagef("task id %q collides with two existing tasks (%s, %s): choose another id", o.TaskID, cands[0], cands[1])
	}
	if err := m.checkLimit(records); err != nil {
		return nil, false, err
	}
	branch := m.branchFor(o, name)
	if o.Branch == "" && m.Settings.BranchPrefix != "wt/" {
		if err := m.CheckBranchName(ctx, branch); err != nil {
			return nil, false, exitcode.Usagef("invalid branch %q (check wt.branchPrefix)", branch)
		}
	}
	path, err := place.WorktreePath(baseDir, m.Settings.BaseDir, name, o.Path)
	if err != nil {
		// What was seen may be old: a folder that is there now may be the
		// same task's, made meanwhile by another new.
		if exitcode.Of(err) == exitcode.Refused {
			if fresh, serr := m.sight(ctx, o); serr == nil && fresh.task(o.TaskID) != nil {
				return nil, false, errRaced
			}
		}
		return nil, false, err
	}
	if o.Path != "" {
		if err := m.Place.CheckChosenPath(ctx, baseDir, path); err != nil {
			return nil, false, err
		}
	}
	now := time.Now().UTC()
	rec := &record.Record{
		Task: o.TaskID, Slug: name, Branch: branch, Path: path,
		Base: b.Name(), BaseSHA: b.SHA, State: record.Creating,
		CreatedAt: now, LastAccessAt: now,
	}
	rec.Stamp(task.Self())
	var also []git.Ref
	if seen.branches[branch].Missing {
		also = []git.Ref{{Name: task.BranchRef(branch), OID: b.SHA}}
	}
	// Only a branch made here, with the record, is git-wt's to delete.
	rec.SetBranchCreated(len(also) > 0)
	oid, err := m.Store.Create(ctx, rec, also...)
	if errors.Is(err, git.ErrStale) && len(also) > 0 {
		// The record or the branch appeared meanwhile: if the branch, take
		// it like any existing one.
		if fresh, gerr := m.Store.Get(ctx, name); gerr == nil && len(fresh) == 0 {
			also = nil
			rec.SetBranchCreated(false)
			oid, err = m.Store.Create(ctx, rec)
		}
	}
	if errors.Is(err, git.ErrStale) {
		return nil, false, errRaced
	}
	if err != nil {
		return nil, false, err
	}
	e = &record.Entry{Slug: name, OID: oid, Record: rec}
	u.push(func(ctx context.Context) error { return m.dropRecord(ctx, e) })
	if len(also) > 0 {
		// Undo runs last-in first-out: the worktree goes before its branch,
		// the branch before the record.
		u.push(func(ctx context.Context) error { return m.dropNewBranch(ctx, branch, b.SHA) })
	}
	return e, len(also) > 0, nil
}

// takenIgnoringCase marks a candidate slug taken when another task's slug
// differs from it only in case: where the file system ignores case
// (core.ignorecase), the two would share a folder and a ref file.
func (m *Handler) takenIgnoringCase(cands [2]string, taken map[string]bool, records func() ([]record.Entry, error)) error {
	entries, err := records()
	if err != nil {
		return err
	}
	for _, e := range entries {
		other := e.Slug
		for _, c := range cands {
			if other != c && strings.EqualFold(other, c) {
				taken[c] = true
			}
		}
	}
	return nil
}

// checkLimit enforces wt.maxWorktrees; it runs under the lock, so the
// limit holds exactly under a burst of concurrent `new`. A record that
// cannot be read is no task and takes no slot (SPEC §7).
func (m *Handler) checkLimit(records func() ([]record.Entry, error)) error {
	max := m.Settings.MaxWorktrees
	if max <= 0 {
		return nil
	}
	entries, err := records()
	if err != nil {
		return err
	}
	// Adopted worktrees were made by someone else: they are tasks, but
	// take no slot (SPEC §14).
	n := 0
	for _, e := range entries {
		if e.Record != nil && e.Record.State != record.Adopted {
			n++
		}
	}
	if n >= max {
		return exitcode.Limitf("%d task worktrees exist and wt.maxWorktrees is %d: remove one (git wt rm, git wt gc) or raise the limit", n, max)
	}
	return nil
}

// AddWorktree registers the worktree for the task's branch, detached at
// startSHA and not checked out (checkOut does both after the lock is
// released), creating the branch at startSHA if it does not exist. It
// takes the lock only around git's admin step, which git 2.39 cannot run
// twice at once.
func (m *Handler) AddWorktree(ctx context.Context, rec *record.Record, startSHA string, u *Undo, branchMade bool) error {
	ref := task.BranchRef(rec.Branch)
	if branchMade {
		// Made by this process with the record: nobody has it checked out.
		return m.registerWorktree(ctx, rec, startSHA, u)
	}
	bs, err := m.InspectBranch(ctx, rec.Branch)
	if err != nil {
		return err
	}
	if !bs.Exists {
		err := m.Git.UpdateRef(ctx, m.Repo.MainDir, ref, startSHA, "")
		switch {
		case err == nil:
			rec.SetBranchCreated(true) // saved with the next state change
			// Undo runs last-in first-out: the worktree goes before its branch.
			u.push(func(ctx context.Context) error { return m.dropNewBranch(ctx, rec.Branch, startSHA) })
		case errors.Is(err, git.ErrStale):
			bs.Exists = true // made meanwhile by someone else: check it like any existing branch
		default:
			return fmt.Errorf("cannot create branch %s: %w", rec.Branch, err)
		}
	}
	l, err := m.Lock(ctx)
	if err != nil {
		return err
	}
	defer l.Release()
	if bs.Exists {
		// Under the lock, so that no other new checks it out meanwhile.
		if bs, err = m.InspectBranch(ctx, rec.Branch); err != nil {
			return err
		}
		if bs.CheckedOut != "" {
			return exitcode.Refusedf("branch %s is checked out in %s: a branch can be checked out in one worktree only", rec.Branch, bs.CheckedOut)
		}
		startSHA = bs.SHA
	}
	return m.addLocked(ctx, l, rec, startSHA, u)
}

// registerWorktree is addLocked under the lock.
func (m *Handler) registerWorktree(ctx context.Context, rec *record.Record, startSHA string, u *Undo) error {
	l, err := m.Lock(ctx)
	if err != nil {
		return err
	}
	defer l.Release()
	return m.addLocked(ctx, l, rec, startSHA, u)
}

// addLocked registers the worktree, detached at startSHA, under the lock
// the caller holds (held).
func (m *Handler) addLocked(ctx context.Context, held *lock.Lock, rec *record.Record, startSHA string, u *Undo) error {
	// LC_ALL=C: the lock reason git writes while it adds ("initializing")
	// is then the same in every language, so a repair can tell it.
	_, err := m.Git.Exec(ctx, git.Cmd{Dir: m.Repo.MainDir, Env: []string{"LC_ALL=C"},
		Args: []string{"worktree", "add", "--no-checkout", "--detach", "--", rec.Path, startSHA}})
	// Undo even after a failure: git may have made the folder or the
	// admin entry before it failed.
	u.push(func(ctx context.Context) error { return m.DropWorktree(ctx, rec.Path) })
	if err != nil {
		return fmt.Errorf("cannot add the worktree %s: %w", rec.Path, err)
	}
	return nil
}

// CheckOut puts the worktree at dir that addWorktree registered on branch
// and checks the branch out, overwriting whatever an interrupted checkout
// left there. The branch is always named by its full ref: `git worktree
// add BRANCH` would look the short name up, and "wt/<slug>" resolves to
// a tag or an earlier git-wt's record refs/wt/<slug> before
// refs/heads/wt/<slug>. HEAD and the
// files are separate steps that touch separate files (HEAD, index), so
// they run side by side: read-tree, unlike reset, leaves HEAD alone.
func (m *Handler) CheckOut(ctx context.Context, dir, branch string) error {
	ref := task.BranchRef(branch)
	head := make(chan error, 1)
	go func() {
		_, err := m.Git.RunIn(ctx, dir, "symbolic-ref", "HEAD", ref)
		head <- err
	}()
	_, err := m.Git.RunIn(ctx, dir, "read-tree", "--reset", "-u", "--no-recurse-submodules", ref)
	if herr := <-head; err == nil {
		err = herr
	}
	if err != nil {
		return fmt.Errorf("cannot check out %s in %s: %w", branch, dir, err)
	}
	return nil
}

// finish checks the worktree out and sets it up (Setup: copy, init), then
// runs the post-checkout hook as `git worktree add` would have. The task
// ends active, or failed when its setup failed (an setup.ErrInitFailed error).
func (m *Handler) finish(ctx context.Context, e *record.Entry, o CreateOptions) error {
	rec := e.Record
	plan := m.PlanSetup(setup.Options{Copy: !o.NoCopy, Init: !o.NoInit})
	if rec.State == record.Creating {
		if plan.Empty() {
			// With nothing to set up, the record's last content is known
			// now: its blob is written while git checks the worktree out.
			next := *rec
			next.Move(record.Active, task.Self()) // as settleState will: creating → active is a legal move
			plan.SettleEmpty(&next)
			m.Store.Prewrite(ctx, &next)
		}
		if err := m.CheckOut(ctx, rec.Path, rec.Branch); err != nil {
			return err
		}
		task.Checkpoint(ctx, "new:checked-out")
	}
	err := m.Apply(ctx, e, plan)
	if err == nil || errors.Is(err, setup.ErrInitFailed) {
		m.runCheckoutHook(ctx, e.Record)
	}
	return err
}

// resume takes over a task whose record exists but whose creation did not
// finish (its creator died) or whose directory has gone: it makes what is
// missing, under the lock, and finishes the job.
func (m *Handler) resume(ctx context.Context, e *record.Entry, o CreateOptions) (c *Created, err error) {
	var u Undo
	defer func() {
		if err != nil {
			u.run(m, rollbackReason(err))
		}
	}()
	fresh, err := m.Store.Get(ctx, e.Slug)
	if err != nil {
		return nil, err
	}
	if len(fresh) != 1 || fresh[0].OID != e.OID {
		return nil, errBusy // changed since we looked: look again
	}
	rec := e.Record
	// Writing our name into the record (compare-and-swap) claims the task:
	// other processes now see a live creator and wait. A resumed creation
	// is a creation again, whatever state it stopped in.
	if err := rec.Move(record.Creating, task.Self()); err != nil {
		return nil, task.NotNow(rec, record.Creating, err)
	}
	if err := m.Save(ctx, e); err != nil {
		return nil, busyIfStale(err)
	}
	m.EndLeftoverInit(rec) // the dead creator's init, if it outlived it
	// What a killed git left: its index.lock, git worktree add's lock.
	m.ClearStaleLocks(rec)
	m.ClearInitializingLock(ctx, rec)
	_, statErr := os.Lstat(rec.Path)
	registered := m.Registered(ctx, rec.Path)
	if statErr == nil && !registered {
		if entries, _ := os.ReadDir(rec.Path); len(entries) > 0 {
			return nil, exitcode.Refusedf("%s exists but is not a worktree of this repository: move it away, then run git wt new again", rec.Path)
		}
	}
	if statErr != nil || !registered {
		// Drop what is left (git's stale admin entry, an empty folder),
		// then add the worktree again from the branch or the task.Base commit.
		if err := m.DropWorktree(ctx, rec.Path); err != nil {
			return nil, err
		}
		if err := m.AddWorktree(ctx, rec, rec.BaseSHA, &u, false); err != nil {
			return nil, err
		}
	}
	if err = m.finish(ctx, e, o); err != nil {
		if errors.Is(err, setup.ErrInitFailed) {
			u = Undo{}
		}
		return nil, err
	}
	m.LogEvent(rec, "created", "resumed an unfinished creation")
	return &Created{Record: rec}, nil
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
