package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Object is what a name (a ref, an object id) points at.
type Object struct {
	Name    string // the name asked for
	OID     string
	Type    string // blob, commit, tree, tag
	Data    []byte
	Size    int64 // the object's size in bytes (Data's length, when read)
	Missing bool
	// TooBig: the object is bigger than ReadObjectsUpTo's bound; its data
	// was never read.
	TooBig bool
}

// ReadObjects reads the objects that names point at with one
// `git cat-file --batch`, in the order asked.
func (r *Runner) ReadObjects(ctx context.Context, dir string, names ...string) ([]Object, error) {
	if len(names) == 0 {
		return nil, nil
	}
	return r.StartObjects(ctx, dir).Read(names...)
}

// ReadObjectsUpTo reads the objects that names point at, as ReadObjects
// does, but the data only of those of at most limit bytes: a bigger one
// comes back TooBig, with its type and size and no data, never read into
// memory (an object someone else wrote, a claim, can be of any size). A
// `cat-file --batch-check` reads the sizes first; the objects within the
// bound are then read by their ids, which cannot move meanwhile.
func (r *Runner) ReadObjectsUpTo(ctx context.Context, dir string, limit int64, names ...string) ([]Object, error) {
	if len(names) == 0 {
		return nil, nil
	}
	in, err := batchInput(names)
	if err != nil {
		return nil, err
	}
	out, err := r.Exec(ctx, Cmd{Dir: dir, Args: []string{"cat-file", "--batch-check"}, Stdin: bytes.NewReader(in)})
	if err != nil {
		return nil, err
	}
	objs, err := parseBatchCheck(out, names)
	if err != nil {
		return nil, err
	}
	var small []string
	var at []int
	for i := range objs {
		switch {
		case objs[i].Missing:
		case objs[i].Size > limit:
			objs[i].TooBig = true
		default:
			small, at = append(small, objs[i].OID), append(at, i)
		}
	}
	read, err := r.ReadObjects(ctx, dir, small...)
	if err != nil {
		return nil, err
	}
	for j, o := range read {
		o.Name = objs[at[j]].Name
		objs[at[j]] = o
	}
	return objs, nil
}

// batchInput is the input of a `cat-file --batch` or `--batch-check`:
// one name a line, so that a name must not hold a line break.
func batchInput(names []string) ([]byte, error) {
	var in bytes.Buffer
	for _, n := range names {
		if strings.ContainsAny(n, "\n\x00") {
			return nil, fmt.Errorf("object name %q has a newline", n)
		}
		in.WriteString(n + "\n")
	}
	return in.Bytes(), nil
}

// parseBatchCheck reads `git cat-file --batch-check` output: for each
// name either "<oid> <type> <size>" or "<name> missing".
func parseBatchCheck(out []byte, names []string) ([]Object, error) {
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(names) {
		return nil, errors.New("git cat-file --batch-check: truncated output")
	}
	objs := make([]Object, len(names))
	for i, name := range names {
		objs[i] = Object{Name: name, Missing: true}
		header := strings.Fields(lines[i])
		if len(header) != 3 {
			continue // "<name> missing" or "<name> ambiguous"
		}
		size, err := strconv.ParseInt(header[2], 10, 64)
		if err != nil || size < 0 {
			return nil, errors.New("git cat-file --batch-check: bad object header")
		}
		objs[i] = Object{Name: name, OID: header[0], Type: header[1], Size: size}
	}
	return objs, nil
}

// ObjectReader is a `git cat-file --batch` started before the names it is
// to read are known (see Started).
type ObjectReader struct {
	dir string
	git *Started
}

// StartObjects starts the cat-file that ObjectReader.Read feeds, in dir.
func (r *Runner) StartObjects(ctx context.Context, dir string) *ObjectReader {
	return &ObjectReader{dir: dir, git: r.Start(ctx, Cmd{Dir: dir, Args: []string{"cat-file", "--batch"}})}
}

// Dir is the directory the reader's git runs in.
func (o *ObjectReader) Dir() string { return o.dir }

// Read reads the objects that names point at, in the order asked. It can
// be called once.
func (o *ObjectReader) Read(names ...string) ([]Object, error) {
	in, err := batchInput(names)
	if err != nil {
		o.git.Feed(nil)
		return nil, err
	}
	out, err := o.git.Feed(in)
	if err != nil {
		return nil, err
	}
	return parseBatch(out, names)
}

