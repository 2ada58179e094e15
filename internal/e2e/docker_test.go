//go:build unix

// These tests protect `git wt docker-args` (SPEC §8): the flags name the
// worktree, git's common dir and the worktree's owner so that git works in
// a container. No Docker engine runs here, so the container is played by
// a private mount namespace that sees only what the flags mount.
package e2e

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// dockerSandbox makes task T in worktrees whose paths hold a space and a
// comma, with the container workdir set to a path with a space.
func dockerSandbox(t *testing.T) (*testutil.Sandbox, string) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "config", "wt.baseDir", "../task trees, v2")
	s.Git(s.Repo, "config", "wt.containerWorkdir", "/mnt/work space")
	return s, s.MustWT("new", "T").Out()
}

// dockerFlags is what docker run would make of the flags: the bind mounts
// (source, target; --mount values are CSV, as docker reads them), the
// working directory and the user.
type dockerFlags struct {
	Mounts  [][2]string
	Workdir string
	User    string
}

func parseDockerArgs(t *testing.T, args []string) dockerFlags {
	t.Helper()
	var f dockerFlags
	for _, a := range args {
		name, value, _ := strings.Cut(a, "=")
		switch name {
		case "--mount":
			fields, err := csv.NewReader(strings.NewReader(value)).Read()
			kv := map[string]string{}
			for _, field := range fields {
				k, v, _ := strings.Cut(field, "=")
				kv[k] = v
			}
			if err != nil || len(fields) != 3 || kv["type"] != "bind" {
				t.Fatalf("not a bind mount docker can read: %q (%v)", a, err)
			}
			f.Mounts = append(f.Mounts, [2]string{kv["source"], kv["target"]})
		case "--workdir":
			f.Workdir = value
		case "--user":
			f.User = value
		default:
			t.Fatalf("unexpected docker flag %q", a)
		}
	}
	return f
}

func TestDockerArgsNameTheWorktreeTheCommonDirAndTheOwner(t *testing.T) {
	t.Parallel()
	s, path := dockerSandbox(t)
	lines := strings.Split(s.MustWT("docker-args", "T").Out(), "\n")
	want := dockerFlags{
		Mounts:  [][2]string{{path, "/mnt/work space"}, {s.Repo + "/.git", s.Repo + "/.git"}},
		Workdir: "/mnt/work space",
		User:    fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid()),
	}
	if got := parseDockerArgs(t, lines); !reflect.DeepEqual(got, want) {
		t.Fatalf("docker-args:\n%q\nmeans %+v\nwant %+v", lines, got, want)
	}
	var asJSON []string
	if err := json.Unmarshal([]byte(s.MustWT("docker-args", "T", "--json").Stdout), &asJSON); err != nil || !reflect.DeepEqual(asJSON, lines) {
		t.Fatalf("--json %q, want %q (%v)", asJSON, lines, err)
	}
	// --oneline, eval'd as the README says, gives docker the same words.
	fake := filepath.Join(t.TempDir(), "docker")
	s.Write(fake, "#!/bin/sh\nprintf '%s\\n' \"$@\"\n")
	os.Chmod(fake, 0o755)
	docker := withPath(s, filepath.Dir(fake))
	cmd := exec.Command("sh", "-c", `eval "docker run $(git wt docker-args T --oneline) image git status"`)
	cmd.Dir, cmd.Env = s.Repo, docker.Env
	out, err := cmd.Output()
	wantWords := append(append([]string{"run"}, lines...), "image", "git", "status")
	if err != nil || strings.TrimSuffix(string(out), "\n") != strings.Join(wantWords, "\n") {
		t.Fatalf("docker got:\n%s(%v)\nwant:\n%s", out, err, strings.Join(wantWords, "\n"))
	}
}

// inContainer runs script as user in a private mount namespace where the
// sandbox's folder is hidden under an empty tmpfs and only mounts are
// visible, at their targets, as docker would set it up; cwd is workdir.
func inContainer(t *testing.T, s *testutil.Sandbox, mounts [][2]string, workdir, user, script string) testutil.Result {
	t.Helper()
	uid, gid, _ := strings.Cut(user, ":")
	setup := `set -e
hide=$1 workdir=$2 uid=$3 gid=$4 script=$5; shift 5
mount -t tmpfs tmpfs /mnt
i=0; for a in "$@"; do   # docker resolves the sources before it hides the host
	i=$((i+1)); [ $((i % 2)) = 1 ] || continue
	mkdir -p /mnt/.src/$i; mount --bind "$a" /mnt/.src/$i
done
mount -t tmpfs tmpfs "$hide"
i=0; for a in "$@"; do
	i=$((i+1)); [ $((i % 2)) = 0 ] || continue
	mkdir -p "$a"; mount --bind /mnt/.src/$((i-1)) "$a"
done
cd "$workdir"
exec setpriv --reuid="$uid" --regid="$gid" --clear-groups -- sh -c "$script"`
	args := []string{"-m", "--propagation", "private", "sh", "-c", setup, "sh", filepath.Dir(s.Repo), workdir, uid, gid, script}
	for _, m := range mounts {
		args = append(args, m[0], m[1])
	}
	cmd := exec.Command("unshare", args...)
	cmd.Env = s.Env
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return testutil.Result{Stdout: stdout.String(), Stderr: stderr.String(), Code: exitStatus(t, err)}
}

