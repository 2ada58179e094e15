package place

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/settings"
)

// Where worktrees may go (SPEC §7, §14 "--path"): a worktree never lies
// inside or around another one, and never in the folders git-wt keeps in
// the base dir for itself, whose contents it deletes or hands out.
//
// Those folders are one repository's (SPEC §14 "The sibling layout"): in
// a base dir that only this repository uses (the default
// <repo>-worktrees, or a folder inside the main worktree) they have the
// plain names below; anywhere else (a wt.baseDir that other repositories
// may name too, or that holds the main worktree) the name carries the
// repository's identity, "<plain>-<repo name>-<8 hex digits of the
// SHA-256 of its git common dir>", as .pool-app-1a2b3c4d. A folder of
// plain name there is an earlier git-wt's, maybe of another repository:
// what is in it is this repository's only where git's own files say so
// (a worktree whose .git file points into this repository), or a ref or
// record of this repository names it.

// MergeTmpDir, in the base dir, holds the temporary worktrees of merges:
// merge-<pid>-<random>, each with the stamp of its process beside it
// (StampOf).
const MergeTmpDir = ".git-wt-tmp"

// StampSuffix names the file beside a folder named after a process that
// holds that process's stamp (proc.WriteStamp).
const StampSuffix = ".owner"

// StampOf is the stamp file of the folder dir.
func StampOf(dir string) string { return dir + StampSuffix }

// PoolDir is the folder of the warm pool's entries, in the base dir:
// <base dir>/.pool/<id>.
const PoolDir = ".pool"

// TrashDir is where rm moves a worktree folder before deleting it.
const TrashDir = ".git-wt-trash"

// ownFolders are the plain names of the folders git-wt keeps for itself:
// the trash (emptied by gc), the pool, and merge's temporary worktrees.
var ownFolders = []string{TrashDir, PoolDir, MergeTmpDir}

// CheckedSuffix names the empty file beside a folder in the trash that
// says its removal looked at it there and went on (removal's checked mark).
const CheckedSuffix = ".checked"

// FailedSuffix names the file beside a folder in the trash in which its
// deleter wrote why it could not delete it (FailureOf), for rm and doctor
// to say.
const FailedSuffix = ".failed"

// FailureOf is the file in which the deleter of the folder dir says why
// it could not delete it.
func FailureOf(dir string) string { return dir + FailedSuffix }

// ReportedSuffix names a deleter's note of why (FailureOf) once a command
// has said it: the next commands do not say it again; doctor still does.
const ReportedSuffix = ".reported"

// ReadNote reads a deleter's note of why at path, at most its first
// 4 KiB, and only a plain file (never through a link): the base dir is
// anyone's to write who can write the repository's folders, and the note
// is data to show (quoted), never more.
func ReadNote(path string) (string, error) {
	if st, err := os.Lstat(path); err != nil || !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s is no note of git-wt's", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 4<<10))
	return string(b), err
}

// Identity is what the names of this repository's own folders in a
// shared base dir end with: its main worktree's name and a short hash of
// its common dir (two clones of one name differ by the hash).
func (r *Rules) Identity() string {
	sum := sha256.Sum256([]byte(r.Repo.CommonDir))
	return filepath.Base(r.Repo.MainDir) + "-" + hex.EncodeToString(sum[:4])
}

// OwnFolder is where git-wt keeps its folder kind (TrashDir, PoolDir or
// MergeTmpDir) in dir: the plain name in a base dir this repository alone
// uses, the name carrying its identity anywhere else.
func (r *Rules) OwnFolder(dir, kind string) string {
	if r.alone(dir) {
		return filepath.Join(dir, kind)
	}
	return filepath.Join(dir, kind+"-"+r.Identity())
}

// PlainFolder is the folder of kind in dir that an earlier git-wt used
// where this one uses a name carrying the repository's identity (a
// shared base dir), or "" where the plain name is this repository's own.
// What is in it is this repository's only where git or a ref says so.
func (r *Rules) PlainFolder(dir, kind string) string {
	if r.alone(dir) {
		return ""
	}
	return filepath.Join(dir, kind)
}

