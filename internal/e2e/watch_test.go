//go:build unix

// These tests protect git wt watch in a real terminal (SPEC §16): tmux
// runs it, send-keys presses the keys, capture-pane reads the screen.
package e2e

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/testutil"
)

// tmuxWatch is git wt watch running in a tmux window of its own.
type tmuxWatch struct {
	t    *testing.T
	s    *testutil.Sandbox
	sock string
	out  string // where the command's stdout and exit status go
}

// startWatch runs `git wt watch > out` in a width×24 tmux window, in the
// sandbox's main worktree; with bare, watch is the window's process
// itself (for its pid) and its stdout the terminal.
func startWatch(t *testing.T, s *testutil.Sandbox, width int, bare bool) *tmuxWatch {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("no tmux")
	}
	dir := t.TempDir()
	w := &tmuxWatch{t: t, s: s, sock: filepath.Join(dir, "s"), out: filepath.Join(dir, "out")}
	bin := filepath.Join(testutil.BinDir(t), "git-wt")
	script := "'" + bin + "' watch > '" + w.out + "'; echo EXIT=$? >> '" + w.out + "'; sleep 600"
	if bare {
		script = "exec '" + bin + "' watch"
	}
	w.tmux("new-session", "-d", "-x", strconv.Itoa(width), "-y", "24", "-c", s.Repo, "sh", "-c", script)
	t.Cleanup(func() { exec.Command("tmux", "-S", w.sock, "kill-server").Run() })
	w.waitFor("the first screen", func(screen string) bool { return strings.Contains(screen, "git wt watch") })
	return w
}

func (w *tmuxWatch) tmux(args ...string) string {
	w.t.Helper()
	cmd := exec.Command("tmux", append([]string{"-S", w.sock}, args...)...)
	cmd.Env = append(w.s.Env, "TMUX=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		w.t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return string(out)
}

func (w *tmuxWatch) screen() string { return w.tmux("capture-pane", "-p") }

// waitFor polls the screen until ok says it shows what the test waits
// for: watch looks for changes once a second, so this is what a person
// sees, not a race.
func (w *tmuxWatch) waitFor(what string, ok func(screen string) bool) string {
	w.t.Helper()
	var screen string
	w.poll(15*time.Second, func() bool { screen = w.screen(); return ok(screen) },
		func() string { return "the screen never showed " + what + ":\n" + screen })
	return screen
}

// output waits for the command to exit and returns what it printed.
func (w *tmuxWatch) output() string {
	w.t.Helper()
	var data []byte
	w.poll(10*time.Second, func() bool { data, _ = os.ReadFile(w.out); return strings.Contains(string(data), "EXIT=") },
		func() string { return fmt.Sprintf("watch did not exit: %q\n%s", data, w.screen()) })
	return string(data)
}

// poll checks done every tenth of a second until it holds, and fails the
// test with why() when it still does not after timeout.
func (w *tmuxWatch) poll(timeout time.Duration, done func() bool, why func() string) {
	w.t.Helper()
	for deadline := time.Now().Add(timeout); !done(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			w.t.Fatal(why())
		}
	}
}

func fitsIn(screen string, width int) bool {
	for _, line := range strings.Split(screen, "\n") {
		if len([]rune(line)) > width {
			return false
		}
	}
	return true
}

func TestWatchFollowsTheFleetAndEnterPrintsThePath(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "config", "--add", "wt.port", "PORT")
	s.MustWT("new", "-q", "t1")
	w := startWatch(t, s, 80, false)
	screen := w.waitFor("t1", func(sc string) bool { return strings.Contains(sc, "> t1") })
	if !fitsIn(screen, 80) {
		t.Errorf("wider than 80 columns:\n%s", screen)
	}
	// A new task appears; its agent's state shows, then changes.
	path := s.MustWT("new", "-q", "t2").Out()
	w.waitFor("the new task", func(sc string) bool { return strings.Contains(sc, "  t2") })
	report := func(event string) {
		statusHook(t, s, path, `{"session_id":"s","cwd":"`+path+`","hook_event_name":"`+event+`"}`, "claude-status")
	}
	report("UserPromptSubmit")
	w.waitFor("the agent working", func(sc string) bool { return strings.Contains(sc, "claude working") })
	report("Stop")
	w.waitFor("the agent idle", func(sc string) bool { return strings.Contains(sc, "claude idle") })
	// Down selects t2; Enter prints its path and exits.
	w.tmux("send-keys", "Down")
	w.waitFor("t2 selected", func(sc string) bool { return strings.Contains(sc, "> t2") })
	w.tmux("send-keys", "Enter")
	if out := w.output(); out != path+"\nEXIT=0\n" {
		t.Errorf("Enter printed %q, want %s", out, path)
	}
}

func TestWatchFitsA200ColumnTerminalAndQQuits(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "config", "--add", "wt.port", "PORT")
	s.MustWT("new", "-q", "a-task-with-a-rather-long-name-to-see-how-the-columns-fit")
	w := startWatch(t, s, 200, false)
	screen := w.waitFor("the task", func(sc string) bool { return strings.Contains(sc, "> a-task") })
	if !fitsIn(screen, 200) || !strings.Contains(screen, "PORT=") || !strings.Contains(screen, "ACTIVE") {
		t.Errorf("a 200-column screen:\n%s", screen)
	}
	w.tmux("send-keys", "q")
	if out := w.output(); out != "EXIT=0\n" {
		t.Errorf("q printed %q", out)
	}
}

// TestWatchCostsNothingWhenNothingChanges: ten idle seconds cost it
// (user and system time) a small fraction of a second: no busy loop.
func TestWatchCostsNothingWhenNothingChanges(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	s := testutil.NewSandbox(t)
	s.MustWT("new", "-q", "t1")
	w := startWatch(t, s, 80, true)
	w.waitFor("t1", func(sc string) bool { return strings.Contains(sc, "> t1") })
	pid := strings.TrimSpace(w.tmux("list-panes", "-F", "#{pane_pid}"))
	cpu := func() time.Duration {
		data, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil {
			t.Fatal(err)
		}
		f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
		utime, _ := strconv.Atoi(f[11])
		stime, _ := strconv.Atoi(f[12])
		return time.Duration(utime+stime) * 10 * time.Millisecond // USER_HZ 100
	}
	before := cpu()
	time.Sleep(10 * time.Second) // the idle time measured, not a wait for something
	if used := cpu() - before; used > 300*time.Millisecond {
		t.Errorf("watch used %v of CPU in 10 idle seconds", used)
	}
}

// TestWatchWithoutATerminalPrintsPlainLines: the fleet, then again when
// it changes, until a signal ends it.
func TestWatchWithoutATerminalPrintsPlainLines(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.MustWT("new", "-q", "t1")
	cmd := s.Cmd(s.Repo, "watch")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	next := func() string {
		if !lines.Scan() {
			t.Fatalf("watch ended: %v", lines.Err())
		}
		return lines.Text()
	}
	if h, row := next(), next(); !strings.HasPrefix(h, "TASK") || !strings.HasPrefix(row, "t1") || strings.Contains(h+row, "\x1b") {
		t.Errorf("first block: %q %q", h, row)
	}
	s.MustWT("new", "-q", "t2")
	for _, want := range []string{"", "TASK", "t1", "t2"} {
		if line := next(); !strings.HasPrefix(line, want) {
			t.Errorf("got %q, want %q", line, want)
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("after SIGTERM: %v", err)
	}
}
