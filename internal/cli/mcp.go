package cli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/git-wt/git-wt/internal/child"
	"github.com/git-wt/git-wt/internal/exitcode"
)

// mcpServer is the binary that serves git wt mcp (cmd/git-wt-mcp),
// installed beside git-wt.
const mcpServer = "git-wt-mcp"

func mcpCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "mcp",
		Usage: "serve git-wt's commands as Model Context Protocol tools on stdin/stdout",
		Description: "Tools new, list, show, path, env, commit, rm, merge and sync, each running " +
			"git wt with --json in the repository the call names (default: this directory) and " +
			"returning its JSON document; a failure is a tool error holding the error document. " +
			"rm refuses force unless the server was started with --allow-force. The server is " +
			mcpServer + ", installed beside git-wt, which git wt mcp runs in its place.",
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
			server, err := findMCPServer(exe)
			if err != nil {
				return err
			}
			args := []string{"--git-wt", exe, "--version", version()}
			if c.Bool("allow-force") {
				args = append(args, "--allow-force")
			}
			// In git wt mcp's place: the client's stdin, stdout and
			// signals are the server's, with no process between (on
			// Windows, git-wt waits for it and ends with its status).
			err = child.Cmd{Path: server, Args: args}.Exec()
			var exited *exitcode.Exited
			if err == nil || errors.As(err, &exited) {
				return err
			}
			return exitcode.Failedf("cannot run %s: %v", server, err)
		},
	}
}

// findMCPServer is git-wt-mcp beside exe (where install.sh, make install
// and go install put it), else on PATH. Both are looked up as a command
// is (exec.LookPath), so that Windows finds git-wt-mcp.exe.
func findMCPServer(exe string) (string, error) {
	if beside, err := exec.LookPath(filepath.Join(filepath.Dir(exe), mcpServer)); err == nil {
		return beside, nil
	}
	onPath, err := exec.LookPath(mcpServer)
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return "", exitcode.Failedf("git wt mcp needs %s, which is not beside %s nor on PATH: install git-wt with install.sh, make install or go install ./cmd/...", mcpServer, exe)
		}
		return "", exitcode.Failedf("cannot find %s: %v", mcpServer, err)
	}
	return onPath, nil
}
