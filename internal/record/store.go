package record

import (
	"context"
	"fmt"
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

	pending *Pending // an All started early, used by the next All
}

// Pending is a read of every record started before the repository was
// located (from the current directory), so that it runs beside rev-parse.
type Pending struct {
	done    chan struct{}
	entries []Entry
	err     error
}

// StartAll begins reading every record from dir.
func StartAll(ctx context.Context, g *git.Runner, dir string) *Pending {
	p := &Pending{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.entries, p.err = (&Store{Git: g, Dir: dir}).All(ctx)
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

// All reads every record, with one git process where git is 2.36 or
// later (else two).
func (s *Store) All(ctx context.Context) ([]Entry, error) {
	if p := s.pending; p != nil {
		s.pending = nil
		<-p.done
		return p.entries, p.err
	}
	refs, objs, err := s.Git.RefObjects(ctx, s.Dir, RefPrefix)
	if err != nil {
		return nil, err
	}
	entries := make([]Entry, len(objs))
	for i, o := range objs {
		entries[i] = decodeObject(strings.TrimPrefix(refs[i].Name, RefPrefix), o)
	}
	return entries, nil
}

func decodeObject(slug string, o git.Object) Entry {
	e := Entry{Slug: slug, OID: o.OID}
	if o.Missing {
		e.Err = fmt.Errorf("%w %s: object missing", ErrCorrupt, Ref(slug))
		return e
	}
	if o.Type != "blob" {
		e.Err = fmt.Errorf("%w %s: points at a %s, not a blob", ErrCorrupt, Ref(slug), o.Type)
		return e
	}
	e.Record, e.Err = Decode(slug, o.Data)
	return e
}

// Create stores a new record and, in the same transaction, creates the
// refs in also; it fails with git.ErrStale if the record or one of those
// refs exists already.
func (s *Store) Create(ctx context.Context, r *Record, also ...git.Ref) (string, error) {
	if len(also) == 0 {
		return s.write(ctx, r, "")
	}
	oid, err := s.Git.HashObject(ctx, s.Dir, r.Encode())
	if err != nil {
		return "", err
	}
	return oid, s.Git.CreateRefs(ctx, s.Dir, append([]git.Ref{{Name: Ref(r.Slug), OID: oid}}, also...))
}

// GetAlong is Get, reading the objects the names in others point at in
// the same git process (Missing when they point at nothing).
func (s *Store) GetAlong(ctx context.Context, slugs []string, others ...string) ([]Entry, []git.Object, error) {
	names := make([]string, 0, len(slugs)+len(others))
	for _, sl := range slugs {
		names = append(names, Ref(sl))
	}
	objs, err := s.Git.ReadObjects(ctx, s.Dir, append(names, others...)...)
	if err != nil {
		return nil, nil, err
	}
	var entries []Entry
	for i, o := range objs[:len(slugs)] {
		if !o.Missing {
			entries = append(entries, decodeObject(slugs[i], o))
		}
	}
	return entries, objs[len(slugs):], nil
}

// Update replaces the record read as oldOID; it fails with git.ErrStale if
// someone else changed it since.
func (s *Store) Update(ctx context.Context, r *Record, oldOID string) (string, error) {
	return s.write(ctx, r, oldOID)
}

func (s *Store) write(ctx context.Context, r *Record, oldOID string) (string, error) {
	oid, err := s.Git.HashObject(ctx, s.Dir, r.Encode())
	if err != nil {
		return "", err
	}
	if err := s.Git.UpdateRef(ctx, s.Dir, Ref(r.Slug), oid, oldOID); err != nil {
		return "", err
	}
	return oid, nil
}

// Delete removes the record read as oldOID.
func (s *Store) Delete(ctx context.Context, slug, oldOID string) error {
	return s.Git.DeleteRef(ctx, s.Dir, Ref(slug), oldOID)
}
