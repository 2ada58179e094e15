// These tests protect how records under refs/wt/ (an earlier git-wt) are
// told apart: a slug under refs/git-wt/tasks/ is the task, one only under
// refs/wt/ is a task still to move.
package record

import (
	"reflect"
	"testing"

	"github.com/git-wt/git-wt/internal/git"
)

func TestSlugOf(t *testing.T) {
	for _, c := range []struct {
		ref          string
		slug         string
		legacy, isOK bool
	}{
		{"refs/git-wt/tasks/T-1", "T-1", false, true},
		{"refs/wt/T-1", "T-1", true, true},
		{"refs/heads/wt/T-1", "", false, false},
		{"refs/git-wt/pool/x", "", false, false},
	} {
		slug, legacy, ok := SlugOf(c.ref)
		if slug != c.slug || legacy != c.legacy || ok != c.isOK {
			t.Errorf("SlugOf(%q) = %q, %v, %v", c.ref, slug, legacy, ok)
		}
	}
}

func TestSortLegacy(t *testing.T) {
	refs := []git.Ref{
		{Name: "refs/git-wt/tasks/a", OID: "1"},
		{Name: "refs/wt/a", OID: "2"}, // shadowed: a is under refs/git-wt/tasks/
		{Name: "refs/wt/b", OID: "3"}, // a task still to move
	}
	var s Store
	live := s.sortLegacy(refs)
	if want := []git.Ref{refs[0], refs[2]}; !reflect.DeepEqual(live, want) {
		t.Errorf("records read = %v, want %v", live, want)
	}
	if want := []git.Ref{refs[1], refs[2]}; !reflect.DeepEqual(s.LegacyRefs(), want) {
		t.Errorf("LegacyRefs = %v, want %v", s.LegacyRefs(), want)
	}
}
