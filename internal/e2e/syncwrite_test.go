//go:build unix

// These tests protect the files of a task that sync could not move
// whole (SPEC §12): a read-tree that fails while writing (a full disk)
// leaves the files as they were, and a tracked file deleted while the
// sync runs stays deleted; in both the branch is put back.
package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// A full disk stops read-tree half-way: it has written README.md and
// part of big.bin. The sync puts the branch back and the files too.
func TestSyncThatCannotWriteItsFilesPutsThemBack(t *testing.T) {
	s := testutil.NewSandbox(t)
	small := smallDisk(t, s, "1m")
	s.Git(s.Repo, "config", "wt.baseDir", small)
	path := newTaskWithCommit(s, "T")
	readme, _ := os.ReadFile(filepath.Join(path, "README.md"))
	tip, baseSHA := s.Git(s.Repo, "rev-parse", "wt/T"), readRecord(t, s, "T")["base_sha"]
	s.Write("README.md", "main's words\n")
	s.Write("big.bin", strings.Repeat("x", 2<<20))
	s.Git(s.Repo, "add", ".")
	s.Git(s.Repo, "commit", "-qm", "main grows")
	// --merge: a rebase would need room for its temporary worktree first.
	r := s.WT("sync", "--json", "--merge", "T")
	if r.Code != 1 || !strings.Contains(r.Stdout, `"outcome": "failed"`) {
		t.Fatalf("a sync that cannot write its files: %s", r)
	}
	if got := s.Git(s.Repo, "rev-parse", "wt/T"); got != tip {
		t.Errorf("the branch is at %s, want it put back at %s", got, tip)
	}
	if rec := readRecord(t, s, "T"); rec["state"] != "active" || rec["base_sha"] != baseSHA {
		t.Errorf("the record: state %v, base_sha %v (was %v)", rec["state"], rec["base_sha"], baseSHA)
	}
	if b, _ := os.ReadFile(filepath.Join(path, "README.md")); string(b) != string(readme) {
		t.Errorf("README.md is now %q, want %q", b, readme)
	}
	if testutil.Exists(filepath.Join(path, "big.bin")) {
		t.Error("the half-written big.bin was left behind")
	}
	clean(t, s, path)
	if !strings.Contains(r.Stderr, "files were put back") {
		t.Errorf("the message must say the files were put back: %s", r.Stderr)
	}
}

// A tracked file deleted after sync's dirty check, which the base
// changes, would be written again by read-tree (a missing file is no
// change to it): sync looks again just before, and leaves the task be.
func TestSyncKeepsAFileDeletedWhileItRuns(t *testing.T) {
	for _, cp := range []string{"sync:syncing", "sync:moved"} {
		t.Run(cp, func(t *testing.T) {
			s, path, tip, _ := taskBehindMain(t, "README.md", "main's words\n")
			sync, release := stopAtUntil(t, s, cp, "sync", "T")
			os.Remove(filepath.Join(path, "README.md"))
			os.WriteFile(release, nil, 0o644)
			if code := exitStatus(t, sync.Wait()); code != 3 {
				t.Fatalf("a sync whose task lost a file meanwhile exited %d, want 3 (skipped, dirty)", code)
			}
			if testutil.Exists(filepath.Join(path, "README.md")) {
				t.Error("the deleted README.md came back")
			}
			if got := s.Git(s.Repo, "rev-parse", "wt/T"); got != tip {
				t.Errorf("the branch is at %s, want it put back at %s", got, tip)
			}
			if st := s.Git(path, "status", "--porcelain"); st != "D README.md" {
				t.Errorf("status after the sync: %q, want the deletion alone", st)
			}
			if state := readRecord(t, s, "T")["state"]; state != "active" {
				t.Errorf("state %v", state)
			}
		})
	}
}
