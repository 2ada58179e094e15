// Command git-wt-man prints git-wt's man page, git-wt.1 (roff), made from
// the command definitions; install.sh installs its output. It is a tool
// apart from git-wt so that the markdown-to-roff converter is not linked
// into the binary every command starts.
package main

import (
	"fmt"
	"os"

	"github.com/git-wt/git-wt/internal/cli"
	"github.com/git-wt/git-wt/internal/manpage"
)

func main() {
	page, err := manpage.Render(cli.DocApp())
	if err == nil {
		_, err = os.Stdout.Write(page)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "git-wt-man:", err)
		os.Exit(1)
	}
}
