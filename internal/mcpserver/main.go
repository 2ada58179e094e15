package mcpserver

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/text"
)

// Main is git-wt-mcp's command line, which git wt mcp (internal/cli)
// writes: --git-wt, the binary each tool call runs; --version, git-wt's
// version; --allow-force, the person's consent to rm's force. It serves
// until the client hangs up or sends SIGINT or SIGTERM, and returns the
// exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("git-wt-mcp", flag.ContinueOnError)
	flags.SetOutput(stderr)
	o := Options{Log: stderr}
	flags.StringVar(&o.Exe, "git-wt", "", "the git-wt binary each tool call runs")
	flags.StringVar(&o.Version, "version", "", "git-wt's version, told to clients")
	flags.BoolVar(&o.AllowForce, "allow-force", false, "let rm discard uncommitted changes and unmerged branches")
	if err := flags.Parse(args); err != nil || flags.NArg() != 0 || o.Exe == "" {
		fmt.Fprintln(stderr, "git-wt-mcp: run it as git wt mcp [--allow-force]")
		return exitcode.Usage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := Serve(ctx, o, stdin, stdout); err != nil {
		// As git-wt says every error, git wt mcp having become this.
		fmt.Fprintln(stderr, "git-wt:", text.OneLine(err.Error()))
		return exitcode.Of(err)
	}
	return exitcode.OK
}
