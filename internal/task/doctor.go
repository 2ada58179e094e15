package task

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/proc"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/text"
)

// The ways records, worktrees, branches and git's admin entries can
// disagree (SPEC §7).
const (
	CorruptRecord      = "corrupt-record"          // a record ref whose blob cannot be read
	StuckCreation      = "stuck-creation"          // creating/initializing, creator gone
	InterruptedInit    = "interrupted-init"        // git wt init of an existing task, its process gone
	InterruptedMerge   = "interrupted-merge"       // merging, its process gone
	MissingWorktree    = "missing-worktree"        // a record whose worktree folder is gone
	UnregisteredFolder = "unregistered-worktree"   // a record and folder git no longer knows
	PrunableEntry      = "prunable-admin-entry"    // git's admin entry for a folder that is gone
	ForeignWorktree    = "foreign-worktree"        // a worktree git-wt did not make (no record)
	LeftoverBranch     = "leftover-branch"         // a task branch with no worktree, no record, no unique commits
	LeftoverTrash      = "leftover-trash"          // what an interrupted rm was deleting
	LeftoverMerge      = "leftover-merge-worktree" // the temporary worktree of a merge whose process died
	StuckRemoval       = "stuck-removal"           // removing, its process gone (stuckremoval.go)
)

// Problem is one disagreement, what fixing it does, and what happened.
type Problem struct {
	Kind    string `json:"kind"`
	Task    string `json:"task,omitempty"`
	Path    string `json:"path,omitempty"`
	Branch  string `json:"branch,omitempty"`
	Ref     string `json:"ref,omitempty"` // the record's ref, for the problems of a ref
	Detail  string `json:"detail"`
	Fix     string `json:"fix,omitempty"`     // what fixing does; "" when it needs a person
	Outcome string `json:"outcome,omitempty"` // set by Repair

	entry    *record.Entry
	age      time.Duration // for wt.orphanGrace; -1 when age does not matter
	missing  bool          // counts toward "most worktrees look missing"
	fixWith  func(ctx context.Context, force bool) error
	fixDirty bool // the fix deletes work that may be uncommitted
}

// Outcomes of a repair.
const (
	Fixed        = "fixed"
	WouldFix     = "would fix"
	LeftYoung    = "left alone: younger than wt.orphanGrace"
	LeftMissing  = "kept: most worktrees look missing at once, as from a container that mounted part of the disk (use --force)"
	LeftManual   = "needs a person"
	RepairFailed = "failed"
)

// Diagnosis is what Diagnose found.
type Diagnosis struct {
	Problems  []*Problem
	Worktrees int // task and foreign worktrees that git or a record knows of
}

// Diagnose finds every disagreement between records, worktrees, branches
// and git's admin entries.
func (m *Manager) Diagnose(ctx context.Context) (*Diagnosis, error) {
	// Branches and worktrees are read before the records: new writes a
	// record before (or with) its branch and worktree, so a branch or a
	// worktree seen here has its record in the later read, and a creation
	// under way is never taken for debris.
	branches, err := m.taskBranches(ctx)
	if err != nil {
		return nil, err
	}
	wts, err := m.Git.Worktrees(ctx, m.Repo.MainDir)
	if err != nil {
		return nil, err
	}
	// Doctor reads every record blob from git, not the cache: a record
	// whose blob git has lost must show up here.
	store := *m.Store
	store.Cache = ""
	entries, err := store.All(ctx)
	if err != nil {
		return nil, err
	}
	var problems []*Problem
	byPath := map[string]bool{}
	trashDirs := map[string]bool{m.Settings.BaseDir: true}
	removing := map[string]bool{} // trash folders of stuck removals
	for i := range entries {
		e := &entries[i]
		if e.Record != nil {
			byPath[e.Record.Path] = true
			trashDirs[filepath.Dir(e.Record.Path)] = true
			m.removalTrash(e.Record, removing)
		}
		if p := m.diagnoseRecord(ctx, e, wts); p != nil {
			problems = append(problems, p)
		}
	}
	known := len(byPath)
	for i, wt := range wts {
		if i == 0 || wt.Bare || byPath[wt.Path] {
			continue
		}
		known++
		if p := m.diagnoseUnrecorded(wt); p != nil {
			problems = append(problems, p)
		}
	}
	problems = append(problems, m.legacyProblems(entries, store.LegacyRefs())...)
	problems = append(problems, m.gitLeftovers(entries, wts)...)
	problems = append(problems, m.staleRefLocks()...)
	problems = append(problems, m.leftoverBranches(ctx, branches, entries)...)
	problems = append(problems, leftoverTrash(trashDirs, removing)...)
	return &Diagnosis{Problems: problems, Worktrees: known}, nil
}

