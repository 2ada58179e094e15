package setup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/git-wt/git-wt/internal/child"
	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/proc"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/text"
)

// Options say which parts of a worktree's setup run.
type Options struct {
	Copy bool // wt.copy and .worktreeinclude files
	Init bool // the init commands
}

// ErrInitFailed marks a setup that failed: the worktree stays, in state
// failed, for the user to look at, and `git wt init` runs it again.
var ErrInitFailed = errors.New("init failed")

// InitFailed is the error of a task whose setup failed: it names the
// worktree, the log and the command that retries.
func (m *Handler) InitFailed(rec *record.Record) error {
	detail := ""
	if rec.Init.Error != "" {
		detail = ": " + rec.Init.Error
	}
	return &exitcode.Error{Code: exitcode.Failed, Err: fmt.Errorf("%w for task %q in %s%s: see %s, then run git wt init %s",
		ErrInitFailed, rec.Task, rec.Path, detail, m.LogPath(rec.Slug), rec.Slug)}
}

// initKillDelay is how long an interrupted init command has to exit after
// SIGTERM before it is killed.
const initKillDelay = 5 * time.Second

// Setup makes a task's worktree ready (SPEC §6): the ignored files of
// wt.copy and .worktreeinclude are copied from the main worktree, then the
// init commands run in order, stopping at the first failure. The record
// says how it went: init status running, then success, failed (with the
// error) or skipped-untrusted, and the state initializing, then active or
// failed (an adopted worktree stays adopted). A failure returns an error
// wrapping ErrInitFailed and leaves the worktree in place; an interrupt
// returns the context's error.
func (m *Handler) Setup(ctx context.Context, e *record.Entry, o Options) error {
	return m.Apply(ctx, e, m.PlanSetup(o))
}

// Apply is Setup with its plan made.
func (m *Handler) Apply(ctx context.Context, e *record.Entry, p Plan) error {
	// The ports first: the env file and the init commands show them.
	if err := m.Ports().Ensure(ctx, e); err != nil {
		return err
	}
	if p.Empty() {
		if err := m.writeEnvFile(ctx, e.Record); err != nil {
			return err
		}
		if (e.Record.State == record.Adopted || e.Record.State == record.Active) && p.o.Init {
			return m.clearReclaimed(ctx, e) // git wt init with nothing to copy or run: set up as far as it goes
		}
		return m.settleState(ctx, e, record.Active, p.SettleEmpty)
	}
	logPath := m.LogPath(e.Slug)
	start := time.Now().UTC()
	// A setup run again on a task that existed (not one being created) is
	// marked so: if this process dies, the task is kept, never rolled back.
	rerun := e.Record.State != record.Creating
	// While initializing, the process to watch is this one.
	err := m.settleState(ctx, e, record.Initializing, func(rec *record.Record) {
		rec.Init = record.Init{Ran: len(p.run) > 0, Status: record.InitRunning, Log: logPath, StartedAt: &start, Rerun: rerun}
	})
	if err != nil {
		return err
	}
	rec := e.Record
	log, err := openLog(m.StateDir(), logPath)
	if err != nil {
		return m.settle(ctx, e, record.InitFailed, fmt.Sprintf("cannot write the log %s: %v", logPath, err))
	}
	defer log.Close()
	fmt.Fprintf(log, "git-wt: setting up task %q in %s (%s)\n", rec.Task, rec.Path, start.Format(time.RFC3339))
	if p.submodules {
		// First: the copies and the init commands may need them.
		if err := m.readySubmodules(ctx, rec.Path, log); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			fmt.Fprintf(log, "git-wt: %v\n", err)
			return m.settle(ctx, e, record.InitFailed, err.Error())
		}
	}
	if err := m.prepareFiles(ctx, rec, p, log); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		fmt.Fprintf(log, "git-wt: %v\n", err)
		return m.settle(ctx, e, record.InitFailed, err.Error())
	}
	if len(p.untrusted) > 0 {
		msg := fmt.Sprintf("skipped %d init %s from %s, which you have not trusted: review it, run git wt trust, then git wt init %s",
			len(p.untrusted), text.Plural(len(p.untrusted), "command", "commands"), filepath.Join(m.Repo.MainDir, ".gitwt"), rec.Slug)
		m.Warn("%s", msg)
		fmt.Fprintf(log, "git-wt: %s\n", msg)
	}
	if err := m.runInit(ctx, e, p.run, log); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		fmt.Fprintf(log, "git-wt: %v\n", err)
		return m.settle(ctx, e, record.InitFailed, err.Error())
	}
	if len(p.untrusted) > 0 {
		return m.settle(ctx, e, record.InitUntrusted, "")
	}
	return m.settle(ctx, e, record.InitSuccess, "")
}

