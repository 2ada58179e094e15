package workflow

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/proc"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/text"
)

// SyncMode is how `git wt sync` brings a task's branch up to its base.
type SyncMode string

// The modes of `git wt sync`.
const (
	SyncAuto   SyncMode = ""       // merge a branch others may have, else rebase
	SyncRebase SyncMode = "rebase" // replay the task's commits onto the base
	SyncMerge  SyncMode = "merge"  // merge the base into the task
)

// SyncOptions are the flags of `git wt sync`.
type SyncOptions struct {
	Mode   SyncMode
	DryRun bool // say what each task would do, change nothing
	Fetch  bool // fetch the remotes of remote-tracking bases first
}

// The outcomes of one task's sync (SPEC §12).
const (
	SyncUpToDate     = "up_to_date"
	SyncRebased      = "rebased"
	SyncMerged       = "merged"
	SyncReparented   = "reparented" // its parent was merged: it moved onto the parent's base
	SkippedDirty     = "skipped_dirty"
	SkippedLocked    = "skipped_locked"
	SkippedInUse     = "skipped_in_use"
	SkippedBusy      = "skipped_busy" // another git-wt is working on it, or its setup failed
	SkippedElsewhere = "skipped_other_branch"
	SyncConflict     = "conflict"
	SyncFailed       = "failed"
	SyncNotFound     = "not_found" // a task named that does not exist
)

// How a sync moved a branch, as SyncResult.How says it.
const (
	SyncHowRebase      = "rebase"
	SyncHowMerge       = "merge"
	SyncHowFastForward = "fast-forward"
)

// SyncResult is what the sync did, or would do, to one task.
type SyncResult struct {
	Task           string   `json:"task"`
	Branch         string   `json:"branch"`
	Base           string   `json:"base"` // the base synced with, short
	Outcome        string   `json:"outcome"`
	How            string   `json:"how,omitempty"`
	From           string   `json:"from,omitempty"` // the branch's tip before
	To             string   `json:"to,omitempty"`   // and after
	Behind         int      `json:"behind"`         // commits of the base the branch lacked
	ReparentedFrom string   `json:"reparented_from,omitempty"`
	Conflicts      []string `json:"conflicts,omitempty"`
	Merged         bool     `json:"merged,omitempty"` // a parent merged into its base: left alone
	DryRun         bool     `json:"dry_run,omitempty"`
	// Err is why the task was skipped, or how its sync failed.
	Err error `json:"-"`
}

// Sync brings each target task's branch up to date with its base (SPEC
// §12), parents before children, and returns one result per task; all
// are the records of every task (the stacks the targets stand on). A task
// that is skipped or fails does not stop the others; the error is for the
// whole command only (a cycle of bases, git failing to read).
func (m *Flow) Sync(ctx context.Context, targets []*record.Entry, all []record.Entry, o SyncOptions) ([]*SyncResult, error) {
	ordered, err := syncOrder(targets, all)
	if err != nil {
		return nil, err
	}
	run, err := m.startSync(ctx, ordered, all, o)
	if err != nil {
		return nil, err
	}
	defer run.tmp.close()
	results := make([]*SyncResult, 0, len(ordered))
	for _, e := range ordered {
		r := run.one(ctx, e)
		results = append(results, r)
		if r.Err != nil {
			m.LogEvent(e.Record, "sync-"+r.Outcome, r.Err.Error())
		} else if r.From != r.To && !o.DryRun {
			m.LogEvent(e.Record, "synced", fmt.Sprintf("%s (%s) onto %s: %s -> %s", r.Outcome, r.How, r.Base, r.From, r.To))
		}
	}
	return results, nil
}

