//go:build unix

// These tests protect git-wt's hooks (SPEC §5): install and uninstall in
// the hooks dir git really uses, a user's hook chained and restored byte
// for byte, its exit status passed through, the kill switch, a missing
// binary, the refusals, and the hook subcommand's argument check.
package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/hooks"
	"github.com/git-wt/git-wt/internal/testutil"
)

// gitRun runs git with env in dir and returns its combined output and exit
// code, for the git commands whose failure a test expects.
func gitRun(t *testing.T, env []string, dir string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out), ee.ExitCode()
	}
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return string(out), 0
}

// userHook is a post-checkout hook of the user's: it records its
// arguments in a file beside the repository and exits 7.
func userHook(s *testutil.Sandbox, path string) (log string) {
	log = filepath.Join(filepath.Dir(s.Repo), "user-hook.log")
	s.Write(path, "#!/bin/sh\necho \"$*\" >> '"+log+"'\nexit 7\n")
	os.Chmod(path, 0o751)
	return log
}

func fileLines(path string) []string {
	data, _ := os.ReadFile(path)
	return strings.FieldsFunc(string(data), func(r rune) bool { return r == '\n' })
}

func TestInstallChainsTheUserHookAndUninstallRestoresItByteForByte(t *testing.T) {
	s := testutil.NewSandbox(t)
	hookDir := filepath.Join(s.Repo, ".git", "hooks")
	hook := filepath.Join(hookDir, "post-checkout")
	log := userHook(s, hook)
	before, _ := os.ReadFile(hook)
	st0, _ := os.Stat(hook)

	r := s.MustWT("install")
	if !strings.Contains(r.Stderr, "runs after it") {
		t.Fatalf("install over a hook must say it chained it: %s", r)
	}
	installed, _ := os.ReadFile(hook)
	if !bytes.Equal(installed, hooks.Script("post-checkout")) {
		t.Fatalf("installed hook:\n%s", installed)
	}
	stMerge, _ := os.Stat(filepath.Join(hookDir, "post-merge"))
	// Installing twice changes nothing, not even a modification time.
	s.MustWT("install")
	if st, _ := os.Stat(filepath.Join(hookDir, "post-merge")); !st.ModTime().Equal(stMerge.ModTime()) {
		t.Fatal("a second install rewrote post-merge")
	}
	if got, _ := os.ReadFile(hook); !bytes.Equal(got, installed) {
		t.Fatal("a second install changed post-checkout")
	}

	// The user's hook still runs, once, and its exit status is git's.
	out, code := gitRun(t, s.Env, s.Repo, "worktree", "add", "-q", "-b", "plain", "../plain")
	if code != 7 {
		t.Fatalf("git worktree add must exit with the user hook's status 7, got %d: %s", code, out)
	}
	if got := fileLines(log); len(got) != 1 || !strings.HasSuffix(got[0], " 1") || !strings.HasPrefix(got[0], strings.Repeat("0", 40)) {
		t.Fatalf("the user hook ran with %q", got)
	}

	s.MustWT("uninstall")
	after, _ := os.ReadFile(hook)
	st1, _ := os.Stat(hook)
	if !bytes.Equal(after, before) || st1.Mode() != st0.Mode() || !st1.ModTime().Equal(st0.ModTime()) {
		t.Fatalf("uninstall did not restore the hook exactly: mode %v→%v\n%s", st0.Mode(), st1.Mode(), after)
	}
	if testutil.Exists(filepath.Join(hookDir, "post-merge")) || testutil.Exists(hook+hooks.ChainedSuffix) {
		t.Fatal("uninstall left git-wt's files behind")
	}
	if r := s.MustWT("uninstall"); !strings.Contains(r.Stderr, "no post-checkout hook to uninstall") && !strings.Contains(r.Stderr, "not git-wt's") {
		t.Fatalf("a second uninstall: %s", r)
	}
	if after, _ := os.ReadFile(hook); !bytes.Equal(after, before) {
		t.Fatal("a second uninstall touched the user's hook")
	}
}

func TestInstallHonoursCoreHooksPath(t *testing.T) {
	s := testutil.NewSandbox(t)
	dir := filepath.Join(filepath.Dir(s.Repo), "shared-hooks")
	s.Git(s.Repo, "config", "core.hooksPath", dir)
	s.MustWT("install")
	for _, name := range hooks.Names {
		if !testutil.Exists(filepath.Join(dir, name)) {
			t.Fatalf("%s not installed in core.hooksPath %s", name, dir)
		}
		if testutil.Exists(filepath.Join(s.Repo, ".git", "hooks", name)) {
			t.Fatalf("%s installed in .git/hooks although core.hooksPath is set", name)
		}
	}
	// git runs them from there: a plain worktree gets a record.
	s.Git(s.Repo, "worktree", "add", "-q", "-b", "feat", "../feat")
	if r := s.MustWT("show", "feat", "--json"); !strings.Contains(r.Stdout, `"state": "adopted"`) {
		t.Fatalf("the hook in core.hooksPath did not run: %s", r)
	}
}

