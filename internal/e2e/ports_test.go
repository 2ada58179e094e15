//go:build unix

// These tests protect the ports of tasks (SPEC §10): every task gets its
// own for each name in wt.port, never one another task holds or the host
// listens on, even thirty at once; they reach the init, exec, git wt env,
// docker-args and wt.envFile; an exhausted range creates nothing.
package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/ports"
	"github.com/git-wt/git-wt/internal/testutil"
)

// taskPorts reads the ports in the task's record.
func taskPorts(t *testing.T, s *testutil.Sandbox, slug string) map[string]int {
	t.Helper()
	var v struct {
		Ports map[string]int `json:"ports"`
	}
	if err := json.Unmarshal([]byte(s.MustWT("show", "--json", slug).Out()), &v); err != nil {
		t.Fatal(err)
	}
	return v.Ports
}

func withPorts(s *testutil.Sandbox, names ...string) {
	for _, n := range names {
		s.Git(s.Repo, "config", "--add", "wt.port", n)
	}
}

func TestNewGivesEachTaskItsOwnPortsAndRmFreesThem(t *testing.T) {
	s := testutil.NewSandbox(t)
	withPorts(s, "PORT", "API_PORT")
	s.MustWT("new", "A")
	s.MustWT("new", "B")
	a, b := taskPorts(t, s, "A"), taskPorts(t, s, "B")
	seen := map[int]bool{}
	for _, p := range []int{a["PORT"], a["API_PORT"], b["PORT"], b["API_PORT"]} {
		if p < 20000 || p > 29999 || seen[p] {
			t.Fatalf("ports %v and %v: want four distinct ports of 20000-29999", a, b)
		}
		seen[p] = true
	}
	s.MustWT("rm", "A")
	s.MustWT("new", "A")
	if again := taskPorts(t, s, "A"); again["PORT"] != a["PORT"] || again["API_PORT"] != a["API_PORT"] {
		t.Fatalf("the same task got %v, then %v after rm: rm frees them and the first choice is the same", a, again)
	}
}

func TestThirtyNewAtOnceGetSixtyDistinctFreePorts(t *testing.T) {
	s := testutil.NewSandbox(t)
	withPorts(s, "PORT", "API_PORT")
	var cmds []*exec.Cmd
	for i := 0; i < 30; i++ {
		cmds = append(cmds, s.Cmd(s.Repo, "new", fmt.Sprintf("agent-%02d", i)))
	}
	startTogether(t, cmds)
	seen := map[int]string{}
	for i, c := range cmds {
		if code := exitCode(c); code != 0 {
			t.Fatalf("agent %d exited %d", i, code)
		}
		slug := fmt.Sprintf("agent-%02d", i)
		got := taskPorts(t, s, slug)
		if len(got) != 2 {
			t.Fatalf("%s has ports %v, want two", slug, got)
		}
		for _, p := range got {
			if other, dup := seen[p]; dup {
				t.Fatalf("port %d given to %s and %s", p, other, slug)
			}
			seen[p] = slug
			if ports.InUse(p) {
				t.Fatalf("port %d of %s is in use on this host", p, slug)
			}
		}
	}
}

func TestAPortTheHostListensOnIsSkipped(t *testing.T) {
	s := testutil.NewSandbox(t)
	withPorts(s, "PORT")
	s.MustWT("new", "T")
	first := taskPorts(t, s, "T")["PORT"]
	s.MustWT("rm", "T")
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(first))
	if err != nil {
		t.Skipf("cannot listen on the first choice %d: %v", first, err)
	}
	defer l.Close()
	s.MustWT("new", "T")
	if got := taskPorts(t, s, "T")["PORT"]; got == first {
		t.Fatalf("new gave port %d, on which something listens", got)
	}
}

func TestAnExhaustedPortRangeExitsFourAndCreatesNothing(t *testing.T) {
	s := testutil.NewSandbox(t)
	withPorts(s, "A_PORT", "B_PORT", "C_PORT")
	s.Git(s.Repo, "config", "wt.portRange", "29998-29999")
	r := s.WT("new", "T")
	if r.Code != 4 || !strings.Contains(r.Stderr, "wt.portRange") {
		t.Fatalf("new with 3 names and 2 ports: %s", r)
	}
	if s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/git-wt/tasks/T") || s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/wt/T") {
		t.Fatal("a refused new left a record or a branch")
	}
	if testutil.Exists(filepath.Join(filepath.Dir(s.Repo), "repo-worktrees", "T")) {
		t.Fatal("a refused new left a worktree")
	}
}

