package inspect

import (
	"fmt"
	"time"

	"github.com/git-wt/git-wt/internal/madeby"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/settings"
)

// InUse says whether a process works in a worktree (SPEC §15): alive,
// none, or unknown where git-wt cannot see every process — never none.
type InUse string

const (
	InUseAlive   InUse = "alive"
	InUseNone    InUse = "none"
	InUseUnknown InUse = "unknown"
)

// Safe is the verdict of a worktree that can go with nothing lost and
// nobody disturbed (SPEC §20).
const Safe = "safe"

// Facts is what one worktree of a repository holds, whoever made it
// (SPEC §20 "What it holds"), and its verdict.
type Facts struct {
	Path   string
	Branch string // the branch checked out (short name), "" when detached
	Head   string // the commit checked out, "" on an unborn branch
	Main   bool   // the repository's main worktree
	// Missing: git lists the worktree but its folder is gone (git's
	// prunable; plain gc prunes the entry).
	Missing bool
	MadeBy  madeby.Maker
	// Task is git-wt's record of the worktree; nil for the others.
	Task *record.Record
	// Pooled: a warm pool entry (git-wt's own, with no task record).
	Pooled bool

	// Dirty counts the changes that make it dirty (SPEC §7); -1 when
	// git status failed (it then counts as dirty). The main worktree's
	// is read only with SurveyOptions.Main (0 without).
	Dirty int
	// Unpushed counts the commits of HEAD on no remote-tracking ref and
	// not merged into the base; -1 when git could not tell. The main
	// worktree's as Dirty.
	Unpushed int
	// LastActivity is the newest of its index, HEAD's reflog in its git
	// dir and its top-level entries; zero when none could be read.
	LastActivity time.Time
	InUse        InUse
	// Holds is another worktree git lists inside this one's folder (a
	// Claude Code session's .claude/worktrees/<name> in a worktree),
	// "" when none: removing this folder deletes that one too.
	Holds string
	// Mount is a file system mounted inside its folder, "" when none (or
	// not looked for: only just before gc --foreign removes it).
	Mount  string
	Locked bool  // git worktree lock, or the task's lock
	Size   int64 // bytes on disk; -1 when not asked for

	Verdict string
}

// Judge is the verdict on a worktree (SPEC §20): Safe when it is clean,
// every commit of its HEAD is on a remote or merged into its base, no
// process works in it (proved: unknown is not none), it is not locked and
// nothing has touched it for idleAfter; else the first reason it is not,
// in this order: what removing it would lose (dirty N, unpushed N; "?"
// where git could not tell; another worktree inside it, whatever that
// one's verdict: holds a worktree; a file system mounted in it: holds a
// mount), who works in it now (in use, cannot see),
// the user's own word (locked), and last how recently it was used
// (active 2h ago). Before those, what is never a candidate at all: the
// main worktree (main), a worktree whose folder is gone (missing: only
// git's entry is left, which plain gc prunes), and a git-wt task in any
// state but active or adopted (its state, creating, removing, ...; a pool
// entry says pooled), whose own process may be working on it.
func Judge(f Facts, now time.Time, idleAfter time.Duration) string {
	switch {
	case f.Main:
		return "main"
	case f.Missing:
		return "missing"
	case f.Pooled:
		return string(record.Pooled)
	case f.Task != nil && f.Task.State != record.Active && f.Task.State != record.Adopted:
		return string(f.Task.State)
	case f.Dirty != 0:
		return "dirty " + count(f.Dirty)
	case f.Unpushed != 0:
		return "unpushed " + count(f.Unpushed)
	case f.Holds != "":
		return "holds a worktree"
	case f.Mount != "":
		return "holds a mount"
	case f.InUse == InUseAlive:
		return "in use"
	case f.InUse != InUseNone:
		return "cannot see"
	case f.Locked:
		return "locked"
	}
	if f.LastActivity.IsZero() {
		return "active ?" // nothing of it could be read: never idle
	}
	if idle := now.Sub(f.LastActivity); idle < idleAfter {
		return fmt.Sprintf("active %s ago", settings.FormatDuration(max(idle, 0)))
	}
	return Safe
}

// count is n as a verdict says it: "?" when unknown (negative).
func count(n int) string {
	if n < 0 {
		return "?"
	}
	return fmt.Sprint(n)
}
