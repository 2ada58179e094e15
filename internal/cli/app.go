// Package cli is git-wt's command line: urfave/cli wiring with its
// git-unfriendly defaults fixed once here, one file per command, and the
// one function that turns errors into exit codes.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/git-wt/git-wt/internal/child"
	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/removal"
)

// Version is stamped at build time (-ldflags "-X ...cli.Version=v1.2.3",
// from git describe: make, install.sh, make dist).
var Version = "dev"

// version is Version, or for a build that was not stamped (go install
// github.com/git-wt/git-wt/cmd/git-wt@v1.2.3) the module's version that
// the go command recorded.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return Version
	}
	return pickVersion(Version, info.Main.Version)
}

// versionLine is what git wt --version prints: the version and where this
// git-wt comes from, which tells it from other programs named git-wt
// (worktrunk's Windows packages install a git-wt.exe too; SPEC §21).
func versionLine(v string) string {
	return "git-wt version " + v + " (github.com/git-wt/git-wt)"
}

func pickVersion(stamped, module string) string {
	if stamped != "dev" || module == "" || module == "(devel)" {
		return stamped
	}
	return module
}

// Main runs git-wt with args (args[0] is the program name) and returns the
// process exit code. Nothing else in git-wt decides an exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 1 && args[1] == child.SuperviseCommand {
		// git-wt as the supervisor of an init (SPEC §15): no command
		// line, repository or settings of its own, and its own signals.
		return child.Supervise(args[2:])
	}
	if len(args) > 1 && args[1] == removal.DeleteTrashCommand {
		// git-wt as the deleter of a removed task's folder, which rm
		// handed over: likewise nothing of its own.
		return removal.DeleteTrash(args[2:])
	}
	e := newEnv(stdin, stdout, stderr)
	app := newApp(e)
	normalized, cmd, err := normalizeArgs(app, args)
	ctx := context.Background()
	if cmd != nil && !readOnly[cmd.Name] {
		// An interrupt cancels the context, and the command rolls back
		// what it had made (docs/DESIGN.md, Interrupts).
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
	}
	if err == nil {
		err = app.RunContext(ctx, normalized)
	}
	e.jsonErrors = cmd != nil && findFlag(cmd.Flags, "json") != nil && wantsJSON(normalized)
	return e.report(ctx, err)
}

// wantsJSON reports whether the arguments ask for --json before a "--".
func wantsJSON(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "--json", "--json=true":
			return true
		}
	}
	return false
}

// readOnly are the commands that change nothing an interrupt could leave
// half done: they keep the default action of SIGINT and SIGTERM (exit at
// once, as git's own read commands do), which spares them the thread that
// watching for signals costs (a third of a millisecond, on the path every
// agent's shell prompt and cd take).
var readOnly = map[string]bool{
	"list": true, "path": true, "show": true, "count": true, "log": true,
	"completion": true, "shell-init": true, "__complete": true, "docker-args": true,
}

// report prints err as one line on stderr and returns its exit code.
func (e *env) report(ctx context.Context, err error) int {
	if err == nil {
		return exitcode.OK
	}
	var silent *silentError
	if errors.As(err, &silent) {
		return silent.code
	}
	var exited *exitcode.Exited
	if errors.As(err, &exited) {
		return exited.Code // the program's own status, its messages its own
	}
	code := exitcode.Of(err)
	switch {
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		err = errors.New("interrupted: everything this command had started was rolled back")
		code = exitcode.Failed
	case errors.Is(err, git.ErrNotInstalled):
		err = errors.New("git is not installed or not on PATH: install git 2.31 or newer")
	}
	e.errorf("%v", err)
	if e.jsonErrors {
		writeJSON(e.stdout, errorDocument(ctx, err, code))
	}
	return code
}

// silentError carries an exit code whose messages were printed already
// (a command that handled several tasks and reported each).
type silentError struct{ code int }

