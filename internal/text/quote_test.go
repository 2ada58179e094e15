// These tests protect quoting: whatever a word holds, a POSIX shell reads
// it back as that one word, and a terminal shows it and does nothing else.
package text

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/git-wt/git-wt/internal/testutil/platform"
)

func TestShellJoinRoundTripsThroughSh(t *testing.T) {
	platform.RequireProgram(t, "sh")
	words := []string{"plain", "--mount=type=bind,source=/a/b,target=/w", "with space", "it's", "", "$HOME", "`x`", "a\nb", "*", "~user", `back\slash`, `"dq"`}
	out, err := exec.Command("sh", "-c", `eval "set -- $0"; printf '%s\0' "$@"`, ShellJoin(words)).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if len(got) != len(words) {
		t.Fatalf("sh read %d words, want %d: %q", len(got), len(words), got)
	}
	for i := range words {
		if got[i] != words[i] {
			t.Errorf("word %d: sh read %q, want %q", i, got[i], words[i])
		}
	}
}

func TestShellQuoteLeavesSafeWordsAlone(t *testing.T) {
	for in, want := range map[string]string{"--user=0:0": "--user=0:0", "/work/a b": "'/work/a b'", "": "''"} {
		if got := ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTerminal: whatever a value holds, what reaches the terminal holds
// no rune the terminal would act on or hide; a plain value stays as it is.
func TestTerminal(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"fix: bug #123", "fix: bug #123"},
		{"", ""},
		{"日本語 🚀 café", "日本語 🚀 café"},
		{"👩\u200d💻", "👩\u200d💻"}, // a joiner inside an emoji
		{"a \"b\"", "a \"b\""},
		{`"quoted"`, `"\"quoted\""`},
		{"a\nPORT=1", `"a\nPORT=1"`},
		{"a\rb", `"a\rb"`},
		{"tab\there", `"tab\there"`},
		{"\x1b[2J", `"\x1b[2J"`},
		{"\x1b]0;title\a", `"\x1b]0;title\a"`},
		{"del\x7f", `"del\x7f"`},
		{"\u009b31m", `"\u009b31m"`},   // C1 CSI
		{"\u0085next", `"\u0085next"`}, // C1 NEL
		{"\u009d8;;x\u009c", `"\u009d8;;x\u009c"`},
		{"abc\u202eexe.txt", `"abc\u202eexe.txt"`},
		{"\u202a\u202b\u202c\u202d", `"\u202a\u202b\u202c\u202d"`},
		{"\u2066\u2067\u2068\u2069", `"\u2066\u2067\u2068\u2069"`},
		{"l\u200er\u200f", `"l\u200er\u200f"`},
		{"\u061c", `"\u061c"`},
		{"a\u2028b\u2029", `"a\u2028b\u2029"`},
		{"zero\u200bwidth", `"zero\u200bwidth"`},
		{"\ufeffbom", `"\ufeffbom"`},
		{"\u2060\u2064\u206a\ufff9", `"\u2060\u2064\u206a\ufff9"`},
		{"\xff\xfe bad", `"\xff\xfe bad"`},
		{"cut \xe2\x80", `"cut \xe2\x80"`},
	} {
		if got := Terminal(c.in); got != c.want {
			t.Errorf("Terminal(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

// TestTerminalLine: a message keeps its words and quotes; only what a
// terminal would act on or hide is escaped, in place.
func TestTerminalLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`"x" is not a git wt command`, `"x" is not a git wt command`},
		{"日本語 🚀", "日本語 🚀"},
		{"no task a\x1b[2Jb", `no task a\x1b[2Jb`},
		{"fatal: \u009b31mred\u202e", `fatal: \u009b31mred\u202e`},
		{"bad \xff byte", `bad \xff byte`},
		{"line\nbreak\ttab\x7f", `line\nbreak\ttab\x7f`},
		{"l\u200er \u2028 \ufeff", `l\u200er \u2028 \ufeff`},
	} {
		if got := TerminalLine(c.in); got != c.want {
			t.Errorf("TerminalLine(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

// FuzzTerminal: for any text, neither function lets through a rune a
// terminal acts on, nor a byte that is not UTF-8; Terminal's quoted form
// reads back as the text, and a text with nothing to escape is kept.
func FuzzTerminal(f *testing.F) {
	for _, s := range []string{"plain", "", `"q"`, "a\x1b[31mb", "\u009b2J", "x\u202ey", "\xff", "\u2066\u061c", "👩\u200d💻"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{Terminal(s), TerminalLine(s)} {
			if !utf8.ValidString(out) || strings.ContainsFunc(out, actsOnTerminal) {
				t.Fatalf("%q came out as %q", s, out)
			}
		}
		if q := Terminal(s); q != s {
			if back, err := strconv.Unquote(q); err != nil || back != s {
				t.Fatalf("Terminal(%q) = %s reads back as %q (%v)", s, q, back, err)
			}
		}
		if clean := utf8.ValidString(s) && !strings.ContainsFunc(s, actsOnTerminal); clean && TerminalLine(s) != s {
			t.Fatalf("TerminalLine changed %q, which needs nothing escaped, to %q", s, TerminalLine(s))
		}
	})
}
