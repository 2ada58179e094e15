// Package manpage renders the man page git-wt.1 from the command
// definitions (so a command added to the app is documented without more
// work), settings.Table and exitcode.Meanings, in the page layout of
// man/git-wt.1.md. It is a package apart so that the markdown-to-roff
// converter (md2man, blackfriday) is linked only into cmd/git-wt-man, the
// build-time tool install.sh runs, and not into git-wt, where its start-up
// cost would be paid by every command. urfave/cli's own ToMan writes
// section 8 and prints every flag in one block: this page is section 1,
// with a section per command.
package manpage

import (
	"bytes"
	"embed"
	"regexp"
	"slices"
	"strings"
	"sync"
	"text/template"

	"github.com/cpuguy83/go-md2man/v2/md2man"
	"github.com/urfave/cli/v2"

	wtcli "github.com/git-wt/git-wt/internal/cli"
	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/settings"
)

//go:embed man
var manFiles embed.FS

// Render renders the man page of app as roff.
func Render(app *cli.App) ([]byte, error) {
	t, err := template.New("git-wt.1.md").Funcs(template.FuncMap{
		"esc":            mdEscape,
		"join":           strings.Join,
		"sentence":       sentence,
		"visibleFlags":   visibleFlags,
		"flagItem":       flagItem,
		"synopsis":       commandSynopsis,
		"globalSynopsis": globalSynopsis,
	}).ParseFS(manFiles, "man/git-wt.1.md")
	if err != nil {
		return nil, err
	}
	var md bytes.Buffer
	err = t.Execute(&md, map[string]any{
		"App":        app,
		"Version":    app.Version,
		"Commands":   app.VisibleCommands(),
		"Keys":       settings.Table,
		"ExitCodes":  exitcode.Meanings,
		"ErrorKinds": exitcode.Kinds,
	})
	if err != nil {
		return nil, err
	}
	return tidyRoff(md2man.Render(md.Bytes())), nil
}

// tidyRoff fixes two things in md2man's output. Hyphenation: .TH turns
// it back on (md2man puts its .nh before), and option names and config
// keys must not be split across lines. Dashes in bold text (options,
// commands) become \- as man-pages(7) asks: no line break after them, and
// they copy and paste as the "-" they are.
func tidyRoff(roff []byte) []byte {
	if i := bytes.Index(roff, []byte("\n.TH ")); i >= 0 {
		end := i + 1 + bytes.IndexByte(roff[i+1:], '\n') + 1
		roff = slices.Concat(roff[:end], []byte(".nh\n.ad l\n"), roff[end:])
	}
	return boldText().ReplaceAllFunc(roff, func(b []byte) []byte {
		return bytes.ReplaceAll(b, []byte("-"), []byte(`\-`))
	})
}

var boldText = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\\fB[^\\]*\\f[PR]`) })

// globalSynopsis is the global options in the page's SYNOPSIS (--version
// has its own line there).
func globalSynopsis(app *cli.App) string {
	return flagsSynopsis(slices.DeleteFunc(visibleFlags(app.Flags), func(f cli.Flag) bool { return f == cli.VersionFlag }))
}

// visibleFlags are the flags help shows, without -h (every command has it).
func visibleFlags(flags []cli.Flag) []cli.Flag {
	var out []cli.Flag
	for _, f := range flags {
		if v, ok := f.(cli.VisibleFlag); (ok && !v.IsVisible()) || f == cli.HelpFlag {
			continue
		}
		out = append(out, f)
	}
	return out
}

// commandSynopsis is a command's usage line: "**git wt new** *TASK*
// [**--base** *REF*] ...".
func commandSynopsis(c *cli.Command) string {
	var args []string
	for _, w := range strings.Fields(c.ArgsUsage) {
		if strings.ToUpper(w) == w && strings.ContainsAny(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
			w = "*" + mdEscape(w) + "*"
		} else {
			w = mdEscape(w)
		}
		args = append(args, w)
	}
	parts := []string{"**git wt " + c.Name + "**"}
	if s := flagsSynopsis(visibleFlags(c.Flags)); s != "" {
		parts = append(parts, s)
	}
	return strings.Join(append(parts, args...), " ")
}

// flagsSynopsis is "[**--base** *REF*] [**--json**] ...".
func flagsSynopsis(flags []cli.Flag) string {
	var parts []string
	for _, f := range flags {
		parts = append(parts, "["+flagTerm(f, false)+"]")
	}
	return strings.Join(parts, " ")
}

// flagTerm is a flag as the page names it: its first name, or with all
// its names, and its value's placeholder.
func flagTerm(f cli.Flag, allNames bool) string {
	names := f.Names()
	if !allNames {
		names = names[:1]
	}
	var terms []string
	for _, n := range names {
		dash := "--"
		if len(n) == 1 {
			dash = "-"
		}
		terms = append(terms, "**"+mdEscape(dash+n)+"**")
	}
	term := strings.Join(terms, ", ")
	if p := wtcli.Placeholder(f); p != "" {
		term += " *" + mdEscape(p) + "*"
	} else if d, ok := f.(cli.DocGenerationFlag); ok && d.TakesValue() {
		term += " *VALUE*"
	}
	return term
}

// flagItem is a flag's entry in a definition list.
func flagItem(f cli.Flag) string {
	usage := ""
	if d, ok := f.(cli.DocGenerationFlag); ok {
		// The placeholder is `quoted` in the usage: set it in italics.
		for i, part := range strings.Split(d.GetUsage(), "`") {
			if i%2 == 1 {
				part = "*" + mdEscape(part) + "*"
			} else {
				part = mdEscape(part)
			}
			usage += part
		}
		if v := d.GetDefaultText(); v != "" && d.TakesValue() {
			usage += " (default: " + mdEscape(v) + ")"
		}
	}
	return flagTerm(f, true) + "\n: " + usage
}

// sentence makes a usage line ("create a branch ...") a sentence.
func sentence(s string) string {
	if s == "" {
		return ""
	}
	return mdEscape(strings.ToUpper(s[:1]) + s[1:] + ".")
}

// mdEscape makes text literal in markdown.
func mdEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*_{}[]<>#|", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
