package git

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-wt/git-wt/internal/fsutil"
)

// The few files of git's documented repository layout (gitrepository-layout)
// that git-wt reads itself, where a git process per worktree would cost more
// than the answer is worth: a linked worktree's .git file, its admin dir's
// commondir and locked files, and the main worktree's HEAD. It writes them
// only where git itself cannot: in a worktree a killed git worktree add
// left half made, git refuses to run (WriteHead, FinishWorktreeAdd).

// errNoGitFile is returned for a worktree whose .git is not a "gitdir:" file.
var errNoGitFile = errors.New("no .git file pointing at a git dir")

// AdminDir reads the .git file of the linked worktree at dir ("gitdir:
// <path>") and returns the path it holds as written, and made absolute
// against dir.
func AdminDir(dir string) (written, abs string, err error) {
	data, err := os.ReadFile(filepath.Join(dir, ".git"))
	if err != nil {
		return "", "", err
	}
	written, ok := strings.CutPrefix(strings.TrimRight(string(data), "\r\n"), "gitdir: ")
	if !ok || written == "" {
		return "", "", errNoGitFile
	}
	return written, Resolve(dir, written), nil
}

// LinkedWorktree says whether dir is a linked worktree of the repository
// whose common dir is commonDir (ProveLinked), and whether a submodule was
// initialised in it (the admin dir holds modules).
func LinkedWorktree(dir, commonDir string) (linked, submodules bool) {
	admin, err := ProveLinked(commonDir, dir, dir)
	if err != nil {
		return false, false
	}
	modules, _ := os.ReadDir(filepath.Join(admin, "modules"))
	return true, len(modules) > 0
}

// NotLinkedError is ProveLinked's refusal: the folder at Path is not (or
// no longer) a linked worktree of this repository, for the reason Why.
type NotLinkedError struct{ Path, Why string }

func (e *NotLinkedError) Error() string {
	return fmt.Sprintf("%s is not a worktree of this repository as git registered it: %s", e.Path, e.Why)
}

// ProveLinked proves that the folder at dir is the linked worktree that
// git registered at registered (dir itself, unless the folder was moved
// aside since) in the repository whose common dir is commonDir, and
// returns its admin entry, <commonDir>/worktrees/<id>. Every file it reads
// is one an agent in the worktree can write (SPEC §19): so each must agree
// with the others and with commonDir, which came from git before any task
// was looked at. dir's .git file names the entry, a folder directly in the
// common dir's worktrees/; the entry's gitdir file points back at
// registered/.git (a folder copied or moved by hand fails here); and its
// commondir file leads back to commonDir. A caller then runs git with
// GIT_DIR, GIT_COMMON_DIR and GIT_WORK_TREE set (Cmd.InWorktree), so that
// git reads none of those files itself. Files only: no process.
func ProveLinked(commonDir, dir, registered string) (string, error) {
	refuse := func(format string, args ...any) (string, error) {
		return "", &NotLinkedError{Path: dir, Why: fmt.Sprintf(format, args...)}
	}
	written, named, err := AdminDir(dir)
	if err != nil {
		return refuse("its .git file cannot be read (%v)", fsutil.UnwrapPathErr(err))
	}
	worktrees := filepath.Join(commonDir, "worktrees")
	admin := filepath.Join(worktrees, filepath.Base(named))
	if !samePath(named, admin) || admin == worktrees {
		return refuse("its .git file names %q, not an entry of %s", written, worktrees)
	}
	realAdmin, why := realAdminEntry(commonDir, admin)
	if why != "" {
		return refuse("%s", why)
	}
	back, err := os.ReadFile(filepath.Join(admin, "gitdir"))
	if err != nil {
		return refuse("git's entry %s cannot be read (%v)", admin, fsutil.UnwrapPathErr(err))
	}
	if !samePath(Resolve(admin, strings.TrimRight(string(back), "\r\n")), filepath.Join(registered, ".git")) {
		return refuse("git's entry %s belongs to another folder", admin)
	}
	common, ok := CommonDirWritten(admin)
	if !ok || !sameRealPath(Resolve(realAdmin, common), commonDir) {
		return refuse("git's entry %s names another common dir", admin)
	}
	return admin, nil
}