func TestInitAndExecSeeThePorts(t *testing.T) {
	s := testutil.NewSandbox(t)
	withPorts(s, "PORT", "API_PORT")
	out := filepath.Join(t.TempDir(), "init-env")
	s.Git(s.Repo, "config", "wt.init", `echo "$PORT $API_PORT $WT_PORTS" > `+out)
	s.MustWT("new", "T")
	p := taskPorts(t, s, "T")
	want := fmt.Sprintf("%d %d API_PORT,PORT", p["PORT"], p["API_PORT"])
	if got, _ := os.ReadFile(out); strings.TrimSpace(string(got)) != want {
		t.Fatalf("the init saw %q, want %q", got, want)
	}
	if got := s.MustWT("exec", "T", "--", "sh", "-c", `echo "$PORT $API_PORT $WT_PORTS"`).Out(); got != want {
		t.Fatalf("exec saw %q, want %q", got, want)
	}
}

func TestEnvPrintsTheTasksEnvironmentInEachFormat(t *testing.T) {
	s := testutil.NewSandbox(t)
	withPorts(s, "PORT")
	path := s.MustWT("new", "fix: bug #123").Out()
	port := strconv.Itoa(taskPorts(t, s, "fix: bug #123")["PORT"])
	plain := s.MustWT("env", "fix: bug #123").Out()
	for _, line := range []string{"WT_TASK=fix: bug #123", "WT_PATH=" + path, "PORT=" + port, "WT_PORTS=PORT"} {
		if !strings.Contains(plain+"\n", line+"\n") {
			t.Fatalf("git wt env lacks %q:\n%s", line, plain)
		}
	}
	// --shell is for eval: the shell must read back exactly the values.
	shell := s.MustWT("env", "--shell", "fix: bug #123").Out()
	got, err := exec.Command("sh", "-c", shell+"\nprintf '%s|%s' \"$WT_TASK\" \"$PORT\"").Output()
	if err != nil || string(got) != "fix: bug #123|"+port {
		t.Fatalf("eval of --shell gave %q, %v:\n%s", got, err, shell)
	}
	if dotenv := s.MustWT("env", "--dotenv", "fix: bug #123").Out(); !strings.Contains(dotenv, `WT_TASK="fix: bug #123"`) || !strings.Contains(dotenv, "PORT="+port) {
		t.Fatalf("--dotenv:\n%s", dotenv)
	}
	var obj map[string]string
	if err := json.Unmarshal([]byte(s.MustWT("env", "--json", "fix: bug #123").Out()), &obj); err != nil || obj["PORT"] != port || obj["WT_TASK"] != "fix: bug #123" {
		t.Fatalf("--json: %v, %v", obj, err)
	}
	if r := s.WT("env", "--json", "--shell", "fix: bug #123"); r.Code != 2 {
		t.Fatalf("two formats: %s", r)
	}
}

func TestEnvFileIsWrittenWithoutMakingTheWorktreeDirty(t *testing.T) {
	s := testutil.NewSandbox(t)
	withPorts(s, "PORT")
	s.Git(s.Repo, "config", "wt.envFile", "config/.env.local")
	s.Git(s.Repo, "config", "wt.init", "true")
	path := s.MustWT("new", "T").Out()
	file := filepath.Join(path, "config", ".env.local")
	data, err := os.ReadFile(file)
	port := strconv.Itoa(taskPorts(t, s, "T")["PORT"])
	if err != nil || !strings.Contains(string(data), "PORT="+port+"\n") || !strings.Contains(string(data), "WT_SLUG=T\n") {
		t.Fatalf("wt.envFile holds %q, %v", data, err)
	}
	if st := s.Git(path, "status", "--porcelain"); st != "" {
		t.Fatalf("the env file made the worktree dirty: %q", st)
	}
	// The user's own lines in the file are kept when git-wt writes again.
	os.WriteFile(file, append([]byte("MINE=1\n"), data...), 0o644)
	s.MustWT("init", "T")
	data, _ = os.ReadFile(file)
	if !strings.HasPrefix(string(data), "MINE=1\n") || strings.Count(string(data), "PORT="+port) != 1 {
		t.Fatalf("after git wt init the env file holds %q", data)
	}
}

