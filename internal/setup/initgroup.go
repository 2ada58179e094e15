package setup

import (
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
)

// EndLeftoverInit ends the process group of an init that outlived the
// git-wt that started it (SPEC §7): the record names the group and its
// leader's start time. Only for a record whose owner is dead, and only
// while git-wt's supervisor of the init still leads the group: a record
// can be edited by hand (SPEC §19), and a group it names that git-wt
// cannot tell as its own is left alone, with a warning.
func (m *Handler) EndLeftoverInit(rec *record.Record) {
	if rec.Init.PGID <= 0 || rec.Init.Status != record.InitRunning {
		return
	}
	g := task.InitGroup(rec.Init, rec.Owner(), rec.Path)
	switch ended, err := g.End(); {
	case err != nil:
		m.Warn("the record of task %q names an init that may have outlived its git-wt, but %v", rec.Task, err)
	case ended:
		m.Warn("ended the init of task %q that outlived its git-wt (process group %d)", rec.Task, g.ID)
		m.LogEvent(rec, "init-ended", "its git-wt had died")
	}
}