// parseBatch reads `git cat-file --batch` output: for each name either
// "<oid> <type> <size>\n<data>\n" or "<name> missing\n".
func parseBatch(out []byte, names []string) ([]Object, error) {
	objs := make([]Object, 0, len(names))
	for _, name := range names {
		nl := bytes.IndexByte(out, '\n')
		if nl < 0 {
			return nil, errors.New("git cat-file --batch: truncated output")
		}
		header := strings.Fields(string(out[:nl]))
		out = out[nl+1:]
		if len(header) != 3 {
			// "<name> missing" or "<name> ambiguous"
			objs = append(objs, Object{Name: name, Missing: true})
			continue
		}
		size, err := strconv.Atoi(header[2])
		if err != nil || size < 0 || size+1 > len(out) {
			return nil, errors.New("git cat-file --batch: bad object header")
		}
		objs = append(objs, Object{Name: name, OID: header[0], Type: header[1], Data: out[:size:size], Size: int64(size)})
		out = out[size+1:]
	}
	return objs, nil
}

// Ref is a ref name and the object it points at.
type Ref struct {
	Name string
	OID  string
}

// ListRefs lists the refs under the prefixes (e.g. "refs/git-wt/tasks/"),
// with one for-each-ref, sorted by name.
func (r *Runner) ListRefs(ctx context.Context, dir string, prefixes ...string) ([]Ref, error) {
	lines, err := r.Lines(ctx, dir, append([]string{"for-each-ref", "--format=%(objectname) %(refname)"}, prefixes...)...)
	if err != nil {
		return nil, err
	}
	refs := make([]Ref, 0, len(lines))
	for _, l := range lines {
		oid, name, ok := strings.Cut(l, " ")
		if ok {
			refs = append(refs, Ref{Name: name, OID: oid})
		}
	}
	return refs, nil
}