func TestEnvFileThroughASymlinkIsRefused(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "config", "wt.init", "true")
	target := t.TempDir()
	path := s.MustWT("new", "T").Out()
	if err := os.Symlink(target, filepath.Join(path, "out")); err != nil {
		t.Fatal(err)
	}
	s.Git(s.Repo, "config", "wt.envFile", "out/.env")
	if r := s.WT("init", "T"); r.Code == 0 {
		t.Fatalf("init wrote wt.envFile through a symlink: %s", r)
	}
	if entries, _ := os.ReadDir(target); len(entries) != 0 {
		t.Fatal("a file was written where the symlink points")
	}
}

func TestDockerArgsPublishThePortsOnLoopback(t *testing.T) {
	s := testutil.NewSandbox(t)
	withPorts(s, "PORT")
	s.MustWT("new", "T")
	port := strconv.Itoa(taskPorts(t, s, "T")["PORT"])
	args := s.MustWT("docker-args", "T").Out()
	for _, want := range []string{"--publish=127.0.0.1:" + port + ":" + port, "--env=PORT=" + port, "--env=WT_PORTS=PORT"} {
		if !strings.Contains(args+"\n", want+"\n") {
			t.Fatalf("docker-args lacks %s:\n%s", want, args)
		}
	}
}

func TestANameAddedToWtPortLaterGetsAPortAtTheNextNew(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.MustWT("new", "T")
	if got := taskPorts(t, s, "T"); len(got) != 0 {
		t.Fatalf("ports %v without wt.port", got)
	}
	withPorts(s, "PORT")
	s.MustWT("new", "T")
	if got := taskPorts(t, s, "T"); got["PORT"] == 0 {
		t.Fatalf("after wt.port was added, new again gave no port: %v", got)
	}
}

func TestWtPortAppliesFromAnUntrustedGitwt(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Write(filepath.Join(s.Repo, ".gitwt"), "[wt]\n\tport = PORT\n")
	s.Git(s.Repo, "add", ".gitwt")
	s.Git(s.Repo, "commit", "-qm", "gitwt")
	s.MustWT("new", "T")
	if got := taskPorts(t, s, "T"); got["PORT"] == 0 {
		t.Fatalf("wt.port from an untrusted .gitwt gave no port: %v", got)
	}
}

// git wt init with nothing to copy or run still gives a task the ports of
// names added to wt.port since, and succeeds.
func TestInitWithNothingToRunGivesNewPortNamesTheirPorts(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.MustWT("new", "T")
	withPorts(s, "PORT")
	if r := s.WT("init", "T"); r.Code != 0 {
		t.Fatalf("init with nothing to run: %s", r)
	}
	if got := taskPorts(t, s, "T"); got["PORT"] == 0 {
		t.Fatalf("after init the task has ports %v", got)
	}
}

// What git-wt adds to info/exclude goes when the setting goes (SPEC §14).
func TestTheEnvFileExcludeLineGoesWithTheSetting(t *testing.T) {
	s := testutil.NewSandbox(t)
	exclude := filepath.Join(s.Repo, ".git", "info", "exclude")
	s.Git(s.Repo, "config", "wt.envFile", ".env.local")
	s.MustWT("new", "A")
	if data, _ := os.ReadFile(exclude); !strings.Contains(string(data), "\n/.env.local\n") {
		t.Fatalf("info/exclude lacks the env file's line:\n%s", data)
	}
	s.Git(s.Repo, "config", "--unset", "wt.envFile")
	s.MustWT("new", "B")
	if data, _ := os.ReadFile(exclude); strings.Contains(string(data), ".env.local") || strings.Contains(string(data), "git-wt") {
		t.Fatalf("info/exclude keeps git-wt's line after wt.envFile went:\n%s", data)
	}
}

