package git

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil/platform"
)

func TestConfigFileKeys(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		keys       string // joined by " "; "ERR" for an error
	}{
		{"git's sparse settings", "[core]\n\tsparseCheckout = true\n\tsparseCheckoutCone = true\n", "core.sparsecheckout core.sparsecheckoutcone"},
		{"empty", "", ""},
		{"comments and blank lines", "# a\n; b\n\n[index]\n\tsparse = true ; why\n", "index.sparse"},
		{"subsection kept as written", "[remote \"Origin\"]\n\turl = x\n", "remote.Origin.url"},
		{"old subsection syntax", "[Filter.X]\n\tclean = cat\n", "filter.x.clean"},
		{"key without value", "[core]\n\tbare\n", "core.bare"},
		{"no spaces", "[core]\nfsmonitor=x\n", "core.fsmonitor"},
		{"continued value hides nothing", "[core]\n\tsparseCheckout = a\\\n\tfsmonitor = b\n\tpager = c\n", "core.sparsecheckout core.pager"},
		{"even backslashes end the value", "[core]\n\tsparseCheckout = a\\\\\n\tfsmonitor = b\n", "core.sparsecheckout core.fsmonitor"},
		{"key on the header's line", "[core] fsmonitor = x\n", "ERR"},
		{"key outside a section", "fsmonitor = x\n", "ERR"},
		{"escaped subsection", "[remote \"a\\\"b\"]\n\turl = x\n", "ERR"},
		{"odd key name", "[core]\n\tfs.monitor = x\n", "ERR"},
		{"unclosed header", "[core\n\tfsmonitor = x\n", "ERR"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keys, err := configFileKeys([]byte(tc.file))
			got := strings.Join(keys, " ")
			if err != nil {
				got = "ERR"
			}
			if got != tc.keys {
				t.Errorf("got %q (%v), want %q", got, err, tc.keys)
			}
		})
	}
}

func TestCheckGitDirConfig(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string // path under the common dir: content
		git   string            // the git dir git-wt started in, under the common dir ("" for the common dir)
		bad   string            // the file refused, "" when none is
		key   string
	}{
		{name: "nothing"},
		{name: "sparse settings", files: map[string]string{
			"config.worktree":             "[core]\n\tsparseCheckout = false\n",
			"worktrees/a/config.worktree": "[core]\n\tsparseCheckout = true\n\tsparseCheckoutCone = true\n[index]\n\tsparse = true\n"}},
		{name: "fsmonitor in a task's config.worktree", files: map[string]string{
			"worktrees/a/config.worktree": "[core]\n\tfsmonitor = touch x\n"}, bad: "worktrees/a/config.worktree", key: "core.fsmonitor"},
		{name: "wt.trusted in the main config.worktree", files: map[string]string{
			"config.worktree": "[wt]\n\ttrusted = true\n"}, bad: "config.worktree", key: "wt.trusted"},
		{name: "unreadable config.worktree", files: map[string]string{
			"config.worktree": "[core] fsmonitor = x\n"}, bad: "config.worktree"},
		{name: "a submodule's usual config", files: map[string]string{
			"modules/lib/HEAD":   "ref: refs/heads/main\n",
			"modules/lib/config": "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ../../../lib\n[remote \"origin\"]\n\turl = /x\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n"}},
		{name: "fsmonitor in a task's submodule", files: map[string]string{
			"worktrees/a/modules/lib/HEAD":   "x",
			"worktrees/a/modules/lib/config": "[core]\n\tfsmonitor = touch x\n"}, bad: "worktrees/a/modules/lib/config", key: "core.fsmonitor"},
		{name: "a clean filter in a nested submodule with a '/' in its name", files: map[string]string{
			"modules/a/b/HEAD":             "x",
			"modules/a/b/config":           "",
			"modules/a/b/modules/c/HEAD":   "x",
			"modules/a/b/modules/c/config": "[filter \"x\"]\n\tclean = touch x\n",
			"modules/a/b/objects/00/00000": "[core]\n\tfsmonitor = not a config\n"}, bad: "modules/a/b/modules/c/config", key: "filter.x.clean"},
		{name: "a diff driver in a submodule", files: map[string]string{
			"modules/lib/HEAD":   "x",
			"modules/lib/config": "[diff \"x\"]\n\ttextconv = touch x\n"}, bad: "modules/lib/config", key: "diff.x.textconv"},
		{name: "a submodule's config.worktree", files: map[string]string{
			"modules/lib/HEAD":            "x",
			"modules/lib/config":          "[extensions]\n\tworktreeConfig = true\n",
			"modules/lib/config.worktree": "[core]\n\tfsmonitor = touch x\n"}, bad: "modules/lib/config.worktree", key: "core.fsmonitor"},
		{name: "a submodule's commondir", files: map[string]string{
			"modules/lib/HEAD":      "x",
			"modules/lib/commondir": "/elsewhere\n"}, bad: "modules/lib/commondir"},
		{name: "commondir in the common dir", files: map[string]string{"commondir": "/elsewhere\n"}, bad: "commondir"},
		{name: "commondir in a task's entry", files: map[string]string{"worktrees/a/commondir": "../..\n"}, git: "worktrees/a"},
		{name: "commondir in a git dir that is no entry", files: map[string]string{"other/commondir": "..\n"}, git: "other", bad: "other/commondir"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			common := t.TempDir()
			for name, content := range tc.files {
				path := filepath.Join(common, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			err := CheckGitDirConfig(filepath.Join(common, tc.git), common)
			var unsafe *UnsafeGitDirError
			if tc.bad == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !errors.As(err, &unsafe) || unsafe.Path != filepath.Join(common, filepath.FromSlash(tc.bad)) || unsafe.Key != tc.key {
				t.Fatalf("got %v, want %s refused for %q", err, tc.bad, tc.key)
			}
		})
	}
}

func TestCheckGitDirConfigRefusesALinkedSubmoduleGitDir(t *testing.T) {
	platform.RequireSymlinks(t)
	common, elsewhere := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(elsewhere, "config"), []byte("[core]\n\tfsmonitor = touch x\n"), 0o644)
	os.MkdirAll(filepath.Join(common, "modules"), 0o755)
	if err := os.Symlink(elsewhere, filepath.Join(common, "modules", "lib")); err != nil {
		t.Fatal(err)
	}
	var unsafe *UnsafeGitDirError
	if err := CheckGitDirConfig(common, common); !errors.As(err, &unsafe) || unsafe.Path != filepath.Join(common, "modules", "lib") {
		t.Fatalf("a linked submodule git dir: %v", err)
	}
}

func TestReadOnlyAllowed(t *testing.T) {
	for key, want := range map[string]bool{
		"remote.origin.url": true, "core.editor": true, "core.fsmonitor": true, // turned off by Runner.ReadOnly
		"log.showsignature": true, "diff.renames": true, "merge.conflictstyle": true, "lfs.url": true,
		"filter.lfs.process": false, "filter.x.clean": false, "filter.x.required": false,
		"merge.x.driver": false, "diff.external": false, "diff.x.textconv": false, "diff.x.command": false,
		"include.path": false, "includeif.gitdir:/x/.path": false,
	} {
		if got := readOnlyAllowed(key); got != want {
			t.Errorf("readOnlyAllowed(%q) = %v, want %v", key, got, want)
		}
	}
}
