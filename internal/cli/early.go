package cli

import (
	"context"
	"strings"

	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/settings"
	"github.com/urfave/cli/v2"
)

// early is what a command needs started before it has located the
// repository: a git process costs milliseconds before it reads its input,
// so what the command will read first starts beside rev-parse and git
// config (docs/ARCHITECTURE.md, "Start-up overlap").
type early struct {
	// git config, which every command that takes a manager reads (and
	// which confirms where the repository is): started first, so that
	// what follows runs while git starts
	config   bool
	lookup   bool // the records its first argument, a task, may name
	records  bool // every record, and the record cache decoded
	statuses bool // with records: the cached worktrees' statuses
	objects  bool // a cat-file for its first read (new's look at its task)
	// an update-ref, with reflogs, for its first write (new's record and
	// branch)
	refUpdate bool
	// the command acts on no setting that runs commands, grants trust or
	// reaches beyond the worktree, so a kept config listing spares it git
	// config altogether (settings.StartHarmless)
	harmless bool
}

// earlyStarts declares what each command needs started early. A command
// whose first argument is one task (ArgsUsage "TASK ...") and that is not
// here gets its task's lookup.
var earlyStarts = map[string]func(*cli.Context) early{
	"list": func(c *cli.Context) early {
		if c.Bool("machine") {
			return early{} // reads other repositories, not the one it runs in
		}
		return early{config: true, harmless: !c.Bool("remote"), records: true, statuses: !c.Bool("no-status")}
	},
	"new": func(*cli.Context) early { return early{config: true, objects: true, refUpdate: true} },
	"rm":  func(c *cli.Context) early { return early{config: true, lookup: c.NArg() == 1} },
	// the status line reads its folder from its input, so nothing starts
	// early; it only shows
	"statusline": func(*cli.Context) early { return early{harmless: true} },
}

// startSettings starts reading the settings from dir, where found is the
// repository discovered: without the settings that act
// (settings.StartHarmless) for a command that declared it acts on none.
func (e *env) startSettings(ctx context.Context, dir string, found *git.Discovered) *settings.Pending {
	if e.harmless {
		return settings.StartHarmless(ctx, e.git, dir, found)
	}
	return settings.Start(ctx, e.git, dir, found)
}

// declaredEarly is what c's command declared.
func declaredEarly(c *cli.Context) early {
	if declared, ok := earlyStarts[c.Command.Name]; ok {
		return declared(c)
	}
	usage := c.Command.ArgsUsage
	return early{lookup: usage == "TASK" || strings.HasPrefix(usage, "TASK ")}
}

// startEarly starts what the command declared, before its action runs:
// the one place where start-up overlap is begun.
func (e *env) startEarly(c *cli.Context) error {
	want := declaredEarly(c)
	e.harmless = want.harmless
	if cwd, ok := e.earlyDir(); ok && want.config {
		e.config = e.startSettings(c.Context, cwd, e.discover(cwd))
	}
	if want.lookup && c.NArg() > 0 {
		e.prefetchTask(c.Context, c.Args().First())
	}
	e.wantObjects, e.wantRefUpdate = want.objects, want.refUpdate
	if cwd, ok := e.earlyDir(); ok && want.records {
		common := ""
		if found := e.discover(cwd); found != nil {
			common = found.CommonDir()
		}
		e.records = record.StartAll(c.Context, e.git, cwd, common)
		e.wantStatuses = want.statuses
	}
	return nil
}
