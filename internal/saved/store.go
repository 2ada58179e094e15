package saved

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/git-wt/git-wt/internal/async"
	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/slug"
)

// Store is the saved states of one repository.
type Store struct {
	Git       *git.Runner
	Dir       string // the main worktree, where git runs
	CommonDir string
}

// Of is the store of the saved states of repo.
func Of(g *git.Runner, repo *git.Repo) *Store {
	return &Store{Git: g, Dir: repo.MainDir, CommonDir: repo.CommonDir}
}

// Entry is one saved state, as its refs say.
type Entry struct {
	ID     string // <slug>/<stamp>: what restore takes
	Slug   string
	Stamp  string
	At     time.Time // from the stamp
	seq    int       // the same-second number
	Commit string    // the saved commit; "" when only its info ref is left
	Blob   string    // the info blob; "" when it has none
	Info   *Info     // nil when corrupt (Err says why)
	Err    error
	Tip    string // the saved commit's first parent: the branch's tip, or the worktree's HEAD
	// Files and Bytes are the size of the saved changes (Sizes): the
	// files that differ from Tip, and the bytes of those files as saved
	// (a deletion counts 0).
	Files int
	Bytes int64
}

// Discard is what a removal is about to lose.
type Discard struct {
	// Dir is the worktree's folder, whose files are saved; "" when only
	// commits are lost (the folder is gone, or clean).
	Dir string
	// Tree is the tree of Dir's files when the caller wrote it already
	// (Snapshot) and found it differs from Head's; "" to have Save write
	// it, and save nothing when it is Head's after all.
	Tree string
	Head string // the commit checked out in Dir
	// Tip is the tip of the branch the removal deletes with commits found
	// nowhere else; "" when the branch stays.
	Tip  string
	Info Info
}

// maxSameSecond bounds the states of one task saved in one second.
const maxSameSecond = 1000

// Save saves d as one commit and its info blob, both refs created in one
// transaction that never overwrites a state saved before (a second state
// of the task in the same second takes the next stamp). When the files
// turn out to be the commit's and no commits are lost, it writes nothing
// and returns nil.
func (s *Store) Save(ctx context.Context, d Discard, now time.Time) (*Entry, error) {
	first := cmp.Or(d.Tip, d.Head)
	if first == "" {
		return nil, errors.New("nothing to save it onto: no branch tip and no HEAD")
	}
	tree := cmp.Or(d.Tree, first+"^{tree}")
	if d.Dir != "" && d.Tree == "" {
		var err error
		if tree, err = s.Snapshot(ctx, d.Dir, cmp.Or(d.Head, first)); err != nil {
			return nil, fmt.Errorf("cannot save the files of %s: %w", d.Dir, err)
		}
		if d.Tip == "" && s.SameTree(ctx, tree, cmp.Or(d.Head, first)) {
			return nil, nil // nothing in no commit
		}
	}
	if d.Dir != "" {
		if err := s.refuseNested(ctx, d.Dir, cmp.Or(d.Head, first), tree); err != nil {
			return nil, err
		}
	}
	parents := []string{first}
	if d.Head != "" && d.Head != first {
		parents = append(parents, d.Head) // the worktree had another commit checked out
	}
	// The blob and the update-ref's start go beside the commit: a removal
	// waits for each git one after another otherwise.
	info := async.Start(func() (string, error) { return s.Git.HashObject(ctx, s.Dir, d.Info.Encode()) })
	u := s.Git.StartRefUpdate(ctx, s.Dir, false)
	commit, err := s.Git.History().CommitSnapshot(ctx, s.Dir, tree, message(d.Info), parents...)
	blob, berr := info.Get()
	if err = cmp.Or(err, berr); err != nil {
		u.Cancel()
		return nil, err
	}
	for n := 1; n <= maxSameSecond; n++ {
		stamp := Stamp(now, n)
		if n > 1 {
			u = s.Git.StartRefUpdate(ctx, s.Dir, false)
		}
		err := u.Create(ctx, []git.Ref{{Name: CommitRef(d.Info.Slug, stamp), OID: commit}, {Name: InfoRef(d.Info.Slug, stamp), OID: blob}})
		if errors.Is(err, git.ErrStale) {
			continue // saved in this second already: the next number
		}
		if err != nil {
			return nil, err
		}
		at, seq, _ := ParseStamp(stamp)
		return &Entry{ID: d.Info.Slug + "/" + stamp, Slug: d.Info.Slug, Stamp: stamp, At: at, seq: seq, Commit: commit, Blob: blob, Info: &d.Info, Tip: first}, nil
	}
	return nil, fmt.Errorf("%d states of task %q saved in one second", maxSameSecond, d.Info.Task)
}