func TestInstallRefusesATrackedHooksDirAndPrintsTheLine(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Write(".husky/post-checkout", "#!/bin/sh\necho husky\n")
	s.Git(s.Repo, "add", ".husky")
	s.Git(s.Repo, "commit", "-qm", "husky")
	s.Git(s.Repo, "config", "core.hooksPath", ".husky")
	r := s.WT("install")
	if r.Code != 3 || !strings.Contains(r.Stderr, hooks.Line("post-checkout")) || !strings.Contains(r.Stderr, "tracked") {
		t.Fatalf("install into a tracked hooks dir: %s", r)
	}
	if s.Git(s.Repo, "status", "--porcelain") != "" || testutil.Exists(filepath.Join(s.Repo, ".husky", "post-merge")) {
		t.Fatal("a refused install changed files")
	}
	// The printed line does git-wt's part from the user's own hook.
	s.Git(s.Repo, "config", "wt.init", "echo ran > from-line")
	s.Write(".husky/post-checkout", "#!/bin/sh\n"+hooks.Line("post-checkout")+"\n")
	os.Chmod(filepath.Join(s.Repo, ".husky", "post-checkout"), 0o755)
	s.Git(s.Repo, "worktree", "add", "-q", "-b", "h", "../h")
	if !testutil.Exists(filepath.Join(filepath.Dir(s.Repo), "h", "from-line")) {
		t.Fatal("the printed line did not run git-wt's part")
	}
	if r := s.WT("install", "--force"); r.Code != 0 || !testutil.Exists(filepath.Join(s.Repo, ".husky", "post-merge")) {
		t.Fatalf("install --force: %s", r)
	}
}

func TestInstallRefusesAGlobalHooksPathUnlessForced(t *testing.T) {
	s := testutil.NewSandbox(t)
	dir := filepath.Join(s.Home, "global-hooks")
	s.Git(s.Repo, "config", "--global", "core.hooksPath", dir)
	r := s.WT("install")
	if r.Code != 3 || !strings.Contains(r.Stderr, "global") || !strings.Contains(r.Stderr, "every repository") {
		t.Fatalf("install with a global core.hooksPath: %s", r)
	}
	if testutil.Exists(dir) {
		t.Fatal("a refused install wrote the global hooks dir")
	}
	s.MustWT("install", "--force")
	if !testutil.Exists(filepath.Join(dir, "post-checkout")) {
		t.Fatal("install --force did not install into the global hooks dir")
	}
	// A clone fires post-checkout with the same arguments as a new
	// worktree: git-wt must not take it for one.
	s.Git(s.Repo, "config", "wt.init", "echo ran > from-init")
	clone := filepath.Join(filepath.Dir(s.Repo), "clone")
	s.Git(filepath.Dir(s.Repo), "clone", "-q", s.Repo, clone)
	if testutil.Exists(filepath.Join(clone, "from-init")) || s.Git(clone, "for-each-ref", "refs/git-wt/tasks/") != "" {
		t.Fatal("git clone was taken for a new worktree")
	}
}

func TestHooksDoNothingWithoutTheBinaryOrWithTheKillSwitch(t *testing.T) {
	s := testutil.NewSandbox(t)
	log := userHook(s, filepath.Join(s.Repo, ".git", "hooks", "post-checkout"))
	s.MustWT("install")
	// A PATH with git but no git-wt.
	bin := filepath.Join(filepath.Dir(s.Repo), "bin-without-git-wt")
	os.MkdirAll(bin, 0o755)
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	os.Symlink(gitPath, filepath.Join(bin, "git"))
	noBinary := replaceEnv(s.Env, "PATH", bin)
	off := append(append([]string(nil), s.Env...), "GIT_WT_HOOKS=0")
	for name, env := range map[string][]string{"nobin": noBinary, "off": off} {
		out, code := gitRun(t, env, s.Repo, "worktree", "add", "-q", "-b", name, "../"+name)
		if code != 7 {
			t.Fatalf("%s: the user hook's status must pass through: %d %s", name, code, out)
		}
		if strings.Contains(out, "git-wt") {
			t.Fatalf("%s: git-wt spoke: %s", name, out)
		}
	}
	if refs := s.Git(s.Repo, "for-each-ref", "refs/git-wt/tasks/"); refs != "" {
		t.Fatalf("git-wt's part ran: %s", refs)
	}
	if n := len(fileLines(log)); n != 2 {
		t.Fatalf("the user hook ran %d times, want 2", n)
	}
}

