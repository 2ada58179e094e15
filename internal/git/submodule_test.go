package git

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode"

	"github.com/git-wt/git-wt/internal/testutil/platform"
)

// Submodules with a module repository in the main worktree are cloned
// from it, the file transport opened for that command only; the others
// from their URL in a command of their own, the file transport as the
// user's config has it. Every name goes whole into a config key of
// Cmd.Config, never into -c, which git splits at its first "=". git runs
// in the worktree's own git dir, its paths literal.
func TestSubmoduleUpdateCmds(t *testing.T) {
	at := ModuleCheckout{Dir: "/t", GitDir: "/r/.git/worktrees/t"}
	pinned := []string{"GIT_DIR=/r/.git/worktrees/t", "GIT_WORK_TREE=/t", "GIT_LITERAL_PATHSPECS=1"}
	got := updateCmds(at, []ModuleSource{
		{Name: "lib", Path: "vendor/lib", URL: "https://example.com/lib.git", From: "/r/.git/modules/lib"},
		{Name: "a.b", Path: "ab", URL: "../ab", From: "/r/.git/modules/a.b"},
		{Name: "net", Path: "net", URL: "git@host:net"},
	})
	want := []Cmd{
		{Dir: "/t", InSubmodule: true, Env: pinned, Args: []string{"submodule", "update", "--", "vendor/lib", "ab"},
			Config: []ConfigPair{{"protocol.file.allow", "always"},
				{"submodule.lib.url", "/r/.git/modules/lib"}, {"submodule.lib.active", "true"},
				{"submodule.a.b.url", "/r/.git/modules/a.b"}, {"submodule.a.b.active", "true"}}},
		{Dir: "/t", InSubmodule: true, Env: pinned, Args: []string{"submodule", "update", "--", "net"},
			Config: []ConfigPair{{"submodule.net.active", "true"}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	if got := updateCmds(at, []ModuleSource{{Name: "x", Path: "x", From: "/r/.git/modules/x"}}); len(got) != 1 {
		t.Errorf("with every submodule from the main's: %+v", got)
	}
}

// git's check_submodule_name (submodule-config.c), and what git-wt adds.
func TestCheckModuleName(t *testing.T) {
	for name, ok := range map[string]bool{
		"lib": true, "a.b": true, "vendor/lib": true, "..lib": true, "lib..": true, "a/..b": true, ".": true,
		"/abs": true, "x y": true, "é": true,
		"": false, "..": false, "../x": false, "a/../b": false, "a/..": false, `..\x`: false, `a\..\b`: false,
		"lib.update=!touch PWNED #": false, "a=b": false,
		"a\nb": false, "a\rb": false, "a\tb": false, "e\x1b[2J": false, "del\x7f": false, "c1\u0085": false,
	} {
		if err := CheckModuleName(name); (err == nil) != ok {
			t.Errorf("CheckModuleName(%q) = %v", name, err)
		}
	}
}

// A name CheckModuleName lets through is safe where git-wt puts it: in a
// path under the main's modules folder it stays there, and in a config
// key and on a terminal line it is one piece.
func FuzzCheckModuleName(f *testing.F) {
	for _, seed := range []string{"lib", "a.b/c", "../x", `a\..`, "a=b", "a\nb", "..."} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if CheckModuleName(name) != nil {
			return
		}
		base := filepath.Join("/r", ".git", "modules")
		if rel, err := filepath.Rel(base, filepath.Join(base, name)); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			t.Errorf("%q leaves the modules folder: %q", name, rel)
		}
		if name == "" || strings.ContainsAny(name, "=\n\r\x00") || strings.IndexFunc(name, unicode.IsControl) >= 0 {
			t.Errorf("%q was let through", name)
		}
	})
}