// refuseNested fails when the worktree's tree holds a repository of its
// own that its commit head did not (a clone or git init inside the
// worktree): git add -A saves it as a gitlink, the id of its HEAD, and
// its files, uncommitted or committed, would go with the worktree,
// which no restore brings back.
func (s *Store) refuseNested(ctx context.Context, dir, head, tree string) error {
	nested, err := s.Git.History().NewGitlinks(ctx, s.Dir, head, tree)
	if err != nil {
		return err
	}
	if len(nested) > 0 {
		return fmt.Errorf("%s holds a git repository of its own at %s, whose files and commits a saved state cannot hold: move it out of the worktree first",
			dir, strings.Join(nested, ", "))
	}
	return nil
}

// ErrNoHead is Snapshot asked for a folder whose files it can save only
// over a commit (no index to copy, or no worktree git knows), without one.
var ErrNoHead = errors.New("no commit to save the files over")

// Snapshot writes the tree of every file of the worktree at dir that git
// does not ignore, through a copy of its index (whose stat data spares
// git reading the unchanged files again, and whose sparse-checkout bits
// keep files outside the checkout from counting as deleted); without an
// index, or for a folder git lost the admin entry of, over head (which
// must then be given: else ErrNoHead).
func (s *Store) Snapshot(ctx context.Context, dir, head string) (tree string, err error) {
	if _, err := git.WorktreeGitDir(dir, s.CommonDir); err != nil {
		if head == "" {
			return "", ErrNoHead
		}
		return s.snapshotFolder(ctx, dir, head)
	}
	err = s.withIndexCopy(ctx, dir, head, func(index string) error {
		tree, err = s.Git.Index().SnapshotTree(ctx, dir, index)
		return err
	})
	return tree, err
}

// ChangedTree is Snapshot for a removal's first look, with no head to
// save over: "" when the worktree's files are its HEAD's (nothing in no
// commit: no staged or unstaged change, no untracked file git does not
// ignore), else their tree, as Snapshot writes it.
func (s *Store) ChangedTree(ctx context.Context, dir string) (tree string, err error) {
	err = s.withIndexCopy(ctx, dir, "", func(index string) error {
		tree, err = s.Git.Index().ChangedTree(ctx, dir, index)
		return err
	})
	return tree, err
}

// snapshotFolder writes the tree of a folder git lost the admin entry of
// (an orphan gc or doctor --fix --force removes), over head.
func (s *Store) snapshotFolder(ctx context.Context, dir, head string) (string, error) {
	tmp, err := s.tempIndex()
	if err != nil {
		return "", err
	}
	index := tmp.Name()
	tmp.Close()
	os.Remove(index) // read-tree writes a new one
	defer os.Remove(index)
	return s.Git.Index().SnapshotFolder(ctx, s.CommonDir, dir, index, head)
}

// SameTree says whether tree is the tree of commit.
func (s *Store) SameTree(ctx context.Context, tree, commit string) bool {
	ids, err := s.Git.ObjectIDs(ctx, s.Dir, commit+"^{tree}")
	return err == nil && len(ids) == 1 && ids[0] == tree
}

