package cli

import (
	"os"

	"github.com/urfave/cli/v2"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/mcpserver"
)

func mcpCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "mcp",
		Usage: "serve git-wt's commands as Model Context Protocol tools on stdin/stdout",
		Description: "Tools new, list, show, path, env, commit, rm, merge and sync, each running " +
			"git wt with --json in the repository the call names (default: this directory) and " +
			"returning its JSON document; a failure is a tool error holding the error document. " +
			"rm refuses force unless the server was started with --allow-force.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "allow-force", Usage: "let rm discard uncommitted changes and unmerged branches when a client asks"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return noArgs(c)
			}
			// Each call runs this very binary, so that the tools and the
			// command line are one implementation.
			exe, err := os.Executable()
			if err != nil {
				return exitcode.Failedf("cannot find the git-wt binary to run: %v", err)
			}
			o := mcpserver.Options{Exe: exe, Version: version(), AllowForce: c.Bool("allow-force"), Log: e.stderr}
			return mcpserver.Serve(c.Context, o, e.stdin, e.stdout)
		},
	}
}
