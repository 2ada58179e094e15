//go:build unix

// These tests protect a new worktree's setup (SPEC §4, §6): init commands
// with their environment, status, log, failure and re-run; exactly once
// per worktree, also for a plain `git worktree add`; the copy of ignored
// files; and the trust a committed .gitwt needs before its commands run.
package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// taskRecord reads a task's record through git-wt.
func taskRecord(t *testing.T, s *testutil.Sandbox, task string) (rec struct {
	State string
	Path  string
	Base  string
	Init  struct {
		Ran    bool
		Status string
		Error  string
		Log    string
	}
}) {
	t.Helper()
	r := s.MustWT("show", task, "--json")
	if err := json.Unmarshal([]byte(r.Stdout), &rec); err != nil {
		t.Fatalf("show --json: %v\n%s", err, r.Stdout)
	}
	return rec
}

func TestInitRunsInOrderWithTheTaskEnvironment(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "config", "wt.init", `printf '%s|' "$WT_TASK" "$WT_SLUG" "$WT_BRANCH" "$WT_PATH" "$WT_MAIN" "$WT_BASE" "$(pwd)" "${GIT_DIR-unset}" > env.txt`)
	s.Git(s.Repo, "config", "--add", "wt.init", "echo second >> env.txt; echo to-the-log")
	r := s.MustWT("new", "fix: bug #1")
	path := r.Out()
	env, _ := os.ReadFile(filepath.Join(path, "env.txt"))
	want := strings.Join([]string{"fix: bug #1", "fix-_bug_-1", "wt/fix-_bug_-1", path, s.Repo, "refs/heads/main", path, "unset"}, "|") + "|second\n"
	if string(env) != want {
		t.Fatalf("init environment:\n got %q\nwant %q", env, want)
	}
	rec := taskRecord(t, s, "fix: bug #1")
	if rec.State != "active" || !rec.Init.Ran || rec.Init.Status != "success" {
		t.Fatalf("record after init: %+v", rec)
	}
	if log, _ := os.ReadFile(rec.Init.Log); !strings.Contains(string(log), "to-the-log") {
		t.Fatalf("init output is not in the log %s:\n%s", rec.Init.Log, log)
	}
	if strings.Contains(r.Stderr, "to-the-log") {
		t.Fatal("init output went to stderr without a terminal or --verbose")
	}
	if r := s.MustWT("--verbose", "init", "fix-_bug_-1"); !strings.Contains(r.Stderr, "to-the-log") {
		t.Fatalf("--verbose must show init output: %s", r)
	}
}

func TestFailedInitKeepsTheWorktreeAndInitRetries(t *testing.T) {
	s := testutil.NewSandbox(t)
	marker := filepath.Join(filepath.Dir(s.Repo), "ready")
	s.Git(s.Repo, "config", "wt.init", "test -e '"+marker+"'")
	s.Git(s.Repo, "config", "--add", "wt.init", "echo never > second-ran")
	r := s.WT("new", "T")
	log := filepath.Join(s.Repo, ".git", "wt", "logs", "T.log")
	if r.Code != 1 || r.Stdout != "" || !strings.Contains(r.Stderr, log) || !strings.Contains(r.Stderr, "git wt init T") {
		t.Fatalf("a failed init must exit 1 naming the log and the retry: %s", r)
	}
	rec := taskRecord(t, s, "T")
	if rec.State != "failed" || rec.Init.Status != "failed" || !strings.Contains(rec.Init.Error, "exited with status 1") {
		t.Fatalf("record after a failed init: %+v", rec)
	}
	if !testutil.Exists(filepath.Join(rec.Path, "README.md")) || testutil.Exists(filepath.Join(rec.Path, "second-ran")) {
		t.Fatal("a failed init must keep the worktree and stop at the first failure")
	}
	if r := s.WT("new", "T"); r.Code != 1 || !strings.Contains(r.Stderr, log) {
		t.Fatalf("new of a task whose init failed: %s", r)
	}
	if r := s.MustWT("list"); !strings.Contains(r.Stdout, "init:failed") {
		t.Fatalf("list must show the failed init:\n%s", r.Stdout)
	}
	os.WriteFile(marker, nil, 0o644)
	s.MustWT("init", "T")
	if rec := taskRecord(t, s, "T"); rec.State != "active" || rec.Init.Status != "success" || rec.Init.Error != "" {
		t.Fatalf("record after git wt init: %+v", rec)
	}
	if r := s.WT("init", "nope"); r.Code != 5 {
		t.Fatalf("init of an unknown task: %s", r)
	}
}

