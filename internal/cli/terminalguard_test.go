// These tests guard the terminal (SPEC §19): every print to stdout,
// stderr or the tty in this package shows text from outside only through
// text.Terminal or text.TerminalLine, or says on the spot why what it
// prints needs neither.
package cli

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestEveryTerminalPrintIsQuoted walks this package's sources.
func TestEveryTerminalPrintIsQuoted(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	g := &terminalGuard{fset: token.NewFileSet()}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(g.fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		g.check(f)
	}
	for _, f := range g.findings {
		t.Error(f)
	}
	// This package prints to the terminal in over thirty places; finding
	// few means the walk has stopped seeing them, not that they are gone.
	t.Logf("%d prints to a terminal writer checked", g.prints)
	if g.prints < 20 {
		t.Fatalf("the walk found only %d prints to a terminal writer", g.prints)
	}
}

// TestTerminalGuardFindsUnquotedPrints: the guard fails on what it is
// for, and lets through what is quoted, constant or explained.
func TestTerminalGuardFindsUnquotedPrints(t *testing.T) {
	const src = `package cli

func planted(e *env, tty *os.File, task string, n int) {
	fmt.Fprintf(e.stdout, "%s\n", task)                       // BAD 1
	fmt.Fprintln(e.stderr, "task", task)                       // BAD 2
	io.WriteString(w.e.stdout, task+"\n")                      // BAD 3
	fmt.Fprint(tty, e.out.bold(task))                          // BAD 4
	fmt.Fprintf(e.stdout, format, n)                           // BAD 5
	fmt.Fprintf(os.Stderr, "%v %d\n", task, n)                 // BAD 6
	// terminal:
	fmt.Fprintln(e.stdout, task)                               // BAD 7: a marker without a reason
	fmt.Fprintf(e.stdout, "%s %d %q\n", text.Terminal(task), n, task)
	fmt.Fprintln(e.stderr, e.err.red("git-wt:"), text.TerminalLine(task)+"\n")
	fmt.Fprint(tty, "\x1b[?25h")
	fmt.Fprintln(e.stdout, task) // terminal: a path for cd "$(...)"
	// terminal: a commit id
	fmt.Fprintln(e.stdout, task)
	fmt.Printf("%s %d\n", task, n)                            // BAD 8
	e.stderr.Write([]byte(task))                               // BAD 9
	os.Stdout.WriteString(text.Terminal(task))
	fmt.Fprintf(&b, "%s", task) // not a terminal writer
	b.WriteString(task)         // nor is this
}
`
	g := &terminalGuard{fset: token.NewFileSet()}
	f, err := parser.ParseFile(g.fset, "planted.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	g.check(f)
	var bad []int
	for i, l := range strings.Split(src, "\n") {
		if strings.Contains(l, "// BAD") {
			bad = append(bad, i+1)
		}
	}
	var found []int
	for _, f := range g.findings {
		var line int
		fmt.Sscanf(f, "planted.go:%d:", &line)
		found = append(found, line)
	}
	if !slices.Equal(found, bad) {
		t.Fatalf("the guard flagged lines %v, want %v:\n%s", found, bad, strings.Join(g.findings, "\n"))
	}
}

// terminalGuard finds prints to a terminal writer whose text is not
// quoted: an argument must be a constant, a call of text.Terminal or
// text.TerminalLine, a painter's colouring of such, a sum of such, or
// an argument of a %d or %q (which never prints a control); otherwise
// the print needs a "// terminal: why" comment on its line or the line
// above.
type terminalGuard struct {
	fset     *token.FileSet
	prints   int
	findings []string
}

func (g *terminalGuard) check(f *ast.File) {
	explained := map[int]bool{}
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			why, ok := strings.CutPrefix(c.Text, "// terminal:")
			if ok && strings.TrimSpace(why) != "" {
				line := g.fset.Position(c.Slash).Line
				explained[line], explained[line+1] = true, true
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		format, args, ok := terminalPrint(call)
		if !ok {
			return true
		}
		g.prints++
		pos := g.fset.Position(call.Pos())
		if explained[pos.Line] {
			return true
		}
		var verbs []rune
		if format != nil {
			f, ok := constantString(format)
			if !ok {
				g.findings = append(g.findings, fmt.Sprintf("%s:%d: a print to the terminal whose format is not a constant", pos.Filename, pos.Line))
				return true
			}
			verbs = formatVerbs(f)
		}
		for i, a := range args {
			if i < len(verbs) && strings.ContainsRune("dq", verbs[i]) || quotedForTerminal(a) {
				continue
			}
			g.findings = append(g.findings, fmt.Sprintf("%s:%d: %s reaches the terminal unquoted: pass it through text.Terminal (a value) or text.TerminalLine (a message), or say why not in a // terminal: comment",
				pos.Filename, pos.Line, types.ExprString(a)))
		}
		return true
	})
}

