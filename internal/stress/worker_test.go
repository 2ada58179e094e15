//go:build unix

// A worker is one agent of the stress test: it runs random git-wt
// operations on a shared set of tasks and writes down what it relies on —
// the files it wrote and into which task, and the tasks it deliberately
// force-removed — so that the checker can tell lost work from discarded work.
package stress

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// write is a file a worker wrote into a task's worktree (exec exited 0).
type write struct {
	worker  int
	task    string
	dir     string // the worktree the file was written in
	name    string
	content string
	start   time.Time
}

// forceRemoval is an `rm --force` of a task: work written into that task
// before it ended was deliberately discarded.
type forceRemoval struct {
	task     string
	end      time.Time
	finished bool // exited 0 (rather than failing or being killed)
}

// journal is what all workers wrote down, shared.
type journal struct {
	mu       sync.Mutex
	writes   []write
	removals []forceRemoval
}

func (j *journal) addWrite(w write) {
	j.mu.Lock()
	j.writes = append(j.writes, w)
	j.mu.Unlock()
}

func (j *journal) addRemoval(r forceRemoval) {
	j.mu.Lock()
	j.removals = append(j.removals, r)
	j.mu.Unlock()
}

// discarded says whether a write was deliberately thrown away: an
// `rm --force` of its task ran (or was under way) after the write began.
func (j *journal) discarded(w write) bool {
	for _, r := range j.removals {
		if r.task == w.task && r.end.After(w.start) {
			return true
		}
	}
	return false
}

// worker is one agent.
type worker struct {
	id       int
	rnd      *rand.Rand
	run      *runner
	journal  *journal
	tasks    []string                 // the task ids all workers share
	branches []string                 // branches that existed before any task (users' own)
	killRate float64                  // chance that an operation gets a SIGKILL at a random moment
	ops      []op                     // the mix of operations it picks from
	pidns    bool                     // its git-wt runs in a PID namespace of its own
	n        int                      // operations so far, for unique file names
	paths    map[string]string        // task → the worktree path git-wt last printed for it
	took     map[string]time.Duration // operation → how long it has been taking
	current  string                   // the operation under way
}

// op is one kind of operation, with its weight in the random mix.
type op struct {
	name   string
	weight int
	do     func(w *worker, task string, kill time.Duration)
}

var ops = []op{
	{"new", 14, (*worker).opNew},
	{"exec-write", 12, (*worker).opWrite},
	{"new-write", 8, (*worker).opNewWrite},
	{"write", 10, (*worker).opWriteDirect},
	{"commit", 10, (*worker).opCommit},
	{"rm", 4, (*worker).opRemove},
	{"rm-while-writing", 4, (*worker).opRemoveWhileWriting},
	{"rm-force", 1, (*worker).opRemoveForce}, // rare: it excuses every loss of its task's earlier work
	{"merge", 6, (*worker).opMerge},
	{"sync", 4, (*worker).opSync},
	{"gc", 6, simple("gc")},
	{"doctor", 3, simple("doctor")},
	{"doctor-fix", 3, simple("doctor", "--fix")},
	{"lock", 3, onTask("lock")},
	{"unlock", 3, onTask("unlock")},
	{"init", 3, onTask("init")},
	{"list", 3, simple("list")},
	{"path", 3, (*worker).opPath},
	{"pool-fill", 3, simple("pool", "--fill")},
	{"pool-drain", 1, simple("pool", "--drain")},
	{"base-moves", 2, (*worker).opBaseMoves},
}

// loop runs random operations until the deadline.
func (w *worker) loop(deadline time.Time) {
	total := 0
	for _, o := range w.ops {
		total += o.weight
	}
	for time.Now().Before(deadline) {
		pick := w.rnd.Intn(total)
		for _, o := range w.ops {
			if pick -= o.weight; pick < 0 {
				o.do(w, w.tasks[w.rnd.Intn(len(w.tasks))], w.killDelay(o.name))
				break
			}
		}
	}
}