func TestPlainWorktreeAddIsAdoptedAndInitialisedOnce(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.MustWT("install")
	count := filepath.Join(filepath.Dir(s.Repo), "inits")
	s.Git(s.Repo, "config", "wt.init", "echo \"$WT_TASK\" >> '"+count+"'")
	plain := filepath.Join(filepath.Dir(s.Repo), "plain")
	s.Git(s.Repo, "worktree", "add", "-q", "-b", "feature/x", plain)
	rec := taskRecord(t, s, "feature/x")
	if rec.State != "adopted" || rec.Path != plain || rec.Base != "refs/heads/main" || rec.Init.Status != "success" {
		t.Fatalf("record of a plain worktree: %+v", rec)
	}
	// Later checkouts there are no new worktree.
	s.Git(plain, "checkout", "-q", "-b", "other")
	s.Git(plain, "checkout", "-q", "feature/x")
	// git wt new with the hooks installed: init once, not twice.
	s.MustWT("new", "T")
	// A detached worktree gets no record (a record names a branch).
	out, _ := gitRun(t, s.Env, s.Repo, "worktree", "add", "-q", "--detach", "../detached")
	if !strings.Contains(out, "detached HEAD") {
		t.Fatalf("a detached worktree must be explained: %s", out)
	}
	if got := fileLines(count); strings.Join(got, ",") != "feature/x,T" {
		t.Fatalf("init ran for %q, want once for feature/x and once for T", got)
	}
	if r := s.MustWT("count"); r.Out() != "2" {
		t.Fatalf("count: %s", r)
	}
}

func TestCopyBringsIgnoredFilesOnly(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Write(".gitignore", "STATE.json\nbuild/\n.env\nnode_modules/\n*.log\n")
	s.Write(".worktreeinclude", "# comment\nnode_modules\n*.log\n")
	s.Git(s.Repo, "add", ".")
	s.Git(s.Repo, "commit", "-qm", "ignore more")
	s.Write(".env", "SECRET=1\n")
	s.Write("node_modules/pkg/index.js", "module.exports = 1\n")
	s.Write("node_modules/pkg/bin/tool", "#!/bin/sh\n")
	os.Chmod(filepath.Join(s.Repo, "node_modules/pkg/bin/tool"), 0o755)
	s.Write("node_modules/pkg/readonly.txt", "ro\n")
	os.Chmod(filepath.Join(s.Repo, "node_modules/pkg/readonly.txt"), 0o444)
	os.Symlink("pkg/index.js", filepath.Join(s.Repo, "node_modules", "link.js"))
	s.Write("logs/app.log", "log\n")
	s.Write("logs/notes.txt", "not ignored\n")
	s.Write("notes.txt", "untracked, not ignored\n")
	s.Git(s.Repo, "config", "wt.copy", ".env")
	s.Git(s.Repo, "config", "--add", "wt.copy", "notes.txt")

	r := s.MustWT("new", "T")
	path := r.Out()
	for _, p := range []string{".env", "node_modules/pkg/index.js", "logs/app.log"} {
		want, _ := os.ReadFile(filepath.Join(s.Repo, p))
		if got, err := os.ReadFile(filepath.Join(path, p)); err != nil || string(got) != string(want) {
			t.Errorf("%s not copied: %v", p, err)
		}
	}
	if target, err := os.Readlink(filepath.Join(path, "node_modules", "link.js")); err != nil || target != "pkg/index.js" {
		t.Errorf("the symlink must stay a symlink: %q %v", target, err)
	}
	for p, mode := range map[string]os.FileMode{"node_modules/pkg/bin/tool": 0o755, "node_modules/pkg/readonly.txt": 0o444} {
		if st, err := os.Stat(filepath.Join(path, p)); err != nil || st.Mode().Perm() != mode {
			t.Errorf("%s: mode %v, want %v (%v)", p, st.Mode().Perm(), mode, err)
		}
	}
	for _, p := range []string{"notes.txt", "logs/notes.txt"} {
		if testutil.Exists(filepath.Join(path, p)) {
			t.Errorf("%s is not ignored and must not be copied", p)
		}
		if !strings.Contains(r.Stderr, p) {
			t.Errorf("skipping %s must be warned about: %s", p, r.Stderr)
		}
	}
	if st := s.Git(path, "status", "--porcelain"); st != "" {
		t.Fatalf("the copy made the worktree dirty:\n%s", st)
	}
	// git wt init copies again what is missing and keeps what is there.
	os.WriteFile(filepath.Join(path, ".env"), []byte("EDITED\n"), 0o644)
	os.Remove(filepath.Join(path, "logs", "app.log"))
	s.MustWT("init", "T")
	if got, _ := os.ReadFile(filepath.Join(path, ".env")); string(got) != "EDITED\n" {
		t.Fatal("git wt init overwrote a file in the worktree")
	}
	if !testutil.Exists(filepath.Join(path, "logs", "app.log")) {
		t.Fatal("git wt init did not copy a missing file")
	}
	if p := s.MustWT("new", "U", "--no-copy").Out(); testutil.Exists(filepath.Join(p, ".env")) {
		t.Fatal("--no-copy copied")
	}
}

