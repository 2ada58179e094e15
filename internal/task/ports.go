package task

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"strings"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/lock"
	"github.com/git-wt/git-wt/internal/ports"
	"github.com/git-wt/git-wt/internal/record"
)

// Ports hands out and keeps the tasks' TCP ports (SPEC §10).
type Ports struct{ m *Manager }

// Ports are the port rules of m's tasks.
func (m *Manager) Ports() Ports { return Ports{m} }

// Missing reports whether rec lacks a port for a name in wt.port: a
// new task, or a name added to wt.port since the task was made.
func (p Ports) Missing(rec *record.Record) bool {
	for _, name := range p.m.Settings.Ports {
		if _, ok := rec.Ports[name]; !ok {
			return true
		}
	}
	return false
}

// Held returns every task's record, read under the lock (held) from the
// files git keeps the refs in and the record cache: no git process in the
// common case, so that handing out ports costs new next to nothing.
func (p Ports) Held(ctx context.Context, held *lock.Lock) ([]record.Entry, error) {
	return p.m.Store.AllFromFiles(ctx, p.m.Repo.CommonDir)
}

// Allocate gives the task slug a port for each name in wt.port it
// has none for (have), under the repository lock (held) so that no other
// new hands out the same port meanwhile (SPEC §10): a port that another
// task among entries holds, or that something on this host listens on,
// is skipped. A range with no port left is a limit (exit 4).
func (p Ports) Allocate(held *lock.Lock, entries []record.Entry, slug string, have map[string]int) (map[string]int, error) {
	taken := map[int]bool{}
	for _, e := range entries {
		if e.Record != nil && e.Slug != slug {
			for _, p := range e.Record.Ports {
				taken[p] = true
			}
		}
	}
	got, err := ports.Allocate(p.m.Settings.Ports, have, p.m.Repo.CommonDir, slug, p.m.Settings.PortRange, taken, ports.InUse)
	if errors.Is(err, ports.ErrExhausted) {
		return nil, exitcode.Limitf("no free port left in wt.portRange %s for task %s: remove a task (git wt rm, git wt gc) or widen the range", p.m.Settings.PortRange, slug)
	}
	return got, err
}

// Ensure gives an existing task the ports of names added to wt.port
// since it was made (its next new or init), and writes them to its record.
func (p Ports) Ensure(ctx context.Context, e *record.Entry) error {
	if !p.Missing(e.Record) {
		return nil
	}
	l, err := p.m.Lock(ctx)
	if err != nil {
		return err
	}
	defer l.Release()
	entries, err := p.Held(ctx, l)
	if err != nil {
		return err
	}
	return p.m.Update(ctx, e, func(r *record.Record) error {
		got, err := p.Allocate(l, entries, r.Slug, r.Ports)
		r.Ports = got
		return err
	})
}

// PortEnv is the task's ports as environment variables (NAME=port, by
// name), and WT_PORTS naming them; none when the task has no ports. A
// name outside SPEC §14's rule (kept in a record an earlier git-wt wrote,
// or edited in) is never exported: it could be a variable git or a shell
// reads.
func PortEnv(rec *record.Record) []string {
	names := make([]string, 0, len(rec.Ports))
	for name := range rec.Ports {
		if ports.CheckName(name) == nil {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	sort.Strings(names)
	env := make([]string, 0, len(names)+1)
	for _, name := range names {
		env = append(env, name+"="+strconv.Itoa(rec.Ports[name]))
	}
	return append(env, "WT_PORTS="+strings.Join(names, ","))
}
