// A worker is one agent of the stress test: it runs random git-wt
// operations on a shared set of tasks and writes down what it relies on —
// the files it wrote and into which task, and the tasks it deliberately
// force-removed — so that the checker can tell lost work from discarded work.
package stress

import (
	"fmt"
	"math/rand"
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
	tasks    []string // the task ids all workers share
	branches []string // branches that existed before any task (users' own)
	killRate float64  // chance that an operation gets a SIGKILL at a random moment
	n        int      // operations so far, for unique file names
}

// op is one kind of operation, with its weight in the random mix.
type op struct {
	name   string
	weight int
	do     func(w *worker, task string, kill time.Duration)
}

var ops = []op{
	{"new", 14, (*worker).opNew},
	{"exec-write", 20, (*worker).opWrite},
	{"commit", 10, (*worker).opCommit},
	{"rm", 6, (*worker).opRemove},
	{"rm-force", 3, (*worker).opRemoveForce},
	{"merge", 6, (*worker).opMerge},
	{"gc", 4, simple("gc")},
	{"doctor", 3, simple("doctor")},
	{"doctor-fix", 3, simple("doctor", "--fix")},
	{"lock", 3, onTask("lock")},
	{"unlock", 3, onTask("unlock")},
	{"init", 3, onTask("init")},
	{"list", 3, simple("list")},
	{"path", 3, onTask("path")},
}

// loop runs random operations until the deadline.
func (w *worker) loop(deadline time.Time) {
	total := 0
	for _, o := range ops {
		total += o.weight
	}
	for time.Now().Before(deadline) {
		pick := w.rnd.Intn(total)
		for _, o := range ops {
			if pick -= o.weight; pick < 0 {
				o.do(w, w.tasks[w.rnd.Intn(len(w.tasks))], w.killDelay())
				break
			}
		}
	}
}

// killDelay is 0 (no kill) or when to SIGKILL the next operation: within
// the first 600 ms, where git-wt's processes spend their time.
func (w *worker) killDelay() time.Duration {
	if w.rnd.Float64() >= w.killRate {
		return 0
	}
	return time.Duration(1+w.rnd.Intn(600)) * time.Millisecond
}

func (w *worker) wt(kill time.Duration, args ...string) *run {
	return w.run.wt(w.id, kill, args...)
}

func (w *worker) opNew(task string, kill time.Duration) {
	args := []string{"new", "-q", task}
	switch w.rnd.Intn(6) {
	case 0:
		args = append(args, "--branch", w.branches[w.rnd.Intn(len(w.branches))])
	case 1:
		args = append(args, "--base", "main")
	case 2:
		args = append(args, "--base", w.branches[w.rnd.Intn(len(w.branches))])
	}
	w.wt(kill, args...)
}

// opWrite writes a file with unique content into the task's worktree
// through exec; the command prints where it wrote, and its own errors go
// nowhere, so that all of stderr is git-wt's.
func (w *worker) opWrite(task string, kill time.Duration) {
	w.n++
	name := fmt.Sprintf("w%d-%d.txt", w.id, w.n)
	content := fmt.Sprintf("worker %d op %d task %s %d\n", w.id, w.n, task, w.rnd.Int63())
	start := time.Now()
	r := w.wt(kill, "exec", task, "--", "sh", "-c", `exec 2>/dev/null; printf %s "$1" > "$2" && pwd`, "sh", content, name)
	if r.code != 0 || r.killed {
		return
	}
	w.journal.addWrite(write{worker: w.id, task: task, dir: strings.TrimSpace(r.stdout), name: name, content: content, start: start})
}

func (w *worker) opCommit(task string, kill time.Duration) {
	w.wt(kill, "commit", task, "-m", fmt.Sprintf("worker %d commit %d", w.id, w.n))
}

func (w *worker) opRemove(task string, kill time.Duration) {
	w.wt(kill, "rm", task)
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

// simple is an operation on the whole repository.
func simple(args ...string) func(*worker, string, time.Duration) {
	return func(w *worker, _ string, kill time.Duration) { w.wt(kill, args...) }
}

// onTask is an operation on one task.
func onTask(cmd string) func(*worker, string, time.Duration) {
	return func(w *worker, task string, kill time.Duration) { w.wt(kill, cmd, task) }
}
