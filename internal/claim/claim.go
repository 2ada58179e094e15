// Package claim holds claims of tasks across machines (SPEC §18): refs on
// a shared git remote, one per task, each pointing at a claim commit that
// says which machine holds the task. The remote's atomic ref update, by a
// push with a lease, is the only arbiter: git-wt runs no coordinator.
//
// Every write is a push whose lease names the value this machine last
// read; a refused push is never explained from git's words: the remote
// ref is read again, and held by another machine means exit 4 (kind
// claimed), anything else exit 1.
package claim

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/git-wt/git-wt/internal/slug"
)

// Claim is what a claim commit's message holds, as JSON after its
// subject line.
type Claim struct {
	Task        string    `json:"task"`
	Slug        string    `json:"slug"`
	Branch      string    `json:"branch"`
	Machine     string    `json:"machine"` // wt.machineId, or the id generated for the clone
	Host        string    `json:"host"`
	CreatedAt   time.Time `json:"created_at"`
	HeartbeatAt time.Time `json:"heartbeat_at"`
	// Tip is the task branch's tip at the last refresh, when the branch
	// had commits of its own: what gc asks is merged, as a ref of the
	// branch's name elsewhere may be an earlier task's.
	Tip string `json:"tip,omitempty"`
	// Released: a release under refs/heads/, where the ref cannot be
	// deleted; the task is free, taken by a lease on this commit.
	Released bool `json:"released,omitempty"`
	// Proof says which clone took the claim: a keyed hash of the claim's
	// task, slug and created_at by that clone's secret Key. The machine
	// id is public; only the clone that has the key can make the proof.
	Proof string `json:"proof,omitempty"`
}

// proofOf is the proof of c that the clone with key makes: what it
// writes in its claims and checks in a claim it meets (Remote.Took).
func proofOf(key string, c Claim) string {
	mac := hmac.New(sha256.New, []byte(key))
	fmt.Fprintf(mac, "%s\x00%s\x00%s", c.Task, c.Slug, c.CreatedAt.UTC().Format(time.RFC3339))
	return hex.EncodeToString(mac.Sum(nil))
}

// Message is the claim commit's message: a subject a person can read in
// a forge's branch list (with [skip ci], as CI runs on refs/heads/), a
// blank line, the claim as JSON.
func (c Claim) Message() string {
	verb := "claim"
	if c.Released {
		verb = "release"
	}
	data, _ := json.Marshal(c)
	return fmt.Sprintf("git-wt %s: %s on %s [skip ci]\n\n%s\n", verb, c.Task, c.Machine, data)
}

// MaxSize bounds a claim commit: anyone who can push writes it, and git-wt
// writes a few hundred bytes.
const MaxSize = 64 << 10

// Parse reads the claim of the ref named name (the part after the claim
// folder) from a commit object's raw text (`cat-file commit`): the
// headers, a blank line, the message. Anyone who can push writes it
// (SPEC §19): a claim that is too big, is not git-wt's JSON, or whose
// slug is not the ref's own name is refused, never acted on; the error
// says why.
func Parse(name string, commit []byte) (Claim, error) {
	if len(commit) > MaxSize {
		return Claim{}, tooBig(int64(len(commit)))
	}
	_, msg, ok := strings.Cut(string(commit), "\n\n")
	if !ok {
		return Claim{}, errors.New("not a git-wt claim commit")
	}
	// The JSON is the last paragraph: it holds no raw line break, while
	// the subject names the task, which may.
	i := strings.LastIndex(msg, "\n\n")
	if i < 0 {
		return Claim{}, errors.New("not a git-wt claim commit")
	}
	var c Claim
	if err := json.Unmarshal([]byte(strings.TrimSpace(msg[i+2:])), &c); err != nil || c.Machine == "" || c.Task == "" {
		return Claim{}, errors.New("not a git-wt claim commit")
	}
	if c.Slug != name || slug.Make(name) != name {
		return Claim{}, fmt.Errorf("its slug %q is not its ref's name", c.Slug)
	}
	return c, nil
}

// tooBig is why a claim commit of size bytes is refused.
func tooBig(size int64) error {
	return fmt.Errorf("%d bytes, more than a claim's %d", size, MaxSize)
}

// Held is the claim a remote ref holds now.
type Held struct {
	Claim
	Name string // the ref's name in the claim folder: what names every local file about it
	Ref  string // the full ref name on the remote
	OID  string // the claim commit
	// Corrupt says why the ref holds no claim git-wt can use (SPEC §19):
	// such a claim is listed as corrupt and never acted on; only Name,
	// Ref and OID are set.
	Corrupt string
}

// Free reports whether a task with this claim may be taken without a
// takeover: no claim at all, or a released one.
func (h *Held) Free() bool { return h == nil || h.Released }

// Age is how long ago the claim's machine says it last refreshed it: for
// messages only, as it reads another machine's clock.
func (h *Held) Age(now time.Time) time.Duration {
	return max(now.Sub(h.HeartbeatAt), 0).Truncate(time.Second)
}