// diagnoseRecord checks one record against its worktree.
func (m *Manager) diagnoseRecord(ctx context.Context, e *record.Entry, wts []git.Worktree) *Problem {
	if e.Err != nil {
		return m.corruptRecord(e)
	}
	rec := e.Record
	p := &Problem{Task: rec.Task, Path: rec.Path, Branch: rec.Branch, entry: e, age: time.Since(rec.CreatedAt)}
	alive := proc.Check(owner(rec))
	switch rec.State {
	case record.Creating, record.Initializing:
		if alive == proc.Alive {
			return nil // being created right now
		}
		if alive == proc.Dead {
			p.age = -1 // certain: no grace needed
		}
		p.Kind, p.Fix = StuckCreation, "roll the creation back, or mark it failed if its worktree holds files the checkout did not write"
		p.Detail = fmt.Sprintf("creation by process %d on %s stopped in state %s", rec.CreatorPID, rec.CreatorHost, rec.State)
		if rec.Init.Rerun {
			p.Kind, p.Fix = InterruptedInit, "mark the task failed (git wt init runs its setup again)"
			p.Detail = fmt.Sprintf("git wt init by process %d on %s stopped", rec.CreatorPID, rec.CreatorHost)
		}
		p.fixWith = func(ctx context.Context, _ bool) error { return m.repairStuckCreation(ctx, e) }
		p.fixDirty = true
		return p
	case record.Removing:
		return m.diagnoseRemoval(e, p, alive)
	case record.Merging:
		if alive != proc.Dead {
			return nil
		}
		p.Kind, p.age = InterruptedMerge, -1
		p.Detail = fmt.Sprintf("a merge by process %d stopped", rec.CreatorPID)
		p.Fix = "finish its cleanup if the merge landed, else set the task back to active"
		p.fixWith = func(ctx context.Context, _ bool) error { return m.repairMerge(ctx, e, wts) }
		return p
	}
	st, err := os.Lstat(rec.Path)
	if err != nil {
		// A finished task is never mid-creation: no grace to wait out.
		p.Kind, p.Fix, p.missing, p.age = MissingWorktree, "drop the record and git's admin entry; delete the branch if that loses no commits", true, -1
		p.Detail = "the worktree folder is gone"
		p.fixWith = func(ctx context.Context, f bool) error { return m.removeOrphan(ctx, e, false) }
		return p
	}
	if st.IsDir() && findWorktree(wts, rec.Path) == nil {
		p.Kind, p.Fix, p.fixDirty, p.age = UnregisteredFolder, "delete the folder and the record; keep the branch if it has unique commits", true, -1
		p.Detail = "git has no admin entry for this worktree any more (pruned?)"
		p.fixWith = func(ctx context.Context, f bool) error { return m.removeOrphan(ctx, e, f) }
		return p
	}
	return m.diagnoseLock(e, findWorktree(wts, rec.Path), p)
}

