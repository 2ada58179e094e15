//go:build unix

// Records an earlier git-wt wrote under refs/wt/ stay tasks until they are
// moved to refs/git-wt/tasks/, which doctor --fix, gc and every command
// that takes the lock do, each with one compare-and-swap (SPEC §14).
package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/testutil"
)

// legacify moves the record of slug back to where an earlier git-wt kept
// it, refs/wt/<slug>, and returns its blob.
func legacify(t *testing.T, s *testutil.Sandbox, slug string) string {
	t.Helper()
	oid := s.Git(s.Repo, "rev-parse", "refs/git-wt/tasks/"+slug)
	s.Git(s.Repo, "update-ref", "refs/wt/"+slug, oid)
	s.Git(s.Repo, "update-ref", "-d", "refs/git-wt/tasks/"+slug, oid)
	return oid
}

// refOID is what ref points at, or "" when it does not exist.
func refOID(s *testutil.Sandbox, ref string) string {
	if !s.GitOK(s.Repo, "rev-parse", "--verify", "-q", ref) {
		return ""
	}
	return s.Git(s.Repo, "rev-parse", ref)
}

// movedOnce checks that slug's record, blob oid, is under refs/git-wt/tasks/
// and no longer under refs/wt/.
func movedOnce(t *testing.T, s *testutil.Sandbox, slug, oid string) {
	t.Helper()
	if got := refOID(s, "refs/git-wt/tasks/"+slug); got != oid {
		t.Errorf("refs/git-wt/tasks/%s = %q, want the legacy blob %s", slug, got, oid)
	}
	if got := refOID(s, "refs/wt/"+slug); got != "" {
		t.Errorf("refs/wt/%s is still there (%s)", slug, got)
	}
}

func TestLegacyRecordsAreTasksUntilDoctorFixMovesThem(t *testing.T) {
	s := testutil.NewSandbox(t)
	pathA := s.MustWT("new", "a").Out()
	s.MustWT("new", "b")
	oidA, oidB := legacify(t, s, "a"), legacify(t, s, "b")

	if got := s.MustWT("path", "a").Out(); got != pathA {
		t.Errorf("path of a legacy task = %q, want %s", got, pathA)
	}
	if r := s.MustWT("new", "a"); r.Out() != pathA {
		t.Errorf("new of an existing legacy task must print its path: %s", r)
	}
	r := s.MustWT("list", "--no-status")
	if !strings.Contains(r.Stdout, "a") || !strings.Contains(r.Stdout, "b") {
		t.Errorf("list must show the legacy tasks: %s", r)
	}
	if strings.Count(r.Stderr, "warning") != 1 || !strings.Contains(r.Stderr, "refs/wt/") || !strings.Contains(r.Stderr, "doctor --fix") {
		t.Errorf("list must warn once about the legacy records and say what to run: %s", r)
	}
	if n := s.MustWT("count").Out(); n != "2" {
		t.Errorf("count = %s, want 2", n)
	}
	r = s.WT("doctor")
	if r.Code != 1 || strings.Count(r.Stdout, string(task.LegacyRecord)) != 2 || strings.Contains(r.Stdout, string(task.ForeignWorktree)) {
		t.Fatalf("doctor must report each legacy record, and their worktrees as tasks, not foreign: %s", r)
	}
	if refOID(s, "refs/wt/a") != oidA {
		t.Fatal("doctor without --fix moved a record")
	}
	if r := s.WT("doctor", "--fix"); r.Code != 0 || strings.Count(r.Stdout, "[fixed]") != 2 || strings.Contains(r.Stdout, string(task.ForeignWorktree)) {
		t.Fatalf("doctor --fix must move both records and adopt nothing: %s", r)
	}
	movedOnce(t, s, "a", oidA)
	movedOnce(t, s, "b", oidB)
	if r := s.MustWT("doctor"); r.Stdout != "" {
		t.Errorf("doctor after the move: %s", r)
	}
	if r := s.MustWT("list", "--no-status"); strings.Contains(r.Stderr, "warning") {
		t.Errorf("list still warns after the move: %s", r)
	}
	if s.Git(s.Repo, "log", "-1", "--format=%H", "wt/a") != s.Git(s.Repo, "rev-parse", "refs/heads/wt/a") {
		t.Error("git log wt/a does not show the branch after the move")
	}
}

