// Package completions holds git-wt's shell integration: the completion
// scripts for bash, zsh, fish and PowerShell, and the shell-init
// templates of the wtcd function. They are embedded in the binary (`git wt completion
// SHELL`, `git wt shell-init SHELL` print them) and install.sh installs the
// completion scripts from this folder where each shell looks. The package
// is at the root, beside the scripts, because go:embed reaches only its
// own folder.
package completions

import (
	_ "embed"
	"text/template"
)

var (
	//go:embed git-wt.bash
	bash string
	//go:embed git-wt.zsh
	zsh string
	//go:embed git-wt.fish
	fish string
	//go:embed git-wt.ps1
	pwsh string

	//go:embed shell-init.sh
	initPOSIX string
	//go:embed shell-init.fish
	initFish string
	//go:embed shell-init.ps1
	initPwsh string
)

// ShellInit is the template of the shell function for shell (bash and
// zsh share one); its data has the fields Shell and Name.
func ShellInit(shell string) (*template.Template, error) {
	text := initPOSIX
	switch shell {
	case "fish":
		text = initFish
	case "pwsh":
		text = initPwsh
	}
	return template.New("shell-init").Parse(text)
}

// Script returns the completion script for shell ("bash", "zsh", "fish"
// or "pwsh", PowerShell), and false for any other shell.
func Script(shell string) (string, bool) {
	s, ok := map[string]string{"bash": bash, "zsh": zsh, "fish": fish, "pwsh": pwsh}[shell]
	return s, ok
}