// diagnoseUnrecorded reports a worktree that has no record.
func (m *Manager) diagnoseUnrecorded(wt git.Worktree) *Problem {
	if pid, ok := mergeWorktreePID(m.Settings.BaseDir, wt.Path); ok {
		if proc.Check(proc.ID{PID: pid, Host: proc.Self().Host}) == proc.Alive {
			return nil // a merge is using it right now
		}
		return &Problem{Kind: LeftoverMerge, Path: wt.Path, Branch: strings.TrimPrefix(wt.Branch, "refs/heads/"), age: -1,
			Detail:  "git wt merge was stopped while it used this temporary worktree; the branch it merged into is unchanged",
			Fix:     "remove the temporary worktree",
			fixWith: func(ctx context.Context, _ bool) error { return m.DropWorktree(ctx, wt.Path) }}
	}
	if _, err := os.Lstat(wt.Path); wt.Prunable || err != nil {
		p := &Problem{Kind: PrunableEntry, Path: wt.Path, Branch: strings.TrimPrefix(wt.Branch, "refs/heads/"), age: -1, missing: true,
			Detail: "git's admin entry points at a folder that is gone", Fix: "prune the admin entry"}
		if wt.Locked {
			p.Fix, p.Detail = "", p.Detail+"; it is locked ("+wt.LockReason+"): git worktree unlock it first"
			return p
		}
		p.fixWith = func(ctx context.Context, _ bool) error { return m.DropWorktree(ctx, wt.Path) }
		return p
	}
	p := &Problem{Kind: ForeignWorktree, Path: wt.Path, Branch: strings.TrimPrefix(wt.Branch, "refs/heads/"), age: -1,
		Detail: "made by plain git or another tool (no record)", Fix: "adopt it: write a record (state adopted)",
		fixWith: func(ctx context.Context, _ bool) error {
			_, err := m.Adopt(ctx, wt, "", "found by doctor")
			return err
		}}
	if wt.Branch == "" {
		p.Detail += "; its HEAD is detached, and git-wt adopts worktrees on a branch only"
		p.Fix, p.fixWith = "", nil
	}
	return p
}

// mergeWorktreePID tells a merge's temporary worktree by its path,
// <base dir>/.git-wt-tmp/merge-<pid>, and returns the pid.
func mergeWorktreePID(baseDir, path string) (int, bool) {
	dir := filepath.Dir(path)
	if dir != filepath.Join(baseDir, MergeTmpDir) {
		real, err := filepath.EvalSymlinks(baseDir) // the base dir may be a symlink
		if err != nil || dir != filepath.Join(real, MergeTmpDir) {
			return 0, false
		}
	}
	pid, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(path), "merge-"))
	return pid, err == nil
}

// taskBranches lists the branches whose names start with wt.branchPrefix
// ("wt/x", or "acode-task-x" for the prefix "acode-task-") with the
// worktree that has each checked out.
func (m *Manager) taskBranches(ctx context.Context) ([]branchState, error) {
	if m.Settings.BranchPrefix == "" {
		return nil, nil // every branch would match: task branches cannot be told apart
	}
	return m.branches(ctx, branchPattern(m.Settings.BranchPrefix))
}

// leftoverBranches finds task branches (under wt.branchPrefix) that no
// worktree has checked out, no record names, and whose commits all exist
// elsewhere: deleting them loses nothing.
func (m *Manager) leftoverBranches(ctx context.Context, branches []branchState, entries []record.Entry) []*Problem {
	named := map[string]bool{}
	for _, e := range entries {
		if e.Record != nil {
			named[e.Record.Branch] = true
		}
	}
	var problems []*Problem
	for _, b := range branches {
		branch, sha := b.Name, b.SHA
		if b.CheckedOut != "" || named[branch] {
			continue
		}
		rec := &record.Record{Branch: branch}
		if n, err := m.UnmergedCommits(ctx, rec); err != nil || n > 0 {
			continue // its commits exist nowhere else: a branch, not debris
		}
		problems = append(problems, &Problem{Kind: LeftoverBranch, Branch: branch, age: m.branchAge(ctx, branch),
			Detail: "no worktree, no record, and all its commits are in other branches", Fix: "delete the branch",
			fixWith: func(ctx context.Context, _ bool) error {
				return m.Git.DeleteRef(ctx, m.Repo.MainDir, BranchRef(branch), sha)
			}})
	}
	return problems
}

// branchAge is how long ago the branch last moved (its newest reflog
// entry), so that a branch someone just made is left alone for
// wt.orphanGrace.
func (m *Manager) branchAge(ctx context.Context, branch string) time.Duration {
	out, err := m.Git.Run(ctx, m.Repo.MainDir, "reflog", "show", "-1", "--date=unix", "--format=%gd", BranchRef(branch), "--")
	// "refs/heads/wt/x@{1795350689}"
	_, stamp, _ := strings.Cut(strings.TrimSpace(out), "@{")
	if sec, perr := strconv.ParseInt(strings.TrimSuffix(stamp, "}"), 10, 64); err == nil && perr == nil {
		return time.Since(time.Unix(sec, 0))
	}
	return 0 // no reflog: say young, and leave it
}

