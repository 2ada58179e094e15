package workflow

import (
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/record"
)

// stack makes records from "slug:base-slug" pairs ("" base: main).
func stack(pairs ...string) []record.Entry {
	var all []record.Entry
	for _, p := range pairs {
		slug, base, _ := strings.Cut(p, ":")
		ref := "refs/heads/main"
		if base != "" {
			ref = "refs/heads/wt/" + base
		}
		all = append(all, record.Entry{Slug: slug, Record: &record.Record{Task: slug, Slug: slug, Branch: "wt/" + slug, Base: ref}})
	}
	return all
}

func slugs(es []*record.Entry) string {
	var s []string
	for _, e := range es {
		s = append(s, e.Slug)
	}
	return strings.Join(s, ",")
}

func TestSyncOrderPutsParentsFirst(t *testing.T) {
	all := stack("c:b", "x:", "b:a", "a:")
	pick := func(names ...string) []*record.Entry {
		var out []*record.Entry
		for _, n := range names {
			for i := range all {
				if all[i].Slug == n {
					out = append(out, &all[i])
				}
			}
		}
		return out
	}
	for _, tc := range []struct{ given, want string }{
		{"c,x,b,a", "a,b,c,x"},
		{"c,a", "a,c"}, // b is not synced: c still after a
		{"x", "x"},
		{"b,c", "b,c"},
	} {
		got, err := syncOrder(pick(strings.Split(tc.given, ",")...), all)
		if err != nil || slugs(got) != tc.want {
			t.Errorf("syncOrder(%s) = %s, %v; want %s", tc.given, slugs(got), err, tc.want)
		}
	}
}

func TestSyncOrderRefusesACycle(t *testing.T) {
	all := stack("a:c", "b:a", "c:b", "d:")
	_, err := syncOrder([]*record.Entry{&all[3], &all[1]}, all)
	if exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), "a, b, c") {
		t.Errorf("a cycle: %v", err)
	}
}
