//go:build unix

// These tests protect the command line contract of SPEC §2: exit codes,
// message form, global flags, aliases and flags anywhere.
package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

func TestUsageErrorsExit2OnStderr(t *testing.T) {
	s := testutil.NewSandbox(t)
	for _, args := range [][]string{
		{"frobnicate"},
		{"new"},
		{"new", "a", "b"},
		{"new", "--bogus", "T"},
		{"path"},
		{"rm"},
		{"list", "extra"},
		{"--bogus-global", "list"},
		{"new", ""},
	} {
		r := s.WT(args...)
		if r.Code != 2 || r.Stdout != "" || !strings.HasPrefix(r.Stderr, "git-wt: ") {
			t.Errorf("git wt %q: want exit 2 with a git-wt: message on stderr, got %s", args, r)
		}
	}
}

func TestHelpGoesToStdout(t *testing.T) {
	s := testutil.NewSandbox(t)
	for _, args := range [][]string{{"-h"}, {"--help"}, {"new", "-h"}, {"rm", "--help"}, {"help"}, {"help", "rm"}} {
		r := s.WT(args...)
		if r.Code != 0 || !strings.Contains(r.Stdout, "git wt") {
			t.Errorf("git wt %q: %s", args, r)
		}
	}
}

func TestNotARepositoryBareOrOldGitExit1(t *testing.T) {
	s := testutil.NewSandbox(t)
	outside := filepath.Join(filepath.Dir(s.Repo), "plain")
	os.MkdirAll(outside, 0o755)
	bare := filepath.Join(filepath.Dir(s.Repo), "bare.git")
	s.Git(filepath.Dir(s.Repo), "clone", "-q", "--bare", s.Repo, bare)
	// The message names where git-wt looked: started there, or sent by -C.
	for dir, want := range map[string]string{outside: "not a git repository (or any parent up to the root): " + outside, bare: "bare repository"} {
		r := s.WTIn(dir, "list")
		if r.Code != 1 || !strings.Contains(r.Stderr, want) || strings.Count(r.Stderr, "\n") != 1 {
			t.Errorf("list in %s: want one line with %q, got %s", dir, want, r)
		}
	}
	if r := s.WT("-C", outside, "new", "T"); r.Code != 1 || !strings.Contains(r.Stderr, "not a git repository (or any parent up to the root): "+outside) {
		t.Errorf("new -C %s: want the folder named, got %s", outside, r)
	}
	r := gitSaysItIs(s, "2.30.9").WT("list")
	if r.Code != 1 || !strings.Contains(r.Stderr, "2.31") {
		t.Fatalf("list with git 2.30: %s", r)
	}
	// No git at all.
	empty := filepath.Join(filepath.Dir(s.Repo), "nogit")
	os.MkdirAll(empty, 0o755)
	nogit := withPath(s, empty)
	nogit.Env = replaceEnv(nogit.Env, "PATH", testutil.BinDir(t)+":"+empty)
	if r := nogit.WT("list"); r.Code != 1 || !strings.Contains(r.Stderr, "git is not installed") {
		t.Fatalf("list without git: %s", r)
	}
}

