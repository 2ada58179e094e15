package cli

import (
	"context"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/task"
)

// localSettings is the runner's settings file of one clone, relative to
// the main worktree; projectSettings the committed one.
const (
	localSettings   = ".claude/settings.local.json"
	projectSettings = ".claude/settings.json"
)

func agentSetupCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "agent-setup",
		Usage:     "make an agent runner create and remove its worktrees through git-wt",
		ArgsUsage: "claude",
		Description: "Adds Claude Code's WorktreeCreate and WorktreeRemove hooks, which call git wt agent-hook, " +
			"to " + localSettings + " in the main worktree (this clone only; kept out of git status " +
			"through .git/info/exclude), to " + projectSettings + " with --project (committed, shared), " +
			"or to ~/.claude/settings.json with --user (a symlink is edited at its target). Only git-wt's " +
			"entries are inserted, every other byte kept; a second run changes nothing; --undo gives the " +
			"file back byte for byte when nothing else changed it, else takes out only what it added, and " +
			"deletes only a file or folder setup created.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "project", Usage: "write the committed " + projectSettings + " (the team's)"},
			&cli.BoolFlag{Name: "user", Usage: "write ~/.claude/settings.json (every repository of yours)"},
			&cli.BoolFlag{Name: "undo", Usage: "take git-wt's hooks out again"},
		},
		Action: func(c *cli.Context) error {
			runner, err := oneArg(c, "claude")
			if err != nil {
				return err
			}
			if runner != "claude" {
				return exitcode.Usagef("unknown agent runner %q: git-wt knows claude", runner)
			}
			if c.Bool("project") && c.Bool("user") {
				return exitcode.Usagef("--project and --user exclude each other")
			}
			m, err := e.manager(c.Context, "agent-setup")
			if err != nil {
				return err
			}
			path, local, err := settingsPath(m, c.Bool("project"), c.Bool("user"))
			if err != nil {
				return err
			}
			if c.Bool("undo") {
				return e.undoAgentSetup(c.Context, m, path, local)
			}
			return e.agentSetup(c.Context, m, path, local)
		},
	}
}

// settingsPath is the settings file to edit, and whether it is this
// clone's own (kept out of git status).
func settingsPath(m *task.Manager, project, user bool) (string, bool, error) {
	switch {
	case user:
		home, err := os.UserHomeDir()
		if err != nil {
			return "", false, exitcode.Failedf("cannot find your home folder: %v", err)
		}
		return filepath.Join(home, ".claude", "settings.json"), false, nil
	case project:
		return filepath.Join(m.Repo.MainDir, projectSettings), false, nil
	}
	return filepath.Join(m.Repo.MainDir, localSettings), true, nil
}

// notesDir is where agent-setup notes what it did to the file at path:
// git-wt's state dir of the repository for a file of the repository, the
// user's state dir ($XDG_STATE_HOME/git-wt, else ~/.local/state/git-wt)
// for the user's own, which any repository may undo.
func notesDir(m *task.Manager, path string) string {
	if fsutil.Within(m.Repo.MainDir, path) {
		return m.StateDir("agent-setup")
	}
	state := os.Getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(state) {
		home, _ := os.UserHomeDir()
		state = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(state, "git-wt", "agent-setup")
}

// agentSetup adds git-wt's hooks to the settings file at path.
func (e *env) agentSetup(ctx context.Context, m *task.Manager, path string, local bool) error {
	changed, err := addToSettings(notesDir(m, path), path)
	if err != nil {
		return err
	}
	if local {
		ignored, err := m.Git.Index().CheckIgnore(ctx, m.Repo.MainDir, []string{localSettings})
		if err == nil && !ignored[localSettings] {
			if err := m.Place.ExcludeRunnerSettings(ctx, localSettings, true); err != nil {
				return err
			}
		}
	}
	if !changed {
		e.infof("%s has git-wt's worktree hooks already: nothing changed", path)
		return nil
	}
	e.infof("added the WorktreeCreate and WorktreeRemove hooks to %s: claude --worktree now makes its worktrees with git wt", path)
	return nil
}

// undoAgentSetup takes git-wt's hooks out of the settings file at path.
func (e *env) undoAgentSetup(ctx context.Context, m *task.Manager, path string, local bool) error {
	changed, err := removeFromSettings(notesDir(m, path), path)
	if err != nil {
		return err
	}
	if local {
		if err := m.Place.ExcludeRunnerSettings(ctx, localSettings, false); err != nil {
			return err
		}
	}
	if changed {
		e.infof("took git-wt's worktree hooks out of %s", path)
	} else {
		e.infof("%s has no hooks of git-wt's: nothing changed", path)
	}
	return nil
}
