// This test protects the finishing of a git worktree add killed before it
// wrote the worktree's .git file (FinishWorktreeAdd): only the admin
// entry that add made is completed, as git writes its files, and a folder
// no killed add left gets nothing.
package git

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFinishWorktreeAddCompletesOnlyTheKilledAddsEntry(t *testing.T) {
	for _, c := range []struct {
		name    string
		entries map[string]map[string]string // admin entry → its files
		want    string                       // the entry completed; "" for none
		dotGit  *string                      // the folder's .git file; nil for none
	}{
		{"its gitdir names the folder", map[string]map[string]string{
			"T": {"locked": "initializing", "gitdir": "{path}/.git\n"}, "T1": {"locked": "initializing"}}, "T", nil},
		{"killed before its gitdir", map[string]map[string]string{
			"other": {"locked": "initializing"}, "T2": {"locked": "initializing"}}, "T2", nil},
		{"another folder's entry", map[string]map[string]string{
			"T": {"gitdir": "/elsewhere/T/.git\n"}, "TX": {"locked": "initializing"}}, "", nil},
		{"a user's lock, not git's", map[string]map[string]string{"T": {"locked": "mine"}}, "", nil},
		// git opens the .git file truncated, then writes it: a kill
		// between the two leaves it empty, and doctor may have dropped
		// the lock since.
		{"killed as it wrote the .git file", map[string]map[string]string{
			"T": {"gitdir": "{path}/.git\n"}}, "T", ptr("")},
		// git 2.48's worktree.useRelativePaths: gitdir relative to the entry.
		{"its gitdir relative", map[string]map[string]string{
			"T": {"locked": "initializing", "gitdir": "../../../wts/T/.git\n"}}, "T", nil},
		{"a .git file that names no entry", map[string]map[string]string{
			"T": {"locked": "initializing", "gitdir": "{path}/.git\n"}}, "", ptr("gitdir: /elsewhere\n")},
	} {
		t.Run(c.name, func(t *testing.T) {
			root, _ := filepath.EvalSymlinks(t.TempDir())
			common, path := filepath.Join(root, ".git"), filepath.Join(root, "wts", "T")
			os.MkdirAll(path, 0o755)
			if c.dotGit != nil {
				os.WriteFile(filepath.Join(path, ".git"), []byte(*c.dotGit), 0o644)
			}
			for name, files := range c.entries {
				os.MkdirAll(filepath.Join(common, "worktrees", name), 0o755)
				for f, content := range files {
					if content == "{path}/.git\n" {
						content = filepath.ToSlash(path) + "/.git\n" // as git on Windows writes it too
					}
					os.WriteFile(filepath.Join(common, "worktrees", name, f), []byte(content), 0o644)
				}
			}
			wrote, err := FinishWorktreeAdd(common, path, "refs/heads/wt/T")
			if c.want == "" && c.dotGit != nil {
				if got, _ := os.ReadFile(filepath.Join(path, ".git")); wrote || err != nil || string(got) != *c.dotGit {
					t.Fatalf("got %v %v and .git %q, want nothing written", wrote, err, got)
				}
				return
			}
			if c.want == "" {
				if !errors.Is(err, ErrNoKilledAdd) || wrote || exists(filepath.Join(path, ".git")) {
					t.Fatalf("got %v %v, want ErrNoKilledAdd and no .git file", wrote, err)
				}
				return
			}
			admin := filepath.Join(common, "worktrees", c.want)
			gitdir := filepath.ToSlash(path) + "/.git\n"
			if written := c.entries[c.want]["gitdir"]; written != "" && written != "{path}/.git\n" {
				gitdir = written // kept as git wrote it
			}
			for file, want := range map[string]string{
				filepath.Join(path, ".git"):       "gitdir: " + filepath.ToSlash(admin) + "\n",
				filepath.Join(admin, "gitdir"):    gitdir,
				filepath.Join(admin, "HEAD"):      "ref: refs/heads/wt/T\n",
				filepath.Join(admin, "commondir"): "../..\n",
			} {
				if got, _ := os.ReadFile(file); string(got) != want {
					t.Errorf("%s: %q, want %q (err %v)", file, got, want, err)
				}
			}
			if exists(filepath.Join(admin, "locked")) || !wrote {
				t.Errorf("git's initializing lock is still there, or it says it wrote nothing (%v)", wrote)
			}
			if wrote, err := FinishWorktreeAdd(common, path, "refs/heads/wt/T"); wrote || err != nil {
				t.Errorf("finishing a finished worktree wrote %v, %v", wrote, err)
			}
		})
	}
}