// A committed .gitwt that names GIT_CONFIG_GLOBAL or BASH_ENV in wt.port,
// with a port range of committed file names, would point git and bash at
// a file of its own: its fsmonitor (for git) or its command substitution
// (for bash) would run at exec, or in the user's own init (SPEC §14 "Port
// names"). Such names are ignored with a warning; nothing runs.
func TestAnUntrustedGitwtCannotRunCodeThroughPortNames(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Write(filepath.Join(s.Repo, ".gitwt"), "[wt]\n\tport = GIT_CONFIG_GLOBAL\n\tport = BASH_ENV\n\tport = API_PORT\n\tportRange = 24000-24002\n")
	// Each file is both a git config and a shell script, whichever name
	// gets which port.
	payload := "[core]\n\tfsmonitor = \"touch PWNED; false\"\n\tx = $(touch PWNED)\n"
	for _, f := range []string{"24000", "24001", "24002"} {
		s.Write(filepath.Join(s.Repo, f), payload)
	}
	s.Git(s.Repo, "add", ".")
	s.Git(s.Repo, "commit", "-qm", "hostile")
	s.Git(s.Repo, "config", "wt.init", "git status >/dev/null; bash -c true")
	r := s.MustWT("new", "T")
	path := r.Out()
	for _, name := range []string{"GIT_CONFIG_GLOBAL", "BASH_ENV"} {
		if !strings.Contains(r.Stderr, "ignored wt.port = "+name) {
			t.Errorf("new did not warn that it ignored wt.port %s:\n%s", name, r.Stderr)
		}
	}
	s.WT("exec", "T", "--", "git", "status")
	s.WT("exec", "T", "--", "bash", "-c", "true")
	if testutil.Exists(filepath.Join(path, "PWNED")) {
		t.Fatal("a command of the committed .gitwt ran through a port name")
	}
	got := taskPorts(t, s, "T")
	if len(got) != 1 || got["API_PORT"] == 0 {
		t.Fatalf("ports %v: want API_PORT only", got)
	}
	if env := s.MustWT("env", "T").Out(); strings.Contains(env, "GIT_") || strings.Contains(env, "BASH_ENV") {
		t.Fatalf("git wt env:\n%s", env)
	}
}

// From the user's own config a name outside the rule is refused (exit 2),
// and a record that holds one (made before the rule) never exports it.
func TestAPortNameOutsideTheRuleIsRefusedAndNeverExported(t *testing.T) {
	s := testutil.NewSandbox(t)
	for _, name := range []string{"GIT_DIR", "BASH_ENV", "WT_PATH", "LD_PRELOAD", "MY-PORT"} {
		s.Git(s.Repo, "config", "wt.port", name)
		if r := s.WT("new", "T"); r.Code != 2 || !strings.Contains(r.Stderr, "bad config wt.port") || !strings.Contains(r.Stderr, name) {
			t.Fatalf("new with wt.port %s: %s", name, r)
		}
	}
	s.Git(s.Repo, "config", "wt.port", "PORT")
	s.MustWT("new", "T")
	rec := readRecord(t, s, "T")
	rec["ports"].(map[string]any)["BASH_ENV"] = 24000
	rec["ports"].(map[string]any)["GIT_CONFIG_GLOBAL"] = 24001
	writeRecord(t, s, "T", rec)
	out := s.MustWT("exec", "T", "--", "env").Out()
	for _, shown := range []string{out, s.MustWT("env", "T").Out(), s.MustWT("docker-args", "T").Out(), s.MustWT("show", "T").Out()} {
		if strings.Contains(shown, "BASH_ENV") || strings.Contains(shown, "GIT_CONFIG_GLOBAL") {
			t.Fatalf("a port name outside the rule reached the task:\n%s", shown)
		}
	}
	if !strings.Contains(out, "\nPORT=") {
		t.Fatalf("exec's environment lacks PORT:\n%s", out)
	}
}

// wt.copy and wt.envFile naming one file: the user's file is copied
// first, then git-wt's block is added to it; a copy that found git-wt's
// block already there skipped the file and lost the user's keys.
func TestTheEnvFileKeepsTheCopiedUsersLines(t *testing.T) {
	s := testutil.NewSandbox(t)
	commitFile(s, s.Repo, ".gitignore", ".env.local\n", "ignore")
	s.Write(".env.local", "DATABASE_URL=postgres://me@db/app\nAPI_KEY=secret\n")
	s.Git(s.Repo, "config", "wt.copy", ".env.local")
	s.Git(s.Repo, "config", "wt.envFile", ".env.local")
	withPorts(s, "PORT")
	path := s.MustWT("new", "T").Out()
	data, err := os.ReadFile(filepath.Join(path, ".env.local"))
	port := strconv.Itoa(taskPorts(t, s, "T")["PORT"])
	if err != nil || !strings.HasPrefix(string(data), "DATABASE_URL=postgres://me@db/app\nAPI_KEY=secret\n# git-wt begin") || !strings.Contains(string(data), "\nPORT="+port+"\n") {
		t.Fatalf("the task's .env.local holds %q, %v: want the user's lines, then git-wt's block", data, err)
	}
}

