//go:build unix

// These tests protect the error documents of --json (SPEC §2): a command
// that fails prints one JSON document on stdout with the exit code and a
// kind from the closed list, so that an orchestrator never parses English.
package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/testutil"
)

type errorDoc struct {
	Error struct {
		Code    int    `json:"code"`
		Kind    string `json:"kind"`
		Message string `json:"message"`
		Task    string `json:"task"`
		Path    string `json:"path"`
	} `json:"error"`
}

// jsonError runs git-wt, expects exit code and an error document of kind
// on stdout, and returns it.
func jsonError(t *testing.T, s *testutil.Sandbox, dir string, code int, kind exitcode.Kind, args ...string) errorDoc {
	t.Helper()
	cmd := s.Cmd(dir, args...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.Run()
	var doc errorDoc
	if err := json.Unmarshal([]byte(out.String()), &doc); err != nil {
		t.Fatalf("git wt %s: stdout is not one JSON document (%v):\n%s\nstderr: %s", strings.Join(args, " "), err, out.String(), errOut.String())
	}
	if got := cmd.ProcessState.ExitCode(); got != code || doc.Error.Code != code || doc.Error.Kind != string(kind) {
		t.Fatalf("git wt %s: exit %d, document %+v; want exit %d, kind %s", strings.Join(args, " "), got, doc.Error, code, kind)
	}
	if doc.Error.Message == "" || !strings.Contains(errOut.String(), doc.Error.Message) {
		t.Fatalf("the document's message %q is not the one on stderr %q", doc.Error.Message, errOut.String())
	}
	return doc
}

func TestJSONErrorDocuments(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	s.Write(filepath.Join(path, "wip.txt"), "work")

	jsonError(t, s, s.Repo, 2, exitcode.KindUsage, "new", "--json", "--no-such-flag", "X")
	jsonError(t, s, s.Repo, 5, exitcode.KindNotFound, "show", "--json", "no-such-task")
	doc := jsonError(t, s, s.Repo, 3, exitcode.KindDirty, "merge", "--json", "T")
	if doc.Error.Task != "T" || doc.Error.Path != path {
		t.Fatalf("a dirty merge's document names task %q path %q, want T and %s", doc.Error.Task, doc.Error.Path, path)
	}
	jsonError(t, s, t.TempDir(), 1, exitcode.KindNotARepository, "list", "--json")

	s.MustWT("new", "U")
	jsonError(t, s, s.Repo, 3, exitcode.KindConflict, "new", "--json", "V", "--branch", "wt/U")

	s.Git(s.Repo, "config", "wt.maxWorktrees", "2")
	jsonError(t, s, s.Repo, 4, exitcode.KindLimit, "new", "--json", "W")
}

func TestRmJSONNamesTheErrorOfEachTaskItKept(t *testing.T) {
	s := testutil.NewSandbox(t)
	dirty := s.MustWT("new", "D").Out()
	s.Write(filepath.Join(dirty, "wip.txt"), "work")
	s.MustWT("new", "L")
	s.MustWT("lock", "L")
	s.MustWT("new", "C")
	r := s.WT("rm", "--json", "D", "L", "C")
	var entries []struct {
		Task    string                 `json:"task"`
		Outcome string                 `json:"worktree_outcome"`
		Error   *struct{ Kind string } `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &entries); err != nil || r.Code != 3 || len(entries) != 3 {
		t.Fatalf("rm --json: %v: %s", err, r)
	}
	for i, want := range []string{"dirty", "locked", ""} {
		got := ""
		if entries[i].Error != nil {
			got = entries[i].Error.Kind
		}
		if got != want {
			t.Errorf("task %s: error kind %q, want %q", entries[i].Task, got, want)
		}
	}
}

func TestWithoutJSONAFailurePrintsNothingOnStdout(t *testing.T) {
	s := testutil.NewSandbox(t)
	if r := s.WT("show", "no-such-task"); r.Code != 5 || r.Stdout != "" {
		t.Fatalf("show of a missing task without --json: %s", r)
	}
}
