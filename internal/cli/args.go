package cli

import (
	"strings"

	"github.com/urfave/cli/v2"
	"github.com/xrash/smetrics"

	"github.com/git-wt/git-wt/internal/exitcode"
)

// normalizeArgs puts argv in the shape urfave/cli parses: global flags,
// the command, its flags, "--", then its arguments. git users write flags
// anywhere (`git wt new T --base main`); urfave/cli would stop at the first
// argument and take later flags for arguments. Global flags are accepted
// after the command too, and "--" still ends the flags. An unknown command
// is a usage error (exit 2), as in git. It also returns the command, if
// one was named.
func normalizeArgs(app *cli.App, args []string) ([]string, *cli.Command, error) {
	if len(args) < 2 {
		return args, nil, nil
	}
	var globals, flags, positional []string
	var cmd *cli.Command
	cmdName := ""
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			positional = append(positional, args[i+1:]...)
			break
		}
		if len(a) > 1 && a[0] == '-' {
			name, inline := flagName(a)
			dst := &flags
			f := findFlag(app.Flags, name)
			if f != nil || cmd == nil {
				dst = &globals
			} else {
				f = findFlag(cmd.Flags, name)
			}
			if f == nil && (name == "h" || name == "help") {
				f = cli.HelpFlag
			}
			*dst = append(*dst, a)
			if f != nil && takesValue(f) && !inline && i+1 < len(args) {
				i++
				*dst = append(*dst, args[i])
			}
			continue
		}
		if cmd == nil {
			if a == "help" { // `git wt help [CMD]` is `git wt [CMD] --help`
				return append(append([]string{args[0]}, globals...), append(args[i+1:], "--help")...), nil, nil
			}
			cmd = app.Command(a)
			if cmd == nil {
				return nil, nil, unknownCommand(app, a)
			}
			cmdName = a
			if cmd.SkipFlagParsing {
				positional = append(positional, args[i+1:]...)
				break
			}
			continue
		}
		positional = append(positional, a)
		if passThrough[cmd.Name] {
			// The rest is the command line that `exec` runs.
			positional = append(positional, args[i+1:]...)
			break
		}
	}
	out := append([]string{args[0]}, globals...)
	if cmd == nil {
		return out, nil, nil
	}
	out = append(out, cmdName)
	out = append(out, flags...)
	if len(positional) > 0 && !cmd.SkipFlagParsing {
		out = append(out, "--")
	}
	return append(out, positional...), cmd, nil
}

// passThrough names the commands whose arguments after the first (TASK)
// are a command line of their own: `git wt exec T make -j4` must not take
// -j4 for a flag of git-wt.
var passThrough = map[string]bool{"exec": true}

// flagName returns the name of a flag argument ("--base=x" → "base") and
// whether its value is inline.
func flagName(arg string) (string, bool) {
	name := strings.TrimLeft(arg, "-")
	name, _, inline := strings.Cut(name, "=")
	return name, inline
}

func findFlag(flags []cli.Flag, name string) cli.Flag {
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return f
			}
		}
	}
	return nil
}

func takesValue(f cli.Flag) bool {
	d, ok := f.(cli.DocGenerationFlag)
	return ok && d.TakesValue()
}

// unknownCommand is the usage error for a word that names no command,
// with the closest visible command when one is close ("did you mean",
// as git says it); Jaro-Winkler with the weights urfave/cli uses for its
// own suggestions.
func unknownCommand(app *cli.App, word string) error {
	best, near := 0.7, "" // below 0.7 nothing is close
	for _, c := range app.VisibleCommands() {
		for _, name := range c.Names() {
			if d := smetrics.JaroWinkler(name, word, 0.7, 4); d > best {
				best, near = d, name
			}
		}
	}
	if near != "" {
		return exitcode.Usagef("%q is not a git wt command; did you mean %q? (see git wt --help)", word, near)
	}
	return exitcode.Usagef("%q is not a git wt command (see git wt --help)", word)
}