// TestABadSettingNamesItsKeyAndFile: a bad value is reported with the
// key and where it was set (the file and its scope, or git -c), so that
// the user knows what to edit, for git config and the committed .gitwt.
func TestABadSettingNamesItsKeyAndFile(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "config", "wt.maxWorktrees", "-3")
	local := filepath.Join(s.Repo, ".git", "config")
	sub := filepath.Join(s.Repo, "sub")
	os.MkdirAll(sub, 0o755)
	for _, dir := range []string{s.Repo, sub} {
		r := s.WTIn(dir, "new", "T")
		if want := `bad config wt.maxWorktrees (set in ` + local + `, local config): "-3" is not a whole number`; r.Code != 1 || strings.TrimSpace(r.Stderr) != "git-wt: "+want {
			t.Errorf("new in %s: want %q, got %s", dir, want, r)
		}
	}
	// git -c is git's flag: through git, as a user types it.
	cmd := exec.Command("git", "-c", "wt.maxWorktrees=x", "wt", "list")
	cmd.Dir, cmd.Env = s.Repo, s.Env
	if out, _ := cmd.CombinedOutput(); !strings.Contains(string(out), "bad config wt.maxWorktrees (set by git -c or GIT_CONFIG_PARAMETERS)") {
		t.Errorf("git -c wt.maxWorktrees=x wt list:\n%s", out)
	}
	s.Git(s.Repo, "config", "--unset", "wt.maxWorktrees")
	s.Write(".gitwt", "[wt]\n\tmaxAge = soon\n")
	gitwt := filepath.Join(s.Repo, ".gitwt")
	if r := s.WT("gc", "--dry-run"); r.Code != 1 || !strings.Contains(r.Stderr, "bad config wt.maxAge (set in "+gitwt+", the committed defaults)") {
		t.Errorf("a bad .gitwt: %s", r)
	}
	assertNothingLeft(t, s)
}

func TestGlobalFlags(t *testing.T) {
	s := testutil.NewSandbox(t)
	elsewhere := t.TempDir()
	if r := s.WTIn(elsewhere, "-C", s.Repo, "new", "T"); r.Code != 0 || !strings.HasSuffix(r.Out(), "/repo-worktrees/T") {
		t.Fatalf("-C: %s", r)
	}
	if r := s.WTIn(elsewhere, "count", "-C", s.Repo); r.Out() != "1" {
		t.Fatalf("-C after the command: %s", r)
	}
	if r := s.WT("new", "--quiet", "U"); r.Code != 0 || r.Stderr != "" || r.Stdout == "" {
		t.Fatalf("--quiet must keep data and drop messages: %s", r)
	}
	if r := s.WT("--verbose", "path", "T"); !strings.Contains(r.Stderr, "git cat-file") {
		t.Fatalf("--verbose must show git commands: %s", r)
	}
	if r := s.WT("--version"); r.Code != 0 || !strings.HasPrefix(r.Stdout, "git-wt version ") || !strings.HasSuffix(r.Stdout, " (github.com/git-wt/git-wt)\n") {
		t.Fatalf("--version: %s", r)
	}
	s.Git(s.Repo, "config", "color.wt", "always")
	if r := s.WT("list", "--no-color"); strings.Contains(r.Stdout, "\x1b[") {
		t.Fatalf("--no-color still colours:\n%q", r.Stdout)
	}
	if r := s.WT("list"); !strings.Contains(r.Stdout, "\x1b[") {
		t.Fatalf("color.wt=always does not colour:\n%q", r.Stdout)
	}
}

func TestAliases(t *testing.T) {
	s := testutil.NewSandbox(t)
	a := s.MustWT("create", "A").Out()
	b := s.MustWT("add", "B").Out()
	s.MustWT("new", "C")
	if r := s.MustWT("ls"); !strings.Contains(r.Stdout, a) || !strings.Contains(r.Stdout, b) {
		t.Fatalf("ls:\n%s", r.Stdout)
	}
	s.MustWT("remove", "A")
	s.MustWT("teardown", "B")
	s.MustWT("rm", "C")
	if r := s.MustWT("count"); r.Out() != "0" {
		t.Fatalf("after removing all: %s", r)
	}
}

func TestSettingsBaseDirPrefixAndDeleteBranch(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "config", "wt.baseDir", ".worktrees")
	s.Git(s.Repo, "config", "wt.branchPrefix", "task/")
	path := s.MustWT("new", "T").Out()
	if path != filepath.Join(s.Repo, ".worktrees", "T") {
		t.Fatalf("relative wt.baseDir: %s", path)
	}
	if got := s.Git(path, "symbolic-ref", "--short", "HEAD"); got != "task/T" {
		t.Fatalf("wt.branchPrefix: %s", got)
	}
	s.Git(s.Repo, "config", "wt.deleteBranch", "false")
	s.MustWT("rm", "T")
	if !s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/task/T") {
		t.Fatal("wt.deleteBranch=false deleted the branch")
	}
	home := s.Home
	s.Git(s.Repo, "config", "wt.basedir", "~/wts") // k1LoW's spelling, with ~
	if p := s.MustWT("new", "U").Out(); p != filepath.Join(home, "wts", "U") {
		t.Fatalf("wt.basedir with ~: %s", p)
	}
	if r := s.WT("-c", "x", "list"); r.Code != 2 {
		t.Fatalf("-c is not a git-wt flag: %s", r)
	}
}

