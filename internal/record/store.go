package record

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/git-wt/git-wt/internal/git"
)

// RefPrefix is where records live.
const RefPrefix = "refs/wt/"

// Ref is the ref of the record for slug.
func Ref(slug string) string { return RefPrefix + slug }

// Entry is a record as stored: its ref, the blob id it was read from (for
// compare-and-swap) and the record, or the error that kept it from being
// read.
type Entry struct {
	Slug   string
	OID    string
	Record *Record
	Err    error
}

// Store reads and writes records in one repository.
type Store struct {
	Git *git.Runner
	Dir string // any directory of the repository
	// Cache is the file that keeps record blobs by id (see blobCache), or
	// "" to read every blob from git (doctor, which must see what git has).
	Cache string

	pending *Pending // an All started early, used by the next All
	// prewritten is a blob Prewrite is writing, by content.
	prewritten map[string]*prewrite
	early      *git.ObjectReader // started early: the next GetAlong reads with it
}

// UseObjects makes the next Get or GetAlong read with o, a cat-file
// started early in this store's repository.
func (s *Store) UseObjects(o *git.ObjectReader) { s.early = o }

// prewrite is a blob being written ahead of the record write that uses
// it, and the update-ref started for that write.
type prewrite struct {
	done   chan struct{}
	oid    string
	err    error
	update *git.RefUpdate
}

// CacheFile is where the record blob cache of the repository whose common
// dir is commonDir lives.
func CacheFile(commonDir string) string { return filepath.Join(commonDir, "wt", "records.cache") }

// Pending is the listing of every record ref started before the repository
// was located (from the current directory), so that it runs beside
// rev-parse.
type Pending struct {
	done chan struct{}
	refs []git.Ref
	err  error

	warm *warmCache // the cache, read and decoded while git lists the refs
}

// warmCache is the blob cache read, and its records decoded, ahead of the
// refs that say which of them are live.
type warmCache struct {
	done    chan struct{}
	file    string
	blobs   map[string][]byte
	intact  bool
	records map[string]*Record // by blob id, for the blobs that parse
}

// Warm reads the cache file and decodes its records now, while git lists
// the refs, which is when the CPU would wait: All then only matches them.
// The file may be a guess (the repository is not confirmed yet): All uses
// what was read only if its store's cache is the same file.
func (p *Pending) Warm(file string) {
	w := &warmCache{done: make(chan struct{}), file: file}
	p.warm = w
	go func() {
		defer close(w.done)
		w.blobs, w.intact = blobCache{file}.load()
		w.records = make(map[string]*Record, len(w.blobs))
		for oid, blob := range w.blobs {
			var r Record
			if json.Unmarshal(blob, &r) == nil {
				w.records[oid] = &r
			}
		}
	}()
}

// StartAll begins listing every record ref from dir.
func StartAll(ctx context.Context, g *git.Runner, dir string) *Pending {
	p := &Pending{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.refs, p.err = g.ListRefs(ctx, dir, RefPrefix)
	}()
	return p
}

// Use makes the next All return what p read.
func (s *Store) Use(p *Pending) { s.pending = p }

// Get reads the records stored under slugs, with one git process; a slug
// with no record is left out.
func (s *Store) Get(ctx context.Context, slugs ...string) ([]Entry, error) {
	entries, _, err := s.GetAlong(ctx, slugs)
	return entries, err
}

// All reads every record: the refs with one for-each-ref, and the blobs
// from the cache, or with one cat-file --batch for those it lacks.
func (s *Store) All(ctx context.Context) ([]Entry, error) {
	var refs []git.Ref
	var err error
	var warm *warmCache
	if p := s.pending; p != nil {
		s.pending = nil
		<-p.done
		refs, err = p.refs, p.err
		if p.warm != nil && p.warm.file == s.Cache {
			warm = p.warm
			<-warm.done
		}
	} else {
		refs, err = s.Git.ListRefs(ctx, s.Dir, RefPrefix)
	}
	if err != nil {
		return nil, err
	}
	objs, err := s.objects(ctx, refs, warm)
	if err != nil {
		return nil, err
	}
	entries := make([]Entry, len(refs))
	for i, ref := range refs {
		entries[i] = decodeObject(strings.TrimPrefix(ref.Name, RefPrefix), objs[i], warm)
	}
	return entries, nil
}

// Cached waits for Warm and returns the records it decoded, live or not
// (the refs, not the cache, say which are); none without Warm.
func (p *Pending) Cached() []*Record {
	w := p.warm
	if w == nil {
		return nil
	}
	<-w.done
	recs := make([]*Record, 0, len(w.records))
	for _, r := range w.records {
		recs = append(recs, r)
	}
	return recs
}

// record is a copy of the record decoded ahead for the blob oid, or nil.
func (w *warmCache) record(oid string) *Record {
	if w == nil {
		return nil
	}
	r, ok := w.records[oid]
	if !ok {
		return nil
	}
	c := *r
	return &c
}

