//go:build unix

package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// benchSyncUnderLoad measures how much of a sync --all of 20 tasks is
// spent waiting for the repository lock while 10 workers run new,
// commit and rm --force in the same repository (SPEC §9; issue 35: under
// a fleet's load a sync --all waited 3–15 s of its minute for it). The
// waits are the blocking flock calls on <common dir>/wt/lock, timed by
// strace -T (-f: every thread and child), summed over the run; the bar is
// under 10 % of the sync's wall time. strace slows every system call
// alike, so the share, not the time, is the figure.
func benchSyncUnderLoad(env []string, root string) []row {
	if _, err := exec.LookPath("strace"); err != nil {
		return []row{{op: "sync --all under load: lock waits", bar: measured, wtRaw: "no strace", gRaw: "-"}}
	}
	repo := filepath.Join(root, "syncload", "repo")
	makeRepo(env, repo, 200, 20)
	base := filepath.Join(filepath.Dir(repo), "repo-worktrees")
	for i := 0; i < 20; i++ {
		id := fmt.Sprintf("s%02d", i)
		wt(env, repo, "new", "--no-init", "--quiet", id)
		writeFiles(filepath.Join(base, id), id+"-", 3)
		wt(env, repo, "commit", id, "-m", "work of "+id)
	}
	stop := make(chan struct{})
	var workers sync.WaitGroup
	for w := 0; w < 10; w++ {
		workers.Add(1)
		go func(w int) {
			defer workers.Done()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				id := fmt.Sprintf("w%02d-%d", w, n)
				mayFail(env, repo, *bin, "new", "--no-init", "--quiet", id)
				os.WriteFile(filepath.Join(base, id, "load.txt"), []byte(id), 0o644)
				mayFail(env, repo, *bin, "commit", id, "-m", "load")
				mayFail(env, repo, *bin, "rm", "--force", "--quiet", id)
			}
		}(w)
	}
	var waited, took time.Duration
	runs := min(*rounds, 3)
	for i := 0; i < runs; i++ {
		writeFiles(repo, fmt.Sprintf("base%d-", i), 5)
		git(env, repo, "add", ".")
		git(env, repo, "commit", "-q", "-m", "the base moves on")
		trace := filepath.Join(root, "syncload", fmt.Sprintf("strace-%d", i))
		took += mayFail(env, repo, "strace", "-f", "-T", "-y", "-e", "trace=flock", "-o", trace, *bin, "sync", "--all", "--quiet")
		waited += lockWaits(trace, filepath.Join(repo, ".git", "wt", "lock"))
	}
	close(stop)
	workers.Wait()
	share := float64(waited) / float64(took)
	return []row{{op: "sync --all, 20 tasks, 10 workers: lock waits", bar: "< 10 % of it",
		wtRaw: fmt.Sprintf("%.1f %%", 100*share), gRaw: "-", pass: share < 0.10,
		note: fmt.Sprintf("%s waited of %s, %d runs, under strace", waited.Round(time.Millisecond), took.Round(time.Millisecond), runs)}}
}

// flockCall is one line of strace -T -y output for flock: its fd's path,
// its operation and the time it took.
var flockCall = regexp.MustCompile(`flock\(\d+<([^>]*)>, ([A-Z_|]+)\).*<([0-9.]+)>$`)

// lockWaits sums the time of the blocking flock calls on lock in an
// strace output file.
func lockWaits(trace, lock string) time.Duration {
	f, err := os.Open(trace)
	if err != nil {
		fail(err)
	}
	defer f.Close()
	var sum time.Duration
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := flockCall.FindStringSubmatch(sc.Text())
		if m == nil || m[1] != lock || !strings.Contains(m[2], "LOCK_EX") || strings.Contains(m[2], "LOCK_NB") {
			continue
		}
		secs, _ := strconv.ParseFloat(m[3], 64)
		sum += time.Duration(secs * float64(time.Second))
	}
	return sum
}

// mayFail runs a command whose failure is part of the load (a task
// another worker's command holds, a sync that skips a busy task) and
// returns how long it took.
func mayFail(env []string, dir, name string, args ...string) time.Duration {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	start := time.Now()
	cmd.Run()
	return time.Since(start)
}
