package claim

import (
	"strings"
	"testing"
	"time"
)

func TestWhichClaimsGCReleases(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	merged := strings.Repeat("a", 40)
	open := strings.Repeat("b", 40)
	claim := func(machine, task, tip string, age time.Duration) *Held {
		return &Held{Claim: Claim{Task: task, Slug: task, Branch: "wt/" + task, Machine: machine, HeartbeatAt: now.Add(-age), Tip: tip}}
	}
	released := claim("other", "T", merged, time.Hour)
	released.Released = true
	for _, c := range []struct {
		name  string
		claim *Held
		stale bool
		want  string // a word of the reason; "" when the claim stays
	}{
		{"mine, task gone here, past the grace", claim("me", "Gone", "", time.Hour), false, "gone here"},
		{"mine, task gone here, within the grace (a new under way)", claim("me", "Gone", "", time.Minute), false, ""},
		{"mine, task here", claim("me", "T", "", time.Hour), true, ""},
		{"another's, its tip merged, stale", claim("other", "T", merged, time.Hour), true, "merged"},
		{"another's, its tip merged, not stale", claim("other", "T", merged, time.Hour), false, ""},
		{"another's, its tip not merged, stale", claim("other", "T", open, time.Hour), true, ""},
		{"another's, no tip recorded (a ref of its branch's name may be merged here), stale", claim("other", "T", "", time.Hour), true, ""},
		{"another's, a tip that is no object id, stale", claim("other", "T", "--output=x", time.Hour), true, ""},
		{"another's, of a task gone here", claim("other", "Gone", "", time.Hour), true, ""},
		{"released already", released, true, ""},
	} {
		v := GCView{Remote: "origin", Now: now, Grace: 10 * time.Minute,
			Took:     func(h *Held) bool { return h.Machine == "me" },
			TaskHere: func(task string) bool { return task != "Gone" },
			Merged: func(commit string) bool {
				if commit != merged && commit != open {
					t.Errorf("%s: asked whether %q is merged", c.name, commit)
				}
				return commit == merged
			},
			Stale: func(*Held) bool { return c.stale }}
		got := v.Release(c.claim)
		if (got == "") != (c.want == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: gc says %q, want %q", c.name, got, c.want)
		}
	}
}

func TestAClaimIsThisClonesOnlyWithItsKeysProof(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	mine := Claim{Task: "T", Slug: "T", Machine: "me", CreatedAt: at, HeartbeatAt: at}
	mine.Proof = proofOf("my-key", mine)
	other := mine
	other.Machine, other.Proof = "other", proofOf("other-key", other)
	moved := mine
	moved.Task, moved.Slug = "U", "U" // the proof of one claim copied onto another
	for _, c := range []struct {
		name          string
		machine, key  string
		claim         Claim
		took, holding bool // Took (gc's release), Mine (refresh, reuse, release)
	}{
		{"made here", "me", "my-key", mine, true, true},
		{"another machine's, its id planted here", "other", "my-key", other, false, false},
		{"this machine's id, another clone's key (a copy)", "me", "copy-key", mine, false, false},
		{"no proof (an earlier git-wt's claim)", "me", "my-key", Claim{Task: "T", Slug: "T", Machine: "me", CreatedAt: at}, false, true},
		{"a proof copied from another claim", "me", "my-key", moved, false, false},
		{"no key here", "me", "", Claim{Task: "T", Slug: "T", Machine: "me", CreatedAt: at, Proof: proofOf("", mine)}, false, false},
	} {
		r := Remote{Machine: c.machine, Key: c.key}
		h := &Held{Claim: c.claim}
		if got := r.Took(h); got != c.took {
			t.Errorf("%s: took %v, want %v", c.name, got, c.took)
		}
		if got := r.Mine(h); got != c.holding {
			t.Errorf("%s: Mine %v, want %v", c.name, got, c.holding)
		}
	}
}
