package cli

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-wt/git-wt/internal/record"
)

// completeCommand is what the shell completion scripts call:
// `git-wt __complete WORD...` gets the words after `git wt` on the command
// line, the last being the word under the cursor (maybe empty), and prints
// one candidate a line, "value<TAB>description" (the scripts filter them by
// the word typed, so zsh and fish matchers keep working). Everything comes
// from the command definitions at run time, so a command added to
// commands() completes without touching the scripts:
//
//   - the commands, and the flags of the command typed (or the global
//     ones) after "-";
//   - task ids (their slugs, which every command accepts and which never
//     need quoting) where a command's ArgsUsage names TASK: one ref listing;
//   - the choices of an ArgsUsage word like "bash|zsh|fish";
//   - flag values (after the flag, or after "--flag="): branches for `B`
//     and `BASE`, refs for `REF`, directories for -C's `DIR`.
//
// A first line ":files" or ":dirs" asks the shell for its own file or
// directory completion; no line at all means nothing to offer.
func completeCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:            "__complete",
		Hidden:          true,
		SkipFlagParsing: true,
		HideHelp:        true,
		Action: func(c *cli.Context) error {
			words := c.Args().Slice()
			if len(words) == 0 {
				words = []string{""}
			}
			for _, cand := range e.complete(c.Context, c.App, words) {
				fmt.Fprintln(e.stdout, cand) // terminal: a candidate the shell reads, as it is
			}
			return nil
		},
	}
}

// Directives for the shell: complete file or directory names itself.
const (
	completeFiles = ":files"
	completeDirs  = ":dirs"
)

// argKind is what a positional argument is, read from ArgsUsage.
type argKind struct {
	task    bool     // an existing task
	command bool     // a git-wt command
	choices []string // one of these words
	files   bool     // anything else: the shell's own file completion
	repeat  bool     // "TASK...": this and every later argument
}

// complete returns the candidates for the last of words.
func (e *env) complete(ctx context.Context, app *cli.App, words []string) []string {
	cur, done := words[len(words)-1], words[:len(words)-1]
	var cmd *cli.Command
	var valueOf cli.Flag // the flag the current word is the value of
	valueOfGlobal := false
	dir := "" // -C DIR
	afterDashes := false
	var typed []string // positional arguments typed so far
	for i := 0; i < len(done); i++ {
		w := done[i]
		switch {
		case w == "--" && !afterDashes:
			afterDashes = true
		case strings.HasPrefix(w, "-") && len(w) > 1 && !afterDashes:
			name, inline := flagName(w)
			f, global := lookupFlag(app, cmd, name)
			if f == nil || !takesValue(f) || inline {
				continue
			}
			if i+1 == len(done) {
				valueOf, valueOfGlobal = f, global
			} else if name == "C" {
				dir = done[i+1]
			}
			i++
		case cmd == nil:
			if w == "help" {
				cmd = &cli.Command{Name: "help", ArgsUsage: "[COMMAND]"}
			} else if cmd = app.Command(w); cmd == nil {
				return nil // not a git-wt command: nothing sensible to offer
			}
		default:
			typed = append(typed, w)
		}
	}
	switch {
	case valueOf != nil:
		return e.completeValue(ctx, valueOf, valueOfGlobal, dir)
	case strings.HasPrefix(cur, "--") && strings.Contains(cur, "=") && !afterDashes:
		// --base=<TAB>: the values, each after "--base=".
		name, _ := flagName(cur)
		f, global := lookupFlag(app, cmd, name)
		if f == nil || !takesValue(f) {
			return nil
		}
		var out []string
		for _, v := range e.completeValue(ctx, f, global, dir) {
			if v != completeDirs {
				out = append(out, "--"+name+"="+v)
			}
		}
		return out
	case strings.HasPrefix(cur, "-") && !afterDashes:
		if cmd == nil {
			return flagCandidates(app.Flags, []cli.Flag{cli.HelpFlag, cli.VersionFlag})
		}
		globals := slices.DeleteFunc(slices.Clone(app.Flags), func(f cli.Flag) bool { return f == cli.VersionFlag })
		return flagCandidates(cmd.Flags, globals, []cli.Flag{cli.HelpFlag})
	case cmd == nil:
		return commandCandidates(app)
	}
	kind := positionalKind(cmd.ArgsUsage, len(typed), afterDashes)
	switch {
	case kind.files:
		return []string{completeFiles}
	case kind.task:
		slugs, _ := e.taskSlugs(ctx, dir)
		return slices.DeleteFunc(slugs, func(s string) bool { return slices.Contains(typed, s) })
	case kind.command:
		return commandCandidates(app)
	}
	return kind.choices
}