func TestGitLocationVariablesDoNotRedirect(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	other := testutil.NewSandbox(t)
	// A hook in another repository calls git-wt with its own GIT_DIR and
	// GIT_INDEX_FILE set; -C points at ours.
	s2 := *s
	s2.Env = append(append([]string(nil), s.Env...), "GIT_INDEX_FILE="+filepath.Join(other.Repo, ".git", "index"))
	if r := s2.WTIn(path, "list", "--json"); r.Code != 0 || !strings.Contains(r.Stdout, `"dirty": 0`) {
		t.Fatalf("list with a foreign GIT_INDEX_FILE: %s", r)
	}
}

// A mistyped command gets the closest one, as git's own "did you mean";
// a word close to none gets no guess.
func TestAMistypedCommandGetsASuggestion(t *testing.T) {
	s := testutil.NewSandbox(t)
	if r := s.WT("lsit"); r.Code != 2 || !strings.Contains(r.Stderr, `did you mean "list"?`) {
		t.Fatalf("git wt lsit: %s", r)
	}
	if r := s.WT("zzzzzz"); r.Code != 2 || strings.Contains(r.Stderr, "did you mean") {
		t.Fatalf("git wt zzzzzz: %s", r)
	}
}

// A boolean flag's help does not say "(default: false)": a switch is off
// unless given.
func TestHelpOfSwitchesHasNoFalseDefault(t *testing.T) {
	s := testutil.NewSandbox(t)
	for _, args := range [][]string{{"--help"}, {"rm", "--help"}, {"new", "--help"}, {"list", "--help"}} {
		if r := s.WT(args...); r.Code != 0 || strings.Contains(r.Stdout, "(default: false)") {
			t.Errorf("git wt %s: %s", strings.Join(args, " "), r)
		}
	}
}

// k1LoW's git-wt is run by the same git wt command and keeps the same
// wt.* keys (SPEC §19): its {gitroot} base dir is the repository's name,
// its delete hook runs before rm, and a key git-wt does not read is named
// once, with git-wt's equivalent, never a folder named {gitroot}.
func TestTheSettingsOfK1LoWsGitWtMeanWhatTheySay(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "config", "wt.basedir", "../{gitroot}-wt")
	s.Git(s.Repo, "config", "wt.copyignored", "true")
	hooked := filepath.Join(s.Home, "deletehook-ran")
	s.Git(s.Repo, "config", "wt.deletehook", "touch "+hooked)
	r := s.MustWT("new", "T")
	want := filepath.Join(filepath.Dir(s.Repo), filepath.Base(s.Repo)+"-wt", "T")
	if r.Out() != want {
		t.Fatalf("new with wt.basedir ../{gitroot}-wt made %s, want %s", r.Out(), want)
	}
	if matches, _ := filepath.Glob(filepath.Join(filepath.Dir(s.Repo), "*gitroot*")); len(matches) > 0 {
		t.Fatalf("a folder named after the template: %v", matches)
	}
	if !strings.Contains(r.Stderr, "wt.copyignored") || !strings.Contains(r.Stderr, "wt.copy") {
		t.Fatalf("new did not name wt.copyignored and its equivalent:\n%s", r.Stderr)
	}
	if r := s.MustWT("new", "U"); strings.Contains(r.Stderr, "wt.copyignored") {
		t.Fatalf("the second new named wt.copyignored again:\n%s", r.Stderr)
	}
	s.MustWT("rm", "T")
	if !testutil.Exists(hooked) {
		t.Fatal("rm did not run wt.deletehook")
	}
}