func TestGitWorksInAContainerWithTheMountsOfDockerArgs(t *testing.T) {
	if !testutil.IsRoot() {
		t.Skip("a private mount namespace needs root")
	}
	t.Parallel()
	s, path := dockerSandbox(t)
	// The worktree belongs to an ordinary user, so --user is theirs, and
	// git inside checks ownership for real (the sandbox's HOME with its
	// safe.directory is hidden in the container).
	s.GiveToNobody()
	var args []string
	json.Unmarshal([]byte(s.MustWT("docker-args", "T", "--json").Stdout), &args)
	f := parseDockerArgs(t, args)
	if f.User != fmt.Sprintf("%d:%d", testutil.Nobody, testutil.Nobody) {
		t.Fatalf("--user=%s, want the owner's", f.User)
	}

	r := inContainer(t, s, f.Mounts, f.Workdir, f.User,
		`test ! -e "$HOME" && git status --porcelain && echo from inside > inside.txt && git add inside.txt && git commit -q -m "made in a container" && git status --porcelain`)
	if r.Code != 0 || r.Stdout != "" {
		t.Fatalf("git in the container with docker-args' mounts: %s", r)
	}
	if msg := s.Git(s.Repo, "log", "-1", "--format=%s", "refs/heads/wt/T"); msg != "made in a container" {
		t.Fatalf("the container's commit did not land in the repository: %q", msg)
	}
	if got, _ := os.ReadFile(filepath.Join(path, "inside.txt")); string(got) != "from inside\n" {
		t.Fatal("the container did not write into the worktree")
	}

	// The worktree alone: its .git file points at the common dir by its
	// host path, which the container does not have.
	r = inContainer(t, s, f.Mounts[:1], f.Workdir, f.User, "git status")
	if r.Code == 0 || !strings.Contains(r.Stderr, "not a git repository: "+s.Repo+"/.git/worktrees/T") {
		t.Fatalf("git with only the worktree mounted must fail for want of the common dir: %s", r)
	}
	// The right mounts but another user: git refuses the repository.
	r = inContainer(t, s, f.Mounts, f.Workdir, "0:0", "git status")
	if r.Code == 0 || !strings.Contains(r.Stderr, "dubious ownership") {
		t.Fatalf("git as a user who does not own the worktree must refuse it: %s", r)
	}
}

// Two tasks' docker compose never share containers: each task's
// environment names a Compose project of its own (SPEC §17).
func TestEachTaskHasItsOwnComposeProject(t *testing.T) {
	s := testutil.NewSandbox(t)
	valid := regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)
	names := map[string]bool{}
	for _, id := range []string{"Fix Login", "fix-login"} {
		path := s.MustWT("new", id).Out()
		name := s.MustWT("exec", id, "--", "sh", "-c", `printf %s "$COMPOSE_PROJECT_NAME"`).Out()
		if !valid.MatchString(name) || !strings.HasPrefix(name, "repo-") || names[name] {
			t.Errorf("task %q in %s: COMPOSE_PROJECT_NAME %q", id, path, name)
		}
		names[name] = true
		if env := s.MustWT("env", "--dotenv", id).Out(); !strings.Contains(env, "COMPOSE_PROJECT_NAME="+name+"\n") && !strings.HasSuffix(env, "COMPOSE_PROJECT_NAME="+name) {
			t.Errorf("git wt env of %q lacks its project:\n%s", id, env)
		}
	}
	s.Git(s.Repo, "config", "wt.composeProject", "false")
	if env := s.MustWT("env", "--dotenv", "fix-login").Out(); strings.Contains(env, "COMPOSE_PROJECT_NAME") {
		t.Errorf("wt.composeProject false, yet:\n%s", env)
	}
}

// Compose's containers are the machine's: one task of two clones of a
// repository (a copy made to try something) must not share them (SPEC
// §19: the name carries a hash of the common dir).
func TestOneTaskOfTwoClonesHasTwoComposeProjects(t *testing.T) {
	s := testutil.NewSandbox(t)
	other := filepath.Join(t.TempDir(), "repo")
	s.Git(s.Repo, "clone", "-q", s.Repo, other)
	project := func(dir string) string {
		s.WTIn(dir, "new", "-q", "T")
		return s.WTIn(dir, "exec", "T", "--", "sh", "-c", `printf %s "$COMPOSE_PROJECT_NAME"`).Out()
	}
	if a, b := project(s.Repo), project(other); a == "" || a == b {
		t.Fatalf("task T of two clones: COMPOSE_PROJECT_NAME %q and %q", a, b)
	}
}