// lookupFlag finds the flag called name among the global flags (global
// is then true) or those of cmd, if a command was typed.
func lookupFlag(app *cli.App, cmd *cli.Command, name string) (f cli.Flag, global bool) {
	if f = findFlag(app.Flags, name); f != nil {
		return f, true
	}
	if cmd != nil {
		f = findFlag(cmd.Flags, name)
	}
	return f, false
}

// positionalKind reads what the n-th positional argument (from 0) of a
// command is from its ArgsUsage ("TASK", "TASK...", "[TASK]",
// "bash|zsh|fish", "TASK -- CMD [ARGS...]"). What follows a "--" in the
// usage (a command to run) and words it does not know are files; past the
// last argument there is nothing.
func positionalKind(usage string, n int, afterDashes bool) argKind {
	words := strings.Fields(usage)
	if i := slices.Index(words, "--"); i >= 0 {
		if afterDashes {
			return argKind{files: true}
		}
		words = words[:i]
	}
	var kinds []argKind
	for _, w := range words {
		w = strings.Trim(w, "[]")
		k := argKind{repeat: strings.HasSuffix(w, "...")}
		w = strings.TrimSuffix(w, "...")
		switch {
		case w == "TASK":
			k.task = true
		case w == "COMMAND":
			k.command = true
		case strings.Contains(w, "|"):
			k.choices = strings.Split(w, "|")
		default:
			k.files = true
		}
		kinds = append(kinds, k)
	}
	switch {
	case n < len(kinds):
		return kinds[n]
	case len(kinds) > 0 && kinds[len(kinds)-1].repeat:
		return kinds[len(kinds)-1]
	}
	return argKind{}
}

// taskSlugs lists the tasks of the repository in dir (or the current
// one): one `git for-each-ref`, honouring GIT_DIR as git would.
func (e *env) taskSlugs(ctx context.Context, dir string) ([]string, error) {
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return nil, err
		}
	}
	refs, err := e.git.RefNames(ctx, dir, "%(refname)", record.RefPrefix, record.LegacyPrefix)
	seen := map[string]bool{}
	var slugs []string
	for _, ref := range refs {
		if slug, _, ok := record.SlugOf(ref); ok && !seen[slug] {
			seen[slug] = true
			slugs = append(slugs, slug)
		}
	}
	return slugs, err
}

// completeValue offers the values of flag f, by its placeholder: local
// branches for B, BRANCH or BASE (merge --into), any ref for REF,
// directories for the DIR of a global flag (-C; a command's DIR, like new
// --path, is relative to somewhere else than the shell's current
// directory).
func (e *env) completeValue(ctx context.Context, f cli.Flag, global bool, dir string) []string {
	if dir == "" {
		dir = "."
	}
	var names []string
	switch Placeholder(f) {
	case "DIR":
		if global {
			return []string{completeDirs}
		}
	case "B", "BRANCH", "BASE":
		names, _ = e.git.RefNames(ctx, dir, "%(refname:lstrip=2)", "refs/heads/")
	case "REF":
		names, _ = e.git.RefNames(ctx, dir, "%(refname:short)", "refs/heads/", "refs/remotes/", "refs/tags/")
	}
	return names
}

// Placeholder is the `NAME` a flag's usage text gives its value (which
// completion and the man page both show).
func Placeholder(f cli.Flag) string {
	d, ok := f.(cli.DocGenerationFlag)
	if !ok {
		return ""
	}
	_, rest, ok := strings.Cut(d.GetUsage(), "`")
	name, _, ok2 := strings.Cut(rest, "`")
	if !ok || !ok2 {
		return ""
	}
	return name
}

// commandCandidates are the visible commands, with what they do.
func commandCandidates(app *cli.App) []string {
	var out []string
	for _, c := range app.VisibleCommands() {
		out = append(out, c.Name+"\t"+c.Usage)
	}
	return out
}

// flagCandidates are the flags of the lists, long names as --name and
// one-letter names as -n, each once, with their usage.
func flagCandidates(lists ...[]cli.Flag) []string {
	var out []string
	seen := map[string]bool{}
	for _, flags := range lists {
		for _, f := range flags {
			if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
				continue
			}
			for _, n := range f.Names() {
				if seen[n] {
					continue
				}
				seen[n] = true
				usage := ""
				if d, ok := f.(cli.DocGenerationFlag); ok {
					usage = strings.ReplaceAll(d.GetUsage(), "`", "")
				}
				dash := "--"
				if len(n) == 1 {
					dash = "-"
				}
				out = append(out, dash+n+"\t"+usage)
			}
		}
	}
	return out
}
