package inspect

import (
	"context"
	"strings"

	"github.com/git-wt/git-wt/internal/async"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
)

// Merged is the one definition of "merged" (SPEC §7) that rm, gc, list and
// the post-merge hook share; see MergedSet.
func (m *Inspector) Merged(ctx context.Context, rec *record.Record) (bool, error) {
	set, err := m.MergedSet(ctx, []*record.Record{rec}, "")
	return set[rec.Slug], err
}

// MergedSet returns the slugs of the tasks among recs that are merged into
// their base: the recorded pull request is MERGED and the branch's tip is
// its recorded head commit or behind it (see mergedByPR), or the branch
// has commits of its own (its tip is not the recorded base_sha: a fresh task
// is never merged) and
//
//   - it is an ancestor of the base (a merge or a fast-forward), or
//   - merging it into the base would change nothing (`git merge-tree
//     --write-tree`, git 2.38 and later: a squash or rebase merge), or
//   - its whole diff since base_sha is one commit of the base (patch ids:
//     a squash merge, also one that the base edited later), or
//   - each of its commits has an equal in the base (a rebase merge).
//
// The last three are looked for only where the base has changed every
// path the branch changed, which one diff-tree and one cat-file tell for
// all tasks at once and which rules out almost every unmerged branch: a
// branch whose change is not in the base changed a path the base left
// alone. since, when set, limits the patch-id search to the base's commits
// after it (the post-merge hook looks at what the merge brought in).
func (m *Inspector) MergedSet(ctx context.Context, recs []*record.Record, since string) (map[string]bool, error) {
	merged := map[string]bool{}
	pending, err := m.mergedByPR(ctx, recs, merged)
	if err != nil {
		return merged, err
	}
	checks, err := m.resolveChecks(ctx, pending)
	if err != nil || len(checks) == 0 {
		return merged, err
	}
	rest, err := m.notAncestors(ctx, checks, merged)
	if err == nil && len(rest) > 0 {
		rest, err = m.changedOnBase(ctx, rest)
	}
	if err != nil || len(rest) == 0 {
		return merged, err
	}
	if m.Repo.Version.AtLeast(git.MergeTreeVersion) {
		rest = m.mergeTreeUnchanged(ctx, rest, merged)
	}
	upstream := map[string]map[string]bool{} // base range → patch ids
	for _, c := range rest {
		ok, err := m.patchMerged(ctx, c, since, upstream)
		if err != nil {
			return merged, err
		}
		if ok {
			merged[c.rec.Slug] = true
		}
	}
	return merged, nil
}

// mergedByPR marks the tasks whose recorded pull request is MERGED and
// whose branch's tip is the PR's recorded head commit or an ancestor of it
// (one cat-file reads every tip and head, one merge-base asks for a tip
// behind its head), and returns the others for git's checks. A MERGED PR
// says nothing of commits made on the branch after its head (SPEC §19):
// deleting the branch as merged would lose them; nor, recorded without
// its head, of which commits it merged.
func (m *Inspector) mergedByPR(ctx context.Context, recs []*record.Record, merged map[string]bool) ([]*record.Record, error) {
	var byPR, rest []*record.Record
	for _, rec := range recs {
		if rec.PR != nil && rec.PR.HeadOID != "" && strings.EqualFold(rec.PR.State, "MERGED") {
			byPR = append(byPR, rec)
		} else {
			rest = append(rest, rec)
		}
	}
	if len(byPR) == 0 {
		return rest, nil
	}
	names := make([]string, 0, 2*len(byPR))
	for _, rec := range byPR {
		names = append(names, task.BranchRef(rec.Branch)+"^{commit}", rec.PR.HeadOID+"^{commit}")
	}
	oids, err := m.Git.ObjectIDs(ctx, m.Repo.MainDir, names...)
	if err != nil {
		return nil, err
	}
	for i, rec := range byPR {
		if m.atOrBehind(ctx, oids[2*i], oids[2*i+1]) {
			merged[rec.Slug] = true
		} else {
			rest = append(rest, rec)
		}
	}
	return rest, nil
}

// atOrBehind says whether commit tip is head or in its history; a commit
// that is not here (none) is neither.
func (m *Inspector) atOrBehind(ctx context.Context, tip, head string) bool {
	if tip == "" || head == "" {
		return false
	}
	if tip == head {
		return true
	}
	ok, err := m.Git.History().IsAncestor(ctx, m.Repo.MainDir, tip, head)
	return err == nil && ok
}

