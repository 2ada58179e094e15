package removal

import (
	"context"
	"path/filepath"
	"runtime"
	"time"

	"github.com/git-wt/git-wt/internal/child"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/text"
)

// preRemoveKillDelay is how long an interrupted wt.preRemove command has
// to exit after SIGTERM before it is killed.
const preRemoveKillDelay = 5 * time.Second

// preRemove runs the wt.preRemove commands in the task's worktree, with
// its environment, in order, before rm, merge cleanup or gc removes it
// (SPEC §17: `docker compose down`). A command that fails keeps the task
// (exit 3, nothing removed) unless force, where it is warned about. The
// commands of a .gitwt the user has not trusted never run.
func (m *Remover) preRemove(ctx context.Context, rec *record.Record, force bool) error {
	run, untrusted := m.Settings.PreRemoveCommands()
	if len(untrusted) > 0 {
		m.Warn("skipped %d wt.preRemove %s from %s, which you have not trusted (git wt trust)",
			len(untrusted), text.Plural(len(untrusted), "command", "commands"), filepath.Join(m.Repo.MainDir, ".gitwt"))
	}
	if len(run) == 0 {
		return nil
	}
	sh, err := m.Git.Shell(ctx, rec.Path)
	if err != nil {
		if force {
			m.Warn("cannot run wt.preRemove in %s (%v): removing it anyway (--force)", rec.Path, err)
			return nil
		}
		return m.Refuse(rec, "pre-remove", "cannot run wt.preRemove in %s (%v), so the task was kept: use --force to remove it without", rec.Path, err)
	}
	for _, c := range run {
		err := runLocked(func() error {
			return child.Cmd{Path: sh, Args: []string{"-c", c}, Dir: rec.Path, Env: m.OwnEnv(rec),
				Stdout: m.HookOutput, Stderr: m.HookOutput, Group: true, GraceDelay: preRemoveKillDelay}.Run(ctx)
		})
		if err == nil {
			continue
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if force {
			m.Warn("wt.preRemove command `%s` failed in %s (%v): removing it anyway (--force)", c, rec.Path, err)
			continue
		}
		return m.Refuse(rec, "pre-remove", "wt.preRemove command `%s` failed in %s (%v), so the task was kept: fix what it stops, or use --force", c, rec.Path, err)
	}
	return nil
}

// runLocked runs f on a locked OS thread: a child in its own group gets
// the parent-death signal of that thread (child.Cmd's Group).
func runLocked(f func() error) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		done <- f()
	}()
	return <-done
}
