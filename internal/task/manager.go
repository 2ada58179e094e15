// Package task is what git-wt does to tasks: find them, create their
// worktrees, report their status and remove them safely. Every git call goes
// through the git package; every record through the record package.
package task

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-wt/git-wt/internal/events"
	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/lock"
	"github.com/git-wt/git-wt/internal/place"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/settings"
	"github.com/git-wt/git-wt/internal/slug"
)

// Manager acts on the tasks of one repository.
type Manager struct {
	Git      *git.Runner
	Repo     *git.Repo
	Settings *settings.Settings
	Store    *record.Store
	Events   *events.Log
	// Place decides where worktrees go.
	Place *place.Rules
	// Warn prints a warning for the user (stderr).
	Warn func(format string, args ...any)
	// Progress shows how far long operations have got; nil shows nothing.
	Progress Progress
	// InitOutput, when set (a terminal, --verbose), also receives the
	// init commands' output as it comes; the log always does.
	InitOutput io.Writer
	// HookOutput receives the output of the hooks git-wt runs itself (git
	// shows hook output on stderr); nil discards it.
	HookOutput io.Writer

	lockWait time.Duration // time spent waiting for the lock, for the event log
	prefetch *Prefetch     // a lookup started early, used by the next Find of its id
}

// New returns a Manager for repo; command names the git-wt command in the
// event log. Records are read and written from the main worktree, which
// outlives every task: the command may have started in the worktree it is
// removing.
func New(g *git.Runner, repo *git.Repo, s *settings.Settings, command string) *Manager {
	m := &Manager{
		Git:      g,
		Repo:     repo,
		Settings: s,
		Store:    &record.Store{Git: g, Dir: repo.MainDir, Cache: record.CacheFile(repo.CommonDir)},
		Events:   &events.Log{Path: filepath.Join(repo.CommonDir, "wt", "events.jsonl"), Command: command},
		Warn:     func(string, ...any) {},
	}
	m.Place = &place.Rules{Git: g, Repo: repo, Settings: s, Lock: m.Lock,
		Warn: func(format string, args ...any) { m.Warn(format, args...) }}
	if s != nil {
		m.Place.AllowedBaseDir() // a .gitwt's base dir that breaks the rules is ignored by every command
	}
	return m
}

// StateDir is git-wt's folder in the git common dir: the lock, the event
// log, init logs and last-access stamps.
func (m *Manager) StateDir(parts ...string) string {
	return filepath.Join(append([]string{m.Repo.CommonDir, "wt"}, parts...)...)
}

// LogPath is where the init output of a task goes.
func (m *Manager) LogPath(slug string) string { return m.StateDir("logs", slug+".log") }

// Lock takes the repository-wide lock and, while refs/wt/ holds records
// an earlier git-wt wrote, moves them (SPEC §14): every command that takes
// the lock does, whatever wt.gcInterval says. Finding there are none costs
// no git process.
//
// The lock is a token: what must run under it takes the *lock.Lock as a
// parameter (held), so that it cannot be called without it, and never
// calls Lock itself (flock is per open file: a second Lock in the same
// process would wait for itself until wt.lockTimeout).
func (m *Manager) Lock(ctx context.Context) (*lock.Lock, error) {
	l, err := m.acquire(ctx)
	if err == nil {
		m.warnMoved(m.moveLegacy(ctx, l))
	}
	return l, err
}

// MergeLock takes the lock of merges into the branch into (a full ref),
// held while a merge changes that branch and the worktree that has it
// checked out: merges into one base wait for each other, and the repair
// of a killed merge waits for a live one before it touches that worktree.
func (m *Manager) MergeLock(ctx context.Context, into string) (*lock.Lock, error) {
	return lock.Acquire(ctx, m.StateDir("merge", slug.Make(strings.TrimPrefix(into, "refs/heads/"))+".lock"), m.Settings.LockTimeout)
}

// acquire takes the repository-wide lock.
func (m *Manager) acquire(ctx context.Context) (*lock.Lock, error) {
	start := time.Now()
	l, err := lock.Acquire(ctx, m.StateDir("lock"), m.Settings.LockTimeout)
	m.lockWait += time.Since(start)
	return l, err
}

// Touch records a use of the task (SPEC §4): the mtime of a stamp file,
// not a ref write. Best effort.
func (m *Manager) Touch(slug string) {
	fsutil.TouchUnder(m.StateDir(), m.StateDir("access", slug))
}

// LastAccess is the later of the task's stamp file and its record.
func (m *Manager) LastAccess(rec *record.Record) time.Time {
	t := rec.LastAccessAt
	if st, err := os.Stat(m.StateDir("access", rec.Slug)); err == nil && st.ModTime().After(t) {
		t = st.ModTime().UTC()
	}
	if t.IsZero() {
		t = rec.CreatedAt
	}
	return t
}

// Forget removes the per-task files git-wt keeps beside the records.
func (m *Manager) Forget(slug string) {
	os.Remove(m.StateDir("access", slug))
	os.Remove(m.LogPath(slug))
	os.Remove(m.CommitLockPath(slug))
}

// LogFileEvent writes an event about a file that is not a task's (a hook, the
// .gitwt file): `git wt log` shows it, and a failure to write is warned
// about, like every event.
func (m *Manager) LogFileEvent(path, outcome, reason string) {
	m.LogEvent(&record.Record{Path: path}, outcome, reason)
}

func (m *Manager) LogEvent(rec *record.Record, outcome, reason string) {
	e := events.Event{Outcome: outcome, Reason: reason, LockWaitMS: m.lockWait.Milliseconds()}
	if rec != nil {
		e.Task, e.Slug, e.Path = rec.Task, rec.Slug, rec.Path
	}
	if err := m.Events.Append(e); err != nil {
		m.Warn("could not write the event log %s: %v", m.Events.Path, err)
	}
}

// BranchRef is the full ref of a branch name.
func BranchRef(branch string) string { return "refs/heads/" + branch }

// CommitLockPath is the file that lets one commit at a time run in the
// task slug's worktree.
func (m *Manager) CommitLockPath(slug string) string { return m.StateDir("commit", slug+".lock") }

// LockCommits takes the task's commit lock (a flock in git-wt's state
// dir, dropped by the kernel if git-wt dies), waiting at most
// wt.lockTimeout: one git wt commit at a time in its worktree, and none
// while sync moves its branch and files or rm removes it, whose reads of
// the branch and the files a commit would otherwise change under them.
func (m *Manager) LockCommits(ctx context.Context, slug string) (*lock.Lock, error) {
	return lock.Acquire(ctx, m.CommitLockPath(slug), m.Settings.LockTimeout)
}
