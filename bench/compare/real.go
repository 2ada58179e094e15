//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// realRepo is a clone of a real repository the user points at
// (BENCH_REPO, -repo): SPEC §9's rows on real repositories. Nothing is
// downloaded: the clone shares the repository's objects (git clone
// --shared), and git/git's shape (about 4,800 files, a long history) is
// the reference.
var realRepo = os.Getenv("BENCH_REPO")

// realTasks is how many tasks the sync row syncs.
const realTasks = 20

// cloneReal clones the real repository into root/name and returns the
// clone and its branch.
func cloneReal(env []string, root, name string) (string, string) {
	repo := filepath.Join(root, name, "repo")
	if err := os.MkdirAll(filepath.Dir(repo), 0o755); err != nil {
		fail(err)
	}
	git(env, filepath.Dir(repo), "clone", "-q", "--shared", realRepo, repo)
	return repo, output(env, repo, "symbolic-ref", "--short", "HEAD")
}

func benchReal(env []string, root string) []row {
	if realRepo == "" {
		fmt.Fprintln(os.Stderr, "bench: no BENCH_REPO: the rows on a real repository are left out (make bench BENCH_REPO=/path/to/a/clone)")
		return nil
	}
	abs, err := filepath.Abs(realRepo)
	if err != nil {
		fail(err)
	}
	realRepo = abs
	name := filepath.Base(strings.TrimSuffix(strings.TrimSuffix(realRepo, "/.git"), ".git"))
	repo, _ := cloneReal(env, root, "real")
	files := len(strings.Split(output(env, repo, "ls-files"), "\n"))
	label := fmt.Sprintf("%s (%d files)", name, files)
	var rows []row
	want := strings.Split(*real, ",")
	if slices.Contains(want, "rm") {
		rows = append(rows, realRm(env, repo, label))
	}
	if slices.Contains(want, "path") || slices.Contains(want, "list") {
		rows = append(rows, realPath(env, repo, label)) // makes list's 50 worktrees
	}
	if slices.Contains(want, "list") {
		rows = append(rows, realList(env, repo, label))
	}
	if slices.Contains(want, "sync") {
		rows = append(rows, realSync(env, root, label))
	}
	return rows
}

// realRm is rm of a clean worktree against git worktree remove + git
// branch -d, each worktree a second old: the age at which a user removes
// one, and past the second of its checkout that leaves its index racily
// clean.
func realRm(env []string, repo, label string) row {
	wtD, gitD := interleave(*rounds,
		func(i int) time.Duration {
			id := fmt.Sprintf("rm%d", i)
			wt(env, repo, "new", "--no-init", "--quiet", id)
			time.Sleep(1100 * time.Millisecond)
			return wt(env, repo, "rm", "--quiet", id)
		},
		func(i int) time.Duration {
			p := plainWorktree(repo, i)
			git(env, repo, "worktree", "add", "-q", "-b", fmt.Sprintf("plain/%d", i), p)
			time.Sleep(1100 * time.Millisecond)
			return git(env, repo, "worktree", "remove", p) + git(env, repo, "branch", "-q", "-d", fmt.Sprintf("plain/%d", i))
		})
	return ratioRow("rm of a clean worktree, "+label, 1.0, wtD, gitD)
}

// realPath is path of one task among 50.
func realPath(env []string, repo, label string) row {
	newTasks(env, repo, 50, "l%02d")
	wtD, gitD := interleave(*rounds,
		func(i int) time.Duration { return wt(env, repo, "path", fmt.Sprintf("l%02d", i%50)) },
		func(i int) time.Duration {
			return git(env, repo, "rev-parse", fmt.Sprintf("refs/git-wt/tasks/l%02d", i%50))
		})
	return absRow("path, "+label, 6*time.Millisecond, wtD, gitD)
}

// realList is list --no-status of the 50 worktrees realPath made.
func realList(env []string, repo, label string) row {
	wtD, gitD := interleave(*rounds,
		func(int) time.Duration { return wt(env, repo, "list", "--no-status") },
		func(int) time.Duration { return git(env, repo, "worktree", "list", "--porcelain") })
	return ratioRow("list --no-status, 50 worktrees, "+label, 1.5, wtD, gitD)
}

