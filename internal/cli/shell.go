package cli

import (
	"io"
	"regexp"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/git-wt/git-wt/completions"
	"github.com/git-wt/git-wt/internal/exitcode"
)

// shells are the shells git-wt supports, as ArgsUsage shows them (which
// is also where completion finds the choices).
const shells = "bash|zsh|fish|pwsh"

// shellAliases are other names of a shell: Windows PowerShell is
// powershell.exe, PowerShell 7 pwsh.
var shellAliases = map[string]string{"powershell": "pwsh"}

func completionCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print the completion script for a shell",
		ArgsUsage: shells,
		Description: "make install and install.sh install these scripts where each shell looks for them. " +
			"To load one by hand instead: bash: eval \"$(git wt completion bash)\" (after git's own completion); " +
			"zsh: eval \"$(git wt completion zsh)\" (after compinit); fish: git wt completion fish | source; " +
			"PowerShell ($PROFILE; powershell is the same as pwsh): git wt completion pwsh | Out-String | Invoke-Expression.",
		Action: func(c *cli.Context) error {
			sh, err := shellArg(c)
			if err != nil {
				return err
			}
			script, _ := completions.Script(sh) // shellArg checked sh
			// terminal: git-wt's own script
			_, err = io.WriteString(e.stdout, script)
			return err
		},
	}
}

// functionName is what --name accepts: a name every supported shell takes
// for a function.
var functionName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`) })

func shellInitCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "shell-init",
		Usage:     "print a shell function that cds into a task's worktree, creating it if needed",
		ArgsUsage: shells,
		Description: "Add to your shell's startup file: bash (~/.bashrc): eval \"$(git wt shell-init bash)\"; " +
			"zsh (~/.zshrc, after compinit): eval \"$(git wt shell-init zsh)\"; " +
			"fish (~/.config/fish/config.fish): git wt shell-init fish | source; " +
			"PowerShell ($PROFILE): git wt shell-init pwsh | Out-String | Invoke-Expression. " +
			"Then \"wtcd TASK\" cds into the task's worktree (made with git wt new if there is none, " +
			"saying so on stderr; more arguments go to git wt new), \"wtcd -n TASK\" only cds and never creates one, " +
			"and \"wtcd\" alone cds back to the main worktree. " +
			"The function completes task ids.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "name", Value: "wtcd", Usage: "call the function `F` (wt and gwt are taken by other tools)"},
		},
		Action: func(c *cli.Context) error {
			sh, err := shellArg(c)
			if err != nil {
				return err
			}
			name := c.String("name")
			if !functionName().MatchString(name) {
				return exitcode.Usagef("%q cannot be a shell function name: use letters, digits, _ and -", name)
			}
			t, err := completions.ShellInit(sh)
			if err != nil {
				return err
			}
			return t.Execute(e.stdout, struct{ Shell, Name string }{sh, name})
		},
	}
}

// shellArg is the one argument of completion and shell-init: a shell.
func shellArg(c *cli.Context) (string, error) {
	sh, err := oneArg(c, "SHELL")
	if err != nil {
		return "", err
	}
	if alias, ok := shellAliases[sh]; ok {
		sh = alias
	}
	if _, ok := completions.Script(sh); !ok {
		return "", exitcode.Usagef("git wt %s: unknown shell %q: use one of %s", c.Command.Name, sh, shells)
	}
	return sh, nil
}
