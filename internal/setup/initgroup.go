package setup

import (
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
)

// EndLeftoverInit ends the process group of an init that outlived the
// git-wt that started it (SPEC §7): the record names the group and its
// leader's start time. Only for a record whose owner is dead.
func (m *Handler) EndLeftoverInit(rec *record.Record) {
	if rec.Init.PGID <= 0 || rec.Init.Status != record.InitRunning {
		return
	}
	g := task.InitGroup(rec.Init)
	if g.End() {
		m.Warn("ended the init of task %q that outlived its git-wt (process group %d)", rec.Task, g.ID)
		m.LogEvent(rec, "init-ended", "its git-wt had died")
	}
}
