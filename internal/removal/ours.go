package removal

import (
	"context"
	"os"
	"path/filepath"

	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
)

// A record is a ref that anything able to write the git dir can write
// (SPEC §19): the path in it proves nothing, and is never by itself a
// removal. rm (with or without --force), gc, doctor --fix, retention,
// merge cleanup and the repairs delete a folder only when git-wt can tell
// it is the task's worktree from what an agent cannot forge:
//
//   - git lists a worktree of this repository there, and the folder's own
//     .git file names that admin entry back (git.LinkedWorktree): a folder
//     outside the git dir says so itself; or
//   - git lists none (its admin entry was pruned, a creation was killed
//     before git wrote it), and the folder lies in git-wt's own base dir,
//     where git-wt makes every task, its symlinks resolved, and holds no
//     other repository's git data; without --force its .git file must
//     also name an admin entry of this repository (git-wt's evidence
//     that it made the folder).
//
// Anything else is refused, exit 3, even with --force.

// gitFile is what the .git of a folder is.
type gitFile int

const (
	noGitFile      gitFile = iota // none: a worktree add killed before git wrote it
	ownGitFile                    // a file naming an admin entry of this repository
	foreignGitFile                // a .git folder, or a file naming another repository's
)

// folderFacts is what removal knows of the folder a record names.
type folderFacts struct {
	Listed bool // git lists this repository's worktree there, and its .git file names it back
	// LinkedEntries: the common dir's worktrees folder is a link, so what
	// git lists may be another repository's worktrees.
	LinkedEntries bool
	InBase        bool // inside the base dir (not the base dir itself), its symlinks resolved
	Git           gitFile
}

// whyNotOurs is "" when the folder may be removed (with force: --force
// or a rollback's own recheck), else why not, to follow its path.
func whyNotOurs(f folderFacts, force bool) string {
	switch {
	case f.LinkedEntries:
		return "is reached through git's worktrees folder, which is a link (perhaps to another repository's), not the folder git made"
	case f.Listed:
		return ""
	case !f.InBase:
		return "is neither a worktree git lists for this repository nor inside its base dir"
	case f.Git == foreignGitFile:
		return "holds another repository's git data (its .git)"
	case f.Git == noGitFile && !force:
		return "is not a worktree git lists for this repository and has no .git file of it: use --force to remove it"
	}
	return ""
}

// refuseNotOurs refuses (exit 3, even with --force) to remove the folder
// the record names when git-wt cannot tell it is the task's worktree, or
// can tell it is another task's.
func (m *Remover) refuseNotOurs(ctx context.Context, rec *record.Record, wts []git.Worktree, force bool) error {
	why := whyNotOurs(m.folderFacts(rec.Path, wts), force)
	if why == "" {
		other, err := m.OtherTasksWorktree(ctx, rec, task.FindWorktree(wts, rec.Path))
		if err != nil {
			return err
		}
		if other == "" {
			return nil
		}
		why = "is another task's worktree (" + other + ")"
	}
	return m.Refuse(rec, "not-ours", "%s %s, so git-wt never deletes it (the record of task %q names it, and records can be edited by hand)", rec.Path, why, rec.Task)
}

// folderFacts looks at the folder at path.
func (m *Remover) folderFacts(path string, wts []git.Worktree) folderFacts {
	if !filepath.IsAbs(path) || filepath.Clean(path) != path {
		return folderFacts{Git: foreignGitFile} // no record git-wt wrote
	}
	f := folderFacts{InBase: m.InBaseDir(path), LinkedEntries: git.AdminEntriesLinked(m.Repo.CommonDir)}
	if st, err := os.Lstat(path); err == nil && !st.IsDir() {
		return f // a link or file: only it goes, never what it points at
	}
	f.Listed = task.FindWorktree(wts, path) != nil && m.linked(path)
	f.Git = m.gitFileOf(path)
	return f
}

// linked says whether the folder's .git file names an admin entry of
// this repository that names the folder back.
func (m *Remover) linked(path string) bool {
	ok, _ := git.LinkedWorktree(path, m.Repo.CommonDir)
	return ok
}

// gitFileOf says what the .git of the folder at path is.
func (m *Remover) gitFileOf(path string) gitFile {
	st, err := os.Lstat(filepath.Join(path, ".git"))
	switch {
	case os.IsNotExist(err):
		return noGitFile
	case err != nil || !st.Mode().IsRegular():
		return foreignGitFile
	}
	_, admin, err := git.AdminDir(path)
	if err != nil || !m.isAdminEntry(admin) {
		return foreignGitFile
	}
	return ownGitFile
}

// isAdminEntry says whether dir is an entry of this repository's
// worktrees folder (as written, or with its symlinks resolved).
func (m *Remover) isAdminEntry(dir string) bool {
	worktrees := filepath.Join(m.Repo.CommonDir, "worktrees")
	if filepath.Dir(filepath.Clean(dir)) == worktrees {
		return true
	}
	realDir, err1 := filepath.EvalSymlinks(filepath.Dir(dir))
	realWorktrees, err2 := filepath.EvalSymlinks(worktrees)
	return err1 == nil && err2 == nil && realDir == realWorktrees
}
