// These tests protect `new` again (SPEC §2): flags that contradict the
// existing task are a usage error naming what differs; the same base
// spelled another way is the same base.
package lifecycle

import (
	"context"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/settings"
	"github.com/git-wt/git-wt/internal/task"
)

func TestSameBase(t *testing.T) {
	rec := &record.Record{Base: "refs/heads/main", BaseSHA: "aaa"}
	for _, tc := range []struct {
		b    task.Base
		want bool
	}{
		{task.Base{Ref: "refs/heads/main", SHA: "bbb"}, true}, // the branch moved on: still its base
		{task.Base{Ref: "refs/heads/dev", SHA: "aaa"}, false},
		{task.Base{SHA: "aaa"}, true}, // a commit: the one it started from
	} {
		if got := sameBase(rec, tc.b); got != tc.want {
			t.Errorf("sameBase(%+v) = %v, want %v", tc.b, got, tc.want)
		}
	}
	if !sameBase(&record.Record{Base: "aaa", BaseSHA: "aaa"}, task.Base{SHA: "aaa"}) {
		t.Error("a task based on a commit has that commit as its base")
	}
}

func TestNewAgainNamesWhatDiffers(t *testing.T) {
	m := &Handler{Manager: &task.Manager{Settings: &settings.Settings{BaseDir: "/base"}}}
	rec := &record.Record{Task: "T", Branch: "wt/T", Path: "/base/T"}
	if err := m.checkAskedAgain(context.Background(), rec, CreateOptions{Branch: "wt/T", Path: "T"}); err != nil {
		t.Fatalf("the same branch and path are no contradiction: %v", err)
	}
	err := m.checkAskedAgain(context.Background(), rec, CreateOptions{Branch: "other", Path: "elsewhere"})
	if exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), "its branch is wt/T, not other") || !strings.Contains(err.Error(), "its path is /base/T, not elsewhere") {
		t.Fatalf("got %v; want a usage error naming the branch and the path", err)
	}
}