// AdminEntriesLinked says whether the worktrees folder of the common dir
// commonDir is a link (or anything but a folder): git follows it, and
// `git worktree list` then lists another repository's worktrees as this
// one's. Nothing git writes is a link there (SPEC §19).
func AdminEntriesLinked(commonDir string) bool {
	st, err := os.Lstat(filepath.Join(commonDir, "worktrees"))
	return err == nil && !st.IsDir()
}

// realAdminEntry checks the admin entry admin, <commonDir>/worktrees/<id>,
// is one git made: the worktrees folder and the entry are real folders,
// not links to another repository's, and the entry, its links resolved,
// lies in the common dir, its links resolved. It returns the entry's real
// path, or why not.
func realAdminEntry(commonDir, admin string) (realAdmin, why string) {
	for _, dir := range []string{filepath.Dir(admin), admin} {
		if st, err := os.Lstat(dir); err != nil || !st.IsDir() {
			return "", fmt.Sprintf("%s is not a folder git made (a link or missing)", dir)
		}
	}
	realAdmin, err1 := filepath.EvalSymlinks(admin)
	realCommon, err2 := filepath.EvalSymlinks(commonDir)
	if err1 != nil || err2 != nil || filepath.Dir(filepath.Dir(realAdmin)) != realCommon {
		return "", fmt.Sprintf("git's entry %s lies outside the common dir %s", admin, commonDir)
	}
	return realAdmin, ""
}

// sameRealPath says whether a and b are the same place once every link
// on their way is resolved.
func sameRealPath(a, b string) bool {
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && fsutil.SamePath(ra, rb)
}

// samePath says whether the paths a and b name the same place: equal once
// cleaned, or once the links in the folders holding them are resolved (git
// writes real paths; a path git-wt holds may lead through a link). The
// last component is never resolved, so a link planted there is not the
// place it leads to.
func samePath(a, b string) bool {
	a, b = filepath.Clean(a), filepath.Clean(b)
	if fsutil.SamePath(a, b) {
		return true
	}
	if !fsutil.SamePath(filepath.Base(a), filepath.Base(b)) {
		return false
	}
	da, errA := filepath.EvalSymlinks(filepath.Dir(a))
	db, errB := filepath.EvalSymlinks(filepath.Dir(b))
	return errA == nil && errB == nil && fsutil.SamePath(da, db)
}

// CommonDirOf is the common dir of the worktree whose git dir is gitDir, as
// its commondir file says (relative to gitDir), or gitDir itself.
func CommonDirOf(gitDir string) string {
	written, ok := CommonDirWritten(gitDir)
	if !ok {
		return gitDir
	}
	return Resolve(gitDir, written)
}

// CommonDirWritten is what gitDir's commondir file holds (a path, most
// often relative to gitDir), and whether there is one.
func CommonDirWritten(gitDir string) (string, bool) {
	data, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return "", false
	}
	return strings.TrimRight(string(data), "\r\n"), true
}

// WorktreeLock says whether `git worktree lock` locked the linked worktree
// at dir, and why: the locked file in its admin dir, as `git worktree list`
// reads it.
func WorktreeLock(dir string) (locked bool, reason string) {
	_, admin, err := AdminDir(dir)
	if err != nil {
		return false, ""
	}
	data, err := os.ReadFile(filepath.Join(admin, "locked"))
	if err != nil {
		return false, ""
	}
	return true, strings.TrimRight(string(data), "\n")
}

// ReadHead reads the HEAD file of gitDir: the ref it points at ("ref:
// refs/heads/main"), or, detached, the commit it holds. ok is false for
// anything else (a ref store that keeps HEAD elsewhere writes a stub
// there, which callers must catch by checking the answer with git).
func ReadHead(gitDir string) (ref, oid string, ok bool) {
	data, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return "", "", false
	}
	head := strings.TrimRight(string(data), "\n")
	if ref, ok := strings.CutPrefix(head, "ref: "); ok {
		return ref, "", strings.HasPrefix(ref, "refs/")
	}
	if len(head) == 40 || len(head) == 64 {
		if _, err := hex.DecodeString(head); err == nil {
			return "", head, true
		}
	}
	return "", "", false
}