// killDelay is 0 (no kill) or when to SIGKILL the next operation: at a
// random moment of the time that operation has been taking (a running
// average, so that kills land in every step on fast and slow machines).
func (w *worker) killDelay(op string) time.Duration {
	w.current = op
	if w.rnd.Float64() >= w.killRate {
		return 0
	}
	return time.Duration(1 + w.rnd.Int63n(int64(w.tookOr(op, 500*time.Millisecond))*6/5))
}

// tookOr is how long op has been taking, or def before it ran.
func (w *worker) tookOr(op string, def time.Duration) time.Duration {
	if took, ok := w.took[op]; ok && took > 0 {
		return took
	}
	return def
}

func (w *worker) wt(kill time.Duration, args ...string) *run {
	r := w.run.launch(&run{worker: w.id, args: args, pidns: w.pidns}, kill)
	if !r.killed {
		if prev, ok := w.took[w.current]; ok {
			w.took[w.current] = (3*prev + r.end.Sub(r.start)) / 4
		} else {
			w.took[w.current] = r.end.Sub(r.start)
		}
	}
	return r
}

func (w *worker) opNew(task string, kill time.Duration) {
	args := []string{"new", "-q", task}
	switch w.rnd.Intn(7) {
	case 0:
		args = append(args, "--branch", w.branches[w.rnd.Intn(len(w.branches))])
	case 1:
		args = append(args, "--base", "main")
	case 2:
		args = append(args, "--base", w.branches[w.rnd.Intn(len(w.branches))])
	case 3:
		args = append(args, "--base", historyBranch)
	}
	if r := w.wt(kill, args...); r.code == 0 && !r.killed {
		w.paths[task] = strings.TrimSpace(r.stdout)
	}
}

// opNewWrite is what an agent does: `p=$(git wt new T) && echo work > $p/f`.
func (w *worker) opNewWrite(task string, kill time.Duration) {
	r := w.wt(kill, "new", "-q", task)
	if r.code != 0 || r.killed {
		return
	}
	w.paths[task] = strings.TrimSpace(r.stdout)
	w.writeInto(task, w.paths[task])
}

// opWriteDirect writes into a task's worktree as an agent working there
// does, without git-wt, at any moment — also while others remove it.
func (w *worker) opWriteDirect(task string, _ time.Duration) {
	if dir, ok := w.paths[task]; ok {
		w.writeInto(task, dir)
	}
}

// writeInto writes a new file into dir (never making dir: a write into a
// worktree that is gone fails) and notes it when it succeeded.
func (w *worker) writeInto(task, dir string) {
	name, content := w.file(task)
	start := time.Now()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err == nil {
		w.journal.addWrite(write{worker: w.id, task: task, dir: dir, name: name, content: content, start: start})
	}
}

// file is a new file name and unique content.
func (w *worker) file(task string) (name, content string) {
	w.n++
	return fmt.Sprintf("w%d-%d.txt", w.id, w.n), fmt.Sprintf("worker %d op %d task %s %d\n", w.id, w.n, task, w.rnd.Int63())
}

// opWrite writes a file with unique content into the task's worktree
// through exec; the command prints where it wrote, and its own errors go
// nowhere, so that all of stderr is git-wt's.
func (w *worker) opWrite(task string, kill time.Duration) {
	name, content := w.file(task)
	start := time.Now()
	r := w.wt(kill, "exec", task, "--", "sh", "-c", `exec 2>/dev/null; printf %s "$1" > "$2" && pwd`, "sh", content, name)
	if r.code != 0 || r.killed {
		return
	}
	dir := strings.TrimSpace(r.stdout)
	w.paths[task] = dir
	w.journal.addWrite(write{worker: w.id, task: task, dir: dir, name: name, content: content, start: start})
}

func (w *worker) opCommit(task string, kill time.Duration) {
	w.wt(kill, "commit", task, "-m", fmt.Sprintf("worker %d commit %d", w.id, w.n))
}

func (w *worker) opRemove(task string, kill time.Duration) {
	w.wt(kill, w.rm(task)...)
}

// rm is the removal an agent makes: in a PID namespace, where it cannot
// see who works in the folder (SPEC §15), with --ignore-in-use, which
// keeps every other check.
func (w *worker) rm(task string) []string {
	if w.pidns {
		return []string{"rm", "--ignore-in-use", task}
	}
	return []string{"rm", task}
}

