// Package place decides where worktrees go (SPEC §7, §14): the base dir
// (never in .git, a worktree or a tracked path; an untrusted .gitwt's only
// in its places), a task's folder in it, the --path a user chose, and the
// info/exclude line that keeps a base dir inside the main worktree out of
// its status.
package place

import (
	"context"
	"sync"

	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/lock"
	"github.com/git-wt/git-wt/internal/settings"
)

// Rules are the placement rules of one repository.
type Rules struct {
	Git      *git.Runner
	Repo     *git.Repo
	Settings *settings.Settings
	// Warn prints a warning for the user.
	Warn func(format string, args ...any)
	// Lock takes the repository lock, held while info/exclude changes.
	Lock func(ctx context.Context) (*lock.Lock, error)

	mu    sync.Mutex
	owned struct {
		of   string   // the base dir the answer is for
		dirs []string // ownedBase's answer
	}
}