// HashObject writes data as a blob and returns its id.
func (r *Runner) HashObject(ctx context.Context, dir string, data []byte) (string, error) {
	out, err := r.Exec(ctx, Cmd{Dir: dir, Args: []string{"hash-object", "-w", "--stdin"}, Stdin: bytes.NewReader(data)})
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// ErrStale means a compare-and-swap ref update lost: the ref no longer
// held the value the caller read.
var ErrStale = errors.New("ref changed under us")

// UpdateRef points ref at newOID if it still points at oldOID ("" means the
// ref must not exist yet). It writes no reflog. A lost race is ErrStale.
func (r *Runner) UpdateRef(ctx context.Context, dir, ref, newOID, oldOID string) error {
	_, err := r.Run(ctx, dir, "-c", "core.logAllRefUpdates=false", "update-ref", "-m", "git-wt", ref, newOID, oldOID)
	return r.casResult(ctx, dir, ref, oldOID, err)
}

// RefUpdate is an update-ref started before the update it makes is known
// (see Started): a record write starts it beside the hash-object that
// writes the record's blob.
type RefUpdate struct {
	r    *Runner
	dir  string
	args []string
	git  *Started
}

// StartRefUpdate starts the update-ref that RefUpdate feeds. Without
// reflogs, none is written whatever core.logAllRefUpdates says (records);
// with, git writes them as configured (a branch created).
func (r *Runner) StartRefUpdate(ctx context.Context, dir string, reflogs bool) *RefUpdate {
	args := []string{"update-ref", "-m", "git-wt", "--stdin"}
	if !reflogs {
		args = append([]string{"-c", "core.logAllRefUpdates=false"}, args...)
	}
	return &RefUpdate{r: r, dir: dir, args: args, git: r.Start(ctx, Cmd{Dir: dir, Args: args})}
}

// Update is UpdateRef, made by the started git. Another git's lock on the
// ref is waited for as UpdateRef waits (with a new process).
func (u *RefUpdate) Update(ctx context.Context, ref, newOID, oldOID string) error {
	op := fmt.Sprintf("update %s %s %s\n", ref, newOID, oldOID)
	if oldOID == "" {
		op = fmt.Sprintf("create %s %s\n", ref, newOID)
	}
	_, err := u.git.Feed([]byte(op))
	if transientLock(err) {
		return u.r.UpdateRef(ctx, u.dir, ref, newOID, oldOID)
	}
	return u.r.casResult(ctx, u.dir, ref, oldOID, err)
}

// Create creates refs, none of which may exist yet, in one transaction
// that also checks that none of the refs named absent exists: all or none.
// A ref that exists already is ErrStale.
func (u *RefUpdate) Create(ctx context.Context, refs []Ref, absent ...string) error {
	return u.CreateDeleting(ctx, refs, nil, absent...)
}

// CreateDeleting is Create that also deletes the refs in deletes, each
// only if it still points at its OID, in the same transaction. A ref to
// delete that moved or went is ErrStale too.
func (u *RefUpdate) CreateDeleting(ctx context.Context, refs, deletes []Ref, absent ...string) error {
	var in bytes.Buffer
	for _, ref := range refs {
		fmt.Fprintf(&in, "create %s %s\n", ref.Name, ref.OID)
	}
	for _, ref := range deletes {
		fmt.Fprintf(&in, "delete %s %s\n", ref.Name, ref.OID)
	}
	for _, name := range absent {
		fmt.Fprintf(&in, "verify %s\n", name) // no value: it must not exist
	}
	_, err := u.git.Feed(in.Bytes())
	if transientLock(err) {
		// Another git holds a ref's lock for a moment (a fleet's news
		// meet each other's): the transaction, undone, again with a new
		// process, which Exec retries.
		_, err = u.r.Exec(ctx, Cmd{Dir: u.dir, Args: u.args, Stdin: bytes.NewReader(in.Bytes())})
	}
	if err == nil {
		return nil
	}
	names := make([]string, 0, len(refs)+len(absent))
	for _, ref := range refs {
		names = append(names, ref.Name)
	}
	names = append(names, absent...)
	for _, ref := range deletes {
		names = append(names, ref.Name)
	}
	objs, rerr := u.r.ReadObjects(ctx, u.dir, names...)
	if rerr != nil {
		return err
	}
	for i, o := range objs {
		if i < len(names)-len(deletes) && !o.Missing {
			return fmt.Errorf("%s: %w", o.Name, ErrStale)
		}
		if d := i - (len(names) - len(deletes)); d >= 0 && (o.Missing || o.OID != deletes[d].OID) {
			return fmt.Errorf("%s: %w", o.Name, ErrStale)
		}
	}
	return err
}

// Cancel ends the started git without an update.
func (u *RefUpdate) Cancel() { u.git.Feed(nil) }

// Dir is the directory the update-ref runs in.
func (u *RefUpdate) Dir() string { return u.dir }

// DeleteRefs deletes refs, each only if it still points at its OID and
// none of the refs named absent exists, in one transaction: all or none.
func (r *Runner) DeleteRefs(ctx context.Context, dir string, refs []Ref, absent ...string) error {
	var in strings.Builder
	for _, ref := range refs {
		fmt.Fprintf(&in, "delete %s %s\n", ref.Name, ref.OID)
	}
	for _, name := range absent {
		fmt.Fprintf(&in, "verify %s\n", name)
	}
	_, err := r.Exec(ctx, Cmd{Dir: dir, Args: []string{"update-ref", "-m", "git-wt", "--stdin"}, Stdin: strings.NewReader(in.String())})
	return err
}

// ReplaceRef deletes the ref from if it still points at fromOID and
// creates the ref to at toOID if it does not exist yet, in one transaction
// without reflog: a ref renamed, with a new value or the same. A lost race
// (from moved, to exists) is ErrStale.
func (r *Runner) ReplaceRef(ctx context.Context, dir, from, fromOID, to, toOID string) error {
	in := fmt.Sprintf("delete %s %s\ncreate %s %s\n", from, fromOID, to, toOID)
	_, err := r.Exec(ctx, Cmd{Dir: dir, Args: []string{"-c", "core.logAllRefUpdates=false", "update-ref", "-m", "git-wt", "--stdin"},
		Stdin: strings.NewReader(in)})
	if err == nil {
		return nil
	}
	objs, rerr := r.ReadObjects(ctx, dir, from, to)
	if rerr != nil || len(objs) != 2 {
		return err
	}
	if objs[0].OID != fromOID || !objs[1].Missing {
		return fmt.Errorf("%s: %w", from, ErrStale)
	}
	return err
}

// DeleteRef deletes ref if it still points at oldOID.
func (r *Runner) DeleteRef(ctx context.Context, dir, ref, oldOID string) error {
	_, err := r.Run(ctx, dir, "update-ref", "-d", ref, oldOID)
	return r.casResult(ctx, dir, ref, oldOID, err)
}

// casResult tells a lost compare-and-swap from a real failure by reading
// the ref again, not by reading git's message.
func (r *Runner) casResult(ctx context.Context, dir, ref, oldOID string, err error) error {
	if err == nil {
		return nil
	}
	objs, rerr := r.ReadObjects(ctx, dir, ref)
	if rerr != nil || len(objs) != 1 {
		return err
	}
	now := objs[0].OID
	if now != oldOID {
		return fmt.Errorf("%s: %w", ref, ErrStale)
	}
	return err
}

// ObjectIDs resolves names (refs, "REV^{tree}", "REV:PATH") with one `git
// cat-file --batch-check`, in the order asked: "" for a name that names
// no object here.
func (r *Runner) ObjectIDs(ctx context.Context, dir string, names ...string) ([]string, error) {
	if len(names) == 0 {
		return nil, nil
	}
	for _, n := range names {
		if strings.ContainsAny(n, "\n\x00") {
			return nil, fmt.Errorf("object name %q has a newline", n)
		}
	}
	out, err := r.Exec(ctx, Cmd{Dir: dir, Args: []string{"cat-file", "--batch-check=%(objectname)"},
		Stdin: strings.NewReader(strings.Join(names, "\n") + "\n")})
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(names) {
		return nil, errors.New("git cat-file --batch-check: unexpected output")
	}
	oids := make([]string, len(names))
	for i, l := range lines {
		if l != names[i]+" missing" && l != names[i]+" ambiguous" {
			oids[i] = l
		}
	}
	return oids, nil
}

// PatchIDs runs `git diff-tree --stdin -p` on input (lines of one commit,
// diffed with its parent, or of "COMMIT OTHER", diffed from OTHER to
// COMMIT) through `git patch-id --stable`, and returns each diff's patch id
// keyed by the first commit of its line. An empty diff has no patch id.
func (r History) PatchIDs(ctx context.Context, dir, input string) (map[string]string, error) {
	if !strings.HasSuffix(input, "\n") {
		input += "\n" // diff-tree --stdin leaves out a last line without one
	}
	diffs, err := r.git.Exec(ctx, Cmd{Dir: dir, Args: []string{"diff-tree", "--stdin", "-p", "--binary"},
		Stdin: strings.NewReader(input)})
	if err != nil {
		return nil, err
	}
	out, err := r.git.Exec(ctx, Cmd{Dir: dir, Args: []string{"patch-id", "--stable"}, Stdin: bytes.NewReader(diffs)})
	if err != nil {
		return nil, err
	}
	ids := map[string]string{}
	for _, l := range strings.Split(string(out), "\n") {
		if id, commit, ok := strings.Cut(l, " "); ok {
			ids[commit] = id
		}
	}
	return ids, nil
}

// RefNames lists the refs under prefixes in format (for-each-ref's), from
// dir before the repository is located (completion's quick listing).
func (r *Runner) RefNames(ctx context.Context, dir, format string, prefixes ...string) ([]string, error) {
	out, err := r.Exec(ctx, Cmd{Dir: dir, KeepLocation: true, Args: append([]string{"for-each-ref", "--format=" + format}, prefixes...)})
	if err != nil {
		return nil, err
	}
	return strings.FieldsFunc(string(out), func(c rune) bool { return c == '\n' }), nil
}

// OnABranch reports whether the worktree at dir has a branch checked out
// (false when its HEAD is detached); git failing otherwise counts as on a
// branch, for the caller to find out.
func (r *Runner) OnABranch(ctx context.Context, dir string) bool {
	_, err := r.Run(ctx, dir, "symbolic-ref", "-q", "HEAD")
	return ExitCode(err) != 1
}

// CheckedOutBranch is the branch checked out in the repository's main
// worktree (a full ref) and its upstream ("" for none); ok is false on a
// detached HEAD.
func (r History) CheckedOutBranch(ctx context.Context, dir string) (branch, upstream string, ok bool, err error) {
	lines, err := r.git.Lines(ctx, dir, "for-each-ref", "--format=%(HEAD)%00%(refname)%00%(upstream)", "refs/heads/")
	for _, l := range lines {
		if f := strings.Split(l, "\x00"); len(f) == 3 && f[0] == "*" {
			return f[1], f[2], true, err
		}
	}
	return "", "", false, err
}

// Push pushes ref to the same name on remote and sets it as the branch's
// upstream; progress receives git's progress (nil: quiet).
func (r *Runner) Push(ctx context.Context, dir, remote, ref string, progress io.Writer) error {
	args := []string{"push", "-u"}
	if progress == nil {
		args = append(args, "-q")
	}
	_, err := r.Exec(ctx, Cmd{Dir: dir, Stderr: progress, Args: append(args, "--", remote, ref+":"+ref)})
	return err
}
