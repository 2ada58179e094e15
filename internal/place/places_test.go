// These tests protect the names of git-wt's own folders (SPEC §14 "The
// sibling layout"): plain in a base dir one repository owns, carrying the
// repository's identity wherever another repository may share the base
// dir, and refused as a --path component in either form.
package place

import (
	"path/filepath"
	"testing"

	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/settings"
)

func TestOwnFolderNamesCarryTheRepositoryWhereTheBaseDirIsShared(t *testing.T) {
	root := t.TempDir()
	main := filepath.Join(root, "app")
	repo := &git.Repo{MainDir: main, CommonDir: filepath.Join(main, ".git")}
	other := &git.Repo{MainDir: filepath.Join(root, "x", "app"), CommonDir: filepath.Join(root, "x", "app", ".git")}
	for _, c := range []struct {
		base string
		own  bool
	}{
		{filepath.Join(root, "app-worktrees"), true}, // the default
		{filepath.Join(main, ".worktrees"), true},    // inside the main worktree
		{root, false}, // the sibling layout
		{filepath.Join(root, "all-worktrees"), false}, // a wt.baseDir others may name
	} {
		r := &Rules{Repo: repo, Settings: &settings.Settings{BaseDir: c.base}}
		pool, plain := r.OwnFolder(c.base, PoolDir), r.PlainFolder(c.base, PoolDir)
		if c.own && (pool != filepath.Join(c.base, ".pool") || plain != "") {
			t.Errorf("%s: pool %s, plain %q; want the plain .pool, no other", c.base, pool, plain)
		}
		theirs := (&Rules{Repo: other, Settings: &settings.Settings{BaseDir: c.base}}).OwnFolder(c.base, PoolDir)
		if !c.own && (pool == theirs || plain != filepath.Join(c.base, ".pool") || !isOwnName(filepath.Base(pool)) || filepath.Base(pool)[:10] != ".pool-app-") {
			t.Errorf("%s: pool %s (another app's %s), plain %q", c.base, pool, theirs, plain)
		}
		if !r.InPool(filepath.Join(pool, "e1")) || !r.IsOwnFolder(filepath.Join(r.OwnFolder(c.base, TrashDir), "T.1")) || r.InPool(filepath.Join(c.base, "e1")) {
			t.Errorf("%s: InPool or IsOwnFolder", c.base)
		}
	}
	for _, name := range []string{".pool", ".git-wt-trash", ".git-wt-tmp", ".pool-app-1a2b3c4d", ".git-wt-trash-other-00000000"} {
		if !isOwnName(name) {
			t.Errorf("%s is not refused as a --path component", name)
		}
	}
	if isOwnName(".pools") || isOwnName("pool-x") {
		t.Error("a lookalike name is refused")
	}
}
