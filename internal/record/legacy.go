package record

import (
	"context"

	"github.com/git-wt/git-wt/internal/lock"
)

// The outcomes of moving one legacy record (SPEC §14 "Legacy records").
const (
	LegacyMoved    = "moved"    // now under RefPrefix, with the same blob
	LegacyDropped  = "dropped"  // RefPrefix held the same blob already: the old ref is gone
	LegacyConflict = "conflict" // RefPrefix holds another blob: neither changed, the new one is the task
	LegacyFailed   = "failed"   // git refused (Err says why); nothing changed
)

// LegacyMove is what MoveLegacy did with the record ref under LegacyPrefix
// of one slug.
type LegacyMove struct {
	Slug    string
	OID     string // what the legacy ref pointed at
	Current string // what Ref(Slug) points at, for a conflict
	Outcome string
	Err     error
}

// MoveLegacy moves every record under LegacyPrefix to RefPrefix, each
// with one compare-and-swap transaction (delete the old ref at its value,
// create the new one with the same blob), so that a record changed or
// moved meanwhile by another process is left alone. When RefPrefix holds
// the slug already, the old ref is deleted if it holds the same blob and
// both are left as they are if not, under the repository lock the caller
// holds (held).
func (s *Store) MoveLegacy(ctx context.Context, held *lock.Lock) ([]LegacyMove, error) {
	refs, err := s.Git.ListRefs(ctx, s.Dir, RefPrefix, LegacyPrefix)
	if err != nil {
		return nil, err
	}
	current := map[string]string{}
	for _, ref := range refs {
		if slug, legacy, ok := SlugOf(ref.Name); ok && !legacy {
			current[slug] = ref.OID
		}
	}
	var moves []LegacyMove
	for _, ref := range refs {
		slug, legacy, _ := SlugOf(ref.Name)
		if !legacy {
			continue
		}
		m := LegacyMove{Slug: slug, OID: ref.OID, Current: current[slug]}
		switch {
		case m.Current == "":
			m.Outcome, m.Err = LegacyMoved, s.Move(ctx, slug, ref.OID)
		case m.Current == ref.OID:
			m.Outcome, m.Err = LegacyDropped, s.Git.DeleteRef(ctx, s.Dir, ref.Name, ref.OID)
		default:
			m.Outcome = LegacyConflict
		}
		if m.Err != nil {
			m.Outcome = LegacyFailed
		}
		moves = append(moves, m)
	}
	return moves, nil
}
