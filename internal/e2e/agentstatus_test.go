//go:build unix

// These tests protect what the runners' session hooks get from git-wt
// (SPEC §16): each runner's payload, as its docs show it, sets the
// task's agent state; the hook never fails, prints nothing, and leaves
// alone what lies outside a task; list, show and resume read it back.
package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// statusHook runs `git wt agent-hook RUNNER-status [EVENT]` in dir and
// checks that it exited 0 and printed nothing on stdout.
func statusHook(t *testing.T, s *testutil.Sandbox, dir, payload string, args ...string) testutil.Result {
	t.Helper()
	cmd := s.Cmd(dir, append([]string{"agent-hook"}, args...)...)
	cmd.Stdin = strings.NewReader(payload)
	r := runResult(t, cmd)
	if r.Code != 0 || r.Stdout != "" {
		t.Errorf("agent-hook %v with %s: want exit 0 and no stdout: %s", args, payload, r)
	}
	return r
}

// agentOf is the agent object list --json shows for the task id.
func agentOf(t *testing.T, s *testutil.Sandbox, id string) map[string]any {
	t.Helper()
	var views []map[string]any
	if err := json.Unmarshal([]byte(s.MustWT("list", "--json", "--no-status").Stdout), &views); err != nil {
		t.Fatal(err)
	}
	for _, v := range views {
		if v["task"] == id {
			a, _ := v["agent"].(map[string]any)
			return a
		}
	}
	t.Fatalf("no task %s in list", id)
	return nil
}

func TestAgentStatusTakesEachRunnersPayloads(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "-q", "t1").Out()
	sub := filepath.Join(path, "docs")
	s.Write(filepath.Join(sub, "x.md"), "x\n")
	// The payloads as each runner's documentation shows them.
	for _, tc := range []struct {
		args              []string
		payload           string
		runner, id, state string
	}{
		{[]string{"claude-status"}, `{"session_id":"c-1","transcript_path":"/t.jsonl","cwd":"CWD","permission_mode":"default","hook_event_name":"SessionStart","source":"startup"}`, "claude", "c-1", "idle"},
		{[]string{"claude-status"}, `{"session_id":"c-1","cwd":"CWD","hook_event_name":"UserPromptSubmit","prompt":"fix it"}`, "claude", "c-1", "working"},
		{[]string{"claude-status"}, `{"session_id":"c-1","cwd":"CWD","hook_event_name":"Notification","message":"Claude needs your permission to use Bash","notification_type":"permission_prompt"}`, "claude", "c-1", "waiting"},
		{[]string{"claude-status"}, `{"session_id":"c-1","cwd":"CWD","hook_event_name":"PostToolUse","tool_name":"Bash"}`, "claude", "c-1", "working"},
		{[]string{"claude-status"}, `{"session_id":"c-1","cwd":"CWD","hook_event_name":"Stop","stop_hook_active":false}`, "claude", "c-1", "idle"},
		{[]string{"claude-status"}, `{"session_id":"c-1","cwd":"CWD","hook_event_name":"SessionEnd","reason":"exit"}`, "claude", "c-1", "ended"},
		{[]string{"codex-status"}, `{"session_id":"x-2","transcript_path":null,"cwd":"CWD","hook_event_name":"UserPromptSubmit","model":"gpt-5","turn_id":"u1","prompt":"go"}`, "codex", "x-2", "working"},
		{[]string{"codex-status"}, `{"session_id":"x-2","cwd":"CWD","hook_event_name":"PermissionRequest","model":"gpt-5","tool_name":"Bash"}`, "codex", "x-2", "waiting"},
		{[]string{"gemini-status"}, `{"session_id":"g-3","transcript_path":"/g","cwd":"CWD","hook_event_name":"BeforeAgent","timestamp":"2026-11-26T10:00:00Z","prompt":"p"}`, "gemini", "g-3", "working"},
		{[]string{"gemini-status"}, `{"session_id":"g-3","cwd":"CWD","hook_event_name":"AfterAgent","timestamp":"2026-11-26T10:00:05Z"}`, "gemini", "g-3", "idle"},
		{[]string{"copilot-status", "sessionStart"}, `{"sessionId":"p-4","timestamp":1764151200000,"cwd":"CWD","source":"new","initialPrompt":"hi"}`, "copilot", "p-4", "idle"},
		{[]string{"copilot-status", "userPromptSubmitted"}, `{"sessionId":"p-4","timestamp":1764151201000,"cwd":"CWD","prompt":"hi"}`, "copilot", "p-4", "working"},
		{[]string{"opencode-status"}, `{"hook_event_name":"permission.asked","session_id":"o-5","cwd":"CWD"}`, "opencode", "o-5", "waiting"},
		{[]string{"opencode-status"}, `{"hook_event_name":"session.idle","session_id":"o-5","cwd":"CWD"}`, "opencode", "o-5", "idle"},
	} {
		payload := strings.ReplaceAll(tc.payload, "CWD", sub)
		statusHook(t, s, t.TempDir(), payload, tc.args...)
		a := agentOf(t, s, "t1")
		if a["runner"] != tc.runner || a["session_id"] != tc.id || a["state"] != tc.state || a["gone"] == true {
			t.Errorf("%v %s: agent %v", tc.args, payload, a)
		}
	}
	rec := readRecord(t, s, "t1")
	if n := len(rec["sessions"].([]any)); n != 5 {
		t.Errorf("want the 5 sessions seen, got %v", rec["sessions"])
	}
	show := s.MustWT("show", "t1").Stdout
	for _, want := range []string{"agent:", "opencode idle", "session:       claude c-1", "session:       copilot p-4"} {
		if !strings.Contains(show, want) {
			t.Errorf("show lacks %q:\n%s", want, show)
		}
	}
	if out := s.MustWT("resume", "t1", "--print").Out(); out != "cd "+path+" && opencode --session=o-5" {
		t.Errorf("resume --print: %q", out)
	}
	if r := s.WT("list", "--no-status"); !strings.Contains(r.Stdout, "opencode idle") {
		t.Errorf("list has no AGENT column: %s", r)
	}
}