func TestGCMovesLegacyRecordsBeforeLookingForForeignWorktrees(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.MustWT("new", "a")
	oid := legacify(t, s, "a")
	if r := s.WT("gc", "--dry-run"); r.Code != 0 || refOID(s, "refs/wt/a") != oid {
		t.Fatalf("gc --dry-run must change nothing: %s", r)
	}
	r := s.MustWT("gc")
	if !strings.Contains(r.Stdout, string(task.LegacyRecord)) {
		t.Errorf("gc must say it moved the record: %s", r)
	}
	movedOnce(t, s, "a", oid)
	if rec := readRecord(t, s, "a"); rec["state"] != "active" {
		t.Errorf("the moved task was changed (adopted?): %v", rec)
	}
}

func TestEveryLockTakerMovesLegacyRecordsWhateverGCInterval(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "config", "wt.gcInterval", "0") // new's gc --auto never runs
	s.MustWT("new", "a")
	oid := legacify(t, s, "a")
	r := s.MustWT("new", "b")
	if !strings.Contains(r.Stderr, "moved 1 task record") {
		t.Errorf("new must say it moved the record: %s", r)
	}
	movedOnce(t, s, "a", oid)

	// rm takes the lock too, and then removes the moved record.
	s.MustWT("new", "c")
	legacify(t, s, "c")
	s.MustWT("rm", "c")
	if refOID(s, "refs/wt/c") != "" || refOID(s, "refs/git-wt/tasks/c") != "" || s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/wt/c") {
		t.Error("rm of a legacy task left its record or branch")
	}
}

func TestWritingALegacyRecordMovesIt(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.MustWT("new", "a")
	legacify(t, s, "a")
	s.MustWT("lock", "a", "--reason", "mine")
	if refOID(s, "refs/wt/a") != "" {
		t.Error("refs/wt/a is still there after a write")
	}
	if rec := readRecord(t, s, "a"); rec["locked"] != true {
		t.Errorf("the write was lost: %v", rec)
	}
}

func TestLegacyRecordKeptTwiceIsDropped(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.MustWT("new", "a")
	oid := s.Git(s.Repo, "rev-parse", "refs/git-wt/tasks/a")
	s.Git(s.Repo, "update-ref", "refs/wt/a", oid)
	if r := s.WT("doctor"); r.Code != 1 || !strings.Contains(r.Stdout, string(task.LegacyRecord)) {
		t.Fatalf("doctor must report the second copy: %s", r)
	}
	s.MustWT("new", "b")
	movedOnce(t, s, "a", oid)
}

func TestLegacyConflictChangesNothing(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "a").Out()
	current := s.Git(s.Repo, "rev-parse", "refs/git-wt/tasks/a")
	// Another record for slug a, as an earlier git-wt might have left.
	rec := readRecord(t, s, "a")
	rec["path"] = filepath.Join(filepath.Dir(path), "elsewhere")
	data, _ := json.Marshal(rec)
	file := filepath.Join(t.TempDir(), "rec.json")
	os.WriteFile(file, data, 0o644)
	old := s.Git(s.Repo, "hash-object", "-w", file)
	s.Git(s.Repo, "update-ref", "refs/wt/a", old)

	r := s.WT("doctor")
	if r.Code != 1 || !strings.Contains(r.Stdout, string(task.LegacyConflict)) {
		t.Fatalf("doctor must report the conflict: %s", r)
	}
	if r := s.WT("doctor", "--fix"); r.Code != 1 || !strings.Contains(r.Stdout, string(task.LegacyConflict)) {
		t.Fatalf("doctor --fix must leave the conflict to a person: %s", r)
	}
	s.MustWT("gc")
	s.MustWT("new", "b")
	if refOID(s, "refs/wt/a") != old || refOID(s, "refs/git-wt/tasks/a") != current {
		t.Fatal("a conflicting legacy record, or the record it conflicts with, was changed")
	}
	if got := s.MustWT("path", "a").Out(); got != path {
		t.Errorf("the task is the record under refs/git-wt/tasks/: path = %q, want %s", got, path)
	}
}
