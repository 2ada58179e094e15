//go:build unix

// These tests protect the claims' leases, heartbeats and gc as SPEC §19
// revises section 18: a machine's own heartbeat is no takeover, gc judges
// a claim by the branch tip the claim records, and a heartbeat is sent
// whatever the task id and the stamp of the last one.
package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// claimOID is the claim commit of slug on the bare repository.
func (f *fleet) claimOID(slug string) string {
	return f.s.Git(f.bare, "rev-parse", "refs/git-wt/claims/"+slug)
}

// waitForHeartbeat waits for slug's claim to move from before, as a
// detached heartbeat moves it, failing the test after 20 seconds.
func (f *fleet) waitForHeartbeat(slug, before, what string) {
	f.s.T.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for f.claimOID(slug) == before {
		if time.Now().After(deadline) {
			f.s.T.Fatalf("%s sent no heartbeat", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A push reads the claim, then sends the branch with a lease on what it
// read; the task's own heartbeat (started by the commit just before) may
// land in between. That is this machine's claim still: the push retries
// on the new value instead of failing.
func TestClaimPushAfterItsOwnHeartbeatLanded(t *testing.T) {
	t.Parallel()
	f := newFleet(t)
	a := f.machine("a", f.fileURL())
	path := a.MustWT("new", "T", "--no-init").Out()
	work := commitFile(a.Sandbox, path, "w.txt", "work", "work")
	push, _, stderr, goOn := paused(t, a.Sandbox, a.Repo, "claim:leased", "push", "T")
	// In the next second, so that the heartbeat is not the very commit
	// push made (claim commits carry their time to the second).
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second)))
	a.MustWT("claim", "T", "--refresh") // the heartbeat lands first
	beat := f.claimOID("T")
	goOn()
	if code := exitCode(push); code != 0 {
		t.Fatalf("push after the task's own heartbeat: exit %d\n%s", code, stderr)
	}
	if got := a.Git(f.bare, "rev-parse", "refs/heads/wt/T"); got != work {
		t.Fatalf("the branch on the remote is %s, want %s", got, work)
	}
	if c := f.claimOn("T"); c["machine"] != a.id() || a.Git(f.bare, "rev-parse", "refs/git-wt/claims/T^") != beat {
		t.Fatalf("push's refresh is not a child of the heartbeat that landed first: %v", c)
	}
}

// gc on machine b releases another machine's claim only when the branch
// tip that claim records is merged: b's own remote-tracking ref of the
// same name, left by an earlier task T that was merged, says nothing of
// the T that machine c holds now.
func TestGCKeepsAClaimWhoseEarlierNamesakeIsMerged(t *testing.T) {
	t.Parallel()
	f := newFleet(t)
	a := f.machine("a", f.fileURL())
	b := f.machine("b", f.fileURL(), "wt.claimTTL", "1s")
	c := f.machine("c", f.fileURL())
	a.pushWork("T")
	// The first T is merged on the forge; b fetches it all.
	b.Git(b.Repo, "fetch", "-q", "origin")
	b.Git(b.Repo, "merge", "-q", "--no-ff", "-m", "merge T", "origin/wt/T")
	b.Git(b.Repo, "push", "-q", "origin", "main")
	b.Git(b.Repo, "fetch", "-q", "origin")
	a.MustWT("rm", "--force", "T")
	// A new task T, on c, with no work yet.
	c.MustWT("new", "T", "--no-init")
	b.MustWT("list", "--remote")        // b's first sighting of c's claim
	time.Sleep(1100 * time.Millisecond) // wt.claimTTL, by b's clock
	r := b.MustWT("gc")
	if cl := f.claimOn("T"); cl == nil || cl["machine"] != c.id() {
		t.Fatalf("gc released c's claim of T for an earlier T's merged branch: %v\n%s", cl, r)
	}
}

// The detached heartbeat is git wt itself, given the task id: an id that
// starts with "-" must reach it as the task, not as an option.
func TestClaimHeartbeatForATaskIDStartingWithADash(t *testing.T) {
	t.Parallel()
	f := newFleet(t)
	a := f.machine("a", f.fileURL(), "wt.claimHeartbeat", "0")
	path := a.MustWT("new", "--no-init", "--", "-T").Out()
	before := f.claimOID("T")
	a.Write(filepath.Join(path, "w.txt"), "work")
	a.MustWT("commit", "-m", "work", "--", "-T")
	f.waitForHeartbeat("T", before, "a commit in task -T")
	if c := f.claimOn("T"); c["task"] != "-T" || c["machine"] != a.id() {
		t.Fatalf("the heartbeat of -T: %v", c)
	}
}

// A heartbeat stamp in the future (a clock set back, a stamp copied from
// another machine) makes the heartbeat due now, not in a day.
func TestClaimHeartbeatStampInTheFutureIsDue(t *testing.T) {
	t.Parallel()
	f := newFleet(t)
	a := f.machine("a", f.fileURL(), "wt.claimHeartbeat", "1h")
	path := a.MustWT("new", "T", "--no-init").Out()
	stamp := filepath.Join(a.Repo, ".git", "wt", "claims-beat", "T")
	a.Write(stamp, "")
	tomorrow := time.Now().Add(24 * time.Hour)
	if err := os.Chtimes(stamp, tomorrow, tomorrow); err != nil {
		t.Fatal(err)
	}
	before := f.claimOID("T")
	a.Write(filepath.Join(path, "w.txt"), "work")
	a.MustWT("commit", "T", "-m", "work")
	f.waitForHeartbeat("T", before, "a commit after a stamp in the future")
}

// A remote that cannot be reached: the message keeps git's fatal lines,
// which say why, not only git's last line ("and the repository exists.").
func TestClaimUnreachableRemoteKeepsGitsReason(t *testing.T) {
	t.Parallel()
	f := newFleet(t)
	a := f.machine("a", f.fileURL())
	if err := os.Rename(f.bare, f.bare+".gone"); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"new", "T", "--no-init"}, {"list", "--remote"}} {
		r := a.WT(args...)
		if r.Code != 1 || !strings.Contains(r.Stderr, "does not appear to be a git repository") || strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 {
			t.Errorf("git wt %s with the remote gone: one line with git's reason wanted: %s", strings.Join(args, " "), r)
		}
	}
	if a.hasTask("T") {
		t.Fatal("new made the task with the remote gone")
	}
}
