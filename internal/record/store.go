package record

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-wt/git-wt/internal/async"
	"github.com/git-wt/git-wt/internal/git"
)

// RefPrefix is where records live: under refs/git-wt/, where no short
// name a user types reaches. git resolves "X/y" as refs/X/y before
// refs/heads/X/y, so a record at refs/wt/<slug> would shadow the task
// branch wt/<slug> in git log, merge, push and the rest (SPEC §4).
const RefPrefix = "refs/git-wt/tasks/"

// LegacyPrefix is where git-wt kept records before RefPrefix. Records
// found there are still read, and moved by MoveLegacy (SPEC §14).
const LegacyPrefix = "refs/wt/"

// Ref is the ref of the record for slug.
func Ref(slug string) string { return RefPrefix + slug }

// LegacyRef is where an earlier git-wt kept the record for slug.
func LegacyRef(slug string) string { return LegacyPrefix + slug }

// SlugOf is the slug of a record ref, either kind; ok is false for a ref
// that is no record's.
func SlugOf(ref string) (slug string, legacy, ok bool) {
	if slug, ok := strings.CutPrefix(ref, RefPrefix); ok {
		return slug, false, true
	}
	if slug, ok := strings.CutPrefix(ref, LegacyPrefix); ok {
		return slug, true, true
	}
	return "", false, false
}

// Entry is a record as stored: its ref, the blob id it was read from (for
// compare-and-swap) and the record, or the error that kept it from being
// read.
type Entry struct {
	Slug   string
	OID    string
	Record *Record
	Err    error
	// Legacy says the record was read from LegacyRef(Slug), not yet moved
	// to Ref(Slug): the next write moves it.
	Legacy bool
}

// Ref is the ref the entry was read from.
func (e *Entry) Ref() string {
	if e.Legacy {
		return LegacyRef(e.Slug)
	}
	return Ref(e.Slug)
}

// Store reads and writes records in one repository.
type Store struct {
	Git *git.Runner
	Dir string // any directory of the repository
	// Cache is the file that keeps record blobs by id (see blobCache), or
	// "" to read every blob from git (doctor, which must see what git has).
	Cache string

	pending *Pending // an All started early, used by the next All
	// legacy is every ref under LegacyPrefix the last All listed, those
	// that a record under RefPrefix shadows included.
	legacy []git.Ref
	// prewritten is a blob Prewrite is writing, by content.
	prewritten map[string]*async.Value[*prewrite]
	early      *git.ObjectReader // started early: the next GetAlong reads with it
	// earlyUpdate is an update-ref with reflogs started early: the next
	// Create writes with it.
	earlyUpdate *git.RefUpdate
}

// UseObjects makes the next Get or GetAlong read with o, a cat-file
// started early in this store's repository.
func (s *Store) UseObjects(o *git.ObjectReader) { s.early = o }

// UseRefUpdate makes the next Create write with u, an update-ref with
// reflogs started early in this store's repository: new's claim then
// waits for no git to start.
func (s *Store) UseRefUpdate(u *git.RefUpdate) { s.earlyUpdate = u }

// startUpdate is the update-ref for Create: the one started early when
// it writes reflogs as asked, else a new one (and the early one ends).
func (s *Store) startUpdate(ctx context.Context, reflogs bool) *git.RefUpdate {
	u := s.earlyUpdate
	s.earlyUpdate = nil
	if u != nil && reflogs {
		return u
	}
	if u != nil {
		go u.Cancel()
	}
	return s.Git.StartRefUpdate(ctx, s.Dir, reflogs)
}

// prewrite is a blob written ahead of the record write that uses it (or
// the failure to), and the update-ref started for that write.
type prewrite struct {
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
	refs *async.Value[[]git.Ref]
	// fromFiles is the common dir whose ref files are read, when one was
	// found: a repository found but not confirmed yet (git.Discover).
	// Where its ref files cannot be read (reftable), git lists the refs.
	fromFiles string

	warmFile string                   // the cache file Warm reads
	warm     *async.Value[*warmCache] // the cache, read and decoded while git lists the refs
}

