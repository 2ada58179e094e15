//go:build unix

// These tests protect what an agent runner's worktree hooks get from
// git-wt (SPEC §13): every payload shape makes (or resumes) a task and
// prints only its path; the remove hook never deletes uncommitted or
// unmerged work; agent-setup merges its hooks into the runner's settings
// and takes exactly them out again, and the commands it writes work.
package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// hook runs `git wt agent-hook which` from dir with payload on stdin.
func hook(t *testing.T, s *testutil.Sandbox, dir, which, payload string) testutil.Result {
	t.Helper()
	cmd := s.Cmd(dir, "agent-hook", which)
	cmd.Stdin = strings.NewReader(payload)
	return runResult(t, cmd)
}

// runResult runs a prepared command and returns its outcome.
func runResult(t *testing.T, cmd *exec.Cmd) testutil.Result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return testutil.Result{Stdout: stdout.String(), Stderr: stderr.String(), Code: code}
}

func TestAgentHookCreateTakesEveryPayloadShape(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "branch", "dev")
	first := s.Git(s.Repo, "rev-parse", "HEAD")
	commitFile(s, s.Repo, "later.txt", "later\n", "main moves on")
	elsewhere := t.TempDir() // the hook runs wherever the runner is
	for _, tc := range []struct {
		payload, id, base, baseSHA string
	}{
		{`{"name":"n1","cwd":"REPO","hook_event_name":"WorktreeCreate","session_id":"s"}`, "n1", "refs/heads/main", ""},
		{`{"worktree_name":"n2","base_commit":"FIRST","cwd":"REPO"}`, "n2", "refs/heads/main", first},
		{`{"worktree_path":"REPO/.claude/worktrees/n3","source_ref":"dev","cwd":"REPO"}`, "n3", "refs/heads/dev", first},
		{`{"branch_name":"n4","base_path":"REPO","unknown":{"x":1}}`, "n4", "refs/heads/main", ""},
	} {
		payload := strings.NewReplacer("REPO", s.Repo, "FIRST", first).Replace(tc.payload)
		r := hook(t, s, elsewhere, "claude-create", payload)
		path := strings.TrimSuffix(r.Stdout, "\n")
		if r.Code != 0 || strings.Contains(path, "\n") || !filepath.IsAbs(path) || !testutil.Exists(filepath.Join(path, "README.md")) {
			t.Fatalf("%s: want only an existing worktree's path on stdout: %s", payload, r)
		}
		rec := readRecord(t, s, tc.id)
		if rec["path"] != path || rec["base"] != tc.base || tc.baseSHA != "" && rec["base_sha"] != tc.baseSHA {
			t.Errorf("%s: record path %v base %v base_sha %v", payload, rec["path"], rec["base"], rec["base_sha"])
		}
		// Again, with another base: the task resumes on its own.
		again := hook(t, s, elsewhere, "claude-create", strings.Replace(payload, `"cwd"`, `"source_ref":"dev","cwd"`, 1))
		if again.Code != 0 || again.Stdout != r.Stdout {
			t.Errorf("%s again: %s", payload, again)
		}
	}
}

func TestAgentHookCreateRefusesAPayloadItCannotRead(t *testing.T) {
	s := testutil.NewSandbox(t)
	for _, payload := range []string{"", "not json", "{}", `{"cwd":"` + s.Repo + `"}`, `{"name":"--x","cwd":"/nonexistent/dir"}`} {
		r := hook(t, s, s.Repo, "claude-create", payload)
		if r.Code == 0 || r.Stdout != "" || r.Stderr == "" {
			t.Errorf("payload %q: want a non-zero exit, nothing on stdout and the reason on stderr: %s", payload, r)
		}
	}
	if out := s.Git(s.Repo, "for-each-ref", "refs/git-wt/"); out != "" {
		t.Errorf("a bad payload made tasks: %s", out)
	}
	if r := hook(t, s, s.Repo, "claude-remove", "nonsense"); r.Code == 0 {
		t.Errorf("an unreadable remove payload: %s", r)
	}
}