// alone says whether dir lies in a base dir that only this repository
// uses: the default one, or one inside the main worktree (as configured,
// or with its symlinks resolved).
func (r *Rules) alone(dir string) bool {
	if r.Settings == nil {
		return true // no settings read: no configured base dir either
	}
	for _, b := range r.ownedBase() {
		if fsutil.Within(b, dir) {
			return true
		}
	}
	return false
}

// ownedBase is the base dir, as configured and resolved, when only this
// repository uses it; none when others may. Worked out once per base dir
// (list asks it of every worktree).
func (r *Rules) ownedBase() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	base, main := r.Settings.BaseDir, r.Repo.MainDir
	if r.owned.of == base && base != "" {
		return r.owned.dirs
	}
	real, err := fsutil.ResolveExisting(base)
	if err != nil {
		real = base
	}
	def := settings.DefaultBaseDir(main)
	var dirs []string
	for _, b := range []string{base, real} {
		if b == def || b != main && fsutil.Within(main, b) {
			dirs = []string{base, real}
		}
	}
	r.owned.of, r.owned.dirs = base, dirs
	return dirs
}

// InPool says whether path is a warm pool entry's folder (or inside one)
// under the base dir, in this repository's pool folder or an earlier
// git-wt's: git-wt's own, never foreign, never adopted (SPEC §14). Ask it
// of this repository's worktrees only.
func (r *Rules) InPool(path string) bool {
	return r.inOwn(path, PoolDir)
}

// IsOwnFolder says whether path lies in one of the folders git-wt keeps
// in the base dir for itself (the trash, the pool, merge's temporary
// worktrees), this repository's or an earlier git-wt's: what is there is
// never adopted.
func (r *Rules) IsOwnFolder(path string) bool {
	for _, kind := range ownFolders {
		if r.inOwn(path, kind) {
			return true
		}
	}
	return false
}

func (r *Rules) inOwn(path, kind string) bool {
	base := r.Settings.BaseDir
	for _, f := range []string{r.OwnFolder(base, kind), r.PlainFolder(base, kind)} {
		if f != "" && fsutil.Within(f, path) {
			return true
		}
	}
	return false
}

// isOwnName says whether a path component is the name of one of
// git-wt's own folders, of this repository or any other.
func isOwnName(c string) bool {
	for _, f := range ownFolders {
		if c == f || strings.HasPrefix(c, f+"-") {
			return true
		}
	}
	return false
}

// CheckChosenPath refuses a --path p (absolute, resolved, inside baseDir)
// that has one of git-wt's own folders as a component, or that lies
// inside or contains another worktree (a task, a pool entry, the main
// worktree): removing one would delete the other's files. It lists the
// worktrees, so it runs only when --path was given.
func (r *Rules) CheckChosenPath(ctx context.Context, baseDir, p string) error {
	rel, err := filepath.Rel(baseDir, p)
	if err != nil {
		return exitcode.Usagef("worktree path %s lies outside the base dir %s", p, baseDir)
	}
	for _, c := range strings.Split(filepath.ToSlash(rel), "/") {
		if isOwnName(c) {
			return exitcode.Usagef("worktree path %s lies in %s, a folder git-wt keeps for itself (and empties): choose another --path", p, filepath.Join(baseDir, c))
		}
	}
	wts, err := r.Git.Worktrees(ctx, r.Repo.MainDir)
	if err != nil {
		return err
	}
	for _, wt := range wts {
		switch {
		case fsutil.Within(wt.Path, p) && !fsutil.Within(wt.Path, baseDir): // a base dir in the main worktree is allowed
			return exitcode.Usagef("worktree path %s lies inside the worktree %s: choose a --path outside every worktree", p, wt.Path)
		case fsutil.Within(p, wt.Path):
			return exitcode.Usagef("worktree path %s contains the worktree %s: choose a --path that holds no worktree", p, wt.Path)
		}
	}
	return nil
}