// warmCache is the blob cache read, and its records decoded, ahead of the
// refs that say which of them are live.
type warmCache struct {
	blobs   map[string][]byte
	total   int // entries in the file, read or not
	intact  bool
	records map[string]*Record // by blob id, for the blobs that parse
}

// Warm reads the cache file and decodes its records now, while git lists
// the refs, which is when the CPU would wait: All then only matches them.
// The file may be a guess (the repository is not confirmed yet): All uses
// what was read only if its store's cache is the same file.
//
// When the refs are read from their files (in a moment), only the blobs
// they point at are checked and decoded: the file also holds the records'
// earlier versions, as many again before it is rewritten.
func (p *Pending) Warm(file string) {
	p.warmFile = file
	p.warm = async.Start(func() (*warmCache, error) {
		var want map[string]bool
		if p.fromFiles != "" {
			if refs, err := p.refs.Get(); err == nil {
				want = make(map[string]bool, len(refs))
				for _, r := range refs {
					want[r.OID] = true
				}
			}
		}
		w := &warmCache{}
		w.blobs, w.total, w.intact = blobCache{file}.load(want)
		w.records = decodeAll(w.blobs)
		return w, nil
	})
}

// decodeAll decodes the records among blobs, by blob id, on every core:
// decoding is most of the time list spends on its records.
func decodeAll(blobs map[string][]byte) map[string]*Record {
	oids := slices.Collect(maps.Keys(blobs))
	decoded := make([]*Record, len(oids))
	async.Each(len(oids), 0, func(i int) {
		var r Record
		if json.Unmarshal(blobs[oids[i]], &r) == nil {
			decoded[i] = &r
		}
	})
	records := make(map[string]*Record, len(oids))
	for i, r := range decoded {
		if r != nil {
			records[oids[i]] = r
		}
	}
	return records
}

// StartAll begins listing every record ref from dir: from the ref files
// of commonDir, the repository found there but not confirmed yet, when
// it keeps them in files (no git process: for-each-ref costs as much as
// the rest of git wt list --no-status), else with for-each-ref.
func StartAll(ctx context.Context, g *git.Runner, dir, commonDir string) *Pending {
	return &Pending{fromFiles: commonDir, refs: async.Start(func() ([]git.Ref, error) {
		if commonDir != "" {
			if refs, ok := git.FileRefs(commonDir, RefPrefix, LegacyPrefix); ok {
				return refs, nil
			}
		}
		return g.ListRefs(ctx, dir, RefPrefix, LegacyPrefix)
	})}
}

// Use makes the next All return what p read, if p read this store's
// repository: one read from the files of a repository found but not
// confirmed may be another's.
func (s *Store) Use(p *Pending) {
	if p.fromFiles == "" || CacheFile(p.fromFiles) == s.Cache {
		s.pending = p
	}
}

// Get reads the records stored under slugs, with one git process; a slug
// with no record is left out.
func (s *Store) Get(ctx context.Context, slugs ...string) ([]Entry, error) {
	entries, _, err := s.GetAlong(ctx, slugs)
	return entries, err
}

// All reads every record: the refs with one for-each-ref, and the blobs
// from the cache, or with one cat-file --batch for those it lacks. A
// record still under LegacyPrefix is read there (Entry.Legacy), unless a
// record under RefPrefix has its slug: that one is the task (LegacyRefs
// lists the other).
func (s *Store) All(ctx context.Context) ([]Entry, error) {
	var refs []git.Ref
	var err error
	var warm *warmCache
	if p := s.pending; p != nil {
		s.pending = nil
		refs, err = p.refs.Get()
		if p.warmFile == s.Cache {
			warm, _ = p.warm.Get()
		}
	} else {
		refs, err = s.Git.ListRefs(ctx, s.Dir, RefPrefix, LegacyPrefix)
	}
	if err != nil {
		return nil, err
	}
	return s.entries(ctx, s.sortLegacy(refs), warm)
}