func TestAgentHookRemoveKeepsWorkAndRemovesTheRest(t *testing.T) {
	s := testutil.NewSandbox(t)
	create := func(id string) string {
		return strings.TrimSpace(hook(t, s, s.Repo, "claude-create", `{"name":"`+id+`","cwd":"`+s.Repo+`"}`).Stdout)
	}
	remove := func(path string) testutil.Result {
		t.Helper()
		// From inside the worktree, as the runner that worked there.
		cmd := exec.Command("sh", "-c", "git wt agent-hook claude-remove")
		cmd.Dir, cmd.Env = path, s.Env
		cmd.Stdin = strings.NewReader(`{"worktree_path":"` + path + `","hook_event_name":"WorktreeRemove"}`)
		r := runResult(t, cmd)
		if r.Code != 0 {
			t.Errorf("remove %s: want exit 0 whatever is kept: %s", path, r)
		}
		return r
	}
	dirty, clean, committed := create("dirty"), create("clean"), create("committed")
	s.Write(filepath.Join(dirty, "wip.txt"), "uncommitted\n")
	commitFile(s, committed, "work.txt", "work\n", "the agent's work")
	if r := remove(dirty); !testutil.Exists(filepath.Join(dirty, "wip.txt")) || !strings.Contains(r.Stderr, "warning") {
		t.Errorf("a dirty task was not kept with a warning: %s", r)
	}
	if remove(clean); testutil.Exists(clean) {
		t.Error("a clean task was not removed (the runner in it does not make it in use)")
	}
	r := remove(committed)
	if testutil.Exists(committed) || !s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/wt/committed") || !strings.Contains(r.Stderr, "kept branch") {
		t.Errorf("a task with unmerged commits: its worktree goes and its branch stays, with a warning: %s", r)
	}
	// Not a task's worktree: the main one, a folder inside a task.
	for _, path := range []string{s.Repo, dirty + "/sub"} {
		os.MkdirAll(path, 0o755)
		if r := remove(path); !strings.Contains(r.Stderr, "left") || !testutil.Exists(path) {
			t.Errorf("%s: %s", path, r)
		}
	}
}

func TestAgentSetupMergesIntoTheSettingsAndUndoes(t *testing.T) {
	s := testutil.NewSandbox(t)
	file := filepath.Join(s.Repo, ".claude", "settings.local.json")
	original, _ := json.MarshalIndent(map[string]any{
		"permissions": map[string]any{"allow": []string{"Bash(make test)"}},
		"hooks":       map[string]any{"Stop": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "echo done && true"}}}}},
	}, "", "  ")
	original = append(original, '\n')
	s.Write(file, string(original))
	s.MustWT("agent-setup", "claude")
	added, _ := os.ReadFile(file)
	var doc struct {
		Permissions map[string][]string
		Hooks       map[string][]struct{ Hooks []struct{ Command string } }
	}
	if err := json.Unmarshal(added, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Permissions["allow"][0] != "Bash(make test)" || doc.Hooks["Stop"][0].Hooks[0].Command != "echo done && true" {
		t.Errorf("the other settings were not kept:\n%s", added)
	}
	if doc.Hooks["WorktreeCreate"][0].Hooks[0].Command != "git wt agent-hook claude-create" || doc.Hooks["WorktreeRemove"][0].Hooks[0].Command != "git wt agent-hook claude-remove" {
		t.Errorf("the hooks are not there:\n%s", added)
	}
	if st := s.Git(s.Repo, "status", "--porcelain"); st != "" {
		t.Errorf("the settings file shows in git status:\n%s", st)
	}
	s.MustWT("agent-setup", "claude")
	if again, _ := os.ReadFile(file); !bytes.Equal(again, added) {
		t.Error("a second run changed the file")
	}
	s.MustWT("agent-setup", "claude", "--undo")
	if undone, _ := os.ReadFile(file); !bytes.Equal(undone, original) {
		t.Errorf("--undo left\n%s\nwant\n%s", undone, original)
	}
	if ex, _ := os.ReadFile(filepath.Join(s.Repo, ".git", "info", "exclude")); strings.Contains(string(ex), "settings.local.json") {
		t.Error("--undo left the exclude line")
	}
	// --project and --user write their own files; undo leaves none.
	for _, tc := range []struct{ flag, file string }{
		{"--project", filepath.Join(s.Repo, ".claude", "settings.json")},
		{"--user", filepath.Join(s.Home, ".claude", "settings.json")},
	} {
		s.MustWT("agent-setup", "claude", tc.flag)
		if !testutil.Exists(tc.file) {
			t.Errorf("%s wrote no %s", tc.flag, tc.file)
		}
		s.MustWT("agent-setup", "claude", tc.flag, "--undo")
		if testutil.Exists(tc.file) {
			t.Errorf("%s --undo left %s", tc.flag, tc.file)
		}
	}
}

func TestAgentSetupCommandsWorkThroughSh(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.MustWT("agent-setup", "claude")
	data, _ := os.ReadFile(filepath.Join(s.Repo, ".claude", "settings.local.json"))
	var doc struct {
		Hooks map[string][]struct{ Hooks []struct{ Command string } }
	}
	json.Unmarshal(data, &doc)
	sh := func(event, payload string) testutil.Result {
		t.Helper()
		cmd := exec.Command("sh", "-c", doc.Hooks[event][0].Hooks[0].Command)
		cmd.Dir, cmd.Env, cmd.Stdin = s.Repo, s.Env, strings.NewReader(payload)
		return runResult(t, cmd)
	}
	r := sh("WorktreeCreate", `{"name":"from-sh","cwd":"`+s.Repo+`"}`)
	path := strings.TrimSpace(r.Stdout)
	if r.Code != 0 || !testutil.Exists(path) {
		t.Fatalf("the create command through sh: %s", r)
	}
	if r := sh("WorktreeRemove", `{"worktree_path":"`+path+`"}`); r.Code != 0 || testutil.Exists(path) {
		t.Errorf("the remove command through sh: %s", r)
	}
}