func TestGitwtInitRunsOnlyOnceTrusted(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Write(".gitwt", "[wt]\n\tinit = echo from-gitwt > gitwt-ran\n")
	s.Git(s.Repo, "add", ".gitwt")
	s.Git(s.Repo, "commit", "-qm", "team defaults")
	s.Git(s.Repo, "config", "wt.init", "echo mine > mine-ran") // the user's own: trusted

	r := s.MustWT("new", "A")
	if testutil.Exists(filepath.Join(r.Out(), "gitwt-ran")) || !testutil.Exists(filepath.Join(r.Out(), "mine-ran")) {
		t.Fatal("an untrusted .gitwt's init ran, or the user's own did not")
	}
	if !strings.Contains(r.Stderr, "not trusted") || !strings.Contains(r.Stderr, "git wt trust") {
		t.Fatalf("skipping must be said on stderr: %s", r)
	}
	if rec := taskRecord(t, s, "A"); rec.Init.Status != "skipped-untrusted" || rec.State != "active" {
		t.Fatalf("record: %+v", rec)
	}
	s.MustWT("trust")
	if got := s.Git(s.Repo, "config", "--local", "wt.trusted"); len(got) != 64 {
		t.Fatalf("wt.trusted = %q, want a SHA-256", got)
	}
	if p := s.MustWT("new", "B").Out(); !testutil.Exists(filepath.Join(p, "gitwt-ran")) {
		t.Fatal("a trusted .gitwt's init did not run")
	}
	// Changed content is untrusted again.
	s.Write(".gitwt", "[wt]\n\tinit = echo changed > gitwt-ran\n")
	if p := s.MustWT("new", "C").Out(); testutil.Exists(filepath.Join(p, "gitwt-ran")) {
		t.Fatal("a changed .gitwt ran without being trusted again")
	}
	s.MustWT("trust")
	s.MustWT("trust", "--revoke")
	if s.GitOK(s.Repo, "config", "--local", "wt.trusted") {
		t.Fatal("trust --revoke left wt.trusted")
	}
	if p := s.MustWT("new", "D").Out(); testutil.Exists(filepath.Join(p, "gitwt-ran")) {
		t.Fatal("a revoked .gitwt ran")
	}
	os.Remove(filepath.Join(s.Repo, ".gitwt"))
	if r := s.WT("trust"); r.Code != 1 || !strings.Contains(r.Stderr, "no ") {
		t.Fatalf("trust without a .gitwt: %s", r)
	}
}

func TestCopyOfReadOnlyFilesAndFoldersAsAnUnprivilegedUser(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "config", "wt.copy", "build")
	s.Write("build/cache/mod/v1.go", "package v1\n")
	os.Chmod(filepath.Join(s.Repo, "build/cache/mod/v1.go"), 0o444)
	os.Chmod(filepath.Join(s.Repo, "build/cache/mod"), 0o555) // a Go module cache
	s.GiveToNobody()
	r := s.AsNobody("new", "T")
	if r.Code != 0 {
		t.Fatalf("new as nobody: %s", r)
	}
	copied := filepath.Join(r.Out(), "build/cache/mod")
	if st, err := os.Stat(copied); err != nil || st.Mode().Perm() != 0o555 {
		t.Fatalf("read-only folder: %v %v", st, err)
	}
	if st, err := os.Stat(filepath.Join(copied, "v1.go")); err != nil || st.Mode().Perm() != 0o444 {
		t.Fatalf("read-only file: %v %v", st, err)
	}
	if r := s.AsNobody("rm", "T"); r.Code != 0 {
		t.Fatalf("rm of the copy as nobody: %s", r)
	}
}

func TestOnATerminalInitShowsItsStepsAndOutput(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "config", "wt.init", "echo live-output")
	// script gives git-wt a terminal; its stdin must not be closed.
	cmd := exec.Command("script", "-qec", filepath.Join(testutil.BinDir(t), "git-wt")+" new T", "/dev/null")
	cmd.Dir, cmd.Env = s.Repo, append(s.Env, "GIT_PROGRESS_DELAY=0") // show the meter at once
	stdin, _ := os.Open(os.DevNull)
	defer stdin.Close()
	cmd.Stdin = stdin
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("new on a terminal: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "init in ") || !strings.Contains(string(out), "(1/1), done.") || !strings.Contains(string(out), "live-output") {
		t.Fatalf("on a terminal init must show its step and output:\n%q", out)
	}
}
