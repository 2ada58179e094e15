// These tests protect doctor's and gc's rules without git: which problems
// gc cleans, when a repair is left for later or for a person, and that the
// lock files killed gits left are deleted before the repairs they block.
package policy

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/events"
	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/leftover"
	"github.com/git-wt/git-wt/internal/settings"
	"github.com/git-wt/git-wt/internal/task"
)

func doctorFor(t *testing.T) *Doctor {
	t.Helper()
	return &Doctor{Manager: &task.Manager{
		Settings: &settings.Settings{OrphanGrace: time.Hour},
		Events:   &events.Log{Path: filepath.Join(t.TempDir(), "events.jsonl")},
		Warn:     func(string, ...any) {},
	}}
}

func TestGCCleansOrphansAndLeavesTheRestToDoctor(t *testing.T) {
	var problems []*task.Problem
	for _, k := range []task.Kind{
		task.ForeignWorktree, task.StuckCreation, task.CorruptRecord, task.MissingWorktree,
		task.InterruptedMerge, leftover.StaleRefLock, task.LegacyConflict, leftover.LockMismatch,
		task.LeftoverBranch, task.StuckRemoval,
	} {
		problems = append(problems, &task.Problem{Kind: k})
	}
	var got []task.Kind
	for _, p := range orphansOf(problems) {
		got = append(got, p.Kind)
	}
	want := []task.Kind{task.StuckCreation, task.MissingWorktree, leftover.StaleRefLock, task.LeftoverBranch, task.StuckRemoval}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("gc cleans %v, want %v: a foreign worktree, a corrupt record, an interrupted merge, a legacy conflict and a lock mismatch need a person", got, want)
	}
}

func TestRepairOutcomes(t *testing.T) {
	fixed := func(context.Context, bool) error { return nil }
	refused := func(context.Context, bool) error { return exitcode.Refusedf("dirty") }
	for _, tc := range []struct {
		name string
		p    task.Problem
		o    task.RepairOptions
		want string
	}{
		{"no fix known", task.Problem{Age: -1}, task.RepairOptions{}, task.LeftManual},
		{"younger than the grace", task.Problem{Age: time.Minute, FixWith: fixed}, task.RepairOptions{}, task.LeftYoung},
		{"age does not matter", task.Problem{Age: -1, FixWith: fixed}, task.RepairOptions{}, task.Fixed},
		{"older than the grace", task.Problem{Age: 2 * time.Hour, FixWith: fixed}, task.RepairOptions{}, task.Fixed},
		{"dry run", task.Problem{Age: -1, FixWith: fixed}, task.RepairOptions{DryRun: true}, task.WouldFix},
		{"moved on", task.Problem{Age: -1, FixWith: func(context.Context, bool) error { return task.ErrMovedOn }}, task.RepairOptions{}, task.LeftMovedOn},
		{"a dirty fix refused", task.Problem{Age: -1, FixWith: refused, FixDirty: true}, task.RepairOptions{}, "kept: dirty"},
		{"a fix that failed", task.Problem{Age: -1, FixWith: func(context.Context, bool) error { return errors.New("boom") }}, task.RepairOptions{}, task.RepairFailed + ": boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.p
			ok := doctorFor(t).Repair(context.Background(), &task.Diagnosis{Problems: []*task.Problem{&p}, Worktrees: 10}, tc.o)
			if p.Outcome != tc.want {
				t.Fatalf("outcome %q, want %q", p.Outcome, tc.want)
			}
			if wantOK := tc.want == task.Fixed || tc.want == task.WouldFix || tc.want == task.LeftMovedOn; ok != wantOK {
				t.Fatalf("Repair reported ok=%v for outcome %q", ok, p.Outcome)
			}
		})
	}
}

// SPEC §7: when most worktrees look missing at once (a container that
// mounted part of the disk), nothing is repaired without --force.
func TestRepairLeavesMassMissingWorktreesWithoutForce(t *testing.T) {
	var fixes int
	fix := func(context.Context, bool) error { fixes++; return nil }
	problems := func() *task.Diagnosis {
		return &task.Diagnosis{Worktrees: 3, Problems: []*task.Problem{
			{Kind: task.MissingWorktree, Age: -1, Missing: true, FixWith: fix},
			{Kind: task.MissingWorktree, Age: -1, Missing: true, FixWith: fix},
		}}
	}
	d := problems()
	doctorFor(t).Repair(context.Background(), d, task.RepairOptions{})
	if fixes != 0 || d.Problems[0].Outcome != task.LeftMissing {
		t.Fatalf("%d fixes, outcome %q: want none, %q", fixes, d.Problems[0].Outcome, task.LeftMissing)
	}
	doctorFor(t).Repair(context.Background(), problems(), task.RepairOptions{Force: true})
	if fixes != 2 {
		t.Fatalf("--force fixed %d of 2", fixes)
	}
}

func TestRepairDeletesLockFilesFirst(t *testing.T) {
	var order []task.Kind
	problem := func(k task.Kind) *task.Problem {
		return &task.Problem{Kind: k, Age: -1, FixWith: func(context.Context, bool) error { order = append(order, k); return nil }}
	}
	d := &task.Diagnosis{Worktrees: 10, Problems: []*task.Problem{
		problem(task.InterruptedInit), problem(task.LeftoverBranch), problem(leftover.StaleRefLock), problem(leftover.StaleIndexLock),
	}}
	doctorFor(t).Repair(context.Background(), d, task.RepairOptions{})
	want := []task.Kind{leftover.StaleRefLock, leftover.StaleIndexLock, task.InterruptedInit, task.LeftoverBranch}
	if !reflect.DeepEqual(order, want) {
		t.Fatalf("repaired in the order %v, want %v", order, want)
	}
	if d.Problems[0].Kind != task.InterruptedInit {
		t.Fatal("the report keeps the order doctor found the problems in")
	}
}