func (s *silentError) Error() string { return fmt.Sprintf("exit %d", s.code) }

// DocApp is the app as documentation sees it (its commands and flags), for
// the man page generator.
func DocApp() *cli.App { return newApp(newEnv(nil, io.Discard, io.Discard)) }

// printHelp prints help as urfave/cli does, its long lines wrapped to the
// terminal's width when stdout is one (piped, lines are left whole, for
// whoever reads them).
func (e *env) printHelp(w io.Writer, templ string, data any) {
	funcs := map[string]any{}
	if width := e.termWidth(); width > 0 {
		funcs["wrapAt"] = func() int { return max(width, 40) - 1 }
	}
	cli.HelpPrinterCustom(w, templ, data, funcs)
}

func newApp(e *env) *cli.App {
	cli.VersionFlag = &cli.BoolFlag{Name: "version", Usage: "print the version", DisableDefaultText: true}
	cli.HelpFlag = &cli.BoolFlag{Name: "help", Aliases: []string{"h"}, Usage: "show help", DisableDefaultText: true}
	cli.HelpPrinter = e.printHelp
	cli.VersionPrinter = func(*cli.Context) {
		fmt.Fprintln(e.stdout, versionLine(version())) // terminal: stamped at build time
	}
	app := &cli.App{
		Name:      "git-wt",
		HelpName:  "git wt",
		Usage:     "one git worktree per task, for many agents and people at once",
		Version:   version(),
		UsageText: "git wt [global options] command [command options] [arguments...]",
		Description: "git-wt gives every task its own worktree and branch, sharing one object " +
			"database, so that many coding agents and people can work on one repository at " +
			"once without disturbing each other or the main checkout.",
		Writer:          e.stdout,
		ErrWriter:       e.stderr,
		HideHelpCommand: true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "C", Usage: "run as if git-wt was started in `DIR`"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print only data and errors"},
			&cli.BoolFlag{Name: "verbose", Usage: "also print each git command and init output"},
			&cli.BoolFlag{Name: "no-color", Usage: "never colour the output"},
		},
		Before: e.setup,
		// Errors are mapped to exit codes by Main, never by os.Exit
		// inside urfave/cli (which would skip deferred cleanup).
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return exitcode.Usagef("%v (see git wt --help)", err)
		},
		Commands: commands(e),
	}
	quietDefaults(app.Flags)
	for _, c := range app.Commands {
		quietDefaults(c.Flags)
		c.Before = e.startEarly
		c.OnUsageError = app.OnUsageError
		c.HideHelpCommand = true
	}
	return app
}

// commands is every git-wt command, in the order help lists them.
func commands(e *env) []*cli.Command {
	return []*cli.Command{
		newCommand(e),
		listCommand(e),
		pathCommand(e),
		showCommand(e),
		envCommand(e),
		countCommand(e),
		rmCommand(e),
		gcCommand(e),
		doctorCommand(e),
		lockCommand(e),
		unlockCommand(e),
		logCommand(e),
		installCommand(e),
		uninstallCommand(e),
		initCommand(e),
		trustCommand(e),
		hookCommand(e),
		execCommand(e),
		commitCommand(e),
		pushCommand(e),
		claimCommand(e),
		mergeCommand(e),
		syncCommand(e),
		poolCommand(e),
		agentSetupCommand(e),
		agentHookCommand(e),
		resumeCommand(e),
		statuslineCommand(e),
		watchCommand(e),
		prCommand(e),
		dockerArgsCommand(e),
		completionCommand(e),
		shellInitCommand(e),
		mcpCommand(e),
		completeCommand(e),
	}
}

// quietDefaults drops "(default: false)" from the help of boolean flags:
// a switch is off unless given, which every flag saying so only hides
// what the others mean.
func quietDefaults(flags []cli.Flag) {
	for _, f := range flags {
		if b, ok := f.(*cli.BoolFlag); ok {
			b.DisableDefaultText = true
		}
	}
}
