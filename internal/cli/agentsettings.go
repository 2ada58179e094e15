package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/git-wt/git-wt/internal/agents"
	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/fsutil"
)

// How agent-setup edits a runner's settings file (SPEC §16): only its own
// entries are inserted, every other byte kept; a symlink is followed and
// its target edited; and what setup did is noted in git-wt's state dir
// (the file as it was, the file as setup left it, the members and folders
// setup made), so that --undo gives the file back byte for byte when
// nothing else changed it, and deletes only a file or folder setup made.

// setupNote is what agent-setup did to one settings file, over every
// run since the file was last as it was before setup.
type setupNote struct {
	Path string `json:"path"`
	// Before is the file as it was; nil when setup created it.
	Before *string `json:"before"`
	// Edited says the file was changed by someone else between two
	// setups: Before is not what undo may give back, only the entries
	// noted may be taken out.
	Edited bool `json:"edited,omitempty"`
	// After is the SHA-256 of the file as setup left it.
	After string `json:"after_sha256"`
	// Created names what setup added (the agents package's names:
	// members it made, lists it appended to): undo takes out these, never
	// an entry of the same text that setup found there.
	Created []string `json:"created_members,omitempty"`
	Dirs    []string `json:"created_dirs,omitempty"` // outermost first
}

// readNote is the note of the file target, if there is one.
func readNote(stateDir, target string) (setupNote, bool) {
	var note setupNote
	data, err := os.ReadFile(notePath(stateDir, target))
	ok := err == nil && json.Unmarshal(data, &note) == nil && note.Path == target
	return note, ok
}

// nextNote is the note of a setup that changed content (the file, as it
// was before this run, existed or not) to out, adding created, after the
// earlier runs' note old (had: there is one).
func nextNote(target string, content, out []byte, existed bool, created []string, old setupNote, had bool) setupNote {
	note := setupNote{Path: target, After: digest(out), Created: created}
	switch {
	case had:
		// The entries of the earlier runs are still setup's; the bytes
		// before them are what undo gives back only when nobody else
		// changed the file since.
		note.Before, note.Edited, note.Dirs = old.Before, old.Edited || old.After != digest(content), old.Dirs
		for _, c := range old.Created {
			if !slices.Contains(note.Created, c) {
				note.Created = append(note.Created, c)
			}
		}
	case existed:
		before := string(content)
		note.Before = &before
	}
	return note
}

// notePath is where the note of the settings file path is kept.
func notePath(stateDir, path string) string {
	sum := sha256.Sum256([]byte(path))
	return filepath.Join(stateDir, hex.EncodeToString(sum[:8])+".json")
}

// fileEditor is what agent-setup does to one runner's file (package
// agents): Add inserts git-wt's entries, Remove takes them out (nil: the
// file goes).
type fileEditor interface {
	Add(content []byte) (out []byte, created []string, changed bool, err error)
	Remove(content []byte, created []string) (out []byte, changed bool, err error)
}

// addToSettings adds git-wt's entries to the file at path (its target,
// when it is a symlink) and notes what it did.
func addToSettings(stateDir, path string, ed fileEditor) (bool, error) {
	target, content, existed, err := readSettings(path)
	if err != nil {
		return false, err
	}
	out, created, changed, err := ed.Add(content)
	if err == nil {
		err = agents.Reparse(target, out)
	}
	if err != nil {
		return false, editError(target, err)
	}
	if !changed {
		return false, nil
	}
	old, had := readNote(stateDir, target)
	note := nextNote(target, content, out, existed, created, old, had)
	dirs, err := makeDirs(filepath.Dir(target))
	if err != nil {
		return false, err
	}
	note.Dirs = append(note.Dirs, dirs...)
	if err := writeSettings(target, out); err != nil {
		return false, err
	}
	data, _ := json.Marshal(note)
	if err := writeNote(stateDir, notePath(stateDir, target), data); err != nil {
		return false, exitcode.Failedf("added the hooks to %s, but cannot note it for --undo: %v", target, err)
	}
	return true, nil
}

// removeFromSettings takes git-wt's hooks out of the settings file at
// path: back to the bytes it had before setup when setup's note says the
// file is as setup left it (no file, when setup made it), else by taking
// out only the entries setup noted and the members it made that are left
// empty. With no note, setup added nothing that undo knows of: entries of
// git-wt's text are the user's. A file or folder setup did not make is
// never deleted.
func removeFromSettings(stateDir, path string, ed fileEditor) (bool, error) {
	target, content, existed, err := readSettings(path)
	if err != nil || !existed {
		return false, err
	}
	note, had := readNote(stateDir, target)
	if !had {
		return false, nil
	}
	out := []byte(nil) // the file goes
	changed := true
	switch {
	case note.After == digest(content) && !note.Edited && note.Before != nil:
		out = []byte(*note.Before)
	case note.After == digest(content) && !note.Edited:
	default:
		out, changed, err = ed.Remove(content, note.Created)
		if err == nil && out != nil {
			err = agents.Reparse(target, out)
		}
		if err != nil {
			return false, editError(target, err)
		}
	}
	os.Remove(notePath(stateDir, target))
	switch {
	case !changed:
		return false, nil
	case out != nil:
		return true, writeSettings(target, out)
	}
	if err := os.Remove(target); err != nil {
		return false, exitcode.Failedf("cannot remove %s: %v", target, err)
	}
	for _, dir := range slices.Backward(note.Dirs) {
		os.Remove(dir) // only if empty
	}
	return true, nil
}

