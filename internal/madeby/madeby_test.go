// These tests protect SPEC §20's "who made it": each tool's documented
// layout names it, and a path that only looks like one (a prefix as text,
// a folder of the same name elsewhere, a shallower depth) names plain git.
package madeby

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil/platform"
)

// The tables write paths the unix way; platform.Abs makes each the
// system's (on Windows C:\home\u).

func TestOfNamesEachToolByItsDocumentedLayout(t *testing.T) {
	home, main := platform.Abs("/home/u"), platform.Abs("/home/u/src/app")
	env := Env{Home: home}
	codexEnv := Env{Home: home, CodexHome: platform.Abs("/opt/codex")}
	for _, c := range []struct {
		name string
		w    Worktree
		env  Env
		want Maker
	}{
		{"a task record", Worktree{Path: "/home/u/src/app-worktrees/t", Own: true}, env, GitWT},
		{"git-wt's own wins over a runner's root", Worktree{Path: "/home/u/.codex/worktrees/ab12/app", Own: true}, env, GitWT},
		{"plain git beside the repository", Worktree{Path: "/home/u/src/other", Branch: "x"}, env, Git},
		{"the main worktree", Worktree{Path: main, Branch: "main"}, env, Git},

		{"claude", Worktree{Path: main + "/.claude/worktrees/feature-auth", Branch: "worktree-feature-auth"}, env, Claude},
		{"claude: the folder itself", Worktree{Path: main + "/.claude/worktrees"}, env, Git},
		{"claude: a .claude folder of another repository", Worktree{Path: "/home/u/src/other/.claude/worktrees/x"}, env, Git},
		{"claude: a .claude folder deeper in this one", Worktree{Path: main + "/sub/.claude/worktrees/x"}, env, Git},

		{"codex, default home", Worktree{Path: "/home/u/.codex/worktrees/ab12/app"}, env, Codex},
		{"codex: the prefix as text only", Worktree{Path: "/home/u/.codex/worktreesX/ab12/app"}, env, Git},
		{"codex: the root itself", Worktree{Path: "/home/u/.codex/worktrees"}, env, Git},
		{"codex under CODEX_HOME", Worktree{Path: "/opt/codex/worktrees/ab12/app"}, codexEnv, Codex},
		{"codex: CODEX_HOME set, the default is not Codex's", Worktree{Path: "/home/u/.codex/worktrees/ab12/app"}, codexEnv, Git},
		{"codex: a relative CODEX_HOME names nothing", Worktree{Path: "/home/u/rel/worktrees/x"}, Env{Home: home, CodexHome: "rel"}, Git},

		{"cursor", Worktree{Path: "/home/u/.cursor/worktrees/app/k3j"}, env, Cursor},
		{"cursor: the prefix as text only", Worktree{Path: "/home/u/.cursor/worktrees-old/app/k3j"}, env, Git},
		{"conductor", Worktree{Path: "/home/u/conductor/workspaces/app/warsaw"}, env, Conductor},
		{"conductor: another user's home", Worktree{Path: "/home/v/conductor/workspaces/app/warsaw"}, env, Git},

		{"gwq", Worktree{Path: "/home/u/worktrees/github.com/o/app/feature-x"}, env, Gwq},
		{"gwq: not its template's depth", Worktree{Path: "/home/u/worktrees/app/feature-x"}, env, Git},

		{"copilot", Worktree{Path: "/home/u/src/app.worktrees/copilot-worktree-2026-06-09T07-53-51", Branch: "copilot-worktree-2026-06-09T07-53-51"}, env, Copilot},
		{"copilot by its branch, with a branch prefix", Worktree{Path: "/tmp/elsewhere", Branch: "me/copilot-worktree-2026-06-09T07-53-51"}, env, Copilot},
		{"copilot by its folder, detached", Worktree{Path: "/home/u/src/app.worktrees/copilot-worktree-2026-06-09T07-53-51"}, env, Copilot},
		{"copilot: another folder in <main>.worktrees", Worktree{Path: "/home/u/src/app.worktrees/feature", Branch: "feature"}, env, Git},

		{"workmux", Worktree{Path: "/home/u/src/app__worktrees/user-auth", Branch: "user-auth"}, env, Workmux},
		{"workmux: another repository's folder", Worktree{Path: "/home/u/src/apps__worktrees/user-auth"}, env, Git},
		{"workmux: nested deeper", Worktree{Path: "/home/u/src/app__worktrees/a/b"}, env, Git},

		{"worktrunk", Worktree{Path: "/home/u/src/app.feature-auth", Branch: "feature/auth"}, env, Worktrunk},
		{"worktrunk: the folder does not name the branch", Worktree{Path: "/home/u/src/app.backup", Branch: "feature/auth"}, env, Git},
		{"worktrunk: detached", Worktree{Path: "/home/u/src/app.feature-auth"}, env, Git},
		{"worktrunk: not beside the main worktree", Worktree{Path: "/home/u/app.feature-auth", Branch: "feature/auth"}, env, Git},

		{"no home: the home rules are off", Worktree{Path: "/home/u/.codex/worktrees/ab12/app"}, Env{}, Git},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := c.w
			if w.Main == "" {
				w.Main = main
			}
			w.Path = platform.Abs(w.Path)
			if got := Of(w, c.env); got != c.want {
				t.Errorf("Of(%+v) = %s, want %s", w, got, c.want)
			}
		})
	}
}

