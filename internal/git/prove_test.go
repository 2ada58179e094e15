package git

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil/platform"
)

// linkedLayout writes, as git worktree add does, a common dir with the
// admin entries a and b and their worktrees (under root/wts), and returns
// the common dir and the worktrees' root.
func linkedLayout(t *testing.T) (common, wts string) {
	t.Helper()
	root := t.TempDir()
	common, wts = filepath.Join(root, "repo", ".git"), filepath.Join(root, "wts")
	for _, id := range []string{"a", "b"} {
		admin := filepath.Join(common, "worktrees", id)
		mustWrite(t, filepath.Join(admin, "gitdir"), filepath.Join(wts, id, ".git")+"\n")
		mustWrite(t, filepath.Join(admin, "commondir"), "../..\n")
		mustWrite(t, filepath.Join(wts, id, ".git"), "gitdir: "+admin+"\n")
	}
	return common, wts
}

func mustWrite(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o666); err != nil {
		t.Fatal(err)
	}
}

// A task worktree is proven a linked worktree of this repository by git's
// files agreeing with each other and with the common dir git-wt knows;
// each file an agent can write, changed alone, fails the proof.
func TestProveLinked(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, common, wts string)
		moved  bool // a was moved aside to wts/aside
		ok     bool
	}{
		{name: "as git wrote it", ok: true},
		{name: "a relative .git file", ok: true, change: func(t *testing.T, common, wts string) {
			mustWrite(t, filepath.Join(wts, "a", ".git"), "gitdir: ../../repo/.git/worktrees/a\n")
		}},
		{name: "moved aside, registered where it was", moved: true, ok: true},
		{name: "no .git file", change: func(t *testing.T, common, wts string) {
			os.Remove(filepath.Join(wts, "a", ".git"))
		}},
		{name: "a .git file naming /", change: func(t *testing.T, common, wts string) {
			mustWrite(t, filepath.Join(wts, "a", ".git"), "gitdir: /\n")
		}},
		{name: "a .git file naming the agent's own git dir", change: func(t *testing.T, common, wts string) {
			fake := filepath.Join(wts, "fake", "worktrees", "a")
			mustWrite(t, filepath.Join(fake, "gitdir"), filepath.Join(wts, "a", ".git")+"\n")
			mustWrite(t, filepath.Join(fake, "commondir"), common+"\n")
			mustWrite(t, filepath.Join(wts, "a", ".git"), "gitdir: "+fake+"\n")
		}},
		{name: "a .git file naming the worktrees folder", change: func(t *testing.T, common, wts string) {
			mustWrite(t, filepath.Join(wts, "a", ".git"), "gitdir: "+filepath.Join(common, "worktrees")+"\n")
		}},
		{name: "a .git file naming an entry through ..", change: func(t *testing.T, common, wts string) {
			mustWrite(t, filepath.Join(wts, "a", ".git"), "gitdir: "+filepath.Join(common, "worktrees", "a")+"/../b/..\n")
		}},
		{name: "a .git file naming another task's entry", change: func(t *testing.T, common, wts string) {
			mustWrite(t, filepath.Join(wts, "a", ".git"), "gitdir: "+filepath.Join(common, "worktrees", "b")+"\n")
		}},
		{name: "the entry's commondir swapped", change: func(t *testing.T, common, wts string) {
			mustWrite(t, filepath.Join(common, "worktrees", "a", "commondir"), filepath.Join(wts, "fc")+"\n")
		}},
		{name: "the entry's commondir gone", change: func(t *testing.T, common, wts string) {
			os.Remove(filepath.Join(common, "worktrees", "a", "commondir"))
		}},
		{name: "the entry's gitdir gone", change: func(t *testing.T, common, wts string) {
			os.Remove(filepath.Join(common, "worktrees", "a", "gitdir"))
		}},
		{name: "the worktrees folder a link to another clone's", change: func(t *testing.T, common, wts string) {
			moveAndLink(t, filepath.Join(common, "worktrees"), filepath.Join(wts, "other", ".git", "worktrees"))
		}},
		{name: "the entry a link to another clone's", change: func(t *testing.T, common, wts string) {
			moveAndLink(t, filepath.Join(common, "worktrees", "a"), filepath.Join(wts, "other", ".git", "worktrees", "a"))
		}},
		{name: "a copy of the worktree", change: func(t *testing.T, common, wts string) {
			mustWrite(t, filepath.Join(common, "worktrees", "a", "gitdir"), filepath.Join(wts, "elsewhere", ".git")+"\n")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			common, wts := linkedLayout(t)
			dir, registered := filepath.Join(wts, "a"), filepath.Join(wts, "a")
			if tc.moved {
				dir = filepath.Join(wts, "aside")
				if err := os.Rename(registered, dir); err != nil {
					t.Fatal(err)
				}
			}
			if tc.change != nil {
				tc.change(t, common, wts)
			}
			admin, err := ProveLinked(common, dir, registered)
			var nl *NotLinkedError
			switch {
			case tc.ok && (err != nil || admin != filepath.Join(common, "worktrees", "a")):
				t.Errorf("ProveLinked = %q, %v; want a's entry", admin, err)
			case !tc.ok && !errors.As(err, &nl):
				t.Errorf("ProveLinked = %q, %v; want a *NotLinkedError", admin, err)
			}
		})
	}
}

