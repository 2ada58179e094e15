package e2e

import (
	"os"
	"os/exec"
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