// syncOrder puts every task after the tasks below it in its stack that
// are synced too (a child syncs onto its parent's new tip), and keeps the
// given order otherwise. A cycle of bases is a usage error.
func syncOrder(targets []*record.Entry, all []record.Entry) ([]*record.Entry, error) {
	byRef := tasksByBranch(all)
	for _, e := range targets {
		seen := map[string]bool{}
		for r := e.Record; r != nil; r = recordOf(byRef[r.Base]) {
			if seen[r.Slug] {
				return nil, exitcode.Usagef("the bases of task %q go round in a circle (%s): fix one with git wt new --base, or by hand", e.Record.Task, strings.Join(slices.Sorted(maps.Keys(seen)), ", "))
			}
			seen[r.Slug] = true
		}
	}
	wanted := map[string]*record.Entry{}
	for _, e := range targets {
		wanted[e.Slug] = e
	}
	var ordered []*record.Entry
	done := map[string]bool{}
	var visit func(e *record.Entry)
	visit = func(e *record.Entry) {
		if done[e.Slug] {
			return
		}
		done[e.Slug] = true
		// The nearest synced task up the stack goes first, through
		// tasks that are not synced: c on b on a, with b left out.
		for p := byRef[e.Record.Base]; p != nil; p = byRef[p.Record.Base] {
			if w := wanted[p.Slug]; w != nil {
				visit(w)
				break
			}
		}
		ordered = append(ordered, e)
	}
	for _, e := range targets {
		visit(e)
	}
	return ordered, nil
}

// tasksByBranch indexes the readable records by their branch's full ref.
func tasksByBranch(all []record.Entry) map[string]*record.Entry {
	byRef := make(map[string]*record.Entry, len(all))
	for i := range all {
		if rec := all[i].Record; rec != nil && rec.Branch != "" {
			byRef[task.BranchRef(rec.Branch)] = &all[i]
		}
	}
	return byRef
}

func recordOf(e *record.Entry) *record.Record {
	if e == nil {
		return nil
	}
	return e.Record
}

// syncRun is what one `git wt sync` knows of the repository as it goes:
// the branches (updated as it moves them), the stacks, which bases each
// branch has already.
type syncRun struct {
	m        *Flow
	o        SyncOptions
	byRef    map[string]*record.Entry
	branches map[string]task.BranchState // by short name
	merged   map[string]bool             // slugs of parents merged into their own base
	// asked says, for a task branch's full ref, which base tip it was
	// asked about before any branch moved, and whether it has it.
	asked  map[string]containment
	pushed map[string]bool // task branches others may have; read when first needed
	tmp    tempTree        // where the rebases are made, reused from task to task
}

type containment struct {
	baseTip string
	has     bool
}

// startSync reads, with a few git processes for any number of tasks,
// what tells an up-to-date task from one to sync.
func (m *Flow) startSync(ctx context.Context, ordered []*record.Entry, all []record.Entry, o SyncOptions) (*syncRun, error) {
	s := &syncRun{m: m, o: o, byRef: tasksByBranch(all), asked: map[string]containment{}}
	if o.Fetch {
		if err := m.fetchBases(ctx, ordered); err != nil {
			return nil, err
		}
	}
	heads, err := m.Branches(ctx, "refs/heads/")
	if err != nil {
		return nil, err
	}
	s.branches = make(map[string]task.BranchState, len(heads))
	for _, b := range heads {
		s.branches[b.Name] = b
	}
	if s.merged, err = s.mergedParents(ctx, ordered); err != nil {
		return nil, err
	}
	return s, s.readContains(ctx, ordered)
}

// fetchBases fetches each remote that a task's base is a remote-tracking
// branch of ("refs/remotes/origin/main": origin), once.
func (m *Flow) fetchBases(ctx context.Context, ordered []*record.Entry) error {
	fetched := map[string]bool{}
	for _, e := range ordered {
		rest, ok := strings.CutPrefix(e.Record.Base, "refs/remotes/")
		remote, _, _ := strings.Cut(rest, "/")
		if !ok || remote == "" || fetched[remote] {
			continue
		}
		fetched[remote] = true
		if err := m.Git.Fetch(ctx, m.Repo.MainDir, remote); err != nil {
			return exitcode.Failedf("cannot fetch %s: %v", remote, err)
		}
	}
	return nil
}

// mergedParents finds, among the tasks that other synced tasks stand on
// (all the way up their stacks), those merged into their own base.
func (s *syncRun) mergedParents(ctx context.Context, ordered []*record.Entry) (map[string]bool, error) {
	var parents []*record.Record
	seen := map[string]bool{}
	for _, e := range ordered {
		for p := recordOf(s.byRef[e.Record.Base]); p != nil && !seen[p.Slug]; p = recordOf(s.byRef[p.Base]) {
			seen[p.Slug] = true
			parents = append(parents, p)
		}
	}
	if len(parents) == 0 {
		return map[string]bool{}, nil
	}
	return s.m.MergedSet(ctx, parents, "")
}

