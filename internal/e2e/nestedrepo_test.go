//go:build unix

// These tests protect git-wt from a repository an agent nests in its task
// (SPEC §19): `git init sub` in the worktree, a config in sub/.git that
// runs a program, and `git add sub` (a gitlink in the task's index, no
// .gitmodules needed). git status with --ignore-submodules=none runs git
// in sub with that config; git-wt, which runs outside the agent's
// sandbox, must not let it.
package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/testutil"
)

// nestedRepo makes the repository sub in the task worktree at path, with
// one committed file, and adds it to the task's index as a gitlink.
func nestedRepo(s *testutil.Sandbox, path string) string {
	s.T.Helper()
	sub := filepath.Join(path, "sub")
	s.Git(path, "init", "-q", "-b", "main", "sub")
	s.Write(filepath.Join(sub, "f"), "f\n")
	s.Git(sub, "add", "f")
	s.Git(sub, "commit", "-q", "-m", "sub")
	s.Git(path, "add", "sub")
	return sub
}

func TestANestedRepositoryInATaskRunsNothing(t *testing.T) {
	for _, tc := range []struct {
		name, key string
		arm       func(s *testutil.Sandbox, sub, mark string)
	}{
		{"fsmonitor", "core.fsmonitor", func(s *testutil.Sandbox, sub, mark string) {
			s.Git(sub, "config", "core.fsmonitor", "touch "+mark+"; false")
		}},
		{"clean filter", "filter.x.clean", func(s *testutil.Sandbox, sub, mark string) {
			s.Git(sub, "config", "filter.x.clean", "touch "+mark+"; cat")
			s.Write(filepath.Join(sub, ".gitattributes"), "* filter=x\n")
			// Stat data git must check again: it runs the filter to.
			later := time.Now().Add(time.Hour)
			if err := os.Chtimes(filepath.Join(sub, "f"), later, later); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := testutil.NewSandbox(t)
			path := s.MustWT("new", "T").Out()
			sub := nestedRepo(s, path)
			mark := filepath.Join(t.TempDir(), "PWN")
			tc.arm(s, sub, mark)
			config := filepath.Join(sub, ".git", "config")

			// list shows the others: this task's status is unknown.
			if r := s.MustWT("list"); !strings.Contains(r.Stderr, config) || !strings.Contains(r.Stderr, tc.key) ||
				!strings.Contains(r.Stdout, "active  ?") {
				t.Errorf("list warns, naming %s and %s, and DIRTY is ?: %s", config, tc.key, r)
			}
			if testutil.Exists(mark) {
				t.Fatalf("list ran a command from %s", config)
			}
			refusedUnsafe(t, s.WT("rm", "T"), config, tc.key, mark)
			if !testutil.Exists(path) {
				t.Fatal("rm removed the task")
			}
			s.WT("rm", "--force", "T")
			if testutil.Exists(mark) {
				t.Errorf("rm --force ran a command from %s", config)
			}
		})
	}
}

// A repository nested in a task whose config runs nothing is still looked
// into: its uncommitted changes keep the task from a plain rm.
func TestANestedRepositorysChangesKeepItsTask(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	sub := nestedRepo(s, path)
	s.Git(path, "commit", "-q", "-m", "nested")
	s.Write(filepath.Join(sub, "f"), "changed\n")
	if r := s.WT("rm", "T"); r.Code != 3 || !testutil.Exists(path) {
		t.Fatalf("a nested repository's change makes the task dirty: %s", r)
	}
	s.Git(sub, "checkout", "-q", "--", ".")
	s.MustWT("rm", "T")
}
