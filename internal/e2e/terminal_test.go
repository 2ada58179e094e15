//go:build unix

// These tests protect how git-wt talks to a terminal, and that it does not
// when piped: colour decided per stream (off with --no-color, NO_COLOR,
// color.wt/color.ui), `list` fitting the terminal's width, progress lines
// only on a terminal, and --quiet/--verbose meaning the same everywhere.
// A terminal is a pseudo-terminal made by script(1).
package e2e

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"

	"github.com/git-wt/git-wt/internal/testutil"
)

const esc = "\x1b["

func TestColourOnlyOnTerminalsPerStream(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.MustWT("new", "T")
	// Piped: no colour on either stream.
	if r := s.WT("list"); r.Code != 0 || strings.Contains(r.Stdout, esc) {
		t.Fatalf("piped list is coloured: %q", r.Stdout)
	}
	if r := s.WT("path", "nope"); r.Code != 5 || strings.Contains(r.Stderr, esc) {
		t.Fatalf("piped error is coloured: %s", r)
	}
	// On a terminal: both.
	if out := onTerminal(t, s, "git-wt list; git-wt path nope"); !strings.Contains(out, esc+"32mactive") || !strings.Contains(out, esc+"31mgit-wt:") {
		t.Fatalf("no colour on a terminal:\n%q", out)
	}
	// Each stream decides for itself.
	file := s.Home + "/out"
	out := onTerminal(t, s, "git-wt list >"+file+"; git-wt path nope")
	if data, _ := os.ReadFile(file); strings.Contains(string(data), esc) || !strings.Contains(out, esc+"31mgit-wt:") {
		t.Fatalf("stdout to a file must be plain while stderr on the terminal is coloured:\nfile %q\nterminal %q", data, out)
	}
	out = onTerminal(t, s, "git-wt path nope 2>"+file+"; git-wt list")
	if data, _ := os.ReadFile(file); strings.Contains(string(data), esc) || !strings.Contains(out, esc+"32mactive") {
		t.Fatalf("stderr to a file must be plain while stdout on the terminal is coloured:\nfile %q\nterminal %q", data, out)
	}
}

func TestColourTurnedOff(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.MustWT("new", "T")
	plain := func(what, line string, env ...string) {
		t.Helper()
		if out := onTerminal(t, s, line, env...); strings.Contains(out, esc) {
			t.Errorf("%s: coloured:\n%q", what, out)
		}
	}
	plain("--no-color", "git-wt --no-color list; git-wt path nope --no-color")
	plain("NO_COLOR", "git-wt list; git-wt path nope", "NO_COLOR=1")
	plain("TERM=dumb", "git-wt list; git-wt path nope", "TERM=dumb")
	plain("git -c color.ui=never", "git -c color.ui=never wt list; git -c color.ui=never wt path nope")
	s.Git(s.Repo, "config", "color.wt", "never")
	plain("color.wt=never", "git-wt list; git-wt path nope")
	// color.wt wins over color.ui, as color.<command> does in git.
	s.Git(s.Repo, "config", "color.wt", "auto")
	s.Git(s.Repo, "config", "color.ui", "never")
	if out := onTerminal(t, s, "git-wt list; git-wt path nope"); !strings.Contains(out, esc+"32m") || !strings.Contains(out, esc+"31m") {
		t.Fatalf("color.wt=auto must beat color.ui=never:\n%q", out)
	}
}

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

func TestListFitsTheTerminal(t *testing.T) {
	s := testutil.NewSandbox(t)
	long := "a-task-id-that-is-rather-long-to-show-in-full"
	path := s.MustWT("new", long).Out()
	s.MustWT("new", "T")
	out := onTerminal(t, s, "stty cols 60; git-wt list")
	lines := strings.Split(strings.TrimSpace(ansi.ReplaceAllString(out, "")), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "TASK") {
		t.Fatalf("list on a terminal:\n%s", out)
	}
	for _, l := range lines {
		if utf8.RuneCountInString(l) > 60 {
			t.Errorf("line wider than the 60-column terminal (%d): %q", utf8.RuneCountInString(l), l)
		}
	}
	// The end of a path tells worktrees apart: it is what is kept.
	if !strings.Contains(out, "...") || !strings.Contains(out, "/T") {
		t.Errorf("cut cells should keep the ends of paths:\n%s", out)
	}
	// Piped, nothing is cut: scripts get every character.
	if r := s.MustWT("list"); !strings.Contains(r.Stdout, path) || !strings.Contains(r.Stdout, long) {
		t.Fatalf("piped list was cut:\n%s", r.Stdout)
	}
}

