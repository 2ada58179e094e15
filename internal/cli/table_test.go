// These tests protect how a table gives way to a narrow terminal: cut
// columns shrink widest first (paths keep their end), optional columns go
// in their order only when cutting is not enough, and no limit changes
// nothing; and every cell reaches the terminal quoted.
package cli

import (
	"bytes"
	"strings"
	"testing"
)

func fitTable(width int) string {
	t := &table{
		header: []string{"TASK", "AGE", "PATH"},
		cut:    map[string]bool{"TASK": false, "PATH": true},
		drop:   []string{"AGE"},
	}
	t.add(cell{"a-rather-long-task-id", nil}, cell{"3d", nil}, cell{"/home/someone/src/repo-worktrees/a-rather-long-task-id", nil})
	t.add(cell{"T", nil}, cell{"5m", nil}, cell{"/home/someone/src/repo-worktrees/T", nil})
	t.fit(width)
	var b bytes.Buffer
	t.write(&b, &painter{decide: func() bool { return false }})
	return b.String()
}

func TestTableFit(t *testing.T) {
	for _, c := range []struct {
		width int
		want  string
	}{
		{0, "TASK                   AGE  PATH\n" +
			"a-rather-long-task-id  3d   /home/someone/src/repo-worktrees/a-rather-long-task-id\n" +
			"T                      5m   /home/someone/src/repo-worktrees/T\n"},
		// The path, widest, is cut first, from its start.
		{60, "TASK                   AGE  PATH\n" +
			"a-rather-long-task-id  3d   ...rktrees/a-rather-long-task-id\n" +
			"T                      5m   .../someone/src/repo-worktrees/T\n"},
		// Cutting both to minCut is not enough: AGE goes, and the cut
		// columns share its room.
		{30, "TASK            PATH\n" +
			"a-rather-lo...  ...ong-task-id\n" +
			"T               ...worktrees/T\n"},
		{27, "TASK          PATH\n" +
			"a-rather-...  ...ng-task-id\n" +
			"T             ...orktrees/T\n"},
		// Too narrow even then: cut as far as it goes.
		{10, "TASK          PATH\n" +
			"a-rather-...  ...g-task-id\n" +
			"T             ...rktrees/T\n"},
	} {
		got := fitTable(c.width)
		if got != c.want {
			t.Errorf("width %d:\n%s\nwant\n%s", c.width, got, c.want)
		}
		for _, l := range strings.Split(strings.TrimSpace(got), "\n") {
			if c.width > 20 && len(l) > c.width {
				t.Errorf("width %d: line of %d: %q", c.width, len(l), l)
			}
		}
	}
}

// TestTableQuotesEveryCell: a cell's text from outside reaches the
// terminal escaped, and the columns still line up by what is shown.
func TestTableQuotesEveryCell(t *testing.T) {
	tb := &table{header: []string{"TASK", "PATH"}}
	tb.add(cell{"a\u009b2J\u202eb", nil}, cell{"/p", nil})
	tb.add(cell{"plain", nil}, cell{"/q", nil})
	var b strings.Builder
	tb.write(&b, &painter{decide: func() bool { return false }})
	want := "TASK                PATH\n" +
		`"a\u009b2J\u202eb"` + "  /p\n" +
		"plain               /q\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
