// Package testutil builds the real git-wt binary once per test process and
// gives tests hermetic git repositories to run it against: HOME and the
// XDG config under the test's own folder, no system config, a fixed
// identity, and the fresh binary first on PATH (hooks find git-wt through
// PATH; an older install must never answer).
package testutil

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// A binary is built once per test process for each set of build tags.
type build struct {
	once sync.Once
	dir  string
	err  error
}

var (
	plain    build // the binary as install.sh builds it
	fallback build // -tags gitwt_noprocfs: the process fallback of SPEC §15
)

// Root is the module's root folder.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// Main runs a test package that uses BinDir and removes the built binary
// afterwards: call it from the package's TestMain.
func Main(m *testing.M) {
	code := m.Run()
	for _, b := range []*build{&plain, &fallback} {
		if b.dir != "" {
			os.RemoveAll(b.dir)
		}
	}
	os.Exit(code)
}

// BinDir builds git-wt (once per test binary) and returns the folder that
// holds it. The folder is world-readable so tests may run the binary as an
// unprivileged user.
func BinDir(t testing.TB) string {
	t.Helper()
	return plain.get(t, "urfave_cli_no_docs")
}

// FallbackBinDir is BinDir for the binary built with -tags
// gitwt_noprocfs: on Linux it judges processes as a system without a
// backend of its own does (SPEC §15's fallback).
func FallbackBinDir(t testing.TB) string {
	t.Helper()
	return fallback.get(t, "urfave_cli_no_docs,gitwt_noprocfs")
}