// terminalPrint reports whether call prints to a terminal writer, and
// what: its format (nil: none) and the arguments it prints.
func terminalPrint(call *ast.CallExpr) (format ast.Expr, args []ast.Expr, ok bool) {
	a := call.Args
	switch dotted(call.Fun) {
	case "fmt.Print", "fmt.Println":
		return nil, a, true
	case "fmt.Printf":
		return a[0], a[1:], true
	case "fmt.Fprint", "fmt.Fprintln", "io.WriteString":
		return nil, a[1:], isTerminalWriter(a[0])
	case "fmt.Fprintf":
		return a[1], a[2:], isTerminalWriter(a[0])
	}
	if sel, isSel := call.Fun.(*ast.SelectorExpr); isSel && (sel.Sel.Name == "Write" || sel.Sel.Name == "WriteString") {
		return nil, a, isTerminalWriter(sel.X)
	}
	return nil, nil, false
}

// isTerminalWriter: the env's stdout or stderr (e.stdout, w.e.stderr),
// os.Stdout, os.Stderr, or the tty watch draws on.
func isTerminalWriter(x ast.Expr) bool {
	switch x := x.(type) {
	case *ast.SelectorExpr:
		return slices.Contains([]string{"stdout", "stderr", "Stdout", "Stderr"}, x.Sel.Name)
	case *ast.Ident:
		return x.Name == "tty"
	}
	return false
}

func quotedForTerminal(x ast.Expr) bool {
	switch x := x.(type) {
	case *ast.BasicLit:
		return true
	case *ast.ParenExpr:
		return quotedForTerminal(x.X)
	case *ast.BinaryExpr:
		return x.Op == token.ADD && quotedForTerminal(x.X) && quotedForTerminal(x.Y)
	case *ast.CallExpr:
		if name := dotted(x.Fun); name == "text.Terminal" || name == "text.TerminalLine" {
			return true
		}
		return isPainter(x.Fun) && !slices.ContainsFunc(x.Args, func(a ast.Expr) bool { return !quotedForTerminal(a) })
	}
	return false
}

// isPainter: a colour of the env's painters (e.out.red, w.e.err.bold).
func isPainter(fun ast.Expr) bool {
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	p, ok := sel.X.(*ast.SelectorExpr)
	return ok && (p.Sel.Name == "out" || p.Sel.Name == "err")
}

// dotted is "pkg.Name" for a call of pkg.Name, else "".
func dotted(fun ast.Expr) string {
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	if id, ok := sel.X.(*ast.Ident); ok {
		return id.Name + "." + sel.Sel.Name
	}
	return ""
}

func constantString(x ast.Expr) (string, bool) {
	lit, ok := x.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// formatVerbs is the verb of each argument format takes, in order; nil
// where an explicit argument index makes the order unknown (then every
// argument must be quoted).
func formatVerbs(format string) []rune {
	var verbs []rune
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		for i < len(format) && strings.IndexByte("+-# 0123456789.*[]", format[i]) >= 0 {
			if format[i] == '[' || format[i] == '*' {
				return nil
			}
			i++
		}
		if i < len(format) && format[i] != '%' {
			verbs = append(verbs, rune(format[i]))
		}
	}
	return verbs
}
