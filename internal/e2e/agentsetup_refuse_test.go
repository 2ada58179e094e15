//go:build unix

// These tests protect the runners' files from edits git-wt cannot make
// exactly (SPEC §19, "runner settings files"): a file with duplicate keys
// where git-wt would edit, a TOML form git-wt does not write, a project
// file that a link leads out of the repository — each is refused, exit 3,
// with nothing changed.
package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// refusedUnchanged runs agent-setup args and checks that it exited 3 and
// left the file at path as content ("" : not there).
func refusedUnchanged(t *testing.T, s *testutil.Sandbox, path, content string, args ...string) {
	t.Helper()
	r := s.WT(append([]string{"agent-setup"}, args...)...)
	data, err := os.ReadFile(path)
	if content == "" && err == nil || content != "" && string(data) != content {
		t.Errorf("agent-setup %v changed %s:\n%s", args, path, data)
	}
	if r.Code != 3 || !strings.Contains(r.Stderr, "nothing was changed") {
		t.Errorf("agent-setup %v with %s: want exit 3, nothing changed: %s", args, path, r)
	}
}

// TestAgentSetupRefusesDuplicateKeysWhereItEdits: a runner reads one of
// two members of the same name (the last, in JavaScript); an entry added
// to the other would never run, and --undo would take out the wrong one.
func TestAgentSetupRefusesDuplicateKeysWhereItEdits(t *testing.T) {
	s := testutil.NewSandbox(t)
	for _, tc := range []struct{ file, content string }{
		{".claude/settings.json", "{\n  \"hooks\": {\"Stop\": []},\n  \"hooks\": {}\n}\n"},
		{".claude/settings.json", "{\n  \"hooks\": {\"Stop\": [], \"Stop\": []}\n}\n"},
		{".gemini/settings.json", "{\n  \"hooks\": {\"AfterAgent\": []},\n  \"hooks\": {\"AfterAgent\": []}\n}\n"},
		{".cursor/worktrees.json", "{\n  \"setup-worktree\": [],\n  \"setup-worktree\": [\"npm ci\"]\n}\n"},
	} {
		path := filepath.Join(s.Repo, tc.file)
		s.Write(path, tc.content)
		runner := map[string]string{".claude": "claude", ".gemini": "gemini", ".cursor": "cursor"}[strings.Split(tc.file, "/")[0]]
		args := []string{runner}
		if runner == "claude" {
			args = append(args, "--project")
		}
		refusedUnchanged(t, s, path, tc.content, args...)
		os.Remove(path)
	}
	// A duplicate where git-wt edits nothing is the runner's business.
	path := filepath.Join(s.Repo, ".claude/settings.json")
	s.Write(path, "{\n  \"model\": \"a\",\n  \"model\": \"b\"\n}\n")
	s.MustWT("agent-setup", "claude", "--project")
}

// TestAgentSetupCodexRefusesTOMLItCannotEditExactly: valid TOML that
// git-wt's edit would break (a table of dotted keys or an inline table
// gets a second [setup]) or change elsewhere (a "[setup]" line inside a
// string) is refused; the file stays as it was.
func TestAgentSetupCodexRefusesTOMLItCannotEditExactly(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := filepath.Join(s.Repo, ".codex/environments/environment.toml")
	for _, content := range []string{
		"version = 1\nname = \"repo\"\nsetup.script = \"npm ci\"\n",
		"version = 1\nsetup.env = \"x\"\n",
		"version = 1\nname = \"repo\"\nsetup = { script = \"npm ci\" }\n",
		"version = 1\ncleanup = { script = '''\nmake clean\n''' }\n",
		"version = 1\nnotes = '''\n[setup]\nscript = 'npm ci'\n'''\n",
		"version = 1\n[\"setup\"]\nscript = \"npm ci\"\n",
	} {
		s.Write(path, content)
		refusedUnchanged(t, s, path, content, "codex")
	}
}

// TestAgentSetupRefusesAProjectFileBehindALinkOutOfTheRepository: a
// committed symlink in place of a runner's file (or of its folder) would
// have git-wt write wherever the commit says: such a file is refused, and
// the file the link names is neither made nor changed. A link that stays
// in the repository is followed.
func TestAgentSetupRefusesAProjectFileBehindALinkOutOfTheRepository(t *testing.T) {
	s := testutil.NewSandbox(t)
	bashrc := filepath.Join(s.Home, ".bashrc")
	s.Write(bashrc, "{}\n")
	elsewhere := filepath.Join(filepath.Dir(s.Repo), "elsewhere")
	os.MkdirAll(elsewhere, 0o777)
	link := func(rel, target string) {
		t.Helper()
		path := filepath.Join(s.Repo, rel)
		os.RemoveAll(path)
		os.MkdirAll(filepath.Dir(path), 0o777)
		if err := os.Symlink(target, path); err != nil {
			t.Fatal(err)
		}
	}
	link(".claude/settings.json", bashrc)
	s.Git(s.Repo, "add", ".claude")
	s.Git(s.Repo, "commit", "-qm", "settings")
	refusedUnchanged(t, s, bashrc, "{}\n", "claude", "--project")
	link(".claude/settings.json", "../../elsewhere/settings.json")
	refusedUnchanged(t, s, filepath.Join(elsewhere, "settings.json"), "", "claude", "--project")
	link(".claude/settings.local.json", "../../elsewhere/settings.local.json")
	refusedUnchanged(t, s, filepath.Join(elsewhere, "settings.local.json"), "", "claude")
	link(".gemini", elsewhere)
	refusedUnchanged(t, s, filepath.Join(elsewhere, "settings.json"), "", "gemini")
	link(".cursor/worktrees.json", "../.git/hooks/post-checkout")
	refusedUnchanged(t, s, filepath.Join(s.Repo, ".git/hooks/post-checkout"), "", "cursor")
	// Inside the repository, the link is followed and stays a link.
	s.Write(filepath.Join(s.Repo, "config", "claude.json"), "{}\n")
	link(".claude/settings.json", "../config/claude.json")
	s.MustWT("agent-setup", "claude", "--project")
	if data, _ := os.ReadFile(filepath.Join(s.Repo, "config", "claude.json")); !strings.Contains(string(data), "claude-create") {
		t.Errorf("a link inside the repository was not followed: %s", data)
	}
}