// envFileTask makes task T with wt.envFile .env.local and returns the
// file's path.
func envFileTask(t *testing.T, s *testutil.Sandbox) string {
	t.Helper()
	s.Git(s.Repo, "config", "wt.envFile", ".env.local")
	withPorts(s, "PORT")
	return filepath.Join(s.MustWT("new", "T").Out(), ".env.local")
}

// A block whose end line the user edited away: git wt init replaces only
// the lines git-wt writes, and keeps every line of the user's after them.
func TestAnEnvFileBlockWithoutItsEndLineKeepsTheUsersLines(t *testing.T) {
	s := testutil.NewSandbox(t)
	file := envFileTask(t, s)
	data, _ := os.ReadFile(file)
	cut := strings.Replace(string(data), "# git-wt end\n", "", 1)
	os.WriteFile(file, []byte("MINE=1\n"+cut+"DATABASE_URL=postgres://db\nAPI_KEY=secret\n"), 0o644)
	s.MustWT("init", "T")
	got, _ := os.ReadFile(file)
	if want := "MINE=1\n" + string(data) + "DATABASE_URL=postgres://db\nAPI_KEY=secret\n"; string(got) != want {
		t.Fatalf("after git wt init the env file holds\n%q\nwant\n%q", got, want)
	}
}

// A file with CRLF line ends keeps them, and gets one block.
func TestACRLFEnvFileKeepsItsLineEndsAndOneBlock(t *testing.T) {
	s := testutil.NewSandbox(t)
	file := envFileTask(t, s)
	data, _ := os.ReadFile(file)
	crlf := "MINE=1\r\n" + strings.ReplaceAll(string(data), "\n", "\r\n") + "KEY=2\r\n"
	os.WriteFile(file, []byte(crlf), 0o644)
	s.MustWT("init", "T")
	if got, _ := os.ReadFile(file); string(got) != crlf {
		t.Fatalf("after git wt init the CRLF env file holds\n%q\nwant it unchanged\n%q", got, crlf)
	}
}

// git-wt killed while it writes the env file leaves the user's file
// whole (a new one is renamed over it), and the next write cleans up.
func TestAKilledEnvFileWriteLosesNothing(t *testing.T) {
	s := testutil.NewSandbox(t)
	file := envFileTask(t, s)
	data, _ := os.ReadFile(file)
	before := "MINE=1\n" + string(data)
	os.WriteFile(file, []byte(before), 0o600)
	os.Chmod(file, 0o600)
	withPorts(s, "API_PORT") // so that init writes a new block
	kill(stopAt(t, s, "envfile:written", "init", "T"))
	if got, _ := os.ReadFile(file); string(got) != before {
		t.Fatalf("a killed write left the env file as\n%q\nwant\n%q", got, before)
	}
	if st := s.Git(filepath.Dir(file), "status", "--porcelain"); st != "" {
		t.Fatalf("the killed write's temporary file shows in git status: %q", st)
	}
	s.MustWT("doctor", "--fix")
	s.MustWT("init", "T")
	got, _ := os.ReadFile(file)
	if !strings.HasPrefix(string(got), "MINE=1\n") || !strings.Contains(string(got), "\nAPI_PORT=") {
		t.Fatalf("after git wt init the env file holds %q", got)
	}
	if st, err := os.Stat(file); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("the env file's mode: %v, %v; want 0600 kept", st.Mode(), err)
	}
	if st := s.Git(filepath.Dir(file), "status", "--porcelain"); st != "" {
		t.Fatalf("the killed write left the worktree dirty: %q", st)
	}
}

// A task id with a line break cannot add a line to plain git wt env:
// a value with a control character is printed quoted.
func TestEnvQuotesAValueWithALineBreak(t *testing.T) {
	s := testutil.NewSandbox(t)
	id := "fix\nPORT=1"
	s.MustWT("new", id)
	out := s.MustWT("env", id).Out()
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "WT_") && !strings.HasPrefix(line, "COMPOSE_PROJECT_NAME=") {
			t.Fatalf("git wt env printed a line %q of no variable of its own:\n%s", line, out)
		}
	}
	if !strings.Contains(out, "WT_TASK=\"fix\\nPORT=1\"\n") {
		t.Fatalf("git wt env does not print the task quoted:\n%s", out)
	}
}
