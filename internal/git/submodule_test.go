package git

import (
	"reflect"
	"testing"
)

// A submodule URL is mapped to the main worktree's module repository the
// way git 2.39 follows offline: insteadOf for a URL, the URL itself
// (for one command) for a plain path, which insteadOf does not rewrite.
func TestSubmoduleUpdateArgs(t *testing.T) {
	got := updateArgs([]ModuleSource{
		{Name: "lib", Path: "vendor/lib", URL: "https://example.com/lib.git", From: "/r/.git/modules/lib"},
		{Name: "a.b", Path: "ab", URL: "../ab", From: "/r/.git/modules/a.b"},
		{Name: "net", Path: "net", URL: "git@host:net"},
	})
	want := []string{"-c", "protocol.file.allow=always",
		"-c", "url./r/.git/modules/lib.insteadOf=https://example.com/lib.git",
		"-c", "submodule.a.b.url=/r/.git/modules/a.b",
		"submodule", "update", "--", "vendor/lib", "ab", "net"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestIsPathURL(t *testing.T) {
	for url, want := range map[string]bool{
		"/srv/lib": true, "../lib": true, "./a:b": true, "lib": true,
		"https://h/lib": false, "file:///srv/lib": false, "git@host:lib": false, "host:lib": false,
	} {
		if got := IsPathURL(url); got != want {
			t.Errorf("IsPathURL(%q) = %v", url, got)
		}
	}
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