// An agent can make its task's .git, the admin entry, or a file in it a
// link: finishing a killed add writes nothing through it.
func TestFinishWorktreeAddWritesNothingThroughALink(t *testing.T) {
	gitdirNaming := func(admin, path string) {
		os.MkdirAll(admin, 0o755)
		os.WriteFile(filepath.Join(admin, "gitdir"), []byte(filepath.ToSlash(path)+"/.git\n"), 0o644)
	}
	for _, c := range []struct {
		name string
		link func(path, admin, outside string) (string, error) // the link made
	}{
		{"the .git file, to a file not there yet", func(path, admin, outside string) (string, error) {
			gitdirNaming(admin, path)
			link := filepath.Join(path, ".git")
			return link, os.Symlink(filepath.Join(outside, "profile"), link)
		}},
		{"the admin entry, to a folder elsewhere", func(path, admin, outside string) (string, error) {
			os.MkdirAll(filepath.Dir(admin), 0o755)
			os.WriteFile(filepath.Join(outside, "gitdir"), []byte(filepath.ToSlash(path)+"/.git\n"), 0o644)
			return admin, os.Symlink(outside, admin)
		}},
		{"the entry's commondir, to a file not there yet", func(path, admin, outside string) (string, error) {
			gitdirNaming(admin, path)
			link := filepath.Join(admin, "commondir")
			return link, os.Symlink(filepath.Join(outside, "cd"), link)
		}},
		{"HEAD's temporary file, to a file of the user's", func(path, admin, outside string) (string, error) {
			gitdirNaming(admin, path)
			os.WriteFile(filepath.Join(admin, "HEAD"), []byte(strings.Repeat("0", 40)+"\n"), 0o644)
			os.WriteFile(filepath.Join(outside, "bashrc"), []byte("the user's\n"), 0o644)
			link := filepath.Join(admin, "HEAD.git-wt.tmp")
			return link, os.Symlink(filepath.Join(outside, "bashrc"), link)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			root, _ := filepath.EvalSymlinks(t.TempDir())
			common, path := filepath.Join(root, ".git"), filepath.Join(root, "wts", "T")
			admin, outside := filepath.Join(common, "worktrees", "T"), filepath.Join(root, "home")
			os.MkdirAll(path, 0o755)
			os.MkdirAll(outside, 0o755)
			link, err := c.link(path, admin, outside)
			if st, lerr := os.Lstat(link); err != nil || lerr != nil || st.Mode()&os.ModeSymlink == 0 {
				t.Skipf("no symlinks here (Wine makes none): %v", err)
			}
			before := folderText(outside)
			wrote, err := FinishWorktreeAdd(common, path, "refs/heads/wt/T")
			if after := folderText(outside); after != before {
				t.Fatalf("FinishWorktreeAdd (%v, %v) wrote through the link:\n%s\nwas:\n%s", wrote, err, after, before)
			}
		})
	}
}

// folderText is the names and contents of the files in dir.
func folderText(dir string) string {
	var b strings.Builder
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		fmt.Fprintf(&b, "%s: %q\n", e.Name(), data)
	}
	return b.String()
}

func ptr(s string) *string { return &s }

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

// git makes a relative gitdir from real paths: with the common dir
// reached through a link (.git a link to a store elsewhere), the path is
// relative to the entry's real place.
func TestFinishWorktreeAddReadsARelativeGitdirFromTheEntrysRealPlace(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	store := filepath.Join(root, "a", "b", "c", "repo.git")
	os.MkdirAll(filepath.Join(store, "worktrees", "T"), 0o755)
	os.MkdirAll(filepath.Join(root, "repo"), 0o755)
	common := filepath.Join(root, "repo", ".git")
	err := os.Symlink(store, common)
	if st, lerr := os.Lstat(common); err != nil || lerr != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Skipf("no symlinks here (Wine makes none): %v", err)
	}
	path := filepath.Join(root, "wts", "T")
	os.MkdirAll(path, 0o755)
	admin := filepath.Join(store, "worktrees", "T")
	os.WriteFile(filepath.Join(admin, "locked"), []byte("initializing"), 0o644)
	os.WriteFile(filepath.Join(admin, "gitdir"), []byte("../../../../../../wts/T/.git\n"), 0o644)
	wrote, err := FinishWorktreeAdd(common, path, "refs/heads/wt/T")
	if got, _ := os.ReadFile(filepath.Join(path, ".git")); !wrote || err != nil || string(got) != "gitdir: "+filepath.ToSlash(admin)+"\n" {
		t.Fatalf("got %v %v and .git %q: the killed add's entry was not found", wrote, err, got)
	}
}
