// These tests protect which of the folders git ignores gc --reclaim
// deletes (SPEC §20): only those wt.reclaim names, the outermost of
// nested ones, whatever the order git lists them in.
package inspect

import (
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestMatchReclaim(t *testing.T) {
	names := []string{"node_modules", "target", ".venv", "build"}
	for _, tc := range []struct {
		name    string
		ignored []string
		want    []string
	}{
		{"top-level and a nested package's", []string{"node_modules", "packages/a/node_modules"}, []string{"node_modules", "packages/a/node_modules"}},
		{"a match inside a match goes with it", []string{"packages/a/node_modules/x/node_modules", "packages/a/node_modules"}, []string{"packages/a/node_modules"}},
		{"a build inside a target", []string{"target/build", "target"}, []string{"target"}},
		{"a name wt.reclaim does not name", []string{"vendor", "coverage", "node_modules_old", "my-target"}, nil},
		{"a folder named like a match's parent is no parent", []string{"node_modules-x/target", "node_modules"}, []string{"node_modules", "node_modules-x/target"}},
		{"the name is the folder's own, not a parent's", []string{"node_modules/x", "build/cache"}, nil},
		{"trailing slashes as git writes folders", []string{".venv/", "a/build/"}, []string{".venv", "a/build"}},
		{"a folder inside a non-matching ignored one", []string{"out/target"}, []string{"out/target"}},
		{"names are exact", []string{"Node_Modules", "TARGET"}, nil},
		{"nothing ignored", nil, nil},
		{"paths git would not write", []string{"../node_modules", "/abs/target", "./build/", "a//.venv"}, []string{"a/.venv", "build"}},
	} {
		if got := MatchReclaim(tc.ignored, names); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: MatchReclaim(%q) = %q, want %q", tc.name, tc.ignored, got, tc.want)
		}
	}
	if got := MatchReclaim([]string{"node_modules"}, nil); got != nil {
		t.Errorf("an empty wt.reclaim matches nothing, got %q", got)
	}
}

// Whatever names git lists (a branch's folders can be named anything),
// MatchReclaim returns only folders git listed, named in wt.reclaim, none
// inside another.
func FuzzMatchReclaim(f *testing.F) {
	f.Add("node_modules\x00packages/a/node_modules/\x00target/build\x00target")
	f.Add("../node_modules\x00/abs/target\x00a//build\x00./.venv/\x00node_modules/node_modules")
	f.Add("")
	names := []string{"node_modules", "target", ".venv", "build"}
	f.Fuzz(func(t *testing.T, listing string) {
		ignored := strings.Split(listing, "\x00")
		got := MatchReclaim(ignored, names)
		listed := map[string]bool{}
		for _, p := range ignored {
			listed[path.Clean(p)] = true
		}
		for _, p := range got {
			if !listed[p] || !slices.Contains(names, path.Base(p)) || !filepath.IsLocal(p) {
				t.Fatalf("MatchReclaim(%q) returned %q", ignored, p)
			}
			for _, q := range got {
				if q != p && strings.HasPrefix(p, q+"/") {
					t.Fatalf("MatchReclaim(%q) returned %q inside %q", ignored, p, q)
				}
			}
		}
	})
}