// AllFromFiles is every record, with the refs read from the files git
// keeps them in rather than by a git process (git.FileRefs): with the
// blobs in the cache, no process at all. For a read under the lock that
// must cost next to nothing (the ports a new task may take). Records
// still under refs/wt/ are not read: taking the lock moved them. Where
// the refs are not kept in files, it is All.
func (s *Store) AllFromFiles(ctx context.Context, commonDir string) ([]Entry, error) {
	refs, ok := git.FileRefs(commonDir, RefPrefix)
	if !ok {
		return s.All(ctx)
	}
	return s.entries(ctx, refs, nil)
}

// entries reads and decodes the records refs point at.
func (s *Store) entries(ctx context.Context, refs []git.Ref, warm *warmCache) ([]Entry, error) {
	objs, err := s.objects(ctx, refs, warm)
	if err != nil {
		return nil, err
	}
	entries := make([]Entry, len(refs))
	for i, ref := range refs {
		slug, legacy, _ := SlugOf(ref.Name)
		entries[i] = decodeObject(slug, ref.Name, objs[i], warm)
		entries[i].Legacy = legacy
	}
	return entries, nil
}

// sortLegacy keeps the legacy refs in s.legacy and returns the record
// refs to read: every ref under RefPrefix, and those under LegacyPrefix
// whose slug has none there.
func (s *Store) sortLegacy(refs []git.Ref) []git.Ref {
	s.legacy = nil
	current := map[string]bool{}
	for _, ref := range refs {
		if slug, legacy, ok := SlugOf(ref.Name); ok && !legacy {
			current[slug] = true
		}
	}
	live := refs[:0:0]
	for _, ref := range refs {
		slug, legacy, ok := SlugOf(ref.Name)
		if legacy {
			s.legacy = append(s.legacy, ref)
		}
		if ok && !(legacy && current[slug]) {
			live = append(live, ref)
		}
	}
	return live
}

// LegacyRefs is every ref under LegacyPrefix that the last All listed.
func (s *Store) LegacyRefs() []git.Ref { return s.legacy }

// Cached waits for Warm and returns the records it decoded, live or not
// (the refs, not the cache, say which are); none without Warm.
func (p *Pending) Cached() []*Record {
	w, _ := p.warm.Get()
	if w == nil {
		return nil
	}
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
	cached, total, intact := map[string][]byte{}, 0, true
	switch {
	case warm != nil:
		cached, total, intact = warm.blobs, warm.total, warm.intact
	case s.Cache != "":
		cached, total, intact = cache.load(nil)
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
		if dead := total - (len(live) - len(added)); !intact || dead > len(live)+cacheSlack {
			cache.replace(live)
		} else {
			cache.add(added)
		}
	}
	return objs, nil
}

// decodeObject is the entry of the record ref (of slug) that points at o;
// a blob that warm decoded already is only checked.
func decodeObject(slug, ref string, o git.Object, warm *warmCache) Entry {
	e := Entry{Slug: slug, OID: o.OID}
	switch {
	case o.Missing:
		e.Err = fmt.Errorf("%w %s: object missing", ErrCorrupt, ref)
	case o.Type != "blob":
		e.Err = fmt.Errorf("%w %s: points at a %s, not a blob", ErrCorrupt, ref, o.Type)
	default:
		if r := warm.record(o.OID); r != nil {
			e.Record, e.Err = checked(r, slug, ref)
		} else {
			e.Record, e.Err = decodeAt(slug, ref, o.Data)
		}
	}
	return e
}

// Create stores a new record and, in the same transaction, creates the
// refs in also; it fails with git.ErrStale if the record or one of those
// refs exists already, or a record under the slug's LegacyRef.
func (s *Store) Create(ctx context.Context, r *Record, also ...git.Ref) (string, error) {
	return s.create(ctx, r, nil, also)
}

// create is Create that also deletes the refs in deletes, each at its
// value, in the same transaction.
func (s *Store) create(ctx context.Context, r *Record, deletes, also []git.Ref) (string, error) {
	data := r.Encode()
	u := s.startUpdate(ctx, len(also) > 0) // a branch created gets its reflog
	oid, err := s.hashObject(ctx, data, s.prewriteOf(data))
	if err != nil {
		u.Cancel()
		return "", err
	}
	if err := u.CreateDeleting(ctx, append([]git.Ref{{Name: Ref(r.Slug), OID: oid}}, also...), deletes, LegacyRef(r.Slug)); err != nil {
		return "", err
	}
	s.remember(oid, data)
	return oid, nil
}