// prepareFiles links the folders of wt.symlink, copies the ignored files
// of wt.copy, then writes wt.envFile: in that order, because the copy
// never overwrites a file, so that a linked folder is not copied too and
// the user's own env file (copied) keeps its lines and gets git-wt's
// block.
func (m *Handler) prepareFiles(ctx context.Context, rec *record.Record, p Plan, log io.Writer) error {
	if p.links {
		if err := m.linkDirs(ctx, rec.Path, log); err != nil {
			return err
		}
	}
	if p.copies {
		if err := m.copyFiles(ctx, rec.Path, log); err != nil {
			return err
		}
	}
	return m.writeEnvFile(ctx, rec)
}

// Plan is what a setup will do.
type Plan struct {
	o              Options
	run, untrusted []string // the init commands, trusted or not
	copies         bool     // wt.copy or .worktreeinclude files to copy
	submodules     bool     // the main worktree's submodules to give the worktree
	links          bool     // wt.symlink folders to link
}

func (m *Handler) PlanSetup(o Options) Plan {
	p := Plan{o: o, copies: o.Copy && m.hasCopyPatterns(), submodules: m.Settings.WantsSubmodules(),
		links: len(m.Settings.All("wt.symlink")) > 0}
	if o.Init {
		p.run, p.untrusted = m.Settings.InitCommands()
	}
	return p
}

// Empty says the setup has nothing to copy or run.
func (p Plan) Empty() bool {
	return !p.copies && !p.submodules && !p.links && len(p.run) == 0 && len(p.untrusted) == 0
}

// SettleEmpty is the one change an empty setup makes to the record.
func (p Plan) SettleEmpty(rec *record.Record) {
	if !p.o.Init {
		rec.Init = record.Init{Status: record.InitSkipped}
	}
}

// settleState moves the task to state to (initializing, or where a setup
// ends: active or failed) with also applied in the same write. An adopted
// worktree keeps its state through setup: only also is applied.
func (m *Handler) settleState(ctx context.Context, e *record.Entry, to record.State, also func(*record.Record)) error {
	if e.Record.State != record.Adopted {
		return m.Transition(ctx, e, to, also)
	}
	return m.Update(ctx, e, func(r *record.Record) error { also(r); return nil })
}

// clearReclaimed drops the record's note that gc reclaimed the task's
// build output (SPEC §20), when it has one: a setup with nothing to copy
// or run sets the task up as far as it goes.
func (m *Handler) clearReclaimed(ctx context.Context, e *record.Entry) error {
	if e.Record.Reclaimed == nil {
		return nil
	}
	return m.Update(ctx, e, func(r *record.Record) error { r.Reclaimed = nil; return nil })
}

// settled is the state a task reaches when its setup ends.
func settled(ok bool) record.State {
	if ok {
		return record.Active
	}
	return record.Failed
}

// settle records how the setup ended; a failure returns the error that
// names the log.
func (m *Handler) settle(ctx context.Context, e *record.Entry, status record.InitStatus, failure string) error {
	ok := status != record.InitFailed
	end := time.Now().UTC()
	err := m.settleState(ctx, e, settled(ok), func(rec *record.Record) {
		rec.Init.FinishedAt = &end
		rec.Init.Status, rec.Init.Error = status, failure
		if ok {
			rec.Reclaimed = nil // the setup made the build output again
		}
	})
	m.LogEvent(e.Record, "init-"+string(status), failure)
	if err != nil {
		return err
	}
	if !ok {
		return m.InitFailed(e.Record)
	}
	return nil
}

