//go:build unix

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// TestStatusLineShowsTheTaskOfTheFolderClaudeCodeNames: the status line
// reads Claude Code's JSON (workspace.current_dir wins over cwd) or the
// current folder, and never fails.
func TestStatusLineShowsTheTaskOfTheFolderClaudeCodeNames(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "config", "--add", "wt.port", "PORT")
	path := newTaskWithCommit(s, "t1")
	s.Write(filepath.Join(path, "wip.txt"), "wip\n")
	port := readRecord(t, s, "t1")["ports"].(map[string]any)["PORT"]
	want := "t1 · wt/t1 · +1/-0 · 1 dirty · PORT=" + strings.TrimSuffix(strings.TrimSuffix(jsonText(port), "\n"), ".0")
	for _, tc := range []struct{ dir, stdin string }{
		{s.Repo, `{"hook_event_name":"Status","session_id":"x","cwd":"/","model":{"id":"m"},"workspace":{"current_dir":"` + path + `","project_dir":"` + s.Repo + `"}}`},
		{s.Repo, `{"cwd":"` + filepath.Join(path, ".") + `"}`},
		{path, ``},
	} {
		cmd := s.Cmd(tc.dir, "statusline")
		cmd.Stdin = strings.NewReader(tc.stdin)
		if r := runResult(t, cmd); r.Code != 0 || r.Out() != want {
			t.Errorf("%s: %s\nwant %q", tc.stdin, r, want)
		}
	}
	for stdin, want := range map[string]string{
		`{"cwd":"` + s.Repo + `"}`:      "main · clean", // the main worktree
		`{"cwd":"/nonexistent"}`:        "",             // a folder gone: nothing to say
		`{"cwd":"` + t.TempDir() + `"}`: "",             // no repository
		`not json`:                      "main · clean", // the current folder
	} {
		cmd := s.Cmd(s.Repo, "statusline")
		cmd.Stdin = strings.NewReader(stdin)
		if r := runResult(t, cmd); r.Code != 0 || r.Out() != want {
			t.Errorf("%s: %s", stdin, r)
		}
	}
	s.MustWT("agent-setup", "claude", "--statusline")
	data, _ := os.ReadFile(filepath.Join(s.Repo, ".claude/settings.local.json"))
	var settings struct {
		StatusLine struct{ Type, Command string } `json:"statusLine"`
		Hooks      map[string]any
	}
	if err := json.Unmarshal(data, &settings); err != nil || settings.StatusLine.Command != "git wt statusline" || settings.Hooks["Stop"] == nil {
		t.Errorf("settings: %s %v", data, err)
	}
	s.MustWT("agent-setup", "claude", "--statusline", "--undo")
	if testutil.Exists(filepath.Join(s.Repo, ".claude")) {
		t.Error("undo left .claude, which setup created")
	}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