// base is the base a task syncs with: its recorded base, or, when that is
// the branch of a task merged into its own base, that task's base (and so
// on up the stack); from names the merged parent's branch.
func (s *syncRun) base(rec *record.Record) (base, from string) {
	base = rec.Base
	for p := recordOf(s.byRef[base]); p != nil && s.merged[p.Slug]; p = recordOf(s.byRef[base]) {
		if from == "" {
			from = p.Branch
		}
		base = p.Base
	}
	return base, from
}

// tipOf is where base points now: a branch as this run last saw it, any
// other ref as git resolves it, and a bare commit is itself.
func (s *syncRun) tipOf(ctx context.Context, base string) (string, error) {
	if name, ok := strings.CutPrefix(base, "refs/heads/"); ok {
		if b, ok := s.branches[name]; ok {
			return b.SHA, nil
		}
		return "", exitcode.NotFoundf("the base branch %s no longer exists", name)
	}
	if !strings.HasPrefix(base, "refs/") {
		return base, nil
	}
	ids, err := s.m.Git.ObjectIDs(ctx, s.m.Repo.MainDir, base)
	if err != nil || len(ids) == 0 || ids[0] == "" {
		return "", exitcode.NotFoundf("the base %s no longer resolves", base)
	}
	return ids[0], nil
}

// readContains asks git, one for-each-ref per distinct base tip, which
// task branches have their base's tip already: those are up to date.
func (s *syncRun) readContains(ctx context.Context, ordered []*record.Entry) error {
	refsByTip := map[string][]string{}
	for _, e := range ordered {
		base, _ := s.base(e.Record)
		if tip, err := s.tipOf(ctx, base); err == nil {
			refsByTip[tip] = append(refsByTip[tip], task.BranchRef(e.Record.Branch))
		}
	}
	for tip, refs := range refsByTip {
		has, err := s.m.Git.History().Containing(ctx, s.m.Repo.MainDir, tip, refs)
		if err != nil {
			return err
		}
		for _, ref := range refs {
			s.asked[ref] = containment{baseTip: tip, has: has[ref]}
		}
	}
	return nil
}

// upToDate reports whether the task branch ref (at tip) has the base's
// tip already: as read at the start, unless its base moved since (a
// parent synced before it).
func (s *syncRun) upToDate(ctx context.Context, ref, tip, baseTip string) (bool, error) {
	if c, ok := s.asked[ref]; ok && c.baseTip == baseTip {
		return c.has, nil
	}
	return s.m.Git.History().IsAncestor(ctx, s.m.Repo.MainDir, baseTip, tip)
}

// one syncs one task.
func (s *syncRun) one(ctx context.Context, e *record.Entry) *SyncResult {
	rec := e.Record
	r := &SyncResult{Task: rec.Task, Branch: rec.Branch, DryRun: s.o.DryRun}
	base, from := s.base(rec)
	r.Base, r.ReparentedFrom = shortRef(base), from
	fail := func(outcome string, err error) *SyncResult {
		r.Outcome, r.Err = outcome, err
		return r
	}
	baseTip, err := s.tipOf(ctx, base)
	if err != nil {
		return fail(SyncFailed, fmt.Errorf("task %q: %w: give it a base that exists (git wt rm, then git wt new --base)", rec.Task, err))
	}
	b, ok := s.branches[rec.Branch]
	if !ok {
		return fail(SyncFailed, exitcode.Failedf("the branch %s of task %q no longer exists: nothing to sync", rec.Branch, rec.Task))
	}
	r.From, r.To = b.SHA, b.SHA
	up, err := s.upToDate(ctx, task.BranchRef(rec.Branch), b.SHA, baseTip)
	if err != nil {
		return fail(SyncFailed, err)
	}
	// A parent merged into its own base is left alone: its children move
	// onto that base instead.
	if r.Merged = s.merged[rec.Slug]; r.Merged || up && from == "" {
		r.Outcome = SyncUpToDate
		return r
	}
	if outcome, err := s.m.checkSyncable(ctx, rec, b, s.o.DryRun); err != nil {
		return fail(outcome, err)
	}
	step, err := s.plan(ctx, rec, b.SHA, base, baseTip)
	if err != nil {
		return fail(SyncFailed, err)
	}
	r.Behind = step.behind
	r.Outcome, r.How = s.outcome(step, from), step.how
	if up { // it has the base already: only the record follows the parent's base
		step.how, step.to, r.How = "", b.SHA, ""
	}
	if err := s.m.makeTip(ctx, step, s.o.DryRun, &s.tmp); err != nil {
		var c *syncConflict
		if errors.As(err, &c) {
			r.Conflicts = c.paths
			return fail(SyncConflict, c.err(rec, r.Base))
		}
		return fail(SyncFailed, err)
	}
	r.To = step.to
	if s.o.DryRun {
		return r
	}
	if outcome, err := s.m.applySync(ctx, e, step); err != nil {
		r.To = b.SHA
		return fail(outcome, err)
	}
	s.branches[rec.Branch] = task.BranchState{Name: b.Name, Exists: true, SHA: step.to, CheckedOut: b.CheckedOut}
	return r
}

