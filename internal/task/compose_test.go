package task

import (
	"regexp"
	"testing"
)

// Compose project names: what Compose allows, one per task.
func TestComposeProject(t *testing.T) {
	valid := regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)
	for _, c := range []struct{ repo, slug, want string }{
		{"app", "fix-login", "app-fix-login"},
		{"app", "fix_login-2", "app-fix_login-2"},
		{"App", "x", "app-x-2d711642"},
		{"app", "Foo", "app-foo-1cbec737"},
		{"app", "foo", "app-foo"},
		{"my.app", "a.b", "my-app-a-b-2e7336dc"},
		{"_app", "t", "app-t-e3b98a4d"},
		{"app", "über", "app--ber-b51c8541"},
	} {
		got := ComposeProject(c.repo, c.slug)
		if !valid.MatchString(got) {
			t.Errorf("ComposeProject(%q, %q) = %q: not a Compose project name", c.repo, c.slug, got)
		}
		if c.want != "" && got != c.want {
			t.Errorf("ComposeProject(%q, %q) = %q, want %q", c.repo, c.slug, got, c.want)
		}
	}
	if ComposeProject("app", "a.b") == ComposeProject("app", "a-b") {
		t.Error("two slugs that reduce alike share a project")
	}
}
