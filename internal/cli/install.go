package cli

import (
	"context"
	"fmt"
	"os/exec"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-wt/git-wt/hooks"
	"github.com/git-wt/git-wt/internal/task"
)

func installCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "install",
		Usage: "install git-wt's post-checkout and post-merge hooks in this repository",
		Description: "The hooks go where git looks for them (core.hooksPath, else the git dir's hooks/). " +
			"A hook that is there already keeps running after git-wt's part; git wt uninstall puts it " +
			"back as it was. A core.hooksPath among the project's files (husky, lefthook) or in " +
			"global or system config is refused (exit 3) unless --force; for the former the line " +
			"to add to those hooks is printed instead.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "force", Aliases: []string{"f"}, Usage: "install even where the hooks dir is shared or tracked"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return noArgs(c)
			}
			m, t, err := e.hookTarget(c.Context, "install")
			if err != nil {
				return err
			}
			if err := t.Check(c.Bool("force")); err != nil {
				if t.InWorktree {
					for _, name := range hooks.Names {
						// terminal: git-wt's own hook names and lines
						fmt.Fprintf(e.stderr, "git-wt: add this line to the %s hook:\n    %s\n", name, hooks.Line(name))
					}
				}
				m.LogFileEvent(t.Dir, "refused", err.Error())
				return err
			}
			changes, err := hooks.Install(t.Dir)
			e.reportHookChanges(m, changes)
			if err != nil {
				return err
			}
			if _, err := exec.LookPath("git-wt"); err != nil {
				e.warnf("git-wt is not on PATH: the hooks do nothing until it is")
			}
			return nil
		},
	}
}

// hookTarget locates the repository and the hooks dir git uses there.
func (e *env) hookTarget(ctx context.Context, command string) (*task.Manager, hooks.Target, error) {
	m, err := e.manager(ctx, command)
	if err != nil {
		return nil, hooks.Target{}, err
	}
	t, err := hooks.Locate(ctx, m.Git, m.Repo, m.Settings)
	return m, t, err
}

// reportHookChanges says what install or uninstall did, and logs it.
func (e *env) reportHookChanges(m *task.Manager, changes []hooks.Change) {
	for _, c := range changes {
		switch c.Action {
		case hooks.Unchanged:
			e.infof("%s is installed already: %s", c.Name, c.Path)
		case hooks.Absent:
			e.infof("no %s hook to uninstall in %s", c.Name, strings.TrimSuffix(c.Path, "/"+c.Name))
		case hooks.Foreign:
			e.warnf("%s is not git-wt's hook: left as it is", c.Path)
		case hooks.Chained:
			e.infof("installed %s; the hook that was there runs after it (kept as %s)", c.Path, c.Path+hooks.ChainedSuffix)
		case hooks.Restored:
			e.infof("removed git-wt's %s and put back the hook it had chained", c.Path)
		default:
			e.infof("%s %s", c.Action, c.Path)
		}
		if c.Action != hooks.Unchanged && c.Action != hooks.Absent && c.Action != hooks.Foreign {
			m.LogFileEvent(c.Path, "hook-"+c.Action, "")
		}
	}
}
