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
	return anyProcess(func(argv []string, cwd string) bool {
		return cwd == repo && strings.Contains(strings.Join(argv, "\x00"), "pool\x00--fill")
	})
}

// DeleterRunning says whether a deleter of a removed task's folder runs
// for a folder under dir: rm starts one in the background (git-wt
// __delete-trash TRASH/SLUG), which outlives rm.
func DeleterRunning(dir string) bool {
	return anyProcess(func(argv []string, _ string) bool { return isDeleterOf(argv, dir) })
}

// anyProcess reports whether a process's arguments and working directory
// match.
func anyProcess(match func(argv []string, cwd string) bool) bool {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		cmd, _ := os.ReadFile(p)
		cwd, _ := os.Readlink(filepath.Join(filepath.Dir(p), "cwd"))
		if match(strings.Split(strings.TrimSuffix(string(cmd), "\x00"), "\x00"), cwd) {
			return true
		}
	}
	return false
}