// TestListLinesUpWideCharacters: CJK and emoji take two terminal cells
// each. A 60-column terminal must hold every line of list, --size --all
// included (SIZE gives way like the other optional columns), and every
// column must start in the same cell on every line.
func TestListLinesUpWideCharacters(t *testing.T) {
	s := testutil.NewSandbox(t)
	for _, id := range []string{"日本語のタスクの名前はとても長いです", "🚀-launch", "T"} {
		s.MustWT("new", id)
	}
	for _, line := range []string{"stty cols 60; git-wt list", "stty cols 60; git-wt list --size --all"} {
		out := strings.TrimSpace(ansi.ReplaceAllString(onTerminal(t, s, line), ""))
		lines := strings.Split(out, "\n")
		if len(lines) < 4 || !strings.HasPrefix(lines[0], "TASK") || !strings.Contains(out, "🚀") || !strings.Contains(out, "日本") {
			t.Fatalf("%s:\n%s", line, out)
		}
		for _, l := range lines {
			if w := runewidth.StringWidth(l); w > 60 {
				t.Errorf("%s: a line %d cells wide on a 60-column terminal: %q", line, w, l)
			}
		}
		// Each column after the first starts where its header does: two
		// blank cells before it, text at it.
		for _, start := range columnStarts(lines[0]) {
			for _, l := range lines[1:] {
				if cellAt(l, start-2) != ' ' || cellAt(l, start-1) != ' ' || cellAt(l, start) == ' ' {
					t.Errorf("%s: the column at cell %d is not lined up:\n%s\n%s", line, start, lines[0], l)
				}
			}
		}
	}
}

// columnStarts are the cells where the header's columns after the first
// start (headers are single words, two spaces apart at least).
func columnStarts(header string) []int {
	var starts []int
	col, blanks := 0, 0
	for _, r := range header {
		if r != ' ' && blanks >= 2 {
			starts = append(starts, col)
		}
		if r == ' ' {
			blanks++
		} else {
			blanks = 0
		}
		col += runewidth.RuneWidth(r)
	}
	return starts
}

// cellAt is the character shown in terminal cell col of line (0 for the
// right half of a wide character, ' ' past the end).
func cellAt(line string, col int) rune {
	at := 0
	for _, r := range line {
		w := runewidth.RuneWidth(r)
		if col >= at && col < at+w {
			if col == at {
				return r
			}
			return 0
		}
		at += w
	}
	return ' '
}

func TestProgressOnlyOnTerminals(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.MustWT("new", "A")
	s.MustWT("new", "B")
	const done = "git-wt: checking worktrees: 100% (2/2), done."
	if out := onTerminal(t, s, "git-wt list >/dev/null", "GIT_PROGRESS_DELAY=0"); !strings.Contains(out, done) {
		t.Fatalf("no progress on a terminal:\n%q", out)
	}
	if out := onTerminal(t, s, "git-wt list --quiet >/dev/null", "GIT_PROGRESS_DELAY=0"); strings.Contains(out, "checking") {
		t.Fatalf("progress despite --quiet:\n%q", out)
	}
	// An operation quicker than the delay shows nothing, as in git.
	if out := onTerminal(t, s, "git-wt list >/dev/null", "GIT_PROGRESS_DELAY=3600"); strings.Contains(out, "checking") {
		t.Fatalf("progress before the delay:\n%q", out)
	}
	piped := *s
	piped.Env = append(append([]string(nil), s.Env...), "GIT_PROGRESS_DELAY=0")
	if r := piped.MustWT("list"); strings.Contains(r.Stderr, "checking") {
		t.Fatalf("progress when piped: %s", r)
	}
}

