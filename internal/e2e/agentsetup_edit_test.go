//go:build unix

// This test protects a runner's settings file from git-wt's edits (SPEC
// §16 "Editing a runner's files"): agent-setup only inserts its own
// entries, keeping every other byte; a symlinked file (dotfiles) is edited
// at its target and stays a symlink; a second run changes nothing; --undo
// gives back the file byte for byte when nothing else changed it, and
// never deletes a file or folder git-wt did not create.
package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

func TestAgentSetupEditsOnlyItsOwnEntriesAndUndoesByteForByte(t *testing.T) {
	t.Parallel()
	s := testutil.NewSandbox(t)
	dotfiles := filepath.Join(s.Home, "dotfiles", "claude-settings.json")
	user := filepath.Join(s.Home, ".claude", "settings.json")
	project := filepath.Join(s.Repo, ".claude", "settings.json")
	other := filepath.Join(s.Home, "other")
	s.Git(s.Home, "init", "-q", "other")
	for _, tc := range []struct{ name, content string }{
		{"tabs, odd spacing and escapes", "{\n\t\"model\" :  \"opus\",\n\t\"env\": {\"A\": \"x \\u0026\\u0026 y\"}\n}"},
		{"an empty object", "{}"},
		{"an empty event list", "{\n    \"hooks\": {\"WorktreeCreate\": []}\n}\n"},
		{"one line", `{"permissions":{"allow":["Bash(ls)"]},"hooks":{"Stop":[]}}`},
	} {
		// --user, with the file a symlink into a dotfiles folder.
		s.Write(dotfiles, tc.content)
		os.Remove(user)
		os.MkdirAll(filepath.Dir(user), 0o777)
		if err := os.Symlink(dotfiles, user); err != nil {
			t.Fatal(err)
		}
		s.MustWT("agent-setup", "claude", "--user")
		if st, err := os.Lstat(user); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("%s: the symlink %s was replaced", tc.name, user)
		}
		added, _ := os.ReadFile(dotfiles)
		if !strings.Contains(string(added), "claude-create") || !testutil.InsertsOnly(tc.content, string(added)) {
			t.Errorf("%s: setup changed bytes that are not its own:\n%s", tc.name, added)
		}
		s.MustWT("agent-setup", "claude", "--user")
		if again, _ := os.ReadFile(dotfiles); !bytes.Equal(again, added) {
			t.Errorf("%s: a second run changed the file:\n%s", tc.name, again)
		}
		// --user is every repository's: another one undoes it as well.
		if r := s.WTIn(other, "agent-setup", "claude", "--user", "--undo"); r.Code != 0 {
			t.Fatalf("%s: --undo from another repository: %s", tc.name, r)
		}
		if undone, _ := os.ReadFile(dotfiles); string(undone) != tc.content {
			t.Errorf("%s: --undo left\n%q\nwant\n%q", tc.name, undone, tc.content)
		}
		// --project, with .claude/ the user's own.
		s.Write(project, tc.content)
		s.MustWT("agent-setup", "claude", "--project")
		s.MustWT("agent-setup", "claude", "--project", "--undo")
		if undone, err := os.ReadFile(project); err != nil || string(undone) != tc.content {
			t.Errorf("%s: --project --undo left %q (%v)", tc.name, undone, err)
		}
	}
	// A symlink to a file not made yet: the file is made at the target,
	// and goes again with --undo; the link stays.
	os.Remove(dotfiles)
	s.MustWT("agent-setup", "claude", "--user")
	if data, _ := os.ReadFile(dotfiles); !strings.Contains(string(data), "claude-create") {
		t.Errorf("setup through a dangling symlink wrote %q at its target", data)
	}
	s.MustWT("agent-setup", "claude", "--user", "--undo")
	if st, err := os.Lstat(user); testutil.Exists(dotfiles) || err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("--undo did not give back the dangling symlink as it was")
	}
	// A file git-wt made, in a folder it made, goes with --undo; one that
	// someone changed since stays, less git-wt's entries.
	os.RemoveAll(filepath.Dir(project))
	s.MustWT("agent-setup", "claude", "--project")
	s.MustWT("agent-setup", "claude", "--project", "--undo")
	if testutil.Exists(filepath.Dir(project)) {
		t.Errorf("--undo left %s, which setup made", filepath.Dir(project))
	}
	s.MustWT("agent-setup", "claude", "--project")
	added, _ := os.ReadFile(project)
	s.Write(project, strings.Replace(string(added), "{", "{\n  \"model\": \"mine\",", 1))
	s.MustWT("agent-setup", "claude", "--project", "--undo")
	if undone, err := os.ReadFile(project); err != nil || strings.Contains(string(undone), "agent-hook") || !strings.Contains(string(undone), `"mine"`) {
		t.Errorf("--undo of a file changed since setup left %q (%v)", undone, err)
	}
}

