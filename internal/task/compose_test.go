package task

import (
	"regexp"
	"strings"
	"testing"
)

// Compose project names: what Compose allows, one per task and clone.
func TestComposeProject(t *testing.T) {
	valid := regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*-[0-9a-f]{8}$`)
	for _, c := range []struct{ repo, slug, prefix string }{
		{"app", "fix-login", "app-fix-login-"},
		{"app", "fix_login-2", "app-fix_login-2-"},
		{"App", "x", "app-x-"},
		{"app", "Foo", "app-foo-"},
		{"my.app", "a.b", "my-app-a-b-"},
		{"_app", "t", "app-t-"},
		{"app", "über", "app--ber-"},
		{"app", "x.", "app-x-"},
	} {
		got := ComposeProject("/src/app/.git", c.repo, c.slug)
		if !valid.MatchString(got) || !strings.HasPrefix(got, c.prefix) {
			t.Errorf("ComposeProject(%q, %q) = %q, want %q and 8 hex digits", c.repo, c.slug, got, c.prefix)
		}
	}
	if ComposeProject("/src/app/.git", "app", "a.b") == ComposeProject("/src/app/.git", "app", "a-b") {
		t.Error("two slugs that reduce alike share a project")
	}
	if ComposeProject("/src/app/.git", "app", "t") == ComposeProject("/tmp/copy/app/.git", "app", "t") {
		t.Error("one task of two clones shares a project")
	}
}