// Submodule names may hold dots: the name is all between "submodule."
// and the field.
func TestParseSubmoduleKeys(t *testing.T) {
	out := "submodule.lib.path\nvendor/lib\x00submodule.a.b.path\nab\x00submodule.x.url\nnope\x00"
	got := parseKeys(out, "path")
	want := map[string]string{"lib": "vendor/lib", "a.b": "ab"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// A module repository is looked for only under <git dir>/modules, and only
// for a name git-wt uses: ../x, which exists beside modules, is none.
func TestModuleStore(t *testing.T) {
	gitDir := t.TempDir()
	for _, dir := range []string{"modules/lib", "x"} {
		if err := os.MkdirAll(filepath.Join(gitDir, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range map[string]string{"lib": filepath.Join(gitDir, "modules", "lib"), "../x": "", "other": "", "a=b": ""} {
		if got := ModuleStore(gitDir, name); got != want {
			t.Errorf("ModuleStore(%q) = %q, want %q", name, got, want)
		}
	}
	if got := ModuleStore("", "lib"); got != "" {
		t.Errorf("with no git dir: %q", got)
	}
}

// A submodule path from .gitmodules must lead below the worktree, and
// not be the worktree itself.
func TestCheckModulePath(t *testing.T) {
	for p, ok := range map[string]bool{
		"lib": true, "vendor/lib": true, "a.b/c": true, "..lib": true, "lib..": true, ".lib": true, "*": true, ":(top)x": true,
		"": false, ".": false, "..": false, "../x": false, "a/../b": false, "a/..": false, "./a": false, "a/./b": false,
		"a//b": false, "a/": false, "/abs": false, "/": false,
	} {
		if err := CheckModulePath(p); (err == nil) != ok {
			t.Errorf("CheckModulePath(%q) = %v", p, err)
		}
	}
}

// Only an entry that is a gitlink, at exactly a path asked for, is one.
func TestParseGitlinks(t *testing.T) {
	out := "160000 commit 1111111111111111111111111111111111111111\tlib\x00" +
		"120000 blob 2222222222222222222222222222222222222222\tevil\x00" +
		"040000 tree 3333333333333333333333333333333333333333\tdir\x00" +
		"160000 commit 4444444444444444444444444444444444444444\tvendor/x y\x00" +
		"160000 commit 5555555555555555555555555555555555555555\tother\x00"
	got := parseGitlinks(out, []string{"lib", "evil", "dir", "vendor/x y", "gone"})
	want := map[string]bool{"lib": true, "vendor/x y": true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// A submodule's git dir is where git's submodule update puts it, below
// the proven git dir of its parent, through no link.
func TestModuleGitDir(t *testing.T) {
	platform.RequireSymlinks(t)
	parent, outside := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(parent, "modules", "lib"), 0o755)
	os.MkdirAll(filepath.Join(parent, "modules", "real", "x"), 0o755)
	os.MkdirAll(filepath.Join(outside, "x"), 0o755)
	os.Symlink(outside, filepath.Join(parent, "modules", "out"))
	os.Symlink("real", filepath.Join(parent, "modules", "in"))
	for name, ok := range map[string]bool{
		"lib": true, "real/x": true, "out": false, "out/x": false, "in/x": false, "gone": false, "../modules/lib": false, "": false,
	} {
		dir, err := ModuleGitDir(parent, name)
		if (err == nil) != ok {
			t.Errorf("ModuleGitDir(%q) = %q, %v", name, dir, err)
		}
		if err == nil && dir != filepath.Join(parent, "modules", filepath.FromSlash(name)) {
			t.Errorf("ModuleGitDir(%q) = %q", name, dir)
		}
	}
}

// A worktree's admin dir is the one git's own files tie to it: a .git
// file that names another folder (another repository's, or this one's
// of another worktree) is not believed.
func TestWorktreeGitDir(t *testing.T) {
	root := t.TempDir()
	common := filepath.Join(root, "repo", ".git")
	admin := filepath.Join(common, "worktrees", "t")
	wt := filepath.Join(root, "t")
	other := filepath.Join(root, "other", ".git")
	for _, d := range []string{admin, wt, filepath.Join(common, "worktrees", "u"), filepath.Join(other, "worktrees", "t")} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(admin, "commondir"), []byte("../..\n"), 0o644)
	os.WriteFile(filepath.Join(admin, "gitdir"), []byte(filepath.Join(wt, ".git")+"\n"), 0o644)
	os.WriteFile(filepath.Join(common, "worktrees", "u", "commondir"), []byte("../..\n"), 0o644)
	os.WriteFile(filepath.Join(common, "worktrees", "u", "gitdir"), []byte(filepath.Join(root, "u", ".git")+"\n"), 0o644)
	os.WriteFile(filepath.Join(other, "worktrees", "t", "commondir"), []byte("../..\n"), 0o644)
	os.WriteFile(filepath.Join(other, "worktrees", "t", "gitdir"), []byte(filepath.Join(wt, ".git")+"\n"), 0o644)
	for _, c := range []struct {
		gitFile string
		ok      bool
	}{
		{"gitdir: " + admin, true},
		{"gitdir: ../repo/.git/worktrees/t", true},
		{"gitdir: " + filepath.Join(common, "worktrees", "u"), false}, // points back elsewhere
		{"gitdir: " + filepath.Join(other, "worktrees", "t"), false},  // another repository's
		{"gitdir: " + common, false},
		{"gitdir: /", false},
		{"not a git file", false},
	} {
		os.WriteFile(filepath.Join(wt, ".git"), []byte(c.gitFile+"\n"), 0o644)
		got, err := WorktreeGitDir(wt, common)
		if (err == nil) != c.ok || (c.ok && got != admin) {
			t.Errorf("%q: %q, %v", c.gitFile, got, err)
		}
	}
}
