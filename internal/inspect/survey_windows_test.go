package inspect

import (
	"testing"

	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/madeby"
	"github.com/git-wt/git-wt/internal/place"
	"github.com/git-wt/git-wt/internal/settings"
	"github.com/git-wt/git-wt/internal/task"
)

// git lists the main worktree in its own spelling (its real path), the
// repository was found in the user's (the folder as typed, another case,
// a long path's \\?\): the main worktree is main in every one, never a
// worktree list --all and list --machine judge removable.
func TestTheMainWorktreeIsMainInEverySpelling(t *testing.T) {
	repo := &git.Repo{MainDir: `C:\src\app`, CommonDir: `C:\src\app\.git`}
	in := New(&task.Manager{Repo: repo, Place: &place.Rules{Repo: repo, Settings: &settings.Settings{}}}, nil)
	for _, path := range []string{`C:\src\app`, `C:\SRC\App`, `c:\src\app`, `\\?\C:\src\app`} {
		if f := in.cheapFacts(git.Worktree{Path: path}, nil, madeby.Env{}); !f.Main {
			t.Errorf("%s is not the main worktree %s", path, repo.MainDir)
		}
	}
}