func TestAgentStatusNeverFailsAndLeavesOthersAlone(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "-q", "t1").Out()
	before := s.Git(s.Repo, "for-each-ref")
	for _, tc := range []struct {
		args    []string
		payload string
	}{
		{[]string{"claude-status"}, ``},
		{[]string{"claude-status"}, `not json`},
		{[]string{"claude-status"}, `[1,2]`},
		{[]string{"claude-status"}, `{"session_id":"a","cwd":"` + s.Repo + `","hook_event_name":"Stop"}`},      // the main worktree
		{[]string{"claude-status"}, `{"session_id":"a","cwd":"/nonexistent","hook_event_name":"Stop"}`},        // gone
		{[]string{"gemini-status"}, `{"session_id":"a","cwd":"` + t.TempDir() + `","hook_event_name":"Stop"}`}, // no repository
		{[]string{"nobody-status"}, `{"session_id":"a","cwd":"` + path + `","hook_event_name":"Stop"}`},
	} {
		statusHook(t, s, s.Repo, tc.payload, tc.args...)
	}
	if after := s.Git(s.Repo, "for-each-ref"); after != before {
		t.Errorf("a hook outside any task wrote:\n%s\n%s", before, after)
	}
	// A runner whose process ended without a SessionEnd is gone; one
	// alive (this test) is not.
	payload := `{"session_id":"a","cwd":"` + path + `","hook_event_name":"UserPromptSubmit"}`
	statusHook(t, s, path, payload, "claude-status")
	if a := agentOf(t, s, "t1"); a["state"] != "working" || a["gone"] == true || a["pid"] == nil {
		t.Errorf("a live runner: %v", a)
	}
	perl := exec.Command("perl", "-e", "open(STDIN, '<', shift); exit(system(@ARGV) >> 8)", "/dev/stdin",
		filepath.Join(testutil.BinDir(t), "git-wt"), "agent-hook", "claude-status")
	perl.Dir, perl.Env = path, s.Env
	perl.Stdin = strings.NewReader(strings.Replace(payload, `"a"`, `"b"`, 1))
	if r := runResult(t, perl); r.Code != 0 {
		t.Fatalf("through perl: %s", r)
	}
	if a := agentOf(t, s, "t1"); a["session_id"] != "b" || a["gone"] != true {
		t.Errorf("a runner that exited: %v", a)
	}
	if r := s.WT("list", "--no-status"); !strings.Contains(r.Stdout, "gone") {
		t.Errorf("list does not say gone: %s", r)
	}
}

// TestClaudeSettingsReachEveryTask: Claude Code in a task's worktree
// reads the settings there, so the clone's own settings (with the status
// hooks) are copied into each new task, and undo stops that.
func TestClaudeSettingsReachEveryTask(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.MustWT("agent-setup", "claude")
	path := s.MustWT("new", "-q", "t1").Out()
	copied := filepath.Join(path, ".claude", "settings.local.json")
	if data, err := os.ReadFile(copied); err != nil || !strings.Contains(string(data), "claude-status") {
		t.Fatalf("the task has no status hooks: %s %v", data, err)
	}
	if st := s.Git(path, "status", "--porcelain"); st != "" {
		t.Errorf("the copy made the task dirty: %s", st)
	}
	s.MustWT("agent-setup", "claude", "--undo")
	if s.GitOK(s.Repo, "config", "--get-all", "wt.copy") {
		t.Error("wt.copy left")
	}
	if path := s.MustWT("new", "-q", "t2").Out(); testutil.Exists(filepath.Join(path, ".claude")) {
		t.Error("a task made after undo got the settings")
	}
	// The line an earlier git-wt kept under its one mark for Claude Code's
	// file goes with --undo too.
	exclude := filepath.Join(s.Repo, ".git", "info", "exclude")
	s.Write(exclude, "# git-wt: the agent runner's settings of this clone; git wt agent-setup --undo takes the line below out\n/.claude/settings.local.json\n")
	s.MustWT("agent-setup", "claude", "--undo")
	if data, _ := os.ReadFile(exclude); strings.Contains(string(data), "settings.local.json") {
		t.Errorf("--undo left the earlier mark's line: %s", data)
	}
}