// Resolve is p made absolute against dir, if it is relative.
func Resolve(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// writeHead points the HEAD of the worktree whose admin dir is root at
// ref (a full ref), writing the file git itself would ("ref: <ref>"),
// replaced whole by a rename. Only for a HEAD git cannot read (a git
// worktree add killed while it wrote it: git refuses to run there at
// all, so it cannot repair it either). Through root, and the temporary
// file made new: a link an agent left in the entry leads nowhere.
func writeHead(root *os.Root, ref string) error {
	const tmp = "HEAD.git-wt.tmp"
	root.Remove(tmp) // a leftover, or a link: never written through
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return err
	}
	_, err = f.WriteString("ref: " + ref + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return root.Rename(tmp, "HEAD")
}

// FileRefs lists the refs under prefixes ("refs/git-wt/tasks/") of the
// repository whose common dir is commonDir from the files git keeps them
// in, loose and packed, without a git process: for a read that must cost
// next to nothing (under git-wt's lock; list). A loose ref wins over a
// packed one of the same name; symbolic refs are left out. ok is false
// where the refs are not kept in files (reftable): the caller asks git.
// A ref being written meanwhile is read as before or after the write: git
// replaces ref files whole, by a rename. The loose refs are read before
// packed-refs, as git reads them: git pack-refs writes packed-refs before
// it deletes the loose files it packed, so a ref it moves is seen in one
// or the other; the other order could miss it in both.
func FileRefs(commonDir string, prefixes ...string) (refs []Ref, ok bool) {
	if _, err := os.Stat(filepath.Join(commonDir, "reftable")); err == nil {
		return nil, false
	}
	loose := map[string]string{}
	for _, prefix := range prefixes {
		root := filepath.Join(commonDir, filepath.FromSlash(strings.TrimSuffix(prefix, "/")))
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.HasSuffix(p, ".lock") {
				return nil
			}
			data, err := readRefFile(p)
			oid := strings.TrimSpace(string(data))
			if rel, rerr := filepath.Rel(commonDir, p); err == nil && rerr == nil && IsObjectID(oid) {
				loose[filepath.ToSlash(rel)] = oid
			}
			return nil
		})
	}
	testHookBetweenRefReads()
	byName := map[string]string{}
	if packed, err := os.ReadFile(filepath.Join(commonDir, "packed-refs")); err == nil {
		// A real repository's holds thousands of tags: lines are looked
		// at in place, and only the ones asked for become strings.
		for len(packed) > 0 {
			line, rest, _ := bytes.Cut(packed, []byte("\n"))
			packed = rest
			oid, name, found := bytes.Cut(line, []byte(" "))
			if found && hasAnyPrefix(name, prefixes) && IsObjectID(string(oid)) {
				byName[string(name)] = string(oid)
			}
		}
	}
	maps.Copy(byName, loose)
	for name, oid := range byName {
		refs = append(refs, Ref{Name: name, OID: oid})
	}
	slices.SortFunc(refs, func(a, b Ref) int { return strings.Compare(a.Name, b.Name) })
	return refs, true
}

// testHookBetweenRefReads runs between FileRefs' two reads; a test moves
// refs there.
var testHookBetweenRefReads = func() {}

func hasAnyPrefix(s []byte, prefixes []string) bool {
	return slices.ContainsFunc(prefixes, func(p string) bool { return bytes.HasPrefix(s, []byte(p)) })
}

// refFileMax bounds a loose ref file: an object id and a newline, or a
// symbolic ref, is shorter.
const refFileMax = 256

// IsObjectID reports whether s is a full lower-case hexadecimal object id
// (SHA-1 or SHA-256): what may stand for a commit that another machine or
// the forge names, before it reaches git.
func IsObjectID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// ErrNoKilledAdd is FinishWorktreeAdd's answer for a folder that no
// killed git worktree add left: git has no admin entry for it.
var ErrNoKilledAdd = errors.New("no admin entry of a killed git worktree add names this folder")

// initializing is the lock reason git worktree add writes while it works
// (git-wt runs git with LC_ALL=C: untranslated).
const initializing = "initializing"