// mergeCheck is one task being checked, with its commits resolved.
type mergeCheck struct {
	rec      *record.Record
	tip      string // the branch's commit
	base     string // the base's commit now
	baseTree string
}

// resolveChecks reads every branch tip and base with one cat-file and
// keeps the branches that have commits of their own.
func (m *Inspector) resolveChecks(ctx context.Context, recs []*record.Record) ([]*mergeCheck, error) {
	names := make([]string, 0, 3*len(recs))
	for _, rec := range recs {
		b := baseRev(rec)
		names = append(names, task.BranchRef(rec.Branch)+"^{commit}", b+"^{commit}", b+"^{tree}")
	}
	oids, err := m.Git.ObjectIDs(ctx, m.Repo.MainDir, names...)
	if err != nil {
		return nil, err
	}
	var checks []*mergeCheck
	for i, rec := range recs {
		c := &mergeCheck{rec: rec, tip: oids[3*i], base: oids[3*i+1], baseTree: oids[3*i+2]}
		if c.tip != "" && c.base != "" && c.tip != rec.BaseSHA {
			checks = append(checks, c)
		}
	}
	return checks, nil
}

// notAncestors marks the branches that are ancestors of their base (one
// for-each-ref per base) and returns the others.
func (m *Inspector) notAncestors(ctx context.Context, checks []*mergeCheck, merged map[string]bool) ([]*mergeCheck, error) {
	byBase := map[string][]*mergeCheck{}
	var bases []string
	for _, c := range checks {
		if byBase[c.base] == nil {
			bases = append(bases, c.base)
		}
		byBase[c.base] = append(byBase[c.base], c)
	}
	var rest []*mergeCheck
	for _, b := range bases {
		var refs []string
		for _, c := range byBase[b] {
			refs = append(refs, task.BranchRef(c.rec.Branch))
		}
		in, err := m.Git.History().MergedInto(ctx, m.Repo.MainDir, b, refs)
		if err != nil {
			return nil, err
		}
		for _, c := range byBase[b] {
			if in[task.BranchRef(c.rec.Branch)] {
				merged[c.rec.Slug] = true
			} else {
				rest = append(rest, c)
			}
		}
	}
	return rest, nil
}

// changedOnBase keeps the tasks whose every changed path (since base_sha)
// the base has changed too: changed to another blob, a mode-only change
// being no change. One diff-tree answers for all tasks: a line per task
// (its change since base_sha) and a line per distinct (base tip,
// base_sha) pair (the base's change since the task forked), so the cost
// grows with what the tasks and the base changed, never with their
// product; a task is ruled out at its first path the base left alone.
func (m *Inspector) changedOnBase(ctx context.Context, checks []*mergeCheck) ([]*mergeCheck, error) {
	pairs := make([][2]string, 0, 2*len(checks))
	for _, c := range checks {
		pairs = append(pairs, [2]string{c.tip, c.rec.BaseSHA})
	}
	baseSection := map[[2]string]int{}
	for _, c := range checks {
		pair := [2]string{c.base, c.rec.BaseSHA}
		if _, ok := baseSection[pair]; !ok {
			baseSection[pair] = len(pairs)
			pairs = append(pairs, pair)
		}
	}
	out, err := m.Git.History().DiffTrees(ctx, m.Repo.MainDir, pairs)
	if err != nil {
		return nil, err
	}
	sections := diffSections(out, len(pairs))
	baseChanged := make(map[int]map[string]bool, len(baseSection))
	for _, i := range baseSection {
		changed := make(map[string]bool, len(sections[i]))
		for _, ch := range sections[i] {
			if ch.before != ch.after {
				changed[ch.path] = true
			}
		}
		baseChanged[i] = changed
	}
	var keep []*mergeCheck
	for i, c := range checks {
		if everyPathChanged(sections[i], baseChanged[baseSection[[2]string{c.base, c.rec.BaseSHA}]]) {
			keep = append(keep, c)
		}
	}
	return keep, nil
}

// pathChange is one path of a diff-tree section: its blob before and after
// (all zeros where there is none).
type pathChange struct{ path, before, after string }