// WriteInto writes the files of the saved state e into the worktree at
// dir, which has e.Tip checked out and nothing else: its files become the
// saved ones, byte for byte (modes and symbolic links too), and its index
// stays at e.Tip, so the saved changes are uncommitted changes again and
// the files that were untracked are untracked.
func (s *Store) WriteInto(ctx context.Context, dir string, e *Entry) error {
	return s.withIndexCopy(ctx, dir, e.Tip, func(index string) error {
		return s.Git.Index().WriteFilesOf(ctx, dir, index, e.Tip, e.Commit)
	})
}

// withIndexCopy runs f with a copy of the index of the worktree at dir,
// deleted after: the worktree's own index is never written. Without an
// index to copy, head is read into one.
func (s *Store) withIndexCopy(ctx context.Context, dir, head string, f func(index string) error) error {
	admin, err := git.WorktreeGitDir(dir, s.CommonDir)
	if err != nil {
		return err
	}
	tmp, err := s.tempIndex()
	if err != nil {
		return err
	}
	index := tmp.Name()
	defer os.Remove(index)
	copied := copyInto(tmp, filepath.Join(admin, "index"))
	if err := tmp.Close(); err != nil {
		return err
	}
	if !copied && head == "" {
		return ErrNoHead
	}
	if !copied {
		os.Remove(index) // read-tree writes a new one
		if err := s.Git.Index().ReadTreeInto(ctx, dir, index, head); err != nil {
			return err
		}
	}
	return f(index)
}