// FinishWorktreeAdd writes what a `git worktree add` of the folder path,
// killed after it made the folder and before it pointed HEAD, had left to
// write, as git writes it (gitrepository-layout): in the add's admin
// entry under <commonDir>/worktrees/, its gitdir file (naming path/.git),
// its commondir file and a HEAD on ref (a full ref), and the folder's
// .git file, each where git had not written it (a .git file left empty
// was being written); and it drops git's "initializing" lock, as git does
// when it is done. It reports whether it wrote anything. A folder without
// a .git file that no admin entry is a killed add's gets ErrNoKilledAdd;
// one whose .git is no gitdir file, or
// whose worktree lacks none of those files, nothing. The caller holds
// the repository lock, under which git-wt runs every worktree add.
func FinishWorktreeAdd(commonDir, path, ref string) (bool, error) {
	dotGit := filepath.Join(path, ".git")
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false, err
	}
	realDotGit := filepath.Join(real, ".git")
	_, admin, err := AdminDir(path)
	// Unwritten: no .git at all (not even a link, which WriteFile would
	// follow), or the empty file of a kill mid-write.
	st, lerr := os.Lstat(dotGit)
	unwritten := errors.Is(lerr, fs.ErrNotExist) || lerr == nil && emptyFile(st)
	worktrees := filepath.Join(commonDir, "worktrees")
	switch {
	case err == nil:
		// The .git file is the agent's to write (SPEC §19): it must name
		// the entry that git made for this folder, no folder elsewhere.
		if !namesFolder(commonDir, admin, dotGit, realDotGit) {
			return false, nil
		}
	case !unwritten:
		return false, nil // a .git that is not git worktree add's
	default:
		if admin = killedAddEntry(worktrees, filepath.Base(real), dotGit, realDotGit); admin == "" {
			return false, ErrNoKilledAdd
		}
		// A real folder of the common dir's (an entry that is a link
		// would have the files written wherever it leads), named by its
		// real path, as git names it.
		realAdmin, why := realAdminEntry(commonDir, admin)
		if why != "" {
			return false, nil
		}
		admin = realAdmin
	}
	// The files are written as git writes them: with forward slashes, also
	// on Windows; and each through the folder it lies in, so that a link
	// an agent put in the entry or the worktree leads nowhere outside.
	adminRoot, err := os.OpenRoot(admin)
	if err != nil {
		return false, err
	}
	defer adminRoot.Close()
	folderRoot, err := os.OpenRoot(real)
	if err != nil {
		return false, err
	}
	defer folderRoot.Close()
	var missing []func() error
	write := func(root *os.Root, name, content string) func() error {
		return func() error { return root.WriteFile(name, []byte(content), 0o666) }
	}
	if _, err := os.Lstat(filepath.Join(admin, "gitdir")); err != nil {
		missing = append(missing, write(adminRoot, "gitdir", filepath.ToSlash(realDotGit)+"\n"))
	}
	if _, ok := CommonDirWritten(admin); !ok {
		missing = append(missing, write(adminRoot, "commondir", "../..\n"))
	}
	// git writes HEAD in place, first the all-zero id, then where it
	// belongs: a kill may leave it missing, cut short or all zeros, and
	// git then refuses to run in the worktree.
	if head, oid, ok := ReadHead(admin); !ok || head == "" && strings.Trim(oid, "0") == "" {
		missing = append(missing, func() error { return writeHead(adminRoot, ref) })
	}
	if unwritten {
		missing = append(missing, write(folderRoot, ".git", "gitdir: "+filepath.ToSlash(admin)+"\n"))
	}
	if lockReason(admin) == initializing {
		missing = append(missing, func() error { return adminRoot.Remove("locked") })
	}
	for _, step := range missing {
		if err := step(); err != nil {
			return true, err
		}
	}
	return len(missing) > 0, nil
}

// namesFolder says whether admin is an entry git made in the common dir's
// worktrees folder (a real folder directly in it) whose gitdir file names
// one of gitdirs.
func namesFolder(commonDir, admin string, gitdirs ...string) bool {
	if !samePath(admin, filepath.Join(commonDir, "worktrees", filepath.Base(admin))) {
		return false
	}
	realAdmin, why := realAdminEntry(commonDir, admin)
	if why != "" {
		return false
	}
	named, err := gitdirOf(admin)
	return err == nil && namesOneOf(Resolve(realAdmin, named), gitdirs)
}

