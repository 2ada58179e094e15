package git

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode"
)

// Submodules with a module repository in the main worktree are cloned
// from it, the file transport opened for that command only; the others
// from their URL in a command of their own, the file transport as the
// user's config has it. Every name goes whole into a config key of
// Cmd.Config, never into -c, which git splits at its first "=".
func TestSubmoduleUpdateCmds(t *testing.T) {
	got := updateCmds("/t", true, []ModuleSource{
		{Name: "lib", Path: "vendor/lib", URL: "https://example.com/lib.git", From: "/r/.git/modules/lib"},
		{Name: "a.b", Path: "ab", URL: "../ab", From: "/r/.git/modules/a.b"},
		{Name: "net", Path: "net", URL: "git@host:net"},
	})
	want := []Cmd{
		{Dir: "/t", InWorktree: true, Args: []string{"submodule", "update", "--", "vendor/lib", "ab"},
			Config: []ConfigPair{{"protocol.file.allow", "always"},
				{"submodule.lib.url", "/r/.git/modules/lib"}, {"submodule.lib.active", "true"},
				{"submodule.a.b.url", "/r/.git/modules/a.b"}, {"submodule.a.b.active", "true"}}},
		{Dir: "/t", InWorktree: true, Args: []string{"submodule", "update", "--", "net"},
			Config: []ConfigPair{{"submodule.net.active", "true"}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	if got := updateCmds("/t", true, []ModuleSource{{Name: "x", Path: "x", From: "/r/.git/modules/x"}}); len(got) != 1 {
		t.Errorf("with every submodule from the main's: %+v", got)
	}
	// Below the top, dir is a submodule's folder: no task worktree to
	// prove, git only kept from the worktree around it.
	if got := updateCmds("/t/sub", false, []ModuleSource{{Name: "x", Path: "x"}}); len(got) != 1 || got[0].InWorktree || !got[0].InSubmodule {
		t.Errorf("in a submodule: %+v", got)
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