func (b *build) get(t testing.TB, tags string) string {
	t.Helper()
	b.once.Do(func() {
		b.dir, b.err = os.MkdirTemp("", "git-wt-bin-")
		if b.err != nil {
			return
		}
		os.Chmod(b.dir, 0o755)
		cmd := exec.Command("go", "build", "-tags", tags, "-o", b.dir+string(filepath.Separator), "./cmd/git-wt", "./cmd/git-wt-mcp")
		cmd.Dir = Root()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.dir
}

// Env is a hermetic environment for git and git-wt under home.
func Env(t testing.TB, home string) []string {
	bin := BinDir(t)
	env := []string{
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Test Author",
		"GIT_AUTHOR_EMAIL=author@example.com",
		"GIT_COMMITTER_NAME=Test Committer",
		"GIT_COMMITTER_EMAIL=committer@example.com",
		"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z",
		"GIT_COMMITTER_DATE=2026-01-01T00:00:00Z",
		"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"LANG=C.UTF-8",
		"TERM=dumb",
		"TMPDIR=" + os.TempDir(),
	}
	return env
}

// Sandbox is a test's home folder with one repository in it.
type Sandbox struct {
	T    testing.TB
	Home string
	Repo string // the main worktree
	Env  []string
}

// NewSandbox makes a home folder and a repository "repo" in it with one
// commit on branch main (a README and a .gitignore that ignores
// STATE.json and build/).
func NewSandbox(t testing.TB) *Sandbox {
	t.Helper()
	return NewSandboxIn(t, t.TempDir())
}

// NewSandboxIn is NewSandbox in the folder root, which must exist (a
// mount of another file system, say).
func NewSandboxIn(t testing.TB, root string) *Sandbox {
	t.Helper()
	os.Chmod(root, 0o755)
	os.Chmod(filepath.Dir(root), 0o755) // t.TempDir makes both levels 0700
	home := filepath.Join(root, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	s := &Sandbox{T: t, Home: home, Repo: filepath.Join(root, "repo"), Env: Env(t, home)}
	// Before root goes (a cleanup registered after root's runs first): the
	// folders rm left to deleters in the background are theirs till then.
	t.Cleanup(func() { WaitForDeleters(t, root) })
	// The permission tests hand the sandbox to an unprivileged user; git
	// must then still trust it (as root and as that user).
	s.Write(filepath.Join(home, ".gitconfig"), "[safe]\n\tdirectory = *\n")
	s.Git(root, "init", "-q", "-b", "main", "repo")
	s.Write("README.md", "hello\n")
	s.Write(".gitignore", "STATE.json\nbuild/\n")
	s.Git(s.Repo, "add", ".")
	s.Git(s.Repo, "commit", "-q", "-m", "initial")
	return s
}

// Write writes a file in the main worktree (relative path) or anywhere
// (absolute path), making folders as needed.
func (s *Sandbox) Write(path, content string) {
	s.T.Helper()
	if !filepath.IsAbs(path) {
		path = filepath.Join(s.Repo, path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		s.T.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		s.T.Fatal(err)
	}
}

// Git runs git in dir and returns its trimmed stdout; it fails the test
// if git fails.
func (s *Sandbox) Git(dir string, args ...string) string {
	s.T.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = s.Env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		s.T.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// GitOK runs git and reports whether it exited 0.
func (s *Sandbox) GitOK(dir string, args ...string) bool {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = s.Env
	return cmd.Run() == nil
}

// Result is one run of git-wt.
type Result struct {
	Stdout, Stderr string
	Code           int
}

// Out is stdout without its trailing newline.
func (r Result) Out() string { return strings.TrimRight(r.Stdout, "\n") }

func (r Result) String() string {
	return fmt.Sprintf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
}

// WT runs git-wt with args in the main worktree.
func (s *Sandbox) WT(args ...string) Result {
	s.T.Helper()
	return s.WTIn(s.Repo, args...)
}

// WTIn runs git-wt with args in dir.
func (s *Sandbox) WTIn(dir string, args ...string) Result {
	s.T.Helper()
	cmd := exec.Command(filepath.Join(BinDir(s.T), "git-wt"), args...)
	cmd.Dir = dir
	cmd.Env = s.Env
	return run(s.T, cmd)
}

// Cmd returns an unstarted git-wt command in dir with the sandbox's
// environment, for tests that start many at once or signal them.
func (s *Sandbox) Cmd(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(BinDir(s.T), "git-wt"), args...)
	cmd.Dir = dir
	cmd.Env = s.Env
	return cmd
}

func run(t testing.TB, cmd *exec.Cmd) Result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("cannot run %v: %v", cmd.Args, err)
	}
	return Result{Stdout: stdout.String(), Stderr: stderr.String(), Code: code}
}

// MustWT runs git-wt and fails the test unless it exits 0.
func (s *Sandbox) MustWT(args ...string) Result {
	s.T.Helper()
	r := s.WT(args...)
	if r.Code != 0 {
		s.T.Fatalf("git wt %s: %s", strings.Join(args, " "), r)
	}
	return r
}

// Exists reports whether path exists (without following a final symlink).
func Exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// Nobody is the unprivileged user the permission tests run as.
const Nobody = 65534

// IsRoot reports whether the tests run as root, who ignores permissions.
func IsRoot() bool { return os.Geteuid() == 0 }

// GiveToNobody hands the sandbox's files to the unprivileged user, when
// running as root, so that AsNobody can use them.
func (s *Sandbox) GiveToNobody() {
	s.T.Helper()
	if !IsRoot() {
		return
	}
	root := filepath.Dir(s.Repo)
	err := filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, Nobody, Nobody)
	})
	if err != nil {
		s.T.Fatal(err)
	}
}

// AsNobody runs git-wt in the main worktree as an unprivileged user when
// the tests run as root (who would pass permission checks for the wrong
// reason), else as the current user. Call GiveToNobody first.
func (s *Sandbox) AsNobody(args ...string) Result {
	s.T.Helper()
	bin := filepath.Join(BinDir(s.T), "git-wt")
	cmd := exec.Command(bin, args...)
	if IsRoot() {
		cmd = exec.Command("setpriv", append([]string{
			fmt.Sprintf("--reuid=%d", Nobody), fmt.Sprintf("--regid=%d", Nobody), "--clear-groups", "--", bin,
		}, args...)...)
	}
	cmd.Dir = s.Repo
	cmd.Env = s.Env
	return run(s.T, cmd)
}

// InsertsOnly says whether b is a with insertions only: every byte of a
// is in b, in order (an edit that kept every byte around its own).
func InsertsOnly(a, b string) bool {
	i := 0
	for j := 0; i < len(a) && j < len(b); j++ {
		if a[i] == b[j] {
			i++
		}
	}
	return i == len(a)
}