// outcome names what the step does to the task.
func (s *syncRun) outcome(step *syncStep, reparentedFrom string) string {
	switch {
	case reparentedFrom != "":
		return SyncReparented
	case step.mode == SyncMerge:
		return SyncMerged
	}
	return SyncRebased
}

// shortRef is a ref as the user names it: main, origin/main.
func shortRef(ref string) string {
	for _, p := range []string{"refs/heads/", "refs/remotes/"} {
		if name, ok := strings.CutPrefix(ref, p); ok {
			return name
		}
	}
	return ref
}

// checkSyncable refuses (exit 3) a task whose files sync must not touch,
// and names the outcome: one another process is working on, locked, not
// on its branch, in the middle of a git operation, dirty, or where a
// program works.
func (m *Flow) checkSyncable(ctx context.Context, rec *record.Record, b task.BranchState, dryRun bool) (string, error) {
	if rec.State != record.Active && rec.State != record.Adopted {
		return SkippedBusy, m.Refuse(rec, "not-ready", "task %q is %s: sync it when that is done", rec.Task, rec.State)
	}
	if locked, _ := git.WorktreeLock(rec.Path); rec.Locked || locked {
		return SkippedLocked, m.Refuse(rec, "locked", "%s is locked: run git wt unlock %s first", rec.Path, text.ShellQuote(rec.Task))
	}
	if op := m.Git.InProgress(ctx, rec.Path); op != "" {
		return SkippedDirty, m.Refuse(rec, "in-progress", "%s is in the middle of %s: finish or abort it, then sync", rec.Path, op)
	}
	if b.CheckedOut != rec.Path {
		if _, err := os.Stat(rec.Path); err != nil {
			return SyncFailed, exitcode.Failedf("the worktree %s of task %q is missing: run git wt doctor", rec.Path, rec.Task)
		}
		return SkippedElsewhere, m.Refuse(rec, "other-branch", "%s does not have %s checked out: check it out again there, then sync", rec.Path, rec.Branch)
	}
	count := m.DirtyCount
	if !dryRun {
		// Where nobody works, the status writes the refreshed index: the
		// read-tree that moves the files then checks the files it changes
		// by their stat data, not by reading them all again.
		count = m.DirtyCountRefreshing
	}
	n, err := count(ctx, rec.Path)
	if err != nil {
		return SkippedDirty, m.Refuse(rec, "status-failed", "cannot read the status of %s (%v), so it counts as dirty", rec.Path, err)
	}
	if n > 0 {
		return SkippedDirty, m.Refuse(rec, "dirty", "%s has %d uncommitted %s: commit them (git wt commit %s -m MSG), then sync", rec.Path, n, text.Plural(n, "change", "changes"), text.ShellQuote(rec.Task))
	}
	// Users that cannot be seen (a sandbox) do not hold a sync back: it
	// deletes nothing, and its read-tree refuses to overwrite a change.
	users, _ := proc.UsersOf(rec.Path)
	for _, u := range users {
		if !u.Caller { // the shell that runs this sync may stand in it
			return SkippedInUse, m.Refuse(rec, "in-use", "%s is in use by process %d (%s): sync it when that is done", rec.Path, u.PID, u.Name)
		}
	}
	return "", nil
}
