package testutil

import (
	"os"
	"path/filepath"
	"strings"
)

// FillRunning says whether a `git wt pool --fill` runs with repo as its
// folder: new and gc start one in the background, which outlives the
// command and must end before a test looks at the pool or its sandbox goes.
// Here it is the process itself, from its start to its end (/proc).
func FillRunning(repo string) bool {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		cmd, _ := os.ReadFile(p)
		if cwd, _ := os.Readlink(filepath.Join(filepath.Dir(p), "cwd")); cwd == repo && strings.Contains(string(cmd), "pool\x00--fill") {
			return true
		}
	}
	return false
}
