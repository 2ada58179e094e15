package cli

import (
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/settings"
)

func trustCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "trust",
		Usage: "allow the init commands of the committed .gitwt to run in this clone",
		Description: "A committed .gitwt comes from whoever wrote the repository, so its wt.init " +
			"commands run only after you trust its exact content: trust stores the file's " +
			"SHA-256 as wt.trusted in this repository's git config. When the file changes, " +
			"its commands are skipped again until you trust the new content.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "revoke", Usage: "stop trusting it"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return noArgs(c)
			}
			m, err := e.manager(c.Context, "trust")
			if err != nil {
				return err
			}
			file := filepath.Join(m.Repo.MainDir, settings.GitwtFile)
			if c.Bool("revoke") {
				unset, err := m.Git.Config().UnsetLocal(c.Context, m.Repo.Toplevel, "wt.trusted")
				if err != nil {
					return err
				}
				if !unset {
					e.infof("%s was not trusted", file)
					return nil
				}
				m.LogFileEvent(file, "untrusted", "")
				e.infof("no longer trusting %s: its init commands will be skipped", file)
				return nil
			}
			sum := m.Settings.GitwtSHA256
			if sum == "" {
				return exitcode.Failedf("there is no %s to trust", file)
			}
			if err := m.Git.Config().ReplaceLocal(c.Context, m.Repo.Toplevel, "wt.trusted", sum); err != nil {
				return err
			}
			m.LogFileEvent(file, "trusted", "sha256 "+sum)
			var commands []string
			for _, v := range m.Settings.Init {
				if v.Scope == settings.ScopeGitwt {
					commands = append(commands, v.Value)
				}
			}
			if len(commands) == 0 {
				e.infof("trusted %s (sha256 %s); it has no init commands", file, sum[:12])
			} else {
				e.infof("trusted %s (sha256 %s): its init commands will run in new worktrees: %s", file, sum[:12], strings.Join(commands, "; "))
			}
			return nil
		},
	}
}
