package task

import (
	"context"
	"errors"
	"time"

	"github.com/git-wt/git-wt/internal/record"
)

// Kind names one way records, worktrees, branches and git's own files can
// disagree; doctor --json prints it.
type Kind string

// The ways records, worktrees, branches and git's admin entries can
// disagree (SPEC §7). Leftovers of killed gits are in internal/leftover,
// records under refs/wt/ in legacy.go.
const (
	CorruptRecord      Kind = "corrupt-record"          // a record ref whose blob cannot be read
	StuckCreation      Kind = "stuck-creation"          // creating/initializing, creator gone
	InterruptedInit    Kind = "interrupted-init"        // git wt init of an existing task, its process gone
	InterruptedMerge   Kind = "interrupted-merge"       // merging, its process gone
	InterruptedSync    Kind = "interrupted-sync"        // syncing, its process gone
	OperationStopped   Kind = "operation-in-progress"   // git stopped mid-merge or mid-rebase in a task
	MissingWorktree    Kind = "missing-worktree"        // a record whose worktree folder is gone
	UnregisteredFolder Kind = "unregistered-worktree"   // a record and folder git no longer knows
	PrunableEntry      Kind = "prunable-admin-entry"    // git's admin entry for a folder that is gone
	ChangedGitFiles    Kind = "changed-git-files"       // a task's .git file or its entry's commondir leads elsewhere
	ForeignWorktree    Kind = "foreign-worktree"        // a worktree git-wt did not make (no record)
	LeftoverBranch     Kind = "leftover-branch"         // a task branch with no worktree, no record, no unique commits
	LeftoverTrash      Kind = "leftover-trash"          // what an interrupted rm was deleting
	LeftoverMerge      Kind = "leftover-merge-worktree" // the temporary worktree of a merge whose process died
	StuckRemoval       Kind = "stuck-removal"           // removing, its process gone (stuckremoval.go)
)

// Problem is one disagreement, what fixing it does, and what happened.
type Problem struct {
	Kind    Kind   `json:"kind"`
	Task    string `json:"task,omitempty"`
	Path    string `json:"path,omitempty"`
	Branch  string `json:"branch,omitempty"`
	Ref     string `json:"ref,omitempty"` // the record's ref, for the problems of a ref
	Detail  string `json:"detail"`
	Fix     string `json:"fix,omitempty"`     // what fixing does; "" when it needs a person
	Outcome string `json:"outcome,omitempty"` // set by Repair

	// What the diagnosis knows for the repair; not shown.
	Entry    *record.Entry                               `json:"-"`
	Age      time.Duration                               `json:"-"` // for wt.orphanGrace; -1 when age does not matter
	Missing  bool                                        `json:"-"` // counts toward "most worktrees look missing"
	FixWith  func(ctx context.Context, force bool) error `json:"-"`
	FixDirty bool                                        `json:"-"` // the fix deletes work that may be uncommitted
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

// RepairOptions say how far a repair may go.
type RepairOptions struct {
	Force  bool // also delete dirty orphans, and prune when most worktrees look missing
	DryRun bool
}

// LeftMovedOn is the outcome of a repair whose task moved on.
const LeftMovedOn = "left alone: the task changed since it was examined"

// ErrNeedsPerson is a repair that cannot tell what is right.
var ErrNeedsPerson = errors.New("needs a person")