// editError is the error of an edit of the file at path that failed:
// a refusal (exit 3) for a file git-wt cannot edit exactly.
func editError(path string, err error) error {
	if errors.Is(err, agents.ErrCannotEdit) {
		return exitcode.RefusedAs(exitcode.KindUnsafeInput, "%s: %v; nothing was changed", path, err)
	}
	return exitcode.Failedf("%s: %v; nothing was changed", path, err)
}

// readSettings reads the settings file at path, or its target when path
// is a symlink (a dotfiles setup): the file edited is the target, and the
// symlink stays. A missing file (or target) reads as empty.
func readSettings(path string) (target string, content []byte, existed bool, err error) {
	if target, err = realPath(path); err != nil {
		return "", nil, false, exitcode.Failedf("%s is a symlink git-wt cannot follow (%v): fix it, or edit the file it should point to", path, err)
	}
	content, err = os.ReadFile(target)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", nil, false, exitcode.Failedf("cannot read %s: %v", target, err)
	}
	return target, content, err == nil, nil
}

// realPath is where path leads: every link on the way (the file's, its
// folders') followed as the kernel follows them, a link to a file not
// made yet included (setup makes the file at the link's target).
func realPath(path string) (string, error) {
	for range 40 { // as the kernel's limit on a chain of links
		dir, err := fsutil.ResolveExisting(filepath.Dir(path))
		if err != nil {
			return "", err
		}
		path = filepath.Join(dir, filepath.Base(path))
		link, err := os.Readlink(path)
		if err != nil {
			return path, nil // no link: the file, or where it will be
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(dir, link)
		}
		path = link
	}
	return "", errors.New("too many levels of symbolic links")
}

// insideRepository refuses a file of the repository (path, in the main
// worktree mainDir) that a link leads out of it, or into git's own folder
// gitDir: a committed link to ~/.bashrc or .git/hooks/ would have setup
// write wherever the commit says (SPEC §19).
func insideRepository(mainDir, gitDir, path string) error {
	target, err := realPath(path)
	if err != nil {
		return exitcode.Failedf("%s is a symlink git-wt cannot follow (%v): fix it, or edit the file it should point to", path, err)
	}
	root, err := fsutil.ResolveExisting(mainDir)
	if err == nil {
		gitDir, err = fsutil.ResolveExisting(gitDir)
	}
	if err != nil {
		return exitcode.Failedf("cannot read %s: %v", mainDir, err)
	}
	if !fsutil.Within(root, target) || fsutil.Within(gitDir, target) {
		return exitcode.RefusedAs(exitcode.KindUnsafeInput, "%s leads out of the repository, to %s (a symlink): git-wt edits a project's file only inside it; nothing was changed", path, target)
	}
	return nil
}

// digest is the SHA-256 of content, in hex.
func digest(content []byte) string {
	sum := sha256.Sum256(content)
	return hex.EncodeToString(sum[:])
}

// makeDirs makes dir and the folders above it that are missing, and
// returns those it made, outermost first.
func makeDirs(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		missing = append([]string{d}, missing...)
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, exitcode.Failedf("cannot make %s: %v", dir, err)
	}
	return missing, nil
}

// writeSettings replaces the file at path with content by a rename,
// keeping its permissions.
func writeSettings(path string, content []byte) error {
	if err := writeFile(path, content); err != nil {
		return exitcode.Failedf("cannot write %s: %v", path, err)
	}
	return nil
}

// writeNote writes setup's note (data) at path, in the notes folder dir:
// mode 0600, as a note holds what undo gives back (SPEC §19: git-wt's
// files in the git dir are the user's alone), through a new temporary
// file made under dir, never through a link planted at its name, which
// anything that can write the git dir can do (fsutil.OpenUnder); the
// rename then replaces a link at path, never writes through it.
func writeNote(dir, path string, data []byte) error {
	tmp := path + ".git-wt.tmp"
	os.Remove(tmp)
	f, err := fsutil.OpenUnder(dir, tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// writeFile writes content to path through a temporary file beside it
// and a rename, keeping the permissions of the file it replaces.
func writeFile(path string, content []byte) error {
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return err
	}
	tmp := path + ".git-wt.tmp"
	if err := os.WriteFile(tmp, content, mode); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