// moveAndLink moves the folder from to to, and leaves a link to it where
// it was.
func moveAndLink(t *testing.T, from, to string) {
	t.Helper()
	platform.RequireSymlinks(t)
	if err := os.MkdirAll(filepath.Dir(to), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(to, from); err != nil {
		t.Fatal(err)
	}
}

// A repository reached through a link in the folders above it (a home
// folder on another disk) is still proven: only links git never makes,
// inside the common dir, fail.
func TestProveLinkedThroughALinkAbove(t *testing.T) {
	platform.RequireSymlinks(t)
	common, wts := linkedLayout(t)
	root := filepath.Dir(filepath.Dir(common))
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	viaLink := filepath.Join(link, "repo", ".git")
	if admin, err := ProveLinked(viaLink, filepath.Join(wts, "a"), filepath.Join(wts, "a")); err != nil || admin != filepath.Join(viaLink, "worktrees", "a") {
		t.Fatalf("ProveLinked through a link above = %q, %v; want a's entry", admin, err)
	}
}

// A task worktree whose entry's commondir names the agent's own git dir:
// git run in it by the runner never reads that git dir's config (its
// core.fsmonitor would run a command), and the main worktree and a
// worktree git registered run git with their real git dirs.
func TestRunInWorktreeIsPinned(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	platform.RequireProgram(t, "sh") // git clone runs it, and Wine has none
	root := t.TempDir()
	repo, wt, fake, pwned := filepath.Join(root, "repo"), filepath.Join(root, "wt"), filepath.Join(root, "fake"), filepath.Join(root, "PWNED")
	git := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main", repo)
	git("-C", repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "root")
	git("-C", repo, "worktree", "add", "-q", "--detach", wt)
	r := &Runner{}
	if _, err := r.Locate(context.Background(), repo); err != nil {
		t.Fatal(err)
	}
	if out, err := r.RunIn(context.Background(), wt, "rev-parse", "--git-dir"); err != nil || filepath.Clean(out[:len(out)-1]) != filepath.Join(r.located.Load().commonDir, "worktrees", "wt") {
		t.Fatalf("git dir %q (%v), want the worktree's entry", out, err)
	}
	if out, err := r.RunIn(context.Background(), repo, "rev-parse", "--git-dir"); err != nil || filepath.Clean(out[:len(out)-1]) != r.located.Load().commonDir {
		t.Fatalf("the main worktree's git dir %q (%v), want the common dir", out, err)
	}
	git("clone", "-q", "--bare", repo, fake)
	git("--git-dir="+fake, "config", "core.fsmonitor", "touch "+pwned+"; false")
	os.WriteFile(filepath.Join(r.located.Load().commonDir, "worktrees", "wt", "commondir"), []byte(fake+"\n"), 0o666)
	_, err := r.Status(context.Background(), wt, StatusOptions{})
	var nl *NotLinkedError
	if !errors.As(err, &nl) {
		t.Errorf("status with a swapped commondir: %v, want a *NotLinkedError", err)
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Error("git ran the fake git dir's core.fsmonitor")
	}
}