// openLog opens the init log at path, in git-wt's folder stateDir, never
// through a link planted there (it would truncate the file it names).
func openLog(stateDir, path string) (*os.File, error) {
	return fsutil.OpenUnder(stateDir, path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
}

// runInit runs the init commands with `sh -c` in the worktree, in order,
// stopping at the first failure. Their output goes to log (and to
// InitOutput); their stdin is empty, so an init never waits for input.
// Each runs in its own process group, so that an interrupt stops the
// whole command, not only its shell, under a supervisor that ends the
// group when this process dies (SPEC §15); the group is written into the
// record so that a repair can end it should the supervisor die too (SPEC
// §7).
func (m *Handler) runInit(ctx context.Context, e *record.Entry, commands []string, log io.Writer) error {
	rec := e.Record
	out := log
	if m.InitOutput != nil {
		out = io.MultiWriter(log, m.InitOutput)
	}
	meter := m.StartMeter("init in "+rec.Path, int64(len(commands)), false)
	defer meter.Done()
	return m.runCommands(ctx, rec.Path, m.OwnEnv(rec), commands, log, out, func(pgid int, start string) (ended func()) {
		// Not cut short by an interrupt: a record write killed half way
		// leaves the ref's lock file, or a record the rollback no longer
		// knows, and the rollback could not delete it.
		if err := m.Update(context.WithoutCancel(ctx), e, func(r *record.Record) error {
			task.NameGroup(&r.Init, pgid, start)
			return nil
		}); err != nil && ctx.Err() == nil {
			m.Warn("could not record the init's process group %d in the record of task %q: %v", pgid, e.Record.Task, err)
		}
		return m.Renew(e) // the command may outlast wt.orphanGrace (SPEC §15)
	}, meter.Add)
}

// runCommands runs commands with `sh -c` in dir (on Windows, Git for
// Windows' sh.exe: git.Runner.Shell), in order, stopping at
// the first failure, each in its own process group led by a supervisor
// (child.Supervise), which ends the whole group, the command's own
// children included, when this process dies, even by SIGKILL, which no
// handler sees; started learns each group (the supervisor's pid and start
// time) and returns what to call once the command has ended, done counts
// each command that succeeded.
func (m *Handler) runCommands(ctx context.Context, dir string, env, commands []string, log, out io.Writer, started func(pgid int, start string) (ended func()), done func(int64)) error {
	if len(commands) == 0 {
		return nil
	}
	sh, err := m.Git.Shell(ctx, dir)
	if err != nil {
		return fmt.Errorf("cannot run `%s`: %v", firstLine(commands[0]), err)
	}
	for _, c := range commands {
		fmt.Fprintf(log, "$ %s\n", c)
		cmd := child.Cmd{Path: sh, Args: []string{"-c", c}, Dir: dir, Env: env, Stdout: out, Stderr: out,
			Group: true, Supervised: true, GraceDelay: initKillDelay}.Command(ctx)
		if err := runWatched(ctx, cmd, started); err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) && ee.Exited() {
				return fmt.Errorf("init command `%s` exited with status %d", firstLine(c), ee.ExitCode())
			}
			return fmt.Errorf("init command `%s` failed: %v", firstLine(c), err)
		}
		done(1)
	}
	return nil
}

