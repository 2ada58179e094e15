package madeby

import "testing"

// On Windows the runners keep their folders in the user's profile
// (USERPROFILE, what os.UserHomeDir answers there; HOME is usually unset),
// and git, Go and the user spell one path several ways.
func TestWindowsHomeIsTheProfileAndPathsMatchInEverySpelling(t *testing.T) {
	env := EnvFrom(func(k string) string {
		return map[string]string{"USERPROFILE": `C:\Users\u`}[k]
	}, false)
	main := `C:\Users\u\src\app`
	for _, path := range []string{
		`C:\Users\u\.cursor\worktrees\app\k3j`,
		`C:/Users/u/.cursor/worktrees/app/k3j`, // git's spelling
		`c:\users\U\.Cursor\worktrees\app\k3j`, // NTFS folds case, whatever core.ignorecase says
		`\\?\C:\Users\u\.cursor\worktrees\app\k3j`,
	} {
		if got := Of(Worktree{Path: path, Main: main}, env); got != Cursor {
			t.Errorf("Of(%s) = %s, want cursor (home %q)", path, got, env.Home)
		}
	}
	if got := Of(Worktree{Path: `C:\Users\u\.cursor\worktrees-old\app\k3j`, Main: main}, env); got != Git {
		t.Errorf("a folder named with the root's text as a prefix: %s, want git", got)
	}
}