// gitdirOf is what the admin entry's gitdir file names, as written (a
// path relative to the entry's real path where git writes relative
// paths: worktree.useRelativePaths; git makes them from real paths).
func gitdirOf(admin string) (string, error) {
	data, err := os.ReadFile(filepath.Join(admin, "gitdir"))
	return strings.TrimRight(string(data), "\r\n"), err
}

// namesOneOf says whether named is one of paths.
func namesOneOf(named string, paths []string) bool {
	return slices.ContainsFunc(paths, func(p string) bool { return fsutil.SamePath(p, named) })
}

// killedAddEntry finds, in the worktrees folder of a common dir, the
// admin entry of a killed worktree add of a folder named name: the one
// whose gitdir file names one of gitdirs, else one that git named for
// that folder (name, or name and a number), locked "initializing", whose
// gitdir file git had not written yet. "" when there is none.
func killedAddEntry(worktrees, name string, gitdirs ...string) string {
	entries, _ := os.ReadDir(worktrees)
	unwritten := ""
	for _, e := range entries {
		dir := filepath.Join(worktrees, e.Name())
		named, err := gitdirOf(dir)
		if err == nil && namesOneOf(Resolve(realPath(dir), named), gitdirs) {
			return dir
		}
		number, numbered := strings.CutPrefix(e.Name(), name)
		if errors.Is(err, fs.ErrNotExist) && numbered && strings.Trim(number, "0123456789") == "" && lockReason(dir) == initializing && unwritten == "" {
			unwritten = dir
		}
	}
	return unwritten
}

// realPath is path with every link on its way resolved, or path itself
// where that cannot be done.
func realPath(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	return path
}

// emptyFile says whether the file seen as st (by Lstat) is an empty
// regular file: what git's write_file, which opens a file truncated and
// then writes it, leaves when it is killed between the two.
func emptyFile(st fs.FileInfo) bool {
	return st.Mode().IsRegular() && st.Size() == 0
}

// lockReason is what the admin dir's locked file says ("" for none).
func lockReason(admin string) string {
	data, _ := os.ReadFile(filepath.Join(admin, "locked"))
	return strings.TrimRight(string(data), "\r\n")
}

// BelongsTo says whether dir is (or was, before its admin entry went) a
// linked worktree of the repository whose common dir is commonDir: its
// .git file names an admin dir in that repository's worktrees folder.
// Unlike LinkedWorktree it holds for a folder moved aside or pruned, and
// it is how a folder in a place several repositories share is told to be
// this one's.
func BelongsTo(dir, commonDir string) bool {
	_, admin, err := AdminDir(dir)
	return err == nil && filepath.Dir(filepath.Clean(admin)) == filepath.Join(filepath.Clean(commonDir), "worktrees")
}

// ChangeStamp sums up, by size and modification time only, the files git
// changes when a ref moves (the loose refs under refs/heads and
// refs/git-wt, packed-refs, a reftable) or a worktree's index or HEAD is
// written: two equal stamps mean nothing a fleet view shows has changed
// in between, and taking one costs a few stats, no git. A watcher polls
// it (git wt watch).
func ChangeStamp(commonDir string) string {
	var b strings.Builder
	note := func(p string, st fs.FileInfo) {
		fmt.Fprintf(&b, "%s %d %d\n", p, st.Size(), st.ModTime().UnixNano())
	}
	for _, p := range []string{"packed-refs", "reftable", "HEAD", "index", "worktrees"} {
		if st, err := os.Stat(filepath.Join(commonDir, p)); err == nil {
			note(p, st)
		}
	}
	for _, root := range []string{"refs/heads", "refs/git-wt", "reftable"} {
		filepath.WalkDir(filepath.Join(commonDir, root), func(p string, d fs.DirEntry, err error) error {
			if err == nil {
				if st, err := d.Info(); err == nil {
					note(p, st)
				}
			}
			return nil
		})
	}
	wts, _ := os.ReadDir(filepath.Join(commonDir, "worktrees"))
	for _, wt := range wts {
		for _, f := range []string{"index", "HEAD"} {
			p := filepath.Join(commonDir, "worktrees", wt.Name(), f)
			if st, err := os.Stat(p); err == nil {
				note(p, st)
			}
		}
	}
	return b.String()
}
