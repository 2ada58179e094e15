package task

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/lock"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/text"
)

// The doctor kinds of records an earlier git-wt kept under refs/wt/
// (SPEC §14 "Legacy records").
const (
	LegacyRecord   Kind = "legacy-record"   // a record still under refs/wt/, where it hides the task branch
	LegacyConflict Kind = "legacy-conflict" // refs/wt/<slug> and refs/git-wt/tasks/<slug> hold different records
)

// legacyMaybe says whether refs/wt/ may hold records, without a git
// process: it looks at the ref files git keeps, loose (a folder refs/wt
// with something in it) and packed (a line naming refs/wt/ in
// packed-refs). It runs each time the lock is taken, so it must cost next
// to nothing; a wrong "yes" costs one for-each-ref. A ref store it cannot
// read this way (reftable) is always a "yes".
func (m *Manager) legacyMaybe() bool {
	common := m.Repo.CommonDir
	if _, err := os.Stat(filepath.Join(common, "reftable")); err == nil {
		return true
	}
	if f, err := os.Open(filepath.Join(common, "refs", "wt")); err == nil {
		names, _ := f.Readdirnames(1)
		f.Close()
		if len(names) > 0 {
			return true
		}
	}
	packed, err := os.ReadFile(filepath.Join(common, "packed-refs"))
	return err == nil && bytes.Contains(packed, []byte(" "+record.LegacyPrefix))
}

// moveLegacy moves the records under refs/wt/, if there are any, to
// refs/git-wt/tasks/ (SPEC §14), under the lock the caller holds (held).
// It returns a problem for each record moved or left, with its outcome.
func (m *Manager) moveLegacy(ctx context.Context, held *lock.Lock) []*Problem {
	if !m.legacyMaybe() {
		return nil
	}
	moves, err := m.Store.MoveLegacy(ctx, held)
	if err != nil {
		return []*Problem{{Kind: LegacyRecord, Ref: record.LegacyPrefix, Age: -1, Outcome: RepairFailed + ": " + err.Error(),
			Detail: "cannot list the records under " + record.LegacyPrefix}}
	}
	if len(moves) == 0 {
		// An empty folder left behind would make every lock look again.
		os.Remove(filepath.Join(m.Repo.CommonDir, "refs", "wt"))
	}
	var problems []*Problem
	for _, mv := range moves {
		p := legacyProblem(mv.Slug, mv.OID, mv.Current)
		switch mv.Outcome {
		case record.LegacyMoved, record.LegacyDropped:
			p.Outcome = Fixed
			m.LogEvent(&record.Record{Slug: mv.Slug}, "migrated", p.Fix)
		case record.LegacyConflict:
			p.Outcome = LeftManual
		default:
			p.Outcome = RepairFailed + ": " + mv.Err.Error()
		}
		problems = append(problems, p)
	}
	return problems
}

// MoveLegacy takes the lock and moves the records an earlier git-wt kept
// under refs/wt/ to refs/git-wt/tasks/: doctor --fix and gc do it before
// they look at worktrees, so that no task's worktree looks foreign. It
// costs no git process when there are none.
func (m *Manager) MoveLegacy(ctx context.Context) []*Problem {
	if !m.legacyMaybe() {
		return nil
	}
	l, err := m.acquire(ctx)
	if err != nil {
		return []*Problem{{Kind: LegacyRecord, Ref: record.LegacyPrefix, Age: -1, Outcome: RepairFailed + ": " + err.Error(),
			Detail: "records under " + record.LegacyPrefix + " were not moved"}}
	}
	defer l.Release()
	var moved []*Problem
	for _, p := range m.moveLegacy(ctx, l) {
		if p.Kind == LegacyRecord { // conflicts: Diagnose reports them
			moved = append(moved, p)
		}
	}
	return moved
}

// warnMoved tells the user, once, what taking the lock moved, and each
// record it could not move.
func (m *Manager) warnMoved(problems []*Problem) {
	n := 0
	for _, p := range problems {
		switch {
		case p.Kind != LegacyRecord:
		case p.Outcome == Fixed:
			n++
		default:
			m.Warn("could not move the task record %s to %s (%s): run git wt doctor", p.Ref, record.RefPrefix, p.Outcome)
		}
	}
	if n > 0 {
		m.Warn("moved %d task %s from %s to %s, where %s no longer hide the task branches from plain git",
			n, text.Plural(n, "record", "records"), record.LegacyPrefix, record.RefPrefix, text.Plural(n, "it", "they"))
	}
}

// legacyProblem is the doctor report of the ref refs/wt/<slug> that points
// at oid, when refs/git-wt/tasks/<slug> points at current ("": nothing).
func legacyProblem(slug, oid, current string) *Problem {
	from, to := record.LegacyRef(slug), record.Ref(slug)
	p := &Problem{Kind: LegacyRecord, Task: slug, Ref: from, Age: -1}
	switch current {
	case "":
		p.Detail = "written there by an earlier git-wt: there it shadows the branch wt/" + slug + " for plain git (git log, merge, push)"
		p.Fix = "move it to " + to
	case oid:
		p.Detail = "the same record is under " + to + " already"
		p.Fix = "delete " + from
	default:
		p.Kind = LegacyConflict
		p.Detail = fmt.Sprintf("%s holds another record than %s, which git-wt uses: compare them (git cat-file blob %s), then delete the one that is wrong (git update-ref -d %s)",
			from, to, from, from)
	}
	return p
}

// LegacyProblems reports the records that Diagnose read under refs/wt/ (as
// tasks, so their worktrees are not taken for foreign ones) and those that
// a record under refs/git-wt/tasks/ shadows; legacy is every ref under
// refs/wt/.
func (m *Manager) LegacyProblems(entries []record.Entry, legacy []git.Ref) []*Problem {
	current := map[string]*record.Entry{}
	for i := range entries {
		if !entries[i].Legacy {
			current[entries[i].Slug] = &entries[i]
		}
	}
	var problems []*Problem
	for _, ref := range legacy {
		slug, _, _ := record.SlugOf(ref.Name)
		cur := ""
		if e := current[slug]; e != nil {
			cur = e.OID
		}
		p := legacyProblem(slug, ref.OID, cur)
		for i := range entries {
			if e := &entries[i]; e.Slug == slug && e.Record != nil {
				p.Task, p.Path, p.Branch = e.Record.Task, e.Record.Path, e.Record.Branch
			}
		}
		if p.Kind == LegacyRecord {
			p.FixWith = func(ctx context.Context, _ bool) error { return m.moveLegacyNow(ctx) }
		}
		problems = append(problems, p)
	}
	return problems
}

// moveLegacyNow moves the legacy records under the lock, for a repair;
// an error names the first that could not be moved.
func (m *Manager) moveLegacyNow(ctx context.Context) error {
	l, err := m.acquire(ctx)
	if err != nil {
		return err
	}
	defer l.Release()
	for _, p := range m.moveLegacy(ctx, l) {
		if p.Kind == LegacyRecord && p.Outcome != Fixed {
			return fmt.Errorf("%s: %s", p.Ref, p.Outcome)
		}
	}
	return nil
}