// leftoverTrash finds what interrupted removals left in the trash folders
// beside worktrees, but for the folders of removals whose record is still
// there (stuck-removal repairs those).
func leftoverTrash(dirs, removing map[string]bool) []*Problem {
	var problems []*Problem
	self := proc.Self()
	for dir := range dirs {
		trash := filepath.Join(dir, trashDir)
		entries, _ := os.ReadDir(trash)
		for _, e := range entries {
			path := filepath.Join(trash, e.Name())
			if removing[path] {
				continue // a stuck removal's folder: its record says what to do
			}
			pid, _ := strconv.Atoi(strings.TrimPrefix(filepath.Ext(e.Name()), "."))
			if proc.Check(proc.ID{PID: pid, Host: self.Host}) == proc.Alive {
				continue // an rm is deleting it right now
			}
			problems = append(problems, &Problem{Kind: LeftoverTrash, Path: path, age: -1,
				Detail: "an interrupted git wt rm left this behind", Fix: "delete it",
				fixWith: func(context.Context, bool) error { return fsutil.RemoveAll(path) }})
		}
	}
	return problems
}

// removeForRepair removes an orphaned task. Branches with commits found
// nowhere else are always kept: repair never loses commits.
func (m *Manager) removeForRepair(ctx context.Context, e *record.Entry, force bool) error {
	r := m.RemoveEntry(ctx, e, RemoveOptions{Force: force, KeepUnmerged: true})
	if r.Err != nil {
		return r.Err
	}
	if r.BranchOutcome == KeptUnmerged {
		m.Warn("kept branch %s: %d %s not merged", r.Branch, r.Unmerged, text.Plural(r.Unmerged, "commit", "commits"))
	}
	return nil
}

// RepairOptions say how far a repair may go.
type RepairOptions struct {
	Force  bool // also delete dirty orphans, and prune when most worktrees look missing
	DryRun bool
}

// Repair fixes what Diagnose found, within the rules of SPEC §7: orphans
// younger than wt.orphanGrace are left alone, dirty ones need Force, and
// nothing is pruned when most worktrees look missing at once unless Force.
// It sets each problem's Outcome and reports whether all were fixed.
func (m *Manager) Repair(ctx context.Context, d *Diagnosis, o RepairOptions) bool {
	massMissing := mostLookMissing(d)
	ok := true
	for _, p := range d.Problems {
		switch {
		case p.fixWith == nil:
			p.Outcome = LeftManual
		case p.age >= 0 && p.age < m.Settings.OrphanGrace:
			p.Outcome = LeftYoung
		case p.missing && massMissing && !o.Force:
			p.Outcome = LeftMissing
		case o.DryRun:
			p.Outcome = WouldFix
		default:
			p.Outcome = m.applyFix(ctx, p, o.Force)
		}
		if p.Outcome != Fixed && p.Outcome != WouldFix && p.Outcome != LeftMovedOn {
			ok = false
		}
	}
	return ok
}

func (m *Manager) applyFix(ctx context.Context, p *Problem, force bool) string {
	Checkpoint(ctx, "repair:examined")
	err := p.fixWith(ctx, force)
	rec := &record.Record{Path: p.Path, Branch: p.Branch}
	if p.entry != nil {
		rec = p.entry.Record
	}
	if err == nil {
		m.LogEvent(rec, "repaired", p.Kind+": "+p.Fix)
		return Fixed
	}
	if errors.Is(err, errMovedOn) {
		return LeftMovedOn
	}
	if errors.Is(err, errNeedsPerson) {
		return err.Error() + "; finish or abort it there (git merge --abort), then run git wt merge or git wt rm again"
	}
	if p.fixDirty && exitcode.Of(err) == exitcode.Refused {
		return "kept: " + err.Error()
	}
	return RepairFailed + ": " + err.Error()
}

// mostLookMissing is the guard of SPEC §7: when more than half of the
// worktrees (and at least two) look missing at once, the likelier story is
// a partial view of the disk (a container), not deleted worktrees.
func mostLookMissing(d *Diagnosis) bool {
	missing := 0
	for _, p := range d.Problems {
		if p.missing {
			missing++
		}
	}
	return missing >= 2 && missing*2 > d.Worktrees
}