func TestPathsAreComparedCleanedAndFoldedOnlyWhereTheFileSystemFolds(t *testing.T) {
	home := platform.Abs("/home/u")
	w := Worktree{Path: platform.Abs("/home/u/.codex/./worktrees//ab12/app/"), Main: platform.Abs("/home/u/src/app")}
	if got := Of(w, Env{Home: platform.Abs("/home/u/")}); got != Codex {
		t.Errorf("an uncleaned path: %s, want codex", got)
	}
	w.Path = platform.Abs("/home/u/.Codex/Worktrees/ab12/app")
	// Windows' file systems fold case whatever core.ignorecase says
	// (fsutil.PathKey).
	if got, want := Of(w, Env{Home: home}), map[bool]Maker{false: Git, true: Codex}[runtime.GOOS == "windows"]; got != want {
		t.Errorf("another case without core.ignorecase: %s, want %s", got, want)
	}
	if got := Of(w, Env{Home: home, Fold: true}); got != Codex {
		t.Errorf("another case where the file system folds: %s, want codex", got)
	}
}

func TestFoldsOnlyOnMacOSAndWindowsWhereGitSaysSo(t *testing.T) {
	for _, c := range []struct {
		goos       string
		ignoreCase bool
		want       bool
	}{
		{"darwin", true, true}, {"windows", true, true}, {"darwin", false, false},
		{"linux", true, false}, {"freebsd", true, false},
	} {
		if got := Folds(c.goos, c.ignoreCase); got != c.want {
			t.Errorf("Folds(%s, %v) = %v, want %v", c.goos, c.ignoreCase, got, c.want)
		}
	}
}

func TestRootsAreTheRunnersDocumentedFolders(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  Env
		want []string
	}{
		{"defaults", Env{Home: "/h"}, []string{
			"codex /h/.codex/worktrees", "cursor /h/.cursor/worktrees",
			"conductor /h/conductor/workspaces", "gwq /h/worktrees"}},
		{"CODEX_HOME", Env{Home: "/h", CodexHome: "/c"}, []string{
			"codex /c/worktrees", "cursor /h/.cursor/worktrees",
			"conductor /h/conductor/workspaces", "gwq /h/worktrees"}},
		{"a relative CODEX_HOME names nothing", Env{Home: "/h", CodexHome: "c"}, []string{
			"cursor /h/.cursor/worktrees", "conductor /h/conductor/workspaces", "gwq /h/worktrees"}},
		{"no home", Env{CodexHome: "/c"}, []string{"codex /c/worktrees"}},
		{"a relative home names nothing", Env{Home: "h"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := Env{Home: platform.Abs(tc.env.Home), CodexHome: platform.Abs(tc.env.CodexHome)}
			var got []string
			for _, r := range Roots(env) {
				got = append(got, fmt.Sprint(r.Maker, " ", r.Path))
			}
			for i, root := range tc.want {
				maker, path, _ := strings.Cut(root, " ")
				tc.want[i] = maker + " " + platform.Abs(path)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("Roots = %q, want %q", got, tc.want)
			}
		})
	}
}