// runWatched runs a command in its own group and tells started the group
// (and its leader's start time) while it runs, and calls what started
// returned once it has ended. The parent-death signal
// (the supervisor's, on Linux) fires when the thread that started the
// child ends, not the process: the command is started and waited for on
// one locked OS thread, which lives as long as this process does.
func runWatched(ctx context.Context, cmd *exec.Cmd, started func(pgid int, start string) (ended func())) error {
	begun, done := make(chan error, 1), make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			begun <- err
			return
		}
		begun <- nil
		done <- cmd.Wait()
	}()
	if err := <-begun; err != nil {
		return err
	}
	pgid := cmd.Process.Pid
	start, _ := proc.StartTime(pgid)
	ended := started(pgid, start)
	err := <-done
	ended()
	if ctx.Err() != nil {
		// Interrupted: what the group started and did not end on SIGTERM
		// does not outlive this git-wt.
		child.KillGroup(pgid)
	}
	return err
}

// firstLine shortens a (possibly multi-line) command for a message.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " ..."
	}
	return s
}

// Reinit runs the setup of the task arg names again (`git wt init`). A
// task that another process is creating or setting up is refused, as is
// one whose worktree is gone (git wt new makes it again).
func (m *Handler) Reinit(ctx context.Context, arg string, o Options) (*record.Record, error) {
	e, err := m.Find(ctx, arg)
	if err != nil {
		return nil, err
	}
	if e.Err != nil {
		return nil, task.Unreadable(e)
	}
	if err := m.notBeingSetUp(ctx, e); err != nil {
		return nil, err
	}
	if err := m.FailInterruptedInit(ctx, e); err != nil {
		return nil, err
	}
	rec := e.Record
	if err := m.WorktreeThere(ctx, rec); err != nil {
		return nil, err
	}
	task.Checkpoint(ctx, "init:examined")
	if err := m.Setup(ctx, e, o); err != nil {
		if ctx.Err() != nil {
			// Interrupted: say so in the record rather than leave it
			// "initializing" for a process that is gone.
			fresh, cancel := context.WithTimeout(context.Background(), task.RollbackTimeout)
			defer cancel()
			m.settle(fresh, e, record.InitFailed, "interrupted")
		}
		return nil, err
	}
	return e.Record, nil
}

// notBeingSetUp refuses a task that another process is creating or
// setting up; one that process finished with while it was looked at is
// read again (e holds it) and looked at again.
func (m *Handler) notBeingSetUp(ctx context.Context, e *record.Entry) error {
	for attempt := 0; ; attempt++ {
		rec := e.Record
		if rec.State != record.Creating && rec.State != record.Initializing {
			return nil
		}
		gone, err := m.OwnerGone(ctx, e)
		if errors.Is(err, task.ErrMovedOn) && attempt < task.MaxRaces {
			if err := m.Reload(ctx, e); err != nil {
				return err
			}
			continue
		}
		if !gone || err != nil {
			return exitcode.Failedf("task %q in %s is being set up by process %d on %s: try again when it is done", rec.Task, rec.Path, rec.CreatorPID, rec.CreatorHost)
		}
		return nil
	}
}

// FailInterruptedInit marks failed a task whose `git wt init` died (a
// setup run again on a task that existed, its owner dead), so that the
// next new or init finds a failed task rather than a creation to resume
// over the agent's work. Anything else is left as it is. A task that
// moved on meanwhile is read again.
func (m *Handler) FailInterruptedInit(ctx context.Context, e *record.Entry) error {
	rec := e.Record
	if rec.State != record.Initializing || !rec.Init.Rerun {
		return nil
	}
	if gone, err := m.OwnerGone(ctx, e); errors.Is(err, task.ErrMovedOn) {
		return m.Reload(ctx, e)
	} else if !gone || err != nil {
		return err
	}
	err := m.ClaimForRepair(ctx, e)
	if errors.Is(err, task.ErrMovedOn) {
		return m.Reload(ctx, e)
	}
	if err != nil {
		return err
	}
	m.EndLeftoverInit(e.Record)
	err = m.MarkInterrupted(ctx, e, fmt.Sprintf("git wt init was stopped (%s)", task.HowStopped(rec, proc.Check(task.Owner(rec)))))
	if exitcode.Of(err) == exitcode.Refused {
		return nil // marked failed, as wanted
	}
	return err
}