// tempIndex is a new file for an index a save stages into, in git-wt's
// own folder <common dir>/wt/save, reached through no link (SPEC §19): not
// among git's files, where a git-wt killed mid-save would leave it and
// git's lock on it for git and doctor to meet, nor outside the repository
// (git finds a split index's shared file in the git dir, wherever the
// index file is).
func (s *Store) tempIndex() (*os.File, error) {
	own := filepath.Join(s.CommonDir, "wt")
	now := time.Now()
	dropKilledCopies(own, now.Add(-killedCopyAge))
	name := fmt.Sprintf("%d-%d-%d%s", now.Unix(), os.Getpid(), rand.Uint64(), copySuffix)
	return fsutil.OpenUnder(own, filepath.Join(own, "save", name), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
}

// copySuffix ends the name of an index copy: <unix time>-<pid>-<random>.
const copySuffix = ".index"

// killedCopyAge is how long ago an index copy (or git's lock on one) in
// the save folder was made when the save that made it was surely killed:
// a save that copies a worktree's files takes minutes, not a day.
const killedCopyAge = 24 * time.Hour

// dropKilledCopies deletes the index copies in the save folder of own
// (git-wt's <common dir>/wt) made before cutoff, and git's locks on them:
// those of saves that were killed, which nothing else deletes and which
// weigh as much as a worktree's index. The time is the one in the copy's
// name: the file's own is the worktree index's (copyInto), a day old for
// a task idle that long. Only files so named go, never through a link
// out of own (an agent can write there). Best effort: a save goes on
// whatever is left.
func dropKilledCopies(own string, cutoff time.Time) {
	if st, err := os.Lstat(own); err != nil || !st.IsDir() {
		return
	}
	root, err := os.OpenRoot(own)
	if err != nil {
		return
	}
	defer root.Close()
	dir, err := root.Open("save")
	if err != nil {
		return
	}
	names, _ := dir.Readdirnames(-1)
	dir.Close()
	for _, name := range names {
		if made, ok := copyMade(name); ok && made.Before(cutoff) {
			root.Remove(filepath.Join("save", name))
		}
	}
}

// copyMade is when the index copy named name (or git's lock on it) was
// made, by its name.
func copyMade(name string) (time.Time, bool) {
	base, ok := strings.CutSuffix(strings.TrimSuffix(name, ".lock"), copySuffix)
	parts := strings.Split(base, "-")
	if !ok || len(parts) != 3 {
		return time.Time{}, false
	}
	for _, p := range parts[1:] {
		if _, err := strconv.ParseUint(p, 10, 64); err != nil {
			return time.Time{}, false
		}
	}
	unix, err := strconv.ParseInt(parts[0], 10, 64)
	return time.Unix(unix, 0), err == nil && unix >= 0
}

// copyInto copies the index file at path into dst, its time too, and
// says whether it did. The time matters: git trusts an entry's stat data
// only when the entry is older than the index file, so a copy newer than
// the original would hide a change made in the second the index was
// written, to a file of the same size ("racily clean").
func copyInto(dst *os.File, path string) bool {
	src, err := os.Open(path)
	if err != nil {
		return false
	}
	defer src.Close()
	st, err := src.Stat()
	if err != nil {
		return false
	}
	if _, err = io.Copy(dst, src); err != nil {
		return false
	}
	return os.Chtimes(dst.Name(), st.ModTime(), st.ModTime()) == nil
}

// message is the saved commit's message: what it holds, and what not.
func message(i Info) string {
	return fmt.Sprintf("git-wt: the state of task %s before %s discarded it\n\n"+
		"Branch %s, worktree %s.\n"+
		"Saved: every file git does not ignore, tracked or untracked, staged or not.\n"+
		"Not saved: ignored files (.gitignore, info/exclude).\n"+
		"Restore with: git wt restore %s\n", i.Task, i.Why, i.Branch, i.Path, i.Slug)
}

// List reads every saved state, newest first. A state whose info blob
// is missing or corrupt is listed with Err set.
func (s *Store) List(ctx context.Context) ([]Entry, error) {
	refs, err := s.Git.ListRefs(ctx, s.Dir, Prefix)
	if err != nil {
		return nil, err
	}
	byID := map[string]*Entry{}
	var entries []*Entry
	for _, r := range refs {
		sl, stamp, info, ok := ParseRef(r.Name)
		if !ok {
			continue
		}
		id := sl + "/" + stamp
		e := byID[id]
		if e == nil {
			at, seq, _ := ParseStamp(stamp)
			e = &Entry{ID: id, Slug: sl, Stamp: stamp, At: at, seq: seq}
			byID[id] = e
			entries = append(entries, e)
		}
		if info {
			e.Blob = r.OID
		} else {
			e.Commit = r.OID
		}
	}
	if err := s.readObjects(ctx, entries); err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(entries))
	for _, e := range entries {
		out = append(out, *e)
	}
	slices.SortFunc(out, func(a, b Entry) int {
		return cmp.Or(b.At.Compare(a.At), cmp.Compare(b.seq, a.seq), strings.Compare(a.Slug, b.Slug))
	})
	return out, nil
}

// readObjects reads the entries' commits (for their parents) and info
// blobs with one bounded cat-file: what anyone could have written there
// is never read whole.
func (s *Store) readObjects(ctx context.Context, entries []*Entry) error {
	var names []string
	for _, e := range entries {
		if e.Commit != "" {
			names = append(names, e.Commit)
		}
		if e.Blob != "" {
			names = append(names, e.Blob)
		}
	}
	objs, err := s.Git.ReadObjectsUpTo(ctx, s.Dir, MaxInfo, names...)
	if err != nil {
		return err
	}
	byOID := map[string]git.Object{}
	for _, o := range objs {
		byOID[o.Name] = o
	}
	for _, e := range entries {
		e.Err = e.read(byOID)
	}
	return nil
}