func TestHookChecksItsArgumentsFirst(t *testing.T) {
	s := testutil.NewSandbox(t)
	outside := t.TempDir() // not a repository: any git call would fail
	for _, args := range [][]string{{"hook"}, {"hook", "pre-commit"}, {"hook", "post-checkout", "a"}, {"hook", "post-merge"}} {
		if r := s.WTIn(outside, args...); r.Code != 2 {
			t.Errorf("git wt %q: %s", args, r)
		}
	}
	// Nothing to do: a branch switch, a squash merge, a file checkout.
	sha := strings.Repeat("a", 40)
	for _, args := range [][]string{
		{"hook", "post-checkout", sha, sha, "1"},
		{"hook", "post-checkout", strings.Repeat("0", 40), sha, "0"},
		{"hook", "post-merge", "1"},
	} {
		if r := s.WTIn(outside, args...); r.Code != 0 || r.Stderr != "" {
			t.Errorf("git wt %q must decide from its arguments alone: %s", args, r)
		}
	}
}

func TestNewRunsTheChainedUserHookOnceAndInitOnce(t *testing.T) {
	s := testutil.NewSandbox(t)
	log := userHook(s, filepath.Join(s.Repo, ".git", "hooks", "post-checkout"))
	s.MustWT("install")
	count := filepath.Join(filepath.Dir(s.Repo), "inits")
	s.Git(s.Repo, "config", "wt.init", "echo \"$WT_PATH\" >> '"+count+"'")
	r := s.WT("new", "T")
	if r.Code != 0 {
		t.Fatalf("new with a failing user post-checkout hook must still succeed: %s", r)
	}
	if !strings.Contains(r.Stderr, "post-checkout hook") || !strings.Contains(r.Stderr, "exit status 7") {
		t.Fatalf("the failing user hook must be warned about: %s", r)
	}
	got := fileLines(log)
	if len(got) != 1 || got[0] != strings.Repeat("0", 40)+" "+s.Git(r.Out(), "rev-parse", "HEAD")+" 1" {
		t.Fatalf("the user hook must run once as after git worktree add, ran with %q", got)
	}
	if n := len(fileLines(count)); n != 1 {
		t.Fatalf("init ran %d times for git wt new, want 1", n)
	}
}

func TestHookCommandsRefuseBadInputWithExit2(t *testing.T) {
	s := testutil.NewSandbox(t)
	for _, args := range [][]string{{"install", "x"}, {"uninstall", "x"}, {"trust", "x"}, {"init"}, {"init", "a", "b"}, {"install", "--bogus"}} {
		if r := s.WT(args...); r.Code != 2 || !strings.HasPrefix(r.Stderr, "git-wt: ") {
			t.Errorf("git wt %q: %s", args, r)
		}
	}
	if r := s.MustWT("--help"); regexp.MustCompile(`(?m)^\s+hook\s`).MatchString(r.Stdout) || !strings.Contains(r.Stdout, "install") {
		t.Errorf("help must list install and hide hook:\n%s", r.Stdout)
	}
}

func TestTheHookSubcommandHonoursTheKillSwitchAndGitWtsMark(t *testing.T) {
	s := testutil.NewSandbox(t) // no hooks installed: the subcommand is called by hand, as a one-line hook would
	s.Git(s.Repo, "worktree", "add", "-q", "-b", "w", "../w")
	w := filepath.Join(filepath.Dir(s.Repo), "w")
	args := []string{"hook", "post-checkout", strings.Repeat("0", 40), s.Git(w, "rev-parse", "HEAD"), "1"}
	for _, kv := range []string{"GIT_WT_HOOKS=0", "GIT_WT_INTERNAL=1"} {
		c := *s
		c.Env = append(append([]string(nil), s.Env...), kv)
		if r := c.WTIn(w, args...); r.Code != 0 || r.Stderr != "" {
			t.Fatalf("%s: %s", kv, r)
		}
		if s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/git-wt/tasks/w") {
			t.Fatalf("%s: the hook adopted the worktree", kv)
		}
	}
	if r := s.WTIn(w, args...); r.Code != 0 || !s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/git-wt/tasks/w") {
		t.Fatalf("without either, the hook adopts the worktree: %s", r)
	}
}
