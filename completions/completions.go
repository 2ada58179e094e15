// Package completions holds git-wt's completion scripts for bash, zsh and
// fish. They are embedded in the binary (`git wt completion SHELL` prints
// one) and install.sh installs them from this folder where each shell
// looks. The package is at the root, beside the scripts, because go:embed
// reaches only its own folder.
package completions

import _ "embed"

var (
	//go:embed git-wt.bash
	bash string
	//go:embed git-wt.zsh
	zsh string
	//go:embed git-wt.fish
	fish string
)

// Script returns the completion script for shell ("bash", "zsh" or
// "fish"), and false for any other shell.
func Script(shell string) (string, bool) {
	s, ok := map[string]string{"bash": bash, "zsh": zsh, "fish": fish}[shell]
	return s, ok
}
