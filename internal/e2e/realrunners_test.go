//go:build unix

// These tests run the agent runners that start offline (Gemini CLI and
// Claude Code, from npm, with dummy keys) and check that their session
// hooks reach git-wt (SPEC §16).
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
	runRunner(t, s, "t1", path, "gemini", []string{"GEMINI_API_KEY=dummy-key-for-a-test"},
		filepath.Join(gem, "node_modules", ".bin", "gemini"), "--skip-trust", "-p", "say hi")
}

// TestGeminiCLIReportsFromATaskWithTheProjectsHooks: Gemini CLI started
// in a task (cd "$(git wt new T)" && gemini) reads the project's
// .gemini/settings.json there, not in the main worktree: agent-setup
// gemini, without --user, makes the task have it (SPEC §19, "Runners'
// hooks reach the task"). Gemini reads a project's settings only in a
// folder the user trusts (here: GEMINI_CLI_TRUST_WORKSPACE; --skip-trust
// does not reach the hooks), and warns once of its project hooks.
func TestGeminiCLIReportsFromATaskWithTheProjectsHooks(t *testing.T) {
	if testing.Short() {
		t.Skip("installs and runs Gemini CLI")
	}
	s := testutil.NewSandbox(t)
	s.MustWT("agent-setup", "gemini")
	path := s.MustWT("new", "-q", "t1").Out()
	gem := npmPackage(t, "@google/gemini-cli", geminiVersion, "this test runs Gemini CLI")
	runRunner(t, s, "t1", path, "gemini", []string{"GEMINI_API_KEY=dummy-key-for-a-test", "GEMINI_CLI_TRUST_WORKSPACE=true"},
		filepath.Join(gem, "node_modules", ".bin", "gemini"), "--skip-trust", "-p", "say hi")
}

// runRunner runs an agent runner (argv, with env added) in the task id's
// worktree at path until its session hooks report the agent working,
// then ends it as a terminal would, and checks that git-wt saw one
// session of runner, ended, and that the runner did not complain of a
// hook.
func runRunner(t *testing.T, s *testutil.Sandbox, id, path, runner string, env []string, argv ...string) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = path, append(s.Env, env...)
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
	end := func(sig syscall.Signal) {
		syscall.Kill(-cmd.Process.Pid, sig)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
			t.Fatalf("%s did not end:\n%s", runner, stderr.String())
		}
	}
	// Until its turn has begun.
	deadline := time.Now().Add(90 * time.Second)
	for a := agentOf(t, s, id); a == nil || a["state"] != "working"; a = agentOf(t, s, id) {
		select {
		case <-exited:
			t.Fatalf("%s ended before its turn began: %v\n%s", runner, a, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			end(syscall.SIGKILL)
			t.Fatalf("no report of a turn: %v\n%s", a, stderr.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	end(syscall.SIGTERM)
	a := agentOf(t, s, id)
	sessions, _ := readRecord(t, s, id)["sessions"].([]any)
	if a == nil || a["runner"] != runner || a["state"] != "ended" || len(sessions) != 1 {
		t.Errorf("agent %v, sessions %v\n%s", a, sessions, stderr.String())
	}
	// Gemini's warning of the project's hooks, the first time it runs
	// them, is no complaint.
	said, _, _ := strings.Cut(stderr.String(), "WARNING: The following project-level hooks")
	if _, after, ok := strings.Cut(stderr.String(), "remove them."); ok {
		said += after
	}
	if strings.Contains(strings.ToLower(said), "hook") {
		t.Errorf("%s complained of a hook:\n%s", runner, stderr.String())
	}
}

// claudeVersion is the Claude Code the test runs (code.claude.com/docs/en/
// hooks is the reference agent-setup follows).
const claudeVersion = "2.1.197"

// TestClaudeCodeReportsFromATask runs Claude Code for real in a task, with
// a dummy key: the task has the clone's settings (wt.copy), so its
// UserPromptSubmit hook fires before it asks the model (which fails), and
// its SessionEnd when it is ended.
func TestClaudeCodeReportsFromATask(t *testing.T) {
	if testing.Short() {
		t.Skip("installs and runs Claude Code")
	}
	s := testutil.NewSandbox(t)
	s.MustWT("agent-setup", "claude")
	path := s.MustWT("new", "-q", "t1").Out()
	cc := npmPackage(t, "@anthropic-ai/claude-code", claudeVersion, "this test runs Claude Code")
	runRunner(t, s, "t1", path, "claude", []string{"ANTHROPIC_API_KEY=sk-ant-dummy-key-for-a-test"},
		filepath.Join(cc, "node_modules", ".bin", "claude"), "-p", "say hi")
}