func TestInitProgressShowsDuringALongStepAndNeverMixesWithItsOutput(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "config", "--add", "wt.init", "echo first; sleep 2")
	s.Git(s.Repo, "config", "--add", "wt.init", "echo second")
	out := onTerminal(t, s, "git-wt new T >/dev/null", "GIT_PROGRESS_DELAY=1")
	lines := visibleLines(out)
	if !strings.Contains(out, "% (0/2)") {
		t.Errorf("no meter while the first init command ran past the delay:\n%q", out)
	}
	if !slices.Contains(lines, "second") || !slices.Contains(lines, "first") {
		t.Errorf("the init's output shares its lines with the meter: the terminal shows\n%s", strings.Join(lines, "\n"))
	}
}

func TestHelpIsWrappedToTheTerminal(t *testing.T) {
	s := testutil.NewSandbox(t)
	for _, cmd := range []string{"git-wt -h", "git-wt sync -h", "git-wt merge -h"} {
		out := onTerminal(t, s, "stty cols 60; "+cmd)
		for _, l := range visibleLines(out) {
			if utf8.RuneCountInString(l) > 60 {
				t.Errorf("%s: a line wider than the terminal's 60 columns:\n%s", cmd, l)
			}
		}
	}
	// Piped, lines stay whole for whoever reads them.
	if r := s.MustWT("sync", "-h"); !strings.Contains(r.Stdout, "A task stacked on another (git wt new --base PARENT) syncs after its parent") {
		t.Errorf("piped help was wrapped:\n%s", r.Stdout)
	}
}

// visibleLines is what a terminal shows of out: each line as the last of
// its carriage returns left it, trailing blanks trimmed.
func visibleLines(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		var screen []rune
		col := 0
		for _, r := range l {
			if r == '\r' {
				col = 0
				continue
			}
			if col < len(screen) {
				screen[col] = r
			} else {
				screen = append(screen, r)
			}
			col++
		}
		lines = append(lines, strings.TrimRight(string(screen), " "))
	}
	return lines
}

// timeless blanks the clock in a command's output (ages such as "3s",
// timestamps, the access time show and path stamp): two runs a moment
// apart may straddle a second.
func timeless(out string) string {
	out = timestamp.ReplaceAllString(out, "<time>")
	return ageText.ReplaceAllString(out, "<age>")
}

var (
	timestamp = regexp.MustCompile(`\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?`)
	ageText   = regexp.MustCompile(`\b\d+[smhdw]\b`)
)

// TestQuietAndVerboseEverywhere runs commands of every kind: --quiet
// leaves only data (and errors), --verbose adds the git commands run, and
// asking for both is a usage error.
func TestQuietAndVerboseEverywhere(t *testing.T) {
	s := testutil.NewSandbox(t)
	for _, args := range [][]string{
		{"new", "Q"},
		{"new", "Q"}, // exists already: says so
		{"list"},
		{"list", "--json"},
		{"path", "Q"},
		{"path", "--main"},
		{"show", "Q"},
		{"count"},
		{"completion", "bash"},
		{"shell-init", "zsh"},
		{"rm", "nope"},
		{"rm", "Q"},
	} {
		quiet := s.MustWT(append(args, "--quiet")...)
		if quiet.Stderr != "" {
			t.Errorf("git wt %q --quiet printed messages: %s", args, quiet)
		}
		if args[0] == "rm" || args[0] == "new" {
			continue // the quiet run changed the state
		}
		normal := s.MustWT(args...)
		if timeless(quiet.Stdout) != timeless(normal.Stdout) {
			t.Errorf("git wt %q --quiet changed the data:\n%s\nvs\n%s", args, quiet.Stdout, normal.Stdout)
		}
	}
	for _, args := range [][]string{{"list"}, {"path", "--main"}, {"count"}} {
		if r := s.MustWT(append(args, "--verbose")...); !strings.Contains(r.Stderr, "git-wt: [") || !strings.Contains(r.Stderr, "] git ") {
			t.Errorf("git wt %q --verbose shows no git command: %s", args, r)
		}
	}
	if r := s.WT("list", "--quiet", "--verbose"); r.Code != 2 || !strings.Contains(r.Stderr, "--quiet and --verbose") {
		t.Fatalf("--quiet --verbose: %s", r)
	}
}
