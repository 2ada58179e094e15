// Command git-wt-mcp is the server of `git wt mcp` (SPEC §13), which runs
// it in its own place. It is a binary apart from git-wt so that the MCP
// SDK (an HTTP stack, a JSON Schema reflector, gob) is initialised only by
// the server, not by every start of git-wt, which `path` and `list` pay
// on every cd and prompt.
package main

import (
	"os"

	"github.com/git-wt/git-wt/internal/mcpserver"
)

func main() {
	os.Exit(mcpserver.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
