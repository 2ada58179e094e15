//go:build unix

// These tests protect what gc and pool --drain say and do to the warm
// pool (SPEC §11, §14): gc's dry run names the entries the real run
// drains, stale or for wt.maxTotalSize, and both agree; a fill never
// passes wt.maxTotalSize; pool --drain --force removes the dirty entry a
// drain kept; and entries left in the pool folder of an earlier
// wt.baseDir are not ready, are the pool's own, and go when clean.
package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// gcDoc is gc --json.
type gcDoc struct {
	Retention []struct{ Task, Outcome string }
	Pool      []struct{ Path, Outcome, Reason string }
}

func gcJSON(t *testing.T, s *testutil.Sandbox, args ...string) gcDoc {
	t.Helper()
	r := s.MustWT(append([]string{"gc", "--json"}, args...)...)
	var doc gcDoc
	if err := json.Unmarshal([]byte(r.Stdout), &doc); err != nil {
		t.Fatalf("gc --json: %v\n%s", err, r.Stdout)
	}
	return doc
}

// A task and an entry of 400 KiB each pass a wt.maxTotalSize of 700k:
// the entry goes, not the task, in the dry run as in the real run, which
// says so; and no fill makes the entry again.
func TestGCDrainsThePoolForMaxTotalSizeAsItsDryRunSaysAndNoFillPassesIt(t *testing.T) {
	s := poolSandbox(t, "0")
	s.Write("big.bin", strings.Repeat("x", 400<<10))
	s.Git(s.Repo, "add", ".")
	s.Git(s.Repo, "commit", "-qm", "big")
	task := s.MustWT("new", "--no-copy", "T").Out()
	entry := oneEntry(t, s, false)
	s.Git(s.Repo, "config", "wt.pool", "1")
	s.Git(s.Repo, "config", "wt.maxTotalSize", "700k")
	dry := gcJSON(t, s, "--dry-run")
	if len(dry.Retention) != 0 || len(dry.Pool) != 1 || dry.Pool[0].Path != entry || dry.Pool[0].Outcome != "would remove" {
		t.Fatalf("gc --dry-run: %+v, want the entry drained and no task removed", dry)
	}
	if !testutil.Exists(entry) {
		t.Fatal("the dry run removed the entry")
	}
	real := gcJSON(t, s)
	if len(real.Retention) != 0 || len(real.Pool) != 1 || real.Pool[0].Path != entry || real.Pool[0].Outcome != "removed" || real.Pool[0].Reason != "wt.maxTotalSize" {
		t.Fatalf("gc: %+v, want what the dry run said, done", real)
	}
	waitForFills(t, s)
	if ready, paths := poolEntries(t, s); ready != 0 || len(paths) != 0 || !testutil.Exists(task) || testutil.Exists(entry) {
		t.Fatalf("after gc: %d ready %v; the task is there: %v", ready, paths, testutil.Exists(task))
	}
	if r := s.MustWT("pool", "--fill", "--json"); !strings.Contains(r.Stdout, `"made": []`) || !strings.Contains(r.Stdout, "wt.maxTotalSize") {
		t.Errorf("a fill past wt.maxTotalSize: %s", r)
	}
}

// gc --dry-run names the stale entries gc drains.
func TestGCDryRunNamesTheStaleEntries(t *testing.T) {
	s, stale := staleEntries(t)
	dry := gcJSON(t, s, "--dry-run")
	if len(dry.Pool) != 2 || dry.Pool[0].Outcome != "would remove" || dry.Pool[0].Reason != "stale" {
		t.Fatalf("gc --dry-run: %+v, want the two stale entries", dry.Pool)
	}
	if _, now := poolEntries(t, s); len(now) != 2 || !testutil.Exists(stale[0]) || !testutil.Exists(stale[1]) {
		t.Fatalf("the dry run drained %v", stale)
	}
}