// GetAlong is Get, reading the objects the names in others point at in
// the same git process (Missing when they point at nothing). A slug with
// no record under RefPrefix is looked up under LegacyPrefix too, in the
// same read.
func (s *Store) GetAlong(ctx context.Context, slugs []string, others ...string) ([]Entry, []git.Object, error) {
	names := make([]string, 0, 2*len(slugs)+len(others))
	for _, sl := range slugs {
		names = append(names, Ref(sl))
	}
	for _, sl := range slugs {
		names = append(names, LegacyRef(sl))
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
	n := len(slugs)
	for i, sl := range slugs {
		switch o, old := objs[i], objs[n+i]; {
		case !o.Missing:
			entries = append(entries, decodeObject(sl, Ref(sl), o, nil))
		case !old.Missing:
			e := decodeObject(sl, LegacyRef(sl), old, nil)
			e.Legacy = true
			entries = append(entries, e)
		}
	}
	return entries, objs[2*n:], nil
}

// Save writes e.Record over the record e was read as, and points e at what
// it wrote. A record read under LegacyPrefix moves to RefPrefix in the
// same transaction. It fails with git.ErrStale if someone else changed
// (or moved) the record since.
func (s *Store) Save(ctx context.Context, e *Entry) error {
	if !e.Legacy {
		oid, err := s.write(ctx, e.Record, e.OID)
		if err == nil {
			e.OID = oid
		}
		return err
	}
	data := e.Record.Encode()
	p := s.prewriteOf(data)
	if p != nil {
		p.update.Cancel() // started for an update in place, which this is not
	}
	oid, err := s.hashObject(ctx, data, p)
	if err != nil {
		return err
	}
	if err := s.Git.ReplaceRef(ctx, s.Dir, LegacyRef(e.Slug), e.OID, Ref(e.Slug), oid); err != nil {
		return err
	}
	s.remember(oid, data)
	e.OID, e.Legacy = oid, false
	return nil
}

// Move moves the record of slug from LegacyRef(slug), where it points at
// oid, to Ref(slug), with one transaction; git.ErrStale when either ref
// changed meanwhile.
func (s *Store) Move(ctx context.Context, slug, oid string) error {
	return s.Git.ReplaceRef(ctx, s.Dir, LegacyRef(slug), oid, Ref(slug), oid)
}

// Prewrite starts writing r's blob now, for a record whose next content is
// known before a slow step that must come before the write: the write of
// the same content then finds its blob written, and the update-ref that
// writes it started. A blob written for a write that never comes is left
// to git gc, like any unreachable object.
func (s *Store) Prewrite(ctx context.Context, r *Record) {
	data := r.Encode()
	s.prewritten = map[string]*async.Value[*prewrite]{string(data): async.Start(func() (*prewrite, error) {
		p := &prewrite{update: s.Git.StartRefUpdate(ctx, s.Dir, false)}
		p.oid, p.err = s.Git.HashObject(ctx, s.Dir, data)
		return p, nil
	})}
}

// prewriteOf is the Prewrite of data, done, or nil.
func (s *Store) prewriteOf(data []byte) *prewrite {
	p, _ := s.prewritten[string(data)].Get()
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

// Delete removes the record read as oldOID, under RefPrefix or, when it
// is not there, under LegacyPrefix.
func (s *Store) Delete(ctx context.Context, slug, oldOID string) error {
	err := s.Git.DeleteRef(ctx, s.Dir, Ref(slug), oldOID)
	if errors.Is(err, git.ErrStale) {
		legacy := []git.Ref{{Name: LegacyRef(slug), OID: oldOID}}
		if s.Git.DeleteRefs(ctx, s.Dir, legacy, Ref(slug)) == nil {
			return nil
		}
	}
	return err
}

// DeleteEntry removes the record e was read as, from the ref it was read
// from.
func (s *Store) DeleteEntry(ctx context.Context, e *Entry) error {
	return s.Git.DeleteRef(ctx, s.Dir, e.Ref(), e.OID)
}
