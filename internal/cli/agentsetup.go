package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/git-wt/git-wt/internal/agents"
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

// runnerFile is one file agent-setup edits for a runner: where it lies in
// the main worktree (project), where under the home folder (user; "" when
// the runner reads none there), and the edit.
type runnerFile struct {
	project, user string
	edit          fileEditor
	says          string // what the file now does, for the message
	// inTask: the runner reads the project file in the folder it starts
	// in, so a task must have it (reachTasks).
	inTask bool
}

// runnerFiles are the files of each runner but Claude Code (whose file
// has its own three places: claudeSettings), for the project named name.
func runnerFiles(runner, name string) ([]runnerFile, bool) {
	files, ok := map[string][]runnerFile{
		"codex": {
			{".codex/environments/environment.toml", "", agents.CodexEnvironment(name), "the Codex app's worktrees become tasks (setup: git wt init --adopt; cleanup: removed as git wt rm would, never forced)", false},
			{".codex/hooks.json", ".codex/hooks.json", agents.CodexHooks, "Codex reports its state (trust the hooks in Codex once)", true},
		},
		"cursor": {
			{".cursor/worktrees.json", "", agents.CursorWorktrees, "Cursor's worktrees become tasks (git wt init --adopt)", false},
		},
		"gemini": {
			{".gemini/settings.json", ".gemini/settings.json", agents.GeminiSettings, "Gemini CLI reports its state", true},
		},
		"copilot": {
			{".github/hooks/git-wt.json", "", agents.CopilotHooks, "Copilot CLI reports its state", true},
		},
		"opencode": {
			{".opencode/plugins/git-wt.js", ".config/opencode/plugins/git-wt.js", agents.OpenCodePlugin, "OpenCode reports its state", true},
		},
	}[runner]
	return files, ok
}

func agentSetupCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "agent-setup",
		Usage:     "route an agent runner's worktrees and session state through git-wt",
		ArgsUsage: "claude|codex|cursor|gemini|copilot|opencode",
		Description: "claude: adds Claude Code's WorktreeCreate and WorktreeRemove hooks and its session hooks " +
			"(git wt agent-hook claude-status) to " + localSettings + " in the main worktree (this clone " +
			"only; kept out of git status through .git/info/exclude), to " + projectSettings + " with " +
			"--project (committed, shared), or to ~/.claude/settings.json with --user; --statusline also " +
			"sets its status line to git wt statusline. codex: the Codex app's " +
			".codex/environments/environment.toml gets git wt init --adopt in its [setup] script and git " +
			"wt agent-hook codex-remove in its [cleanup] script, and .codex/hooks.json the session hooks. " +
			"cursor: .cursor/worktrees.json gets git wt init --adopt. gemini: .gemini/settings.json gets " +
			"the session hooks; copilot: .github/hooks/git-wt.json; opencode: the plugin " +
			".opencode/plugins/git-wt.js. --user writes the user's file instead, where the runner has one. " +
			"A runner's file that the runner reads in the folder it starts in (codex's hooks.json, gemini, " +
			"copilot, opencode) must reach each task: tracked by the repository, it comes with the commit; " +
			"untracked, it is kept out of git status (.git/info/exclude) and copied into each new task (wt.copy). " +
			"A symlink is edited at its target; a project file that a link leads out of the repository, a key " +
			"git-wt would edit that is there twice, or TOML git-wt cannot edit exactly is refused (exit 3). " +
			"Only git-wt's entries are inserted, every other byte kept; " +
			"a second run changes nothing; --undo gives the file back byte for byte when nothing else " +
			"changed it, else takes out only what it added, and deletes only a file or folder setup created.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "project", Usage: "claude: write the committed " + projectSettings + " (the team's)"},
			&cli.BoolFlag{Name: "user", Usage: "write the user's file (every repository of yours)"},
			&cli.BoolFlag{Name: "statusline", Usage: "claude: also show git wt statusline in Claude Code's status line"},
			&cli.BoolFlag{Name: "undo", Usage: "take git-wt's entries out again"},
		},
		Action: func(c *cli.Context) error {
			runner, err := oneArg(c, "runner")
			if err != nil {
				return err
			}
			if _, known := runnerFiles(runner, ""); !known && runner != "claude" {
				return exitcode.Usagef("unknown agent runner %q: git-wt knows claude, codex, cursor, gemini, copilot and opencode", runner)
			}
			if c.Bool("project") && c.Bool("user") {
				return exitcode.Usagef("--project and --user exclude each other")
			}
			if runner != "claude" && (c.Bool("project") || c.Bool("statusline")) {
				return exitcode.Usagef("--project and --statusline are Claude Code's: the other runners' files are in the repository already")
			}
			m, err := e.manager(c.Context, "agent-setup")
			if err != nil {
				return err
			}
			if runner == "claude" {
				return e.claudeSetup(c, m)
			}
			files, _ := runnerFiles(runner, filepath.Base(m.Repo.MainDir))
			home, err := os.UserHomeDir()
			if c.Bool("user") && err != nil {
				return exitcode.Failedf("cannot find your home folder: %v", err)
			}
			if c.Bool("user") && !slices.ContainsFunc(files, func(f runnerFile) bool { return f.user != "" }) {
				return exitcode.Usagef("%s reads no user file git-wt can edit: run git wt agent-setup %s in the repository", runner, runner)
			}
			if c.Bool("undo") {
				// The last file setup made goes first: the folders it made
				// are then empty for the file before it (.codex/ of
				// .codex/hooks.json, made with environments/).
				slices.Reverse(files)
			}
			for _, f := range files {
				path := filepath.Join(m.Repo.MainDir, f.project)
				if c.Bool("user") {
					if f.user == "" {
						continue
					}
					path = filepath.Join(home, f.user)
				}
				if err := e.editRunnerFile(m, path, f.edit, c.Bool("undo"), f.says); err != nil {
					return err
				}
				if f.inTask && !c.Bool("user") {
					if err := e.reachTasks(c.Context, m, f.project, !c.Bool("undo")); err != nil {
						return err
					}
				}
			}
			return nil
		},
	}
}

// editRunnerFile adds git-wt's entries to the file at path, or with undo
// takes them out, and says what changed.
func (e *env) editRunnerFile(m *task.Manager, path string, ed fileEditor, undo bool, says string) error {
	if fsutil.Within(m.Repo.MainDir, path) {
		if err := insideRepository(m.Repo.MainDir, m.Repo.CommonDir, path); err != nil {
			return err
		}
	}
	notes := notesDir(m, path)
	if undo {
		changed, err := removeFromSettings(notes, path, ed)
		if err == nil && changed {
			e.infof("took git-wt's entries out of %s", path)
		} else if err == nil {
			e.infof("%s holds nothing that setup added: nothing changed", path)
		}
		return err
	}
	changed, err := addToSettings(notes, path, ed)
	if err == nil && changed {
		e.infof("%s: %s", path, says)
	} else if err == nil {
		e.infof("%s has git-wt's entries already: nothing changed", path)
	}
	return err
}

// claudeSetup is agent-setup claude: one settings file of three places.
func (e *env) claudeSetup(c *cli.Context, m *task.Manager) error {
	path, local, err := settingsPath(m, c.Bool("project"), c.Bool("user"))
	if err != nil {
		return err
	}
	var ed fileEditor = agents.ClaudeSettings
	if c.Bool("statusline") {
		ed = agents.ClaudeStatusLine
	}
	if err := e.editRunnerFile(m, path, ed, c.Bool("undo"), "claude --worktree makes its worktrees with git wt, and its sessions report their state"); err != nil {
		return err
	}
	if c.Bool("project") && !c.Bool("undo") {
		e.infof("commit %s: Claude Code started in a task reads it there, and tasks made from that commit on have it", projectSettings)
	}
	if !local {
		return nil
	}
	if err := e.excludeLocal(c.Context, m, localSettings, !c.Bool("undo")); err != nil {
		return err
	}
	return e.copyLocal(c.Context, m, localSettings, !c.Bool("undo"))
}

