// These tests protect the discovery of repositories under the agent
// runners' worktree roots (SPEC §20): every .git there is another
// program's file (SPEC §19), and only one whose repository's own files
// point back at it counts; nothing is followed through a link.
package machine

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/madeby"
	"github.com/git-wt/git-wt/internal/testutil/githome"
)

// roots are the runners' roots in this test's home folder.
func roots() []madeby.Root { return madeby.Roots(madeby.EnvFrom(os.Getenv, false)) }

// repoWithWorktree makes a repository at main with one commit and a
// linked worktree at wt; it returns the common dir.
func repoWithWorktree(t *testing.T, main, wt string) string {
	t.Helper()
	os.MkdirAll(filepath.Dir(main), 0o755)
	githome.Git(t, filepath.Dir(main), "init", "-q", "-b", "main", main)
	githome.Git(t, main, "commit", "-q", "--allow-empty", "-m", "one")
	os.MkdirAll(filepath.Dir(wt), 0o755)
	githome.Git(t, main, "worktree", "add", "-q", "-b", filepath.Base(wt), wt)
	return filepath.Join(main, ".git")
}

func TestDiscoverFindsEachRepositoryUnderTheRootsOnce(t *testing.T) {
	h := githome.New(t)
	codex := filepath.Join(h, ".codex", "worktrees")
	gwq := filepath.Join(h, "worktrees")
	a := repoWithWorktree(t, filepath.Join(h, "src", "a"), filepath.Join(codex, "1a2b", "a"))
	githome.Git(t, filepath.Join(h, "src", "a"), "worktree", "add", "-q", "-b", "second", filepath.Join(codex, "3c4d", "a"))
	b := repoWithWorktree(t, filepath.Join(h, "src", "b"), filepath.Join(gwq, "github.com", "o", "b", "feat", "x"))
	// A clone of its own under a root is a repository too.
	githome.Git(t, h, "init", "-q", filepath.Join(gwq, "github.com", "o", "c"))
	// a's worktree under Cursor's root too: found for each runner.
	githome.Git(t, filepath.Join(h, "src", "a"), "worktree", "add", "-q", "-b", "cursor", filepath.Join(h, ".cursor", "worktrees", "a", "x"))
	got := Discover(roots())
	var commons []string
	for _, f := range got {
		commons = append(commons, f.CommonDir)
	}
	// Root by root; in a root breadth first, the shallower first.
	want := []string{a, a, filepath.Join(gwq, "github.com", "o", "c", ".git"), b}
	if !slices.Equal(commons, want) {
		t.Errorf("found %q, want %q", commons, want)
	}
	var runners []string
	for _, f := range got {
		runners = append(runners, f.Runner)
	}
	if !slices.Equal(runners, []string{"codex", "cursor", "gwq", "gwq"}) {
		t.Errorf("runners %q", runners)
	}
}

func TestDiscoverSkipsHostileGitFiles(t *testing.T) {
	h := githome.New(t)
	root := filepath.Join(h, ".cursor", "worktrees")
	good := repoWithWorktree(t, filepath.Join(h, "src", "good"), filepath.Join(root, "good", "w"))
	plain := filepath.Join(h, "plain")
	os.MkdirAll(filepath.Join(plain, "worktrees", "x"), 0o755)
	write := func(rel, content string) string {
		t.Helper()
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// A pointer into a folder that is no repository.
	write("nogit/w/.git", "gitdir: "+filepath.Join(plain, "worktrees", "x")+"\n")
	// A pointer at the good repository's entry from a folder that is not
	// its worktree: the entry's gitdir names another folder.
	write("copy/w/.git", "gitdir: "+filepath.Join(good, "worktrees", "w")+"\n")
	// Not a gitdir line; too big; a relative pointer to nowhere.
	write("junk/w/.git", "\x1b]0;title\x07\n")
	write("big/w/.git", "gitdir: "+strings.Repeat("/x", maxGitFile)+"\n")
	write("rel/w/.git", "gitdir: ../../nowhere/worktrees/w\n")
	// A link to the good worktree: never followed.
	os.Symlink(filepath.Join(root, "good"), filepath.Join(root, "link"))
	// A .git that is a link to the good repository's git dir.
	os.MkdirAll(filepath.Join(root, "dotlink", "w"), 0o755)
	os.Symlink(good, filepath.Join(root, "dotlink", "w", ".git"))
	got := Discover([]madeby.Root{{Maker: madeby.Cursor, Path: root}})
	if len(got) != 1 || got[0].CommonDir != good || got[0].Worktree != filepath.Join(root, "good", "w") {
		t.Errorf("found %+v, want only %s", got, good)
	}
}

func TestDiscoverStopsAtItsDepth(t *testing.T) {
	h := githome.New(t)
	root := filepath.Join(h, "worktrees")
	deep := filepath.Join(root, "1", "2", "3", "4", "5", "6", "7", "w")
	repoWithWorktree(t, filepath.Join(h, "src", "deep"), deep)
	if got := Discover([]madeby.Root{{Maker: madeby.Gwq, Path: root}}); len(got) != 0 {
		t.Errorf("found %+v %d folders deep (bound %d)", got, 8, maxDepth)
	}
}

func TestDiscoverOfRootsThatDoNotExistFindsNothing(t *testing.T) {
	h := githome.New(t)
	if got := Discover(roots()); len(got) != 0 {
		t.Errorf("found %+v in an empty home %s", got, h)
	}
}

// Discovery walks madeby's roots: a worktree in each runner's documented
// layout is found, under the runner that list --all names its maker.
func TestDiscoverNamesTheRunnerMadebyNames(t *testing.T) {
	h := githome.New(t)
	env := madeby.EnvFrom(os.Getenv, false)
	main := filepath.Join(h, "src", "app")
	for i, root := range madeby.Roots(env) {
		wt := filepath.Join(root.Path, "github.com", "o", "app", fmt.Sprint("b", i))
		if i == 0 {
			repoWithWorktree(t, main, wt)
		} else {
			githome.Git(t, main, "worktree", "add", "-q", "-b", filepath.Base(wt), wt)
		}
	}
	found := Discover(madeby.Roots(env))
	if len(found) != len(madeby.Roots(env)) {
		t.Fatalf("found %+v under %+v", found, madeby.Roots(env))
	}
	for _, f := range found {
		made := madeby.Of(madeby.Worktree{Path: f.Worktree, Main: main}, env)
		if f.Runner != string(made) {
			t.Errorf("%s found under %s, made by %s", f.Worktree, f.Runner, made)
		}
	}
}
