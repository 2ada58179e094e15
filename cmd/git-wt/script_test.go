// These tests are the user stories of git-wt, one per script in
// testdata/script: the real binary in real repositories, as a user types it.
package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/git-wt/git-wt/internal/testutil"
)

func TestScripts(t *testing.T) {
	testutil.BinDir(t) // build once, before the scripts run in parallel
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join(testutil.Root(), "testdata", "script"),
		RequireExplicitExec: true,
		Setup: func(e *testscript.Env) error {
			home := filepath.Join(e.WorkDir, "home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				return err
			}
			for _, kv := range testutil.Env(e.T().(testing.TB), home) {
				k, v, _ := strings.Cut(kv, "=")
				e.Setenv(k, v)
			}
			return nil
		},
	})
}

func TestMain(m *testing.M) { testutil.Main(m) }
