package cli

import (
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/git-wt/git-wt/internal/record"
)

func countCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "count",
		Usage: "print the number of task worktrees (the main worktree is not a task)",
		Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return noArgs(c)
			}
			repo, err := e.locate(c.Context)
			if err != nil {
				return err
			}
			// The blobs come from the record cache: still one for-each-ref.
			store := &record.Store{Git: e.git, Dir: repo.MainDir, Cache: record.CacheFile(repo.CommonDir)}
			entries, err := store.All(c.Context)
			if err != nil {
				return err
			}
			n := 0
			for _, en := range entries {
				if en.Record != nil { // a record that cannot be read is no task
					n++
				}
			}
			return e.printResult(c, struct {
				Count int `json:"count"`
			}{n}, strconv.Itoa(n))
		},
	}
}
