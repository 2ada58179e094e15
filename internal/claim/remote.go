package claim

import (
	"context"
	"crypto/hmac"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/slug"
	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/text"
)

// Remote is the claims of one repository on one remote, as this machine
// sees them.
type Remote struct {
	Git       *git.Runner
	Dir       string // where git runs: the main worktree
	CommonDir string
	Name      string // the remote (wt.claimRemote)
	Folder    string // the claim refs' folder on it (wt.claimRef), ending in /
	Machine   string // this machine's id
	Key       string // this clone's secret (Key), which proves the claims it took
	Host      string
	TTL       time.Duration
	Now       func() time.Time
	// Log, when set, writes a line of the event log: what happened to
	// which task's claim, and why.
	Log func(task, slug, outcome, reason string)
}

func (r *Remote) log(c Claim, outcome, reason string) {
	if r.Log != nil {
		r.Log(c.Task, c.Slug, outcome, reason)
	}
}

// heads reports whether the claims live under refs/heads/, where a host
// may deny deletions and non-fast-forward updates: there a release is a
// commit, never a deletion.
func (r *Remote) heads() bool { return strings.HasPrefix(r.Folder, "refs/heads/") }

// Ref is the claim ref of slug on the remote.
func (r *Remote) Ref(slug string) string { return r.Folder + slug }

// seenFolder is where fetched claim refs are kept locally, so that their
// commits stay until the next fetch.
func (r *Remote) seenFolder() string { return "refs/git-wt/seen/" + r.Name + "/" }

func (r *Remote) sightings() Sightings {
	return Sightings{Dir: filepath.Join(r.CommonDir, "wt", "claims-seen", r.Name)}
}

// Read is the claim of slug on the remote now: nil when there is none.
func (r *Remote) Read(ctx context.Context, slug string) (*Held, error) {
	held, err := r.read(ctx, slug)
	if err != nil {
		return nil, err
	}
	return held[0], nil
}