// pool --drain keeps a dirty entry and says pool --drain --force removes
// it: it does.
func TestPoolDrainForceRemovesTheDirtyEntryADrainKept(t *testing.T) {
	s := poolSandbox(t, "0")
	entry := oneEntry(t, s, false)
	s.Write(filepath.Join(entry, "notes.txt"), "someone's notes\n")
	r := s.WT("pool", "--drain")
	if r.Code != 3 || !strings.Contains(r.Stderr, "git wt pool --drain --force") || !testutil.Exists(filepath.Join(entry, "notes.txt")) {
		t.Fatalf("pool --drain of a dirty entry: %s", r)
	}
	r = s.WT("pool", "--drain", "--force", "--json")
	if r.Code != 0 || testutil.Exists(entry) || !strings.Contains(r.Stdout, `"outcome": "removed"`) {
		t.Fatalf("pool --drain --force, as the refusal said: %s; the entry is there: %v", r, testutil.Exists(entry))
	}
	if r := s.WT("doctor"); r.Code != 0 {
		t.Errorf("doctor after the drain: %s", r)
	}
}

// After wt.baseDir changes, the entries in the old pool folder are not
// ready, never foreign: drain and doctor remove them when clean and keep
// a dirty one, which --force removes; a fill makes new ones in the new
// pool folder.
func TestPoolEntriesOfAnEarlierBaseDirAreThePoolsOwn(t *testing.T) {
	for _, how := range [][]string{{"pool", "--drain"}, {"doctor", "--fix"}} {
		t.Run(strings.Join(how, " "), func(t *testing.T) {
			s := poolSandbox(t, "0")
			s.Git(s.Repo, "config", "wt.pool", "2")
			s.MustWT("pool", "--fill")
			_, old := poolEntries(t, s)
			s.Write(filepath.Join(old[1], "notes.txt"), "someone's notes\n")
			s.Git(s.Repo, "config", "wt.pool", "0")
			s.Git(s.Repo, "config", "wt.baseDir", filepath.Join(filepath.Dir(s.Repo), filepath.Base(s.Repo)+"-moved"))
			if ready, paths := poolEntries(t, s); ready != 0 || len(paths) != 2 {
				t.Fatalf("pool --status after the base dir moved: %d ready of %v", ready, paths)
			}
			if r := s.MustWT("pool", "--json"); !strings.Contains(r.Stdout, `"elsewhere": true`) {
				t.Errorf("pool --status must say the entries are elsewhere: %s", r.Stdout)
			}
			if r := s.WT("doctor"); strings.Contains(r.Stdout, "foreign") || !strings.Contains(r.Stdout, "dirty-pool-entry") {
				t.Fatalf("doctor: %s", r)
			}
			s.WT(how...)
			if testutil.Exists(old[0]) || !testutil.Exists(filepath.Join(old[1], "notes.txt")) {
				t.Fatalf("%v: the clean entry is there: %v; the dirty one's notes: %v", how, testutil.Exists(old[0]), testutil.Exists(filepath.Join(old[1], "notes.txt")))
			}
			if r := s.WT("doctor"); strings.Contains(r.Stdout, "foreign") || !strings.Contains(r.Stdout, "dirty-pool-entry") {
				t.Fatalf("doctor after %v: %s", how, r)
			}
			force := append(how, "--force")
			if r := s.WT(force...); r.Code != 0 || testutil.Exists(old[1]) {
				t.Fatalf("%v: %s", force, r)
			}
			s.Git(s.Repo, "config", "wt.pool", "1")
			s.MustWT("pool", "--fill")
			if ready, paths := poolEntries(t, s); ready != 1 || len(paths) != 1 || !strings.Contains(paths[0], "-moved") {
				t.Errorf("a fill after the base dir moved: %d ready, %v", ready, paths)
			}
			if r := s.WT("doctor"); r.Code != 0 {
				t.Errorf("doctor at the end: %s", r)
			}
		})
	}
}
