package e2e

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/testutil"
)

// geminiVersion is the Gemini CLI the test runs: the version whose hooks
// reference (geminicli.com/docs/hooks/reference) agent-setup follows.
const geminiVersion = "0.61.0"

// TestGeminiCLIReportsThroughItsHooks runs Gemini CLI for real, with a
// dummy key: its SessionStart and BeforeAgent hooks fire before it asks
// the model (which fails, offline or with the dummy key), and its
// SessionEnd when it is ended. git-wt's hook prints nothing on stdout,
// which Gemini reads as JSON.
func TestGeminiCLIReportsThroughItsHooks(t *testing.T) {
	if testing.Short() {
		t.Skip("installs and runs Gemini CLI")
	}
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "-q", "t1").Out()
	s.MustWT("agent-setup", "gemini", "--user")
	gem := npmPackage(t, "@google/gemini-cli", geminiVersion, "this test runs Gemini CLI")
	cmd := exec.Command(filepath.Join(gem, "node_modules", ".bin", "gemini"), "--skip-trust", "-p", "say hi")
	cmd.Dir, cmd.Env = path, append(s.Env, "GEMINI_API_KEY=dummy-key-for-a-test")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	// Its own process group: Gemini CLI runs itself again as a child
	// (for a larger heap), and the signal is for both, as a terminal's.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	// Until Gemini's turn has begun (or it gave up on its own).
	deadline := time.Now().Add(90 * time.Second)
	for a := agentOf(t, s, "t1"); a == nil || a["state"] != "working"; a = agentOf(t, s, "t1") {
		select {
		case <-exited:
			t.Fatalf("Gemini ended before its turn began: %v\n%s", a, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
			t.Fatalf("no BeforeAgent report: %v\n%s", a, stderr.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		t.Fatalf("Gemini did not end:\n%s", stderr.String())
	}
	a := agentOf(t, s, "t1")
	rec := readRecord(t, s, "t1")
	sessions, _ := rec["sessions"].([]any)
	if a == nil || a["runner"] != "gemini" || a["state"] != "ended" || len(sessions) != 1 {
		t.Errorf("agent %v, sessions %v\n%s", a, sessions, stderr.String())
	}
	if strings.Contains(strings.ToLower(stderr.String()), "hook") {
		t.Errorf("Gemini complained of a hook:\n%s", stderr.String())
	}
}