// reachTasks makes the runner's project file rel (relative to the main
// worktree) reach every new task, or with add false stops that: a runner
// started in a task's worktree (cd "$(git wt new T)" && gemini) reads
// the file there, not in the main worktree, and its hooks would never
// report (SPEC §19). A file the repository tracks comes with the commit;
// an untracked one is this clone's own, as Claude Code's
// settings.local.json: kept out of git status and copied into each new
// task (wt.copy copies only ignored files, so the task is never dirty).
func (e *env) reachTasks(ctx context.Context, m *task.Manager, rel string, add bool) error {
	if !add {
		if err := e.excludeLocal(ctx, m, rel, false); err != nil {
			return err
		}
		return e.copyLocal(ctx, m, rel, false)
	}
	tracked, err := m.Git.Index().Tracked(ctx, m.Repo.MainDir, rel)
	if err != nil {
		return err
	}
	if tracked {
		e.infof("the repository tracks %s: commit this change, and the tasks made from that commit on get git-wt's hooks with it", rel)
		return nil
	}
	if err := e.excludeLocal(ctx, m, rel, true); err != nil {
		return err
	}
	if err := e.copyLocal(ctx, m, rel, true); err != nil {
		return err
	}
	e.infof("to share %s with your team instead, commit it (git add -f %s): tasks then get it from the commit", rel, rel)
	return nil
}

// copyLocal adds the pattern of the clone's own file rel to the clone's
// wt.copy, or takes it out: each new task gets a copy. Undo takes out
// only a pattern setup added (noted in copyNote), never one the user had.
func (e *env) copyLocal(ctx context.Context, m *task.Manager, rel string, add bool) error {
	pattern := "/" + rel
	added := readCopyNote(m)
	if !add {
		if !slices.Contains(added, pattern) {
			return nil
		}
		if _, err := m.Git.Config().UnsetLocalValue(ctx, m.Repo.MainDir, "wt.copy", pattern); err != nil {
			return err
		}
		e.infof("new tasks no longer get a copy of %s (wt.copy)", rel)
		return writeCopyNote(m, slices.DeleteFunc(added, func(p string) bool { return p == pattern }))
	}
	now, err := m.Git.Config().AddLocal(ctx, m.Repo.MainDir, "wt.copy", pattern)
	if err != nil {
		return err
	}
	if now {
		if err := writeCopyNote(m, append(added, pattern)); err != nil {
			return err
		}
	}
	e.infof("new tasks get a copy of %s (git config wt.copy %s), so that the runner started in a task reports from there too", rel, pattern)
	return nil
}

// copyNote is the file of the wt.copy patterns agent-setup added.
func copyNote(m *task.Manager) string {
	return filepath.Join(m.StateDir("agent-setup"), "wt.copy.json")
}

func readCopyNote(m *task.Manager) []string {
	var added []string
	if data, err := os.ReadFile(copyNote(m)); err == nil {
		json.Unmarshal(data, &added)
	}
	return added
}

func writeCopyNote(m *task.Manager, added []string) error {
	data, _ := json.Marshal(added)
	if err := writeNote(m.StateDir("agent-setup"), copyNote(m), data); err != nil {
		return exitcode.Failedf("cannot note the wt.copy pattern for --undo: %v", err)
	}
	return nil
}

// excludeLocal keeps the clone's own file rel out of git status while
// git-wt's entries are in it (unless it is ignored already).
func (e *env) excludeLocal(ctx context.Context, m *task.Manager, rel string, add bool) error {
	if add {
		ignored, err := m.Git.Index().CheckIgnore(ctx, m.Repo.MainDir, []string{rel})
		if err != nil || ignored[rel] {
			return nil
		}
	}
	return m.Place.ExcludeRunnerSettings(ctx, rel, add)
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
