//go:build unix

// A record git-wt cannot read is no task (SPEC §7): list, count and
// wt.maxWorktrees leave it out, and doctor reports it.
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

// corruptRecords writes two bad records by hand: a blob that is not JSON,
// and JSON that lacks the slug and path.
func corruptRecords(t *testing.T, s *testutil.Sandbox) []string {
	t.Helper()
	bad := map[string]string{"garbage": "{not json", "empty": `{"task":"empty"}`}
	var names []string
	for name, content := range bad {
		file := filepath.Join(t.TempDir(), name)
		os.WriteFile(file, []byte(content), 0o644)
		s.Git(s.Repo, "update-ref", "refs/git-wt/tasks/"+name, s.Git(s.Repo, "hash-object", "-w", file))
		names = append(names, name)
	}
	return names
}

func TestCorruptRecordIsNeitherListedNorCounted(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.MustWT("new", "good")
	bad := corruptRecords(t, s)
	r := s.MustWT("list", "--json", "--no-status")
	var rows []map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &rows); err != nil {
		t.Fatalf("list --json: %v\n%s", err, r)
	}
	if len(rows) != 1 || rows[0]["task"] != "good" {
		t.Errorf("list --json must list the one task, not the corrupt records: %s", r.Stdout)
	}
	if strings.Count(r.Stderr, "warning") != len(bad) {
		t.Errorf("list must warn about each corrupt record: %s", r)
	}
	if n := s.MustWT("count").Out(); n != "1" {
		t.Errorf("count = %s, want 1 (corrupt records are no tasks)", n)
	}
	if r := s.WT("doctor"); r.Code != 1 || strings.Count(r.Stdout, string(task.CorruptRecord)) != len(bad) {
		t.Errorf("doctor must report each corrupt record: %s", r)
	}
}

func TestCorruptRecordTakesNoMaxWorktreesSlot(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "config", "wt.maxWorktrees", "1")
	corruptRecords(t, s)
	if r := s.WT("new", "T"); r.Code != 0 {
		t.Fatalf("new with wt.maxWorktrees=1 and only corrupt records must succeed: %s", r)
	}
	if r := s.WT("new", "U"); r.Code != 4 {
		t.Fatalf("the one real task fills the limit: %s", r)
	}
}
