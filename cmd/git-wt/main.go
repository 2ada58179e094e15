// Command git-wt gives every task its own git worktree: `git wt new TASK`.
package main

import (
	"os"

	"github.com/git-wt/git-wt/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args, os.Stdin, os.Stdout, os.Stderr))
}
