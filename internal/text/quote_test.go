// These tests protect shell quoting: whatever a word holds, a POSIX shell
// reads it back as that one word.
package text

import (
	"os/exec"
	"strings"
	"testing"
)

func TestShellJoinRoundTripsThroughSh(t *testing.T) {
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

func TestQuoteControl(t *testing.T) {
	for in, want := range map[string]string{
		"fix: bug #123": "fix: bug #123",
		"":              "",
		"a\nPORT=1":     `"a\nPORT=1"`,
		"a\rb":          `"a\rb"`,
		"\x1b[2J":       `"\x1b[2J"`,
		"tab\there":     `"tab\there"`,
		`"quoted"`:      `"\"quoted\""`,
		"a \"b\"":       "a \"b\"",
		"\u0085next":    `"\u0085next"`,
	} {
		if got := QuoteControl(in); got != want {
			t.Errorf("QuoteControl(%q) = %s, want %s", in, got, want)
		}
	}
}