// diffSections splits the output of DiffTrees (-r -z, --always) into its n
// sections, one per input line, each the paths that line's diff changed.
func diffSections(out []byte, n int) [][]pathChange {
	sections := make([][]pathChange, n)
	section := -1
	fields := strings.Split(string(out), "\x00")
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		switch {
		case f == "":
		case !strings.HasPrefix(f, ":"):
			section++ // a commit header
		case i+1 < len(fields) && section >= 0 && section < n:
			i++ // the path follows its status
			if meta := strings.Fields(f); len(meta) >= 4 {
				sections[section] = append(sections[section], pathChange{fields[i], meta[2], meta[3]})
			}
		}
	}
	return sections
}

// everyPathChanged reports whether the base changed each path of a
// task's change; it stops at the first the base left alone.
func everyPathChanged(task []pathChange, base map[string]bool) bool {
	for _, ch := range task {
		if !base[ch.path] {
			return false
		}
	}
	return true
}

// mergeTreeUnchanged marks the tasks whose merge into their base would
// leave the base's tree as it is, and returns the others. The merges run
// in parallel.
func (m *Inspector) mergeTreeUnchanged(ctx context.Context, checks []*mergeCheck, merged map[string]bool) []*mergeCheck {
	same := make([]bool, len(checks))
	async.Each(len(checks), 0, func(i int) {
		c := checks[i]
		tree, conflicts, err := m.Git.History().MergeTree(ctx, m.Repo.MainDir, c.base, c.tip)
		same[i] = err == nil && len(conflicts) == 0 && tree == c.baseTree
	})
	var rest []*mergeCheck
	for i, c := range checks {
		if same[i] {
			merged[c.rec.Slug] = true
		} else {
			rest = append(rest, c)
		}
	}
	return rest
}

// patchMerged tells whether the task's whole diff, or each of its own
// commits, has an equal (same patch id) among the base's commits since it
// forked (or since `since`). upstream caches the base's patch ids.
func (m *Inspector) patchMerged(ctx context.Context, c *mergeCheck, since string, upstream map[string]map[string]bool) (bool, error) {
	lower := since
	if lower == "" {
		lower = c.rec.BaseSHA
	}
	key := c.base + " " + lower
	ups, ok := upstream[key]
	if !ok {
		ids, err := m.commitPatchIDs(ctx, c.base, lower)
		if err != nil {
			return false, err
		}
		ups = map[string]bool{}
		for _, id := range ids {
			ups[id] = true
		}
		upstream[key] = ups
	}
	if len(ups) == 0 {
		return false, nil
	}
	whole, err := m.Git.History().PatchIDs(ctx, m.Repo.MainDir, c.tip+" "+c.rec.BaseSHA+"\n")
	if err != nil {
		return false, err
	}
	if id, ok := whole[c.tip]; ok && ups[id] {
		return true, nil
	}
	own, err := m.commitPatchIDs(ctx, c.tip, c.base)
	if err != nil || len(own) == 0 {
		return false, err
	}
	for _, id := range own {
		if !ups[id] {
			return false, nil
		}
	}
	return true, nil
}

// commitPatchIDs returns the patch ids of the commits of from that are
// not in notIn, merges left out.
func (m *Inspector) commitPatchIDs(ctx context.Context, from, notIn string) (map[string]string, error) {
	revs, err := m.Git.History().OwnCommits(ctx, m.Repo.MainDir, from, notIn)
	if err != nil || revs == "" {
		return nil, err
	}
	return m.Git.History().PatchIDs(ctx, m.Repo.MainDir, revs)
}

// UnmergedCommits counts the commits of the task's branch that are in no
// other branch, no remote-tracking branch (its upstream among them) and not
// in its base: the commits that deleting the branch would lose.
func (m *Inspector) UnmergedCommits(ctx context.Context, rec *record.Record) (int, error) {
	var also []string
	if base := baseRev(rec); base != "" {
		also = append(also, base) // a tag or commit base is in no branch
	}
	return m.Git.History().CountFoundNowhereElse(ctx, m.Repo.MainDir, rec.Branch, also...)
}

// baseRev is the revision a task's base names now: its ref when it has
// one, else the commit it started from.
func baseRev(rec *record.Record) string {
	if strings.HasPrefix(rec.Base, "refs/") {
		return rec.Base
	}
	return rec.BaseSHA
}