// objects returns the object each ref points at: from the cache where it
// has the blob, else from git, adding what git read to the cache.
func (s *Store) objects(ctx context.Context, refs []git.Ref, warm *warmCache) ([]git.Object, error) {
	objs := make([]git.Object, len(refs))
	cache := blobCache{s.Cache}
	cached, intact := map[string][]byte{}, true
	switch {
	case warm != nil:
		cached, intact = warm.blobs, warm.intact
	case s.Cache != "":
		cached, intact = cache.load()
	}
	live := map[string][]byte{}
	var missing []string
	for i, ref := range refs {
		if blob, ok := cached[ref.OID]; ok {
			objs[i] = git.Object{Name: ref.Name, OID: ref.OID, Type: "blob", Data: blob}
			live[ref.OID] = blob
		} else {
			missing = append(missing, ref.OID)
		}
	}
	read, err := s.Git.ReadObjects(ctx, s.Dir, missing...)
	if err != nil {
		return nil, err
	}
	fetched := map[string]git.Object{}
	for _, o := range read {
		fetched[o.Name] = o
	}
	added := map[string][]byte{}
	for i, ref := range refs {
		if o, ok := fetched[ref.OID]; ok {
			o.Name = ref.Name
			objs[i] = o
			if !o.Missing && o.Type == "blob" {
				added[ref.OID], live[ref.OID] = o.Data, o.Data
			}
		}
	}
	if s.Cache != "" {
		if dead := len(cached) - (len(live) - len(added)); !intact || dead > len(live)+cacheSlack {
			cache.replace(live)
		} else {
			cache.add(added)
		}
	}
	return objs, nil
}

// decodeObject is the entry of the record ref slug points at, o; a blob
// that warm decoded already is only checked.
func decodeObject(slug string, o git.Object, warm *warmCache) Entry {
	e := Entry{Slug: slug, OID: o.OID}
	switch {
	case o.Missing:
		e.Err = fmt.Errorf("%w %s: object missing", ErrCorrupt, Ref(slug))
	case o.Type != "blob":
		e.Err = fmt.Errorf("%w %s: points at a %s, not a blob", ErrCorrupt, Ref(slug), o.Type)
	default:
		if r := warm.record(o.OID); r != nil {
			e.Record, e.Err = checked(r, slug)
		} else {
			e.Record, e.Err = Decode(slug, o.Data)
		}
	}
	return e
}

// Create stores a new record and, in the same transaction, creates the
// refs in also; it fails with git.ErrStale if the record or one of those
// refs exists already.
func (s *Store) Create(ctx context.Context, r *Record, also ...git.Ref) (string, error) {
	if len(also) == 0 {
		return s.write(ctx, r, "")
	}
	data := r.Encode()
	u := s.Git.StartRefUpdate(ctx, s.Dir, true)
	oid, err := s.hashObject(ctx, data, s.prewriteOf(data))
	if err != nil {
		u.Cancel()
		return "", err
	}
	if err := u.Create(ctx, append([]git.Ref{{Name: Ref(r.Slug), OID: oid}}, also...)); err != nil {
		return "", err
	}
	s.remember(oid, data)
	return oid, nil
}

// GetAlong is Get, reading the objects the names in others point at in
// the same git process (Missing when they point at nothing).
func (s *Store) GetAlong(ctx context.Context, slugs []string, others ...string) ([]Entry, []git.Object, error) {
	names := make([]string, 0, len(slugs)+len(others))
	for _, sl := range slugs {
		names = append(names, Ref(sl))
	}
	read := func(names ...string) ([]git.Object, error) { return s.Git.ReadObjects(ctx, s.Dir, names...) }
	if s.early != nil {
		read, s.early = s.early.Read, nil
	}
	objs, err := read(append(names, others...)...)
	if err != nil {
		return nil, nil, err
	}
	var entries []Entry
	for i, o := range objs[:len(slugs)] {
		if !o.Missing {
			entries = append(entries, decodeObject(slugs[i], o, nil))
		}
	}
	return entries, objs[len(slugs):], nil
}

// Update replaces the record read as oldOID; it fails with git.ErrStale if
// someone else changed it since.
func (s *Store) Update(ctx context.Context, r *Record, oldOID string) (string, error) {
	return s.write(ctx, r, oldOID)
}

// Prewrite starts writing r's blob now, for a record whose next content is
// known before a slow step that must come before the write: the write of
// the same content then finds its blob written, and the update-ref that
// writes it started. A blob written for a write that never comes is left
// to git gc, like any unreachable object.
func (s *Store) Prewrite(ctx context.Context, r *Record) {
	data := r.Encode()
	p := &prewrite{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.update = s.Git.StartRefUpdate(ctx, s.Dir, false)
		p.oid, p.err = s.Git.HashObject(ctx, s.Dir, data)
	}()
	s.prewritten = map[string]*prewrite{string(data): p}
}

// prewriteOf is the Prewrite of data, done, or nil.
func (s *Store) prewriteOf(data []byte) *prewrite {
	p := s.prewritten[string(data)]
	if p != nil {
		<-p.done
	}
	return p
}

// hashObject writes data as a blob, unless its prewrite p has.
func (s *Store) hashObject(ctx context.Context, data []byte, p *prewrite) (string, error) {
	if p != nil && p.err == nil {
		return p.oid, nil
	}
	return s.Git.HashObject(ctx, s.Dir, data)
}

func (s *Store) write(ctx context.Context, r *Record, oldOID string) (string, error) {
	data := r.Encode()
	p := s.prewriteOf(data)
	var u *git.RefUpdate
	if p != nil {
		u = p.update
	} else {
		u = s.Git.StartRefUpdate(ctx, s.Dir, false)
	}
	oid, err := s.hashObject(ctx, data, p)
	if err != nil {
		u.Cancel()
		return "", err
	}
	if err := u.Update(ctx, Ref(r.Slug), oid, oldOID); err != nil {
		return "", err
	}
	s.remember(oid, data)
	return oid, nil
}

// remember adds a record blob just written to the cache, so that the
// next All finds it there.
func (s *Store) remember(oid string, data []byte) {
	if s.Cache != "" {
		blobCache{s.Cache}.add(map[string][]byte{oid: data})
	}
}

// Delete removes the record read as oldOID.
func (s *Store) Delete(ctx context.Context, slug, oldOID string) error {
	return s.Git.DeleteRef(ctx, s.Dir, Ref(slug), oldOID)
}