// opRemoveWhileWriting commits a task's work, then removes the task
// (without --force) while the agent working in it starts writing files
// again at a random moment: each file written must survive — either rm
// saw it and refused, or the write came too late and failed.
func (w *worker) opRemoveWhileWriting(task string, kill time.Duration) {
	dir, ok := w.paths[task]
	if !ok {
		return
	}
	w.wt(0, "commit", task, "-m", "before rm")
	w.n++
	first := time.Duration(w.rnd.Int63n(int64(w.tookOr("rm", time.Second))))
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func(n int) {
		defer wg.Done()
		pause := first
		for k := 0; ; k++ {
			select {
			case <-done:
				return
			case <-time.After(pause):
			}
			pause = 2 * time.Millisecond
			name := fmt.Sprintf("w%d-%d-%d.txt", w.id, n, k)
			content := fmt.Sprintf("worker %d op %d write %d task %s\n", w.id, n, k, task)
			start := time.Now()
			if os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644) == nil {
				w.journal.addWrite(write{worker: w.id, task: task, dir: dir, name: name, content: content, start: start})
			}
		}
	}(w.n)
	w.current = "rm"
	w.wt(kill, w.rm(task)...)
	close(done)
	wg.Wait()
}

func (w *worker) opRemoveForce(task string, kill time.Duration) {
	r := w.wt(kill, "rm", "--force", task)
	w.journal.addRemoval(forceRemoval{task: task, end: r.end, finished: r.code == 0 && !r.killed})
}

func (w *worker) opMerge(task string, kill time.Duration) {
	args := []string{"merge", task}
	switch w.rnd.Intn(4) {
	case 0:
		args = append(args, "--no-ff")
	case 1:
		args = append(args, "--squash")
	}
	w.wt(kill, args...)
}

// opSync brings a task, or all, up to main, rebasing or merging (which
// touches the files of worktrees other workers write into).
func (w *worker) opSync(task string, kill time.Duration) {
	args := []string{"sync", task}
	switch w.rnd.Intn(3) {
	case 0:
		args = []string{"sync", "--all"}
	case 1:
		args = append(args, "--merge")
	}
	w.wt(kill, args...)
}

// simple is an operation on the whole repository.
func simple(args ...string) func(*worker, string, time.Duration) {
	return func(w *worker, _ string, kill time.Duration) { w.wt(kill, args...) }
}

// onTask is an operation on one task.
func onTask(cmd string) func(*worker, string, time.Duration) {
	return func(w *worker, task string, kill time.Duration) { w.wt(kill, cmd, task) }
}

func (w *worker) opPath(task string, kill time.Duration) {
	if r := w.wt(kill, "path", task); r.code == 0 && !r.killed {
		w.paths[task] = strings.TrimSpace(r.stdout)
	}
}

// historyBranch is a base that other people's work moves all the time,
// as a fleet's base moves for days: opBaseMoves adds files to it, so that
// list, sync, rm and gc's merged checks meet a base with much history.
const historyBranch = "user/history"

// opBaseMoves adds a commit of 40 new files to historyBranch, as a push
// of someone else's work would (git fast-import: one process, the main
// worktree untouched). A commit that loses a race with another worker's
// is simply not made.
func (w *worker) opBaseMoves(_ string, _ time.Duration) {
	w.n++
	var in strings.Builder
	msg := fmt.Sprintf("work %d of worker %d", w.n, w.id)
	fmt.Fprintf(&in, "commit refs/heads/%s\ncommitter w <w@w> %d +0000\ndata %d\n%s\nfrom refs/heads/%s^0\n",
		historyBranch, time.Now().Unix(), len(msg), msg, historyBranch)
	for i := range 40 {
		content := fmt.Sprintf("%s, file %d\n", msg, i)
		fmt.Fprintf(&in, "M 100644 inline history/w%02d-%05d/f%02d.txt\ndata %d\n%s\n", w.id, w.n, i, len(content), content)
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir, cmd.Env, cmd.Stdin = w.run.dir, w.run.env, strings.NewReader(in.String())
	cmd.Run()
}