// read fills the entry from its objects, or says why it is corrupt.
func (e *Entry) read(objs map[string]git.Object) error {
	if e.Commit == "" {
		return fmt.Errorf("%w: %s has no saved commit", ErrCorrupt, e.ID)
	}
	c := objs[e.Commit]
	if c.Type != "commit" || c.TooBig {
		return fmt.Errorf("%w: %s is not a saved commit", ErrCorrupt, e.ID)
	}
	parents := git.CommitParents(c.Data)
	if len(parents) == 0 {
		return fmt.Errorf("%w: %s has no parent to restore its branch at", ErrCorrupt, e.ID)
	}
	e.Tip = parents[0]
	b, ok := objs[e.Blob]
	if e.Blob == "" || !ok || b.Type != "blob" || b.TooBig {
		return fmt.Errorf("%w: %s has no readable info blob", ErrCorrupt, e.ID)
	}
	info, err := Parse(b.Data, e.Slug)
	if err != nil {
		return err
	}
	e.Info = info
	return nil
}

// Sizes fills each entry's Files and Bytes: one diff per entry, and one
// cat-file for the sizes of every file saved.
func (s *Store) Sizes(ctx context.Context, entries []Entry) error {
	var blobs []string
	changed := make([][]git.FileChange, len(entries))
	for i, e := range entries {
		if e.Tip == "" {
			continue
		}
		files, err := s.Git.History().ChangedFiles(ctx, s.Dir, e.Tip, e.Commit)
		if err != nil {
			return err
		}
		changed[i] = files
		for _, f := range files {
			if f.After != "" {
				blobs = append(blobs, f.After)
			}
		}
	}
	objs, err := s.Git.ReadObjectsUpTo(ctx, s.Dir, 0, blobs...)
	if err != nil {
		return err
	}
	size := map[string]int64{}
	for _, o := range objs {
		size[o.Name] = o.Size
	}
	for i := range entries {
		entries[i].Files = len(changed[i])
		for _, f := range changed[i] {
			entries[i].Bytes += size[f.After]
		}
	}
	return nil
}

// Expired are the entries saved before cutoff: the ones gc deletes.
func Expired(entries []Entry, cutoff time.Time) []Entry {
	var old []Entry
	for _, e := range entries {
		if e.At.Before(cutoff) {
			old = append(old, e)
		}
	}
	return old
}

// Delete deletes the refs of entries, each only if it still points where
// it was read, in one transaction.
func (s *Store) Delete(ctx context.Context, entries []Entry) error {
	var refs []git.Ref
	for _, e := range entries {
		if e.Commit != "" {
			refs = append(refs, git.Ref{Name: CommitRef(e.Slug, e.Stamp), OID: e.Commit})
		}
		if e.Blob != "" {
			refs = append(refs, git.Ref{Name: InfoRef(e.Slug, e.Stamp), OID: e.Blob})
		}
	}
	if len(refs) == 0 {
		return nil
	}
	return s.Git.DeleteRefs(ctx, s.Dir, refs)
}

// Find picks the saved state arg names: an ID (<slug>/<stamp>), a stamp
// alone (when one task has it), or a task id (or slug): its newest state
// that is not corrupt. entries are newest first, as List returns them.
func Find(entries []Entry, arg string) (*Entry, error) {
	if _, _, ok := ParseStamp(arg); ok {
		var found []*Entry
		for i := range entries {
			if entries[i].Stamp == arg {
				found = append(found, &entries[i])
			}
		}
		switch len(found) {
		case 0:
			return nil, exitcode.NotFoundf("no saved state %s: git wt trash lists them", arg)
		case 1:
			return found[0], nil
		}
		return nil, exitcode.Usagef("%d tasks have a saved state %s: name one as <slug>/%[2]s", len(found), arg)
	}
	for i := range entries {
		if entries[i].ID == arg {
			return &entries[i], nil
		}
	}
	for i := range entries {
		e := &entries[i]
		if e.Info != nil && slug.SameID(e.Info.Task, arg) || e.Info != nil && e.Slug == arg {
			return e, nil
		}
	}
	return nil, exitcode.NotFoundf("no saved state of task %q: git wt trash lists them", arg)
}
