// These tests protect the user's lines in wt.envFile (SPEC §14): git-wt
// replaces only its own block, keeps the file's line ends, and a block
// whose end line is gone loses nothing of the user's.
package setup

import (
	"strings"
	"testing"
)

func TestReplaceBlock(t *testing.T) {
	block := []string{envBegin, "WT_TASK=T", "PORT=20001", envEnd}
	ours := envBegin + "\n" + "WT_TASK=T\nPORT=20001\n" + envEnd + "\n"
	oursCRLF := strings.ReplaceAll(ours, "\n", "\r\n")
	for _, tc := range []struct{ name, in, want string }{
		{"a new file", "", ours},
		{"the user's file", "DB=x\n", "DB=x\n" + ours},
		{"no last line end", "DB=x", "DB=x\n" + ours},
		{"an old block", "DB=x\n" + envBegin + "\nWT_TASK=old\n" + envEnd + "\nKEY=y\n", "DB=x\n" + ours + "KEY=y\n"},
		{"the old block last, unterminated", "DB=x\n" + envBegin + "\nWT_TASK=old\n" + envEnd, "DB=x\n" + ours},
		{"a CRLF file", "DB=x\r\nKEY=y\r\n", "DB=x\r\nKEY=y\r\n" + oursCRLF},
		{"a CRLF file with a block", "DB=x\r\n" + envBegin + "\r\nWT_TASK=old\r\n" + envEnd + "\r\nKEY=y\r\n", "DB=x\r\n" + oursCRLF + "KEY=y\r\n"},
		{"no end line: the user's lines after are kept", "DB=x\n" + envBegin + "\nWT_TASK=old\nPORT=1\nKEY=y\nMORE=z\n", "DB=x\n" + ours + "KEY=y\nMORE=z\n"},
		{"no end line: a name of ours twice is the user's the second time", envBegin + "\nPORT=1\nPORT=3000\n", ours + "PORT=3000\n"},
		{"no end line: a comment ends ours", envBegin + "\nWT_TASK=old\n# mine\nPORT=3000\n", ours + "# mine\nPORT=3000\n"},
		{"no end line, CRLF", "DB=x\r\n" + envBegin + "\r\nWT_TASK=old\r\nKEY=y\r\n", "DB=x\r\n" + oursCRLF + "KEY=y\r\n"},
		{"no end line, the begin line last", "DB=x\n" + envBegin, "DB=x\n" + ours},
	} {
		if got := replaceBlock(tc.in, block); got != tc.want {
			t.Errorf("%s:\n in  %q\n got %q\nwant %q", tc.name, tc.in, got, tc.want)
		}
	}
}

// FuzzReplaceBlock: whatever the file held, it then holds the block, and
// writing the block again changes nothing.
func FuzzReplaceBlock(f *testing.F) {
	for _, seed := range []string{"", "DB=x\n", envBegin + "\nPORT=1\nKEY=y\n", "A=1\r\n" + envBegin + "\r\n" + envEnd + "\r\n", envEnd + "\n" + envBegin} {
		f.Add(seed)
	}
	block := []string{envBegin, "WT_TASK=T", "PORT=20001", envEnd}
	f.Fuzz(func(t *testing.T, in string) {
		once := replaceBlock(in, block)
		if twice := replaceBlock(once, block); twice != once {
			t.Fatalf("writing again changed %q to %q", once, twice)
		}
		if !strings.Contains(once, "WT_TASK=T") || !strings.Contains(once, envEnd) {
			t.Fatalf("%q lacks the block", once)
		}
	})
}
