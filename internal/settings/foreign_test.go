package settings

import (
	"reflect"
	"testing"
)

// k1LoW's {gitroot} is the repository's folder name, wherever it stands.
func TestExpandGitroot(t *testing.T) {
	for _, c := range []struct{ dir, want string }{
		{"../{gitroot}-wt", "../app-wt"},
		{"~/wt/{gitroot}", "~/wt/app"},
		{"{gitroot}/{gitroot}", "app/app"},
		{"../worktrees", "../worktrees"},
		{"", ""},
	} {
		if got := expandGitroot(c.dir, "/src/app"); got != c.want {
			t.Errorf("expandGitroot(%q) = %q, want %q", c.dir, got, c.want)
		}
	}
}

// Only the keys of k1LoW's that are set are named, whatever their case.
func TestForeignNamesTheKeysSet(t *testing.T) {
	s := &Settings{values: map[string][]Value{
		"wt.copyignored": {{Value: "true"}},
		"wt.nocd":        {{Value: "true"}},
		"wt.copy":        {{Value: ".env"}},
	}}
	var keys []string
	for _, k := range s.Foreign() {
		keys = append(keys, k.Key)
		if k.Instead == "" {
			t.Errorf("%s has no equivalent", k.Key)
		}
	}
	if want := []string{"wt.copyignored", "wt.nocd"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("Foreign() = %v, want %v", keys, want)
	}
}

// k1LoW's keys run nothing: a kept config listing holds them, so that a
// new answered from it still names them.
func TestForeignKeysAreKeptInTheListing(t *testing.T) {
	for _, k := range foreignKeys {
		if !keptInCache("wt." + k.name) {
			t.Errorf("wt.%s is not kept in the config listing", k.name)
		}
	}
}
