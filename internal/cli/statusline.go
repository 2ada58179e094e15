package cli

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/text"
)

func statuslineCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "statusline",
		Usage: "one line for an agent runner's status bar: task, branch, ahead/behind, dirty, ports",
		Description: "Reads Claude Code's status-line JSON on stdin (its workspace.current_dir, else cwd) " +
			"when stdin is not a terminal, else uses the current folder, and prints one line: the task, " +
			"its branch, the commits ahead of and behind its base, the changed paths and the task's ports " +
			"(outside a task: the branch and the changed paths). It runs git twice at most and always " +
			"exits 0. git wt agent-setup claude --statusline makes it Claude Code's status line.",
		Action: func(c *cli.Context) error {
			if dir := statusLineDir(e); dir != "" {
				if err := os.Chdir(dir); err != nil {
					return nil
				}
			}
			if line := e.statusLine(c); line != "" {
				fmt.Fprintln(e.stdout, text.TerminalLine(line))
			}
			return nil
		},
	}
}

// statusLineDir is the folder Claude Code's status-line JSON names, or "".
func statusLineDir(e *env) string {
	if f, ok := e.stdin.(*os.File); !ok || e.isTerminal(f) {
		return ""
	}
	var in struct {
		Cwd       string `json:"cwd"`
		Workspace struct {
			CurrentDir string `json:"current_dir"`
		} `json:"workspace"`
	}
	if json.NewDecoder(e.stdin).Decode(&in) != nil {
		return ""
	}
	if in.Workspace.CurrentDir != "" {
		return in.Workspace.CurrentDir
	}
	return in.Cwd
}

// statusLine is the line, or "" outside a repository.
func (e *env) statusLine(c *cli.Context) string {
	early := e.startTaskHere(c.Context)
	m, err := e.manager(c.Context, "statusline")
	if err != nil {
		return ""
	}
	ent := taskHere(c.Context, m, early)
	b, path := e.handlers(m).inspect, m.Repo.Toplevel
	if ent == nil || ent.Record == nil {
		brief, err := b.BriefOf(c.Context, path, nil)
		if err != nil {
			return ""
		}
		return text.Terminal(cmp.Or(brief.Branch, "(detached)")) + " · " + dirtyText(brief.Dirty)
	}
	rec := ent.Record
	brief, err := b.BriefOf(c.Context, path, rec)
	if err != nil {
		return text.Terminal(rec.Task)
	}
	parts := []string{text.Terminal(rec.Task), text.Terminal(cmp.Or(brief.Branch, "(detached)"))}
	if brief.HasAheadBehind {
		parts = append(parts, fmt.Sprintf("+%d/-%d", brief.Ahead, brief.Behind))
	}
	parts = append(parts, dirtyText(brief.Dirty))
	if env := task.PortEnv(rec); len(env) > 0 {
		parts = append(parts, strings.Join(env[:len(env)-1], " ")) // all but WT_PORTS
	}
	return strings.Join(parts, " · ")
}

func dirtyText(n int) string {
	if n == 0 {
		return "clean"
	}
	return fmt.Sprintf("%d dirty", n)
}