// realSync is sync --all of 20 tasks, one commit each, after their base
// moved by more than 1,000 commits, against a loop of plain in-place git
// rebase of 20 branches like them in worktrees of their own, in the same
// run. Each round makes its tasks and branches anew: a sync cannot be
// undone.
func realSync(env []string, root, label string) row {
	repo, branch := cloneReal(env, root, "real-sync")
	old, moved := movedBase(env, repo, branch)
	// The tasks are taken out of the task list between rounds, so that
	// sync --all syncs one round's.
	makeRound := func(i int) (base string) {
		base = fmt.Sprintf("base%d", i)
		git(env, repo, "branch", "-f", base, old)
		return base
	}
	commitIn := func(dir string, n int) {
		f := fmt.Sprintf("bench-task-%d.txt", n)
		if err := os.WriteFile(filepath.Join(dir, f), []byte("a task's work\n"), 0o644); err != nil {
			fail(err)
		}
		git(env, dir, "add", f)
		git(env, dir, "commit", "-q", "-m", "a task's work")
	}
	syncRounds := min(*rounds, 3)
	wtD, gitD := interleave(syncRounds,
		func(i int) time.Duration {
			base := makeRound(i)
			ids := make([]string, realTasks)
			for n := range ids {
				ids[n] = fmt.Sprintf("s%d-%02d", i, n)
				commitIn(strings.TrimSpace(runOut(env, repo, *bin, "new", "--no-init", "--quiet", "--base", base, ids[n])), n)
			}
			git(env, repo, "branch", "-f", base, branch)
			d := wt(env, repo, "sync", "--all", "--quiet")
			wt(env, repo, append([]string{"rm", "--force", "--quiet"}, ids...)...)
			return d
		},
		func(i int) time.Duration {
			base := makeRound(i + 100)
			paths := make([]string, realTasks)
			for n := range paths {
				paths[n] = plainWorktree(repo, 1000+i*realTasks+n)
				git(env, repo, "worktree", "add", "-q", "-b", fmt.Sprintf("plain-sync/%d-%d", i, n), paths[n], base)
				commitIn(paths[n], n)
			}
			git(env, repo, "branch", "-f", base, branch)
			start := time.Now()
			for _, p := range paths {
				git(env, p, "rebase", "-q", base)
			}
			d := time.Since(start)
			for _, p := range paths {
				git(env, repo, "worktree", "remove", "--force", p)
			}
			return d
		})
	r := ratioRow(fmt.Sprintf("sync --all, %d tasks, base moved %d commits, %s", realTasks, moved, label), 1.2, wtD, gitD)
	r.note = fmt.Sprintf("git: a loop of in-place git rebase; %d rounds", syncRounds)
	return r
}

// movedBase is a first-parent ancestor of branch more than 1,000 commits
// behind it, and how many commits behind.
func movedBase(env []string, repo, branch string) (string, int) {
	for back := 100; back < 100000; back *= 2 {
		cmd := exec.Command("git", "rev-parse", "--verify", "-q", fmt.Sprintf("%s~%d", branch, back))
		cmd.Dir, cmd.Env = repo, env
		out, err := cmd.Output()
		if err != nil {
			break // the history is shorter
		}
		old := strings.TrimSpace(string(out))
		n, _ := strconv.Atoi(output(env, repo, "rev-list", "--count", old+".."+branch))
		if n > 1000 {
			return old, n
		}
	}
	fail(fmt.Errorf("%s: its branch %s has no first-parent ancestor 1,000 commits behind it: point BENCH_REPO at a repository with a longer history", realRepo, branch))
	return "", 0
}

// runOut runs a command and returns its stdout; it stops the benchmark if
// the command fails.
func runOut(env []string, dir, name string, args ...string) string {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.Output()
	if err != nil {
		fail(fmt.Errorf("%s %s: %v", name, strings.Join(args, " "), err))
	}
	return string(out)
}
