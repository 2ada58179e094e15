package cli

import (
	"context"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/git-wt/git-wt/hooks"
	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/lifecycle"
	"github.com/git-wt/git-wt/internal/removal"
	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/text"
)

// hookCommand is what the installed hook scripts call. Its arguments are
// checked before any git call: post-checkout fires on every checkout, and
// when there is nothing to do it must cost nothing.
func hookCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:            "hook",
		Usage:           "what the installed hook scripts call; not for people",
		ArgsUsage:       "NAME ARGS...",
		Hidden:          true,
		SkipFlagParsing: true,
		Action: func(c *cli.Context) error {
			args := c.Args().Slice()
			work, err := hooks.Decide(args)
			if err != nil {
				return exitcode.Usagef("git wt hook: %v", err)
			}
			switch {
			case work == hooks.AdoptWorktree && standingIn() && dotGitIsFile() && e.onABranch(c.Context):
				e.runHook(c.Context, args[0], func(m *task.Manager) error { return e.handlers(m).lifecycle.AdoptCheckout(c.Context, args[2]) })
			case work == hooks.CleanupMerged && standingIn():
				e.runHook(c.Context, args[0], func(m *task.Manager) error {
					results, err := e.handlers(m).workflow.CleanupMerged(c.Context)
					e.reportCleanup(results)
					return err
				})
			}
			return nil
		},
	}
}

// standingIn reports whether git-wt's part of a hook should run: not when
// the user turned the hooks off (GIT_WT_HOOKS=0), and not under a git that
// git-wt started, which does that work itself under its own lock.
func standingIn() bool {
	return os.Getenv("GIT_WT_HOOKS") != "0" && os.Getenv(git.InternalEnv) != "1"
}

// dotGitIsFile: a new linked worktree has a .git file where a clone or the
// main worktree has a folder. Telling them apart this way costs no process.
func dotGitIsFile() bool {
	st, err := os.Lstat(".git")
	return err == nil && st.Mode().IsRegular()
}

// onABranch tells, with one git process and before the repository is
// located, whether the new worktree has a branch checked out: a detached
// one gets no record (a record names a branch), so there is nothing to do
// and the hook says so.
func (e *env) onABranch(ctx context.Context) bool {
	if !e.git.OnABranch(ctx, ".") {
		cwd, _ := os.Getwd()
		e.warnf("%s", lifecycle.DetachedNote(cwd))
		return false
	}
	return true
}

// runHook runs git-wt's part of a hook. Whatever happens, the hook's exit
// status stays 0 (git leaves a half-made worktree when post-checkout
// fails): a failure is a warning.
func (e *env) runHook(ctx context.Context, name string, work func(*task.Manager) error) {
	m, err := e.manager(ctx, "hook "+name)
	if err == nil {
		err = work(m)
	}
	if err != nil {
		e.warnf("%s hook: %v", name, err)
	}
}

// reportCleanup says what the post-merge hook did with each merged task.
func (e *env) reportCleanup(results []*removal.Removal) {
	for _, r := range results {
		switch o := r.WorktreeOutcome; {
		case r.Err == nil && (o == removal.Deleted || o == removal.AlreadyGone):
			e.infof("removed merged task %q (%s)", r.Task, r.Path)
		case o == removal.KeptDirty && r.Dirty > 0:
			e.warnf("kept merged task %q: %s has %d uncommitted %s", r.Task, r.Path, r.Dirty, text.Plural(r.Dirty, "change", "changes"))
		case o == removal.KeptLocked:
			e.warnf("kept merged task %q: %s is locked", r.Task, r.Path)
		case o == removal.KeptInUse:
			e.warnf("kept merged task %q: %s is in use by another process", r.Task, r.Path)
		case o == removal.KeptByConfig:
			e.infof("task %q is merged (wt.cleanupOnMerge is off: git wt rm %s removes it)", r.Task, r.Slug)
		case r.Err != nil:
			e.warnf("merged task %q: %v", r.Task, r.Err)
		}
	}
}
