package lifecycle

import (
	"context"
	"testing"

	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/settings"
	"github.com/git-wt/git-wt/internal/task"
)

// On Windows a --path in git's C:/ form, or in another case, is the
// task's path.
func TestNewAgainTakesAnotherSpellingOfThePathOnWindows(t *testing.T) {
	m := &Handler{Manager: &task.Manager{Settings: &settings.Settings{BaseDir: `C:\base`}}}
	rec := &record.Record{Task: "T", Branch: "wt/T", Path: `C:\base\T`}
	for _, p := range []string{`C:/base/T`, `c:\BASE\t`, `t`} {
		if err := m.checkAskedAgain(context.Background(), rec, CreateOptions{Path: p}); err != nil {
			t.Errorf("--path %s: %v", p, err)
		}
	}
}
