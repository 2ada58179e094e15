package e2e

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// startIn starts a long-running command with dir as its working directory.
func startIn(t *testing.T, dir string, name string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

// withPath returns a copy of the sandbox whose PATH starts with dir.
func withPath(s *testutil.Sandbox, dir string) *testutil.Sandbox {
	c := *s
	c.Env = replaceEnv(s.Env, "PATH", testutil.BinDir(s.T)+":"+dir+":"+os.Getenv("PATH"))
	return &c
}

// replaceEnv sets key=value in a copy of env.
func replaceEnv(env []string, key, value string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, key+"=") {
			out = append(out, kv)
		}
	}
	return append(out, key+"="+value)
}

// withVars returns a copy of the sandbox with more environment variables.
func withVars(s *testutil.Sandbox, kvs ...string) *testutil.Sandbox {
	c := *s
	c.Env = append(append([]string(nil), s.Env...), kvs...)
	return &c
}

// commitFile writes a file in the worktree at dir and commits it there.
func commitFile(s *testutil.Sandbox, dir, name, content, msg string) string {
	s.T.Helper()
	s.Write(filepath.Join(dir, name), content)
	s.Git(dir, "add", "--", name)
	s.Git(dir, "commit", "-q", "-m", msg)
	return s.Git(dir, "rev-parse", "HEAD")
}

// exitCode is the exit status of a finished command, -1 if a signal
// ended it.
func exitCode(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	if ee != nil {
		return ee.ExitCode()
	}
	return 0
}

// gitSaysItIs returns a copy of the sandbox whose git reports the given
// version and otherwise is the real git.
func gitSaysItIs(s *testutil.Sandbox, version string) *testutil.Sandbox {
	shim := filepath.Join(filepath.Dir(s.Repo), "git-"+version)
	s.Write(filepath.Join(shim, "git"), "#!/bin/sh\nif [ \"$1\" = version ]; then echo 'git version "+version+"'; exit 0; fi\nexec /usr/bin/git \"$@\"\n")
	os.Chmod(filepath.Join(shim, "git"), 0o755)
	return withPath(s, shim)
}
