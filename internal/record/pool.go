package record

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/git-wt/git-wt/internal/git"
)

// PoolPrefix is where the warm pool's entries live (SPEC §11, §14): one
// ref per entry, refs/git-wt/pool/<id>, holding a PoolEntry blob.
const PoolPrefix = "refs/git-wt/pool/"

// PoolRef is the ref of the pool entry id.
func PoolRef(id string) string { return PoolPrefix + id }

// PoolEntry is one spare checkout of the warm pool: a registered worktree
// at Path, detached at Commit (the tip of Base when it was made). Its ref
// is written before the worktree is added, not Ready; the filler makes it
// Ready once the checkout, the copies and wt.poolInit are done and left
// it clean. Only a ready entry is claimed.
type PoolEntry struct {
	ID        string    `json:"id"`
	Path      string    `json:"path"`
	Commit    string    `json:"commit"`
	Base      string    `json:"base"`
	State     State     `json:"state"` // always Pooled: a claim turns the entry into a task record
	Ready     bool      `json:"ready"`
	CreatedAt time.Time `json:"created_at"`
	Init      Init      `json:"init"`
	// The filler that made it (the JSON keeps a record's names).
	Signature
}

// PoolDrained is what a drain did, or would do, to one pool entry: the
// pool drains, and retention (below it) reports what its drains for
// wt.maxTotalSize did.
type PoolDrained struct {
	ID      string
	Path    string
	Outcome string // removed, kept, gone; in a dry run: would remove, would keep
	Reason  string // why it was drained: stale, wt.maxTotalSize ("": asked to)
	Size    int64  // the disk it took (only where the drain weighed it)
	Err     error  // why it was kept
}

// PoolItem is a pool entry as stored: its id, the blob id it was read from
// (for compare-and-swap), and the entry or the error that kept it from
// being read.
type PoolItem struct {
	ID    string
	OID   string
	Entry *PoolEntry
	Err   error
}

// Ref is the ref the entry was read from.
func (p *PoolItem) Ref() git.Ref { return git.Ref{Name: PoolRef(p.ID), OID: p.OID} }

func decodePool(id string, data []byte) (*PoolEntry, error) {
	var p PoolEntry
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrCorrupt, PoolRef(id), err)
	}
	if p.ID != id || p.Path == "" || p.Commit == "" {
		return nil, fmt.Errorf("%w %s: missing id, path or commit", ErrCorrupt, PoolRef(id))
	}
	return &p, nil
}

func encodePool(p *PoolEntry) []byte {
	data, err := json.Marshal(p)
	if err != nil {
		panic(err) // a PoolEntry always marshals
	}
	return append(data, '\n')
}

// Pool reads every pool entry: the refs from the files git keeps them in
// (one for-each-ref where it keeps them otherwise), the blobs from the
// cache or one cat-file.
func (s *Store) Pool(ctx context.Context, commonDir string) ([]PoolItem, error) {
	refs, ok := git.FileRefs(commonDir, PoolPrefix)
	if !ok {
		var err error
		if refs, err = s.Git.ListRefs(ctx, s.Dir, PoolPrefix); err != nil {
			return nil, err
		}
	}
	objs, err := s.objects(ctx, refs, nil)
	if err != nil {
		return nil, err
	}
	out := make([]PoolItem, 0, len(refs))
	for i, ref := range refs {
		id := strings.TrimPrefix(ref.Name, PoolPrefix)
		p := PoolItem{ID: id, OID: ref.OID}
		switch o := objs[i]; {
		case o.Missing:
			continue // deleted since it was listed
		case o.Type != "blob":
			p.Err = fmt.Errorf("%w %s: points at a %s, not a blob", ErrCorrupt, ref.Name, o.Type)
		default:
			p.Entry, p.Err = decodePool(id, o.Data)
		}
		out = append(out, p)
	}
	return out, nil
}

// CreatePool stores a new pool entry; git.ErrStale if its id is taken.
func (s *Store) CreatePool(ctx context.Context, p *PoolEntry) (*PoolItem, error) {
	it := &PoolItem{ID: p.ID, Entry: p}
	return it, s.SavePool(ctx, it)
}

// SavePool writes the entry over the one it was read as, or as a new one
// when it was never stored (OID ""): compare and swap, git.ErrStale if it
// changed, went or came meanwhile.
func (s *Store) SavePool(ctx context.Context, p *PoolItem) error {
	data := encodePool(p.Entry)
	oid, err := s.Git.HashObject(ctx, s.Dir, data)
	if err != nil {
		return err
	}
	if err := s.Git.UpdateRef(ctx, s.Dir, PoolRef(p.ID), oid, p.OID); err != nil {
		return err
	}
	s.remember(oid, data)
	p.OID = oid
	return nil
}

// DeletePool drops the entry's ref if it still points where it was read.
func (s *Store) DeletePool(ctx context.Context, p *PoolItem) error {
	return s.Git.DeleteRef(ctx, s.Dir, PoolRef(p.ID), p.OID)
}

// CreateClaiming is Create that takes the pool entry p in the same
// transaction: its ref is deleted at the value read, so that two claims
// never take one entry (git.ErrStale: the record exists, or p went).
func (s *Store) CreateClaiming(ctx context.Context, r *Record, p *PoolItem, also ...git.Ref) (string, error) {
	return s.create(ctx, r, []git.Ref{p.Ref()}, also)
}