// read is the claims of slugs on the remote now, nil where there is none.
// One ls-remote; a fetch only of a claim commit that is not here yet. A
// corrupt claim is an error: it is never acted on.
func (r *Remote) read(ctx context.Context, slugs ...string) ([]*Held, error) {
	names := make([]string, len(slugs))
	for i, s := range slugs {
		names[i] = r.Ref(s)
	}
	refs, err := r.Git.RemoteRefs(ctx, r.Dir, r.Name, names...)
	if err != nil {
		return nil, exitcode.Failedf("cannot read the claims on %s: %v", r.Name, err)
	}
	out := make([]*Held, len(slugs))
	for _, ref := range refs {
		i := slices.Index(names, ref.Name)
		if out[i], err = r.readOne(ctx, slugs[i], ref.OID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readOne is the claim of slug whose commit the remote says is oid.
func (r *Remote) readOne(ctx context.Context, slug, oid string) (*Held, error) {
	objs, err := r.Git.ReadObjectsUpTo(ctx, r.Dir, MaxSize, oid)
	if err == nil && objs[0].Missing {
		seen := r.seenFolder() + slug
		if err = r.Git.FetchRef(ctx, r.Dir, r.Name, r.Ref(slug), seen); err == nil {
			objs, err = r.Git.ReadObjectsUpTo(ctx, r.Dir, MaxSize, seen)
		}
	}
	if err != nil {
		return nil, exitcode.Failedf("cannot read the claim %s on %s: %v", r.Ref(slug), r.Name, err)
	}
	if objs[0].Missing {
		return nil, nil // deleted between the ls-remote and the fetch
	}
	h := r.held(slug, objs[0])
	if h.Corrupt != "" {
		return nil, exitcode.Failedf("%s on %s is not a git-wt claim (%s): delete it there, or choose another wt.claimRef", h.Ref, r.Name, h.Corrupt)
	}
	return h, nil
}

// held is the claim the ref name of the claim folder holds, obj its
// commit, read up to MaxSize (a bigger one was never read); a corrupt one
// says why.
func (r *Remote) held(name string, obj git.Object) *Held {
	h := &Held{Name: name, Ref: r.Ref(name), OID: obj.OID}
	c, err := Parse(name, obj.Data)
	switch {
	case obj.Type != "commit":
		h.Corrupt = "a " + obj.Type + ", not a commit"
	case obj.TooBig:
		h.Corrupt = tooBig(obj.Size).Error()
	case err != nil:
		h.Corrupt = err.Error()
	default:
		h.Claim = c
	}
	return h
}

// place finds where c's task has its claim, or takes one, and sets
// c.Slug: of the task's two slugs (slug.Candidates, as for its folder),
// the one that holds this task's live claim, else the first that holds
// no live claim: a claim of another task under the same slug does not
// block this one (SPEC §19), the second task takes its hashed slug. Both
// are read at once (one ls-remote); a task whose claim went to its
// hashed slug is never claimed again under its plain one, as that ref is
// released by a commit, never deleted, while it lives (keepReleased). cur
// is what that ref holds now; another task's live claim when both are
// taken.
func (r *Remote) place(ctx context.Context, c *Claim) (cur *Held, err error) {
	cands := slug.Candidates(c.Task)
	held, err := r.read(ctx, cands[:]...)
	if err != nil {
		return nil, err
	}
	pick := len(cands) - 1
	for i := len(cands) - 1; i >= 0; i-- {
		if held[i].Free() {
			pick = i
		}
	}
	for i, h := range held {
		if r.isTask(h, c.Task) {
			pick = i
		}
	}
	c.Slug = cands[pick]
	return held[pick], nil
}

// Find is the live claim of task on the remote, by any machine; nil when
// there is none.
func (r *Remote) Find(ctx context.Context, task string) (*Held, error) {
	cur, err := r.place(ctx, &Claim{Task: task})
	if err != nil || !r.isTask(cur, task) {
		return nil, err
	}
	return cur, nil
}

// isTask reports whether h is a live claim of task, by any machine.
func (r *Remote) isTask(h *Held, task string) bool {
	return !h.Free() && slug.SameID(h.Task, task)
}

// List is every claim on the remote: one fetch of the claim refs, no
// checkout. Each is recorded as seen, for staleness; a corrupt one is
// listed, for the user to see, and left alone.
func (r *Remote) List(ctx context.Context) ([]*Held, error) {
	if err := r.Git.FetchRefs(ctx, r.Dir, r.Name, r.Folder, r.seenFolder()); err != nil {
		return nil, exitcode.Failedf("cannot fetch the claims from %s: %v", r.Name, err)
	}
	refs, err := r.Git.ListRefs(ctx, r.Dir, strings.TrimSuffix(r.seenFolder(), "/"))
	if err != nil || len(refs) == 0 {
		return nil, err
	}
	names := make([]string, len(refs))
	for i, ref := range refs {
		names[i] = ref.OID
	}
	objs, err := r.Git.ReadObjectsUpTo(ctx, r.Dir, MaxSize, names...)
	if err != nil {
		return nil, err
	}
	out := make([]*Held, len(objs))
	for i, obj := range objs {
		out[i] = r.held(strings.TrimPrefix(refs[i].Name, r.seenFolder()), obj)
		if out[i].Corrupt == "" {
			r.Seen(out[i])
		}
	}
	return out, nil
}

// Seen is when this machine first saw the claim's commit, unchanged since:
// its file is named by the claim's ref, never by what the claim says.
func (r *Remote) Seen(h *Held) time.Time { return r.sightings().See(h.Name, h.OID, r.Now()) }

// Stale reports whether this machine has seen the claim commit unchanged
// for the TTL by its own clock, and how long it has.
func (r *Remote) Stale(h *Held) (bool, time.Duration) {
	seen := r.Now().Sub(r.Seen(h))
	return seen >= r.TTL, seen
}

// next is the commit that makes this machine the holder of slug after
// cur: a root commit when there is no claim, else a child of cur (always
// a fast-forward: hosts that deny other updates still take it). A
// heartbeat keeps created_at.
func (r *Remote) next(ctx context.Context, cur *Held, c Claim) (git.RefPush, error) {
	now := r.Now().UTC().Truncate(time.Second)
	c.Machine, c.Host, c.HeartbeatAt = r.Machine, r.Host, now
	parent, lease := "", ""
	if cur != nil {
		parent, lease = cur.OID, cur.OID
	}
	if cur != nil && !cur.Released && r.Mine(cur) {
		c.CreatedAt = cur.CreatedAt
	} else if !c.Released {
		c.CreatedAt = now
	}
	c.Proof = proofOf(r.Key, c)
	oid, err := r.Git.RecordCommit(ctx, r.Dir, c.Message(), parent)
	if err != nil {
		return git.RefPush{}, exitcode.Failedf("cannot write a claim commit: %v", err)
	}
	return git.RefPush{Src: oid, Dst: r.Ref(c.Slug), Leased: true, Lease: lease}, nil
}

// Take claims the task for this machine: one push that creates the ref of
// its plain slug, which must not exist; only when that push is refused
// is the remote read, and a claim of another task there sends this one
// to its hashed slug (see place). made says whether this call made the
// claim (a claim this machine held already is reused, as a second git-wt
// on the same machine asking for the same task finds it). A task another
// machine holds is exit 4, and is recorded as seen.
func (r *Remote) Take(ctx context.Context, c Claim) (h *Held, made bool, err error) {
	c.Slug = slug.Make(c.Task)
	var cur *Held // what the ref of c.Slug holds, as last read; nil: it is created
	for attempt := 0; attempt < 3; attempt++ {
		push, err := r.next(ctx, cur, c)
		if err != nil {
			return nil, false, err
		}
		perr := r.Git.PushRefs(ctx, r.Dir, r.Name, []git.RefPush{push}, false)
		if perr == nil {
			r.log(c, "claimed", "on "+r.Name+" for machine "+text.Terminal(r.Machine))
			return &Held{Claim: c, Name: c.Slug, Ref: push.Dst, OID: push.Src}, true, nil
		}
		if cur, err = r.place(ctx, &c); err != nil {
			return nil, false, err
		}
		switch {
		case r.isTask(cur, c.Task) && r.Mine(cur):
			return cur, false, nil
		case !cur.Free():
			r.Seen(cur)
			r.log(c, "claim-refused", "held on "+r.Name+" by machine "+text.Terminal(cur.Machine))
			return nil, false, r.Claimed(cur, "")
		case push.Dst == r.Ref(c.Slug) && (cur == nil && attempt > 0 || cur != nil && cur.OID == push.Lease):
			return nil, false, r.refused(c.Slug, perr) // our lease held, yet refused: the host said no
		}
		// Free: released meanwhile (taken by a lease on the release),
		// claimed and released meanwhile, or the hashed slug.
	}
	return nil, false, exitcode.Failedf("the claim of %q on %s keeps changing: try again", c.Task, r.Name)
}

// refused is a push the remote refused although nothing there stood in its
// way: most often a host that takes no refs outside refs/heads/.
func (r *Remote) refused(slug string, err error) error {
	hint := ""
	if !r.heads() {
		hint = "; if the host accepts only branches, put the claims under refs/heads/: git config wt.claimRef refs/heads/git-wt-claims/"
	}
	return exitcode.Failedf("%s refused the claim %s (%v)%s", r.Name, r.Ref(slug), err, hint)
}

// Claimed is the exit-4 error for a task that machine holds; took says
// what the caller's own claim became ("" when it had none).
func (r *Remote) Claimed(h *Held, took string) error {
	who := text.Terminal(h.Machine)
	if h.Host != "" && !strings.HasPrefix(h.Machine, h.Host) {
		who += " (host " + text.Terminal(h.Host) + ")"
	}
	msg := fmt.Sprintf("task %q is claimed on %s by machine %s, whose last heartbeat is %s old by its clock", h.Task, r.Name, who, h.Age(r.Now()))
	if took != "" {
		msg = fmt.Sprintf("task %q was taken over on %s by machine %s (its claim is %s old by its clock): %s", h.Task, r.Name, who, h.Age(r.Now()), took)
	}
	return &exitcode.Error{Code: exitcode.Limit, Kind: exitcode.KindClaimed, Task: h.Task, Err: errors.New(msg)}
}

// Refresh moves this machine's claim of slug to a new heartbeat, by a
// lease on what the remote holds; with also, in the same atomic push
// (git wt push: the task's branch goes only while the claim is ours).
// A lease that fails because this machine's own heartbeat landed between
// the read and the push is no takeover: the push is tried again on the
// claim as it is now.
func (r *Remote) Refresh(ctx context.Context, c Claim, also ...git.RefPush) error {
	cur, err := r.place(ctx, &c)
	for attempt := 1; ; attempt++ {
		if err != nil {
			return err
		}
		if !cur.Free() && (!r.Mine(cur) || !r.isTask(cur, c.Task)) {
			return r.Claimed(cur, "your work is kept here; nothing was pushed")
		}
		var push git.RefPush
		if push, err = r.next(ctx, cur, c); err != nil {
			return err
		}
		task.Checkpoint(ctx, "claim:leased")
		perr := r.Git.PushRefs(ctx, r.Dir, r.Name, append(slices.Clone(also), push), len(also) > 0)
		if perr == nil {
			return nil
		}
		leased := oid(cur)
		if cur, err = r.Read(ctx, c.Slug); err == nil && (oid(cur) == leased || attempt == 3) {
			// Unmoved, the claim did not refuse the push: the branch did,
			// or the host. (Or it keeps moving: enough tries.)
			return exitcode.Failedf("cannot push to %s: %v", r.Name, perr)
		}
		// Moved: by this machine's own heartbeat, tried again on the new
		// value, or by another machine, said above.
	}
}

// oid is the claim commit of h, "" for no claim.
func oid(h *Held) string {
	if h == nil {
		return ""
	}
	return h.OID
}

// Release gives up this machine's claim of task: a deletion with a lease,
// or under refs/heads/ a release commit. A claim another machine holds,
// or none, is left alone (released says whether this call released).
func (r *Remote) Release(ctx context.Context, task string) (released bool, err error) {
	cur, err := r.Find(ctx, task)
	if err != nil || cur == nil || !r.Mine(cur) {
		return false, err
	}
	return true, r.ReleaseHeld(ctx, cur)
}

// ReleaseHeld releases the claim cur, whoever holds it, by a lease on
// cur: a heartbeat or a takeover that lands first wins (gc, for a stale
// claim whose branch is merged).
func (r *Remote) ReleaseHeld(ctx context.Context, cur *Held) (err error) {
	push := git.RefPush{Dst: cur.Ref, Leased: true, Lease: cur.OID}
	keep, err := r.keepReleased(ctx, cur)
	if err != nil {
		return err
	}
	if keep {
		c := cur.Claim
		c.Released = true
		if push, err = r.next(ctx, cur, c); err != nil {
			return err
		}
	}
	if perr := r.Git.PushRefs(ctx, r.Dir, r.Name, []git.RefPush{push}, false); perr != nil {
		return exitcode.Failedf("cannot release the claim %s on %s: %v", cur.Ref, r.Name, perr)
	}
	r.log(cur.Claim, "claim-released", "on "+r.Name)
	return nil
}

// keepReleased reports whether a release of cur is a commit that says so
// rather than a deletion: always under refs/heads/, where a host may deny
// deletions; and for a claim under its task's plain slug while a claim
// sits under a hashed slug of it (SPEC §19), so that the plain ref never
// looks free to a new of that other task, which tries its plain slug
// first and would hold the task twice.
func (r *Remote) keepReleased(ctx context.Context, cur *Held) (bool, error) {
	if r.heads() {
		return true, nil
	}
	if cur.Name != slug.Make(cur.Task) {
		return false, nil
	}
	refs, err := r.Git.RemoteRefs(ctx, r.Dir, r.Name, r.Folder)
	if err != nil {
		return false, exitcode.Failedf("cannot read the claims on %s: %v", r.Name, err)
	}
	for _, ref := range refs {
		if hashedOf(strings.TrimPrefix(ref.Name, r.Folder), cur.Name) {
			return true, nil
		}
	}
	return false, nil
}

// hashedOf reports whether name has the form of a hashed slug of plain
// (slug.WithSuffix): plain, "-", six hex digits.
func hashedOf(name, plain string) bool {
	hash, ok := strings.CutPrefix(name, plain+"-")
	return ok && len(hash) == 6 && strings.Trim(hash, "0123456789abcdef") == ""
}

// TakeOver takes another machine's claim of the task, only when it is
// stale by this machine's clock; openPR answers whether a pull request is
// open for its branch (the caller asks gh, or was told --force). The
// push leases the stale value, so that a heartbeat that lands first wins.
func (r *Remote) TakeOver(ctx context.Context, c Claim, openPR func(branch string) error) (h *Held, made bool, err error) {
	cur, err := r.place(ctx, &c)
	if err != nil {
		return nil, false, err
	}
	if cur.Free() || r.Mine(cur) && r.isTask(cur, c.Task) {
		return r.Take(ctx, c)
	}
	if !r.isTask(cur, c.Task) {
		return nil, false, r.Claimed(cur, "") // both its slugs hold other tasks: nothing of this task to take over
	}
	h, err = r.takeFrom(ctx, cur, c, openPR)
	return h, err == nil, err
}

// takeFrom is TakeOver of cur, another machine's claim.
func (r *Remote) takeFrom(ctx context.Context, cur *Held, c Claim, openPR func(branch string) error) (*Held, error) {
	if stale, seen := r.Stale(cur); !stale {
		return nil, &exitcode.Error{Code: exitcode.Limit, Kind: exitcode.KindClaimed, Task: c.Task, Err: fmt.Errorf(
			"task %q is claimed on %s by machine %s, not stale: this machine has seen that claim unchanged for %s, less than wt.claimTTL %s",
			c.Task, r.Name, text.Terminal(cur.Machine), seen.Truncate(time.Second), r.TTL)}
	}
	if err := openPR(cur.Branch); err != nil {
		return nil, err
	}
	push, err := r.next(ctx, cur, c)
	if err != nil {
		return nil, err
	}
	if perr := r.Git.PushRefs(ctx, r.Dir, r.Name, []git.RefPush{push}, false); perr != nil {
		now, err := r.Read(ctx, c.Slug)
		if err != nil {
			return nil, err
		}
		if now != nil && !now.Released && !r.Mine(now) {
			return nil, r.Claimed(now, "")
		}
		return nil, exitcode.Failedf("cannot take over the claim %s on %s: %v", cur.Ref, r.Name, perr)
	}
	r.log(c, "claim-taken-over", fmt.Sprintf("on %s from machine %s, seen unchanged for %s", r.Name, text.Terminal(cur.Machine), r.Now().Sub(r.Seen(cur)).Truncate(time.Second)))
	return &Held{Claim: c, Name: c.Slug, Ref: push.Dst, OID: push.Src}, nil
}

// Took reports whether this clone took the claim h: h names this
// machine and carries the proof that only this clone's key makes (a
// machine id alone can be planted, SPEC §19). gc releases by it.
func (r *Remote) Took(h *Held) bool {
	return r.Key != "" && h.Machine == r.Machine && hmac.Equal([]byte(h.Proof), []byte(proofOf(r.Key, h.Claim)))
}

// Mine reports whether this clone holds the claim h, to refresh, reuse or
// release it: h names this machine, and a proof it carries is this
// clone's. A claim that names this machine with another clone's proof is
// another machine's, whose id was planted here. One with no proof was
// made by a git-wt before proofs and is this machine's by its id, as
// before; its next heartbeat adds the proof.
func (r *Remote) Mine(h *Held) bool {
	return h.Machine == r.Machine && (h.Proof == "" || r.Took(h))
}

// Remote is the remote's name (workflow.ClaimPush).
func (r *Remote) Remote() string { return r.Name }

// PushBranch pushes the task's branch ref and the refresh of its claim in
// one atomic push (workflow.ClaimPush).
func (r *Remote) PushBranch(ctx context.Context, rec *record.Record, ref string) error {
	return r.Refresh(ctx, Claim{Task: rec.Task, Slug: rec.Slug, Branch: rec.Branch, Tip: r.Tip(ctx, rec)}, git.RefPush{Src: ref, Dst: ref})
}

// Tip is the tip of rec's branch here, for a refresh to record: "" when
// the branch has no commit of its own (it is at its base, which would
// count as merged once the default branch moves on) or cannot be read.
func (r *Remote) Tip(ctx context.Context, rec *record.Record) string {
	tip, _, err := r.Git.History().ResolveCommit(ctx, r.Dir, task.BranchRef(rec.Branch))
	if err != nil || tip == rec.BaseSHA {
		return ""
	}
	return tip
}
