//go:build unix

// These tests protect the terminal from what callers write (SPEC §19):
// a task id, a branch name, a lock reason or a path that holds an
// escape, a C1 control or a bidirectional control is shown escaped by
// every command that prints it, and kept as it is in JSON.
package e2e

import (
	"bufio"
	"encoding/json"
	"strings"
	"syscall"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

const (
	// hostileTask holds a C1 OSC (U+009D) that retitles the terminal, a
	// C1 CSI (U+009B) that clears it, and a right-to-left override that
	// shows "exe.txt" as "txt.exe"; no C0 control, which was escaped
	// already.
	hostileTask = "evil\u009d0;pwned\u009c\u009b2J\u202etxt.exe"
	// hostileBranch: git refuses ESC in a ref name, not C1 or bidi.
	hostileBranch = "wt/b\u009b2J\u2066\u202eexe"
	hostileReason = "why\x1b[2J\u009b31m\u2067"
)

// terminalControls are what must never reach the terminal from data.
var terminalControls = []string{"\x1b", "\a", "\u009b", "\u009c", "\u009d", "\u202e", "\u2066", "\u2067"}

func assertNoTerminalControls(t *testing.T, what, out string) {
	t.Helper()
	for _, c := range terminalControls {
		if strings.Contains(out, c) {
			t.Errorf("%s lets %q through to the terminal:\n%q", what, c, out)
		}
	}
}

func newHostileTask(t *testing.T, s *testutil.Sandbox) string {
	t.Helper()
	path := s.MustWT("new", "--branch", hostileBranch, "--", hostileTask).Out()
	s.MustWT("lock", "--reason", hostileReason, "--", hostileTask)
	return path
}

func TestHostileTextIsEscapedOnTheTerminal(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := newHostileTask(t, s)
	quoted := `"evil\u009d0;pwned\u009c\u009b2J\u202etxt.exe"`
	for _, args := range [][]string{{"list"}, {"show", "--", hostileTask}, {"log"}} {
		r := s.MustWT(args...)
		assertNoTerminalControls(t, args[0], r.Stdout+r.Stderr)
		if !strings.Contains(r.Stdout, quoted) {
			t.Errorf("%s does not show the task id quoted (%s):\n%s", args[0], quoted, r.Stdout)
		}
	}
	show := s.MustWT("show", "--", hostileTask).Stdout
	for _, want := range []string{`"wt/b\u009b2J\u2066\u202eexe"`, `"why\x1b[2J\u009b31m\u2067"`} {
		if !strings.Contains(show, want) {
			t.Errorf("show does not show %s:\n%s", want, show)
		}
	}
	status := runResult(t, s.Cmd(path, "statusline"))
	assertNoTerminalControls(t, "statusline", status.Stdout)
	if !strings.HasPrefix(status.Stdout, quoted+" · ") {
		t.Errorf("statusline: %s", status)
	}
}

// TestJSONKeepsHostileTextAsItIs: the escaping is the terminal's; JSON
// readers get the text itself.
func TestJSONKeepsHostileTextAsItIs(t *testing.T) {
	s := testutil.NewSandbox(t)
	newHostileTask(t, s)
	var doc struct {
		Task       string `json:"task"`
		Branch     string `json:"branch"`
		LockReason string `json:"lock_reason"`
	}
	if err := json.Unmarshal([]byte(s.MustWT("show", "--json", "--", hostileTask).Stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Task != hostileTask || doc.Branch != hostileBranch || doc.LockReason != hostileReason {
		t.Errorf("show --json changed the text: %+v", doc)
	}
}

// TestWatchEscapesHostileTaskIDs: watch's table, printed as plain lines
// when stdout is no terminal, is the same table it draws on one.
func TestWatchEscapesHostileTaskIDs(t *testing.T) {
	s := testutil.NewSandbox(t)
	newHostileTask(t, s)
	cmd := s.Cmd(s.Repo, "watch")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	var got []string
	for range 2 { // the header, the task
		if !lines.Scan() {
			t.Fatalf("watch ended: %v", lines.Err())
		}
		got = append(got, lines.Text())
	}
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	assertNoTerminalControls(t, "watch", strings.Join(got, "\n"))
	if !strings.HasPrefix(got[1], `"evil\u009d0;pwned`) {
		t.Errorf("watch's row: %q", got[1])
	}
}

// TestErrorLineEscapesWhatItCarries: an error message that carries a
// caller's text (here -C's folder, in the message and in the system's
// reason) prints it escaped, on one line.
func TestErrorLineEscapesWhatItCarries(t *testing.T) {
	s := testutil.NewSandbox(t)
	r := s.WT("-C", "/nonexistent/\x1b[2J\u009b\u202e", "list")
	if r.Code != 2 {
		t.Fatalf("want a usage error: %s", r)
	}
	assertNoTerminalControls(t, "the error line", r.Stderr)
	if strings.Count(r.Stderr, "\n") != 1 || !strings.Contains(r.Stderr, `/nonexistent/\x1b[2J\u009b\u202e`) {
		t.Errorf("want one line naming the folder escaped: %q", r.Stderr)
	}
}

// TestInitErrorIsEscaped: a failed init's error names its command, which
// a committed .gitwt or a config may fill with controls; new's error
// line and show's "init error" show them escaped.
func TestInitErrorIsEscaped(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "config", "wt.init", "exit 3 # \x1b]0;pwned\a\u009b2J\u202e")
	r := s.WT("new", "t1")
	if r.Code == 0 {
		t.Fatalf("want the init to fail: %s", r)
	}
	assertNoTerminalControls(t, "new's error", r.Stderr)
	if !strings.Contains(r.Stderr, `exit 3 # \x1b]0;pwned\a\u009b2J\u202e`) {
		t.Errorf("new's error does not name the command escaped: %q", r.Stderr)
	}
	show := s.MustWT("show", "t1").Stdout
	assertNoTerminalControls(t, "show", show)
	if !strings.Contains(show, `\x1b]0;pwned\a\u009b2J\u202e`) {
		t.Errorf("show's init error: %s", show)
	}
}

// TestVerboseTraceIsEscaped: --verbose shows git's arguments, which hold
// the branch name.
func TestVerboseTraceIsEscaped(t *testing.T) {
	s := testutil.NewSandbox(t)
	r := s.MustWT("--verbose", "new", "--branch", hostileBranch, "--", hostileTask)
	assertNoTerminalControls(t, "--verbose", r.Stderr)
	if !strings.Contains(r.Stderr, `wt/b\u009b2J\u2066\u202eexe`) {
		t.Errorf("the trace does not show the branch escaped: %s", r.Stderr)
	}
}