// TestAgentSetupUndoTakesOutOnlyWhatSetupAdded: an entry the user wrote
// before setup, the same text as git-wt's, is the user's; --undo takes
// out the entries setup added (noted when it added them, over several
// runs) and the folders it made, never one that only looks like its own.
func TestAgentSetupUndoTakesOutOnlyWhatSetupAdded(t *testing.T) {
	s := testutil.NewSandbox(t)
	project := filepath.Join(s.Repo, ".claude", "settings.json")
	mine := `{"hooks": [{"type": "command", "command": "git wt agent-hook claude-status"}]}`
	s.Write(project, "{\n  \"hooks\": {\"Stop\": ["+mine+"]}\n}\n")
	s.MustWT("agent-setup", "claude", "--project")
	edit := func(path, old, new string) {
		data, _ := os.ReadFile(path)
		s.Write(path, strings.Replace(string(data), old, new, 1))
	}
	// A second run after the user took one of git-wt's entries out adds
	// it again; --undo still knows the first run's.
	data, _ := os.ReadFile(project)
	var doc map[string]map[string][]any
	json.Unmarshal(data, &doc)
	ours, _ := json.Marshal(doc["hooks"]["SessionEnd"][0])
	edit(project, `"SessionEnd": [`+string(ours)+`]`, `"SessionEnd": []`)
	if data, _ := os.ReadFile(project); strings.Contains(string(data), `"SessionEnd": [{`) {
		t.Fatalf("the test's edit did not take: %s", data)
	}
	s.MustWT("agent-setup", "claude", "--project")
	edit(project, "{", "{\n  \"model\": \"mine\",") // the file is no longer as setup left it
	s.MustWT("agent-setup", "claude", "--project", "--undo")
	undone, _ := os.ReadFile(project)
	if !strings.Contains(string(undone), mine) || !strings.Contains(string(undone), `"mine"`) {
		t.Errorf("--undo took out the user's own entry:\n%s", undone)
	}
	if strings.Count(string(undone), "agent-hook") != 1 {
		t.Errorf("--undo left git-wt's entries:\n%s", undone)
	}

	// Codex: the user's own line in the setup script stays; the
	// folders setup made go.
	env := filepath.Join(s.Repo, ".codex/environments/environment.toml")
	s.MustWT("agent-setup", "codex")
	s.MustWT("agent-setup", "codex", "--undo")
	if testutil.Exists(filepath.Join(s.Repo, ".codex")) {
		t.Errorf("--undo left .codex/, which setup made")
	}
	own := "version = 1\n\n[setup]\nscript = '''\ngit wt init --adopt\nnpm ci\n'''\n"
	s.Write(env, own)
	s.MustWT("agent-setup", "codex")
	edit(env, "version = 1\n", "version = 1\n# mine\n")
	s.MustWT("agent-setup", "codex", "--undo")
	if data, _ := os.ReadFile(env); string(data) != strings.Replace(own, "version = 1\n", "version = 1\n# mine\n", 1) {
		t.Errorf("--undo of codex left %q", data)
	}

	// OpenCode: a plugin file the user wrote, the same bytes as
	// git-wt's, stays.
	plugin := filepath.Join(s.Repo, ".opencode/plugins/git-wt.js")
	s.MustWT("agent-setup", "opencode")
	content, _ := os.ReadFile(plugin)
	s.MustWT("agent-setup", "opencode", "--undo")
	s.Write(plugin, string(content))
	s.MustWT("agent-setup", "opencode")
	s.MustWT("agent-setup", "opencode", "--undo")
	if !testutil.Exists(plugin) {
		t.Error("--undo deleted the user's own plugin file")
	}
}