// TestAgentStatusDropsAWriteThatLostARace: the report read the record,
// then another process wrote it (a lock); the report's write is dropped,
// exit 0, and the other's stays.
func TestAgentStatusDropsAWriteThatLostARace(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "-q", "t1").Out()
	payload := `{"session_id":"a","cwd":"` + path + `","hook_event_name":"UserPromptSubmit"}`
	cmd, goOn := pauseWith(t, s, payload, "agent-status:save", "agent-hook", "claude-status")
	s.MustWT("lock", "t1", "--reason", "review")
	goOn()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the hook failed: %v", err)
	}
	if rec := readRecord(t, s, "t1"); rec["locked"] != true || rec["agent"] != nil {
		t.Errorf("want the lock kept and the report dropped: %v", rec)
	}
	statusHook(t, s, path, payload, "claude-status")
	if a := agentOf(t, s, "t1"); a["state"] != "working" {
		t.Errorf("the next report: %v", a)
	}
}

// TestResumeRunsTheRunnersOwnCommandInTheTask: the last session seen is
// taken up by its runner's resume command, in the task's worktree and
// with its environment; a task where none was seen exits 5.
func TestResumeRunsTheRunnersOwnCommandInTheTask(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "-q", "t1").Out()
	s.MustWT("new", "-q", "t2")
	statusHook(t, s, path, `{"sessionId":"p-1","cwd":"`+path+`"}`, "copilot-status", "sessionStart")
	statusHook(t, s, path, `{"session_id":"c-2","cwd":"`+path+`","hook_event_name":"Stop"}`, "claude-status")
	bin := t.TempDir()
	s.Write(filepath.Join(bin, "claude"), "#!/bin/sh\necho \"$PWD $WT_TASK $*\"\n")
	os.Chmod(filepath.Join(bin, "claude"), 0o755)
	cmd := s.Cmd(s.Repo, "resume", "t1")
	for i, v := range cmd.Env {
		if strings.HasPrefix(v, "PATH=") {
			cmd.Env[i] = "PATH=" + bin + ":" + strings.TrimPrefix(v, "PATH=")
		}
	}
	if r := runResult(t, cmd); r.Code != 0 || r.Out() != path+" t1 --resume=c-2" {
		t.Errorf("resume: %s", r)
	}
	if r := s.WT("resume", "t2"); r.Code != 5 {
		t.Errorf("no session seen: %s", r)
	}
}

// TestResumeRefusesASessionIdThatIsNoId: a session id is what an agent
// says (SPEC §19): one that would be an option of the runner is not
// recorded by the status hook, and one found in a record (written by
// hand, or by an older git-wt) is refused by resume, exit 3, naming the
// task, the runner not started. A good id goes as --resume=ID.
func TestResumeRefusesASessionIdThatIsNoId(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "-q", "t1").Out()
	bin := t.TempDir()
	s.Write(filepath.Join(bin, "claude"), "#!/bin/sh\necho \"ran: $*\"\n")
	os.Chmod(filepath.Join(bin, "claude"), 0o755)
	resume := func() testutil.Result {
		cmd := s.Cmd(s.Repo, "resume", "t1")
		for i, v := range cmd.Env {
			if strings.HasPrefix(v, "PATH=") {
				cmd.Env[i] = "PATH=" + bin + ":" + strings.TrimPrefix(v, "PATH=")
			}
		}
		return runResult(t, cmd)
	}
	const bad = "--dangerously-skip-permissions"
	statusHook(t, s, path, `{"session_id":"`+bad+`","cwd":"`+path+`","hook_event_name":"Stop"}`, "claude-status")
	if rec := readRecord(t, s, "t1"); strings.Contains(fmt.Sprint(rec), bad) {
		t.Errorf("the hook recorded the id %q: %v", bad, rec)
	}
	for _, id := range []string{bad, "a b", "x;rm -rf ~", strings.Repeat("a", 129), ""} {
		rec := readRecord(t, s, "t1")
		rec["sessions"] = []any{map[string]any{"runner": "claude", "id": id, "first_seen": "2026-01-01T00:00:00Z", "last_seen": "2026-01-01T00:00:00Z"}}
		writeRecord(t, s, "t1", rec)
		if r := resume(); r.Code != 3 || strings.Contains(r.Stdout, "ran:") || !strings.Contains(r.Stderr, "t1") {
			t.Errorf("resume of the session id %q: want exit 3 naming t1, the runner not run: %s", id, r)
		}
	}
	const good = "0b6e9d8a-3c1f-4f7e-9a51-2d4c8e7f1a20"
	statusHook(t, s, path, `{"session_id":"`+good+`","cwd":"`+path+`","hook_event_name":"Stop"}`, "claude-status")
	if r := resume(); r.Code != 0 || r.Out() != "ran: --resume="+good {
		t.Errorf("resume of %s: %s", good, r)
	}
}
