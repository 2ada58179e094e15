//go:build unix

// The calm round runs before the storm: many workers on a few dozen
// overlapping tasks, and no kill at all. With nobody killed, no git-wt
// may ever be judged stopped (issue 24): doctor and gc must not report,
// let alone repair, a creation, an init, a removal, a merge or a sync
// whose process still runs; and as every process ended on its own, none
// may have left one stopped either.
package stress

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/git-wt/git-wt/internal/task"
)

// calmOps is the calm round's mix: what changes tasks (makes, sets up,
// removes, merges them), what judges and repairs them (doctor, gc; and
// new's gc --auto), often, and what writes into them meanwhile.
var calmOps = []op{
	{"new", 14, (*worker).opNew},
	{"new-write", 6, (*worker).opNewWrite},
	{"exec-write", 3, (*worker).opWrite},
	{"write", 2, (*worker).opWriteDirect},
	{"commit", 6, (*worker).opCommit},
	{"rm", 6, (*worker).opRemove},
	{"rm-while-writing", 2, (*worker).opRemoveWhileWriting},
	{"gc", 8, simple("gc")},
	{"doctor", 6, simple("doctor")},
	{"doctor-fix", 8, simple("doctor", "--fix")},
	{"init", 6, onTask("init")},
	{"merge", 3, (*worker).opMerge},
	{"sync", 2, (*worker).opSync},
}

// pidnsArgs make unshare run git-wt as the first process of a PID
// namespace of its own, with that namespace's /proc: its pids, and what it
// reads of other processes, are not the host's (STRESS_PIDNS=1).
var pidnsArgs = []string{"--pid", "--fork", "--mount-proc"}

// pidnsEvery: with STRESS_PIDNS=1, every pidnsEvery-th worker of each
// round runs its git-wt in a PID namespace.
const pidnsEvery = 5

// stoppedKinds are the problems that say a git-wt process stopped in the
// middle of changing a task.
var stoppedKinds = []string{string(task.StuckCreation), string(task.InterruptedInit), string(task.StuckRemoval),
	string(task.InterruptedMerge), string(task.InterruptedSync)}

// calm runs the calm round and returns what it broke.
func (st *stress) calm(cfg config) []violation {
	if cfg.calmWorkers == 0 || cfg.calmTime <= 0 {
		return nil
	}
	from := time.Now()
	st.round(cfg, cfg.calmWorkers, cfg.calmTime, calmOps, 0, st.tasks[:cfg.calmWorkers+4], cfg.workers)
	st.waitForFills()
	st.runner.mu.Lock()
	runs := slices.Clone(st.runner.runs)
	st.runner.mu.Unlock()
	c := &calmCheck{runs: runs}
	for _, r := range runs {
		c.readOutput(r)
	}
	c.readEvents(filepath.Join(st.s.Repo, ".git", "wt"), from)
	st.t.Logf("calm round: %d git-wt runs, %d reports of a stopped process", len(runs), c.reports)
	for _, v := range c.found { // all of them: the report shows a few
		st.t.Logf("calm round: [%s] %s", v.kind, v.detail)
	}
	return c.found
}

// calmCheck judges every report of a stopped process in the calm round.
type calmCheck struct {
	runs    []*run
	reports int
	found   []violation
}

var byProcess = regexp.MustCompile(`process (\d+)`)

// unseen is what doctor says of an owner it cannot see (SPEC §15): no
// claim that it stopped.
const unseen = "cannot be seen from here"

// readOutput judges the stopped processes that a doctor's or a gc's
// report names: while it ran, from its start to its end.
func (c *calmCheck) readOutput(r *run) {
	if r.args[0] != "doctor" && r.args[0] != "gc" {
		return
	}
	for _, line := range strings.Split(r.stdout, "\n") {
		kind, rest, _ := strings.Cut(line, ": ")
		if !slices.Contains(stoppedKinds, kind) || strings.Contains(line, unseen) {
			continue // an owner this doctor cannot see, reported as such: left to the grace
		}
		where, _, _ := strings.Cut(rest, ": ")
		c.judge(kind, filepath.Base(where), line, r.start, r.end, fmt.Sprintf("git wt %s (pid %d, %s..%s)", strings.Join(r.args, " "), r.pid, clock(r.start), clock(r.end)))
	}
}

// readEvents judges the repairs in the event log (gc --auto's in new
// too, which print no report): at the moment each was logged. A repair
// that kept the task (marked it failed) logs only its marked-failed.
func (c *calmCheck) readEvents(wtDir string, from time.Time) {
	var lines []string
	for _, name := range []string{"events.jsonl.1", "events.jsonl"} {
		data, _ := os.ReadFile(filepath.Join(wtDir, name))
		lines = append(lines, strings.Split(string(data), "\n")...)
	}
	for _, line := range lines {
		var ev struct {
			Time    time.Time
			PID     int
			Command string
			Task    string
			Outcome string
			Reason  string
		}
		if json.Unmarshal([]byte(line), &ev) != nil || ev.Time.Before(from) {
			continue
		}
		kind, _, _ := strings.Cut(ev.Reason, ": ")
		switch {
		case ev.Outcome == "repaired" && slices.Contains(stoppedKinds, kind):
		case ev.Outcome == "marked-failed" && strings.Contains(ev.Reason, "died"):
			kind = "marked-failed"
		default:
			continue
		}
		c.judge(kind, ev.Task, line, ev.Time, ev.Time, fmt.Sprintf("git wt %s (pid %d) at %s", ev.Command, ev.PID, clock(ev.Time)))
	}
}

// judge tells a report of task's process as stopped, seen between from
// and to, from the truth: the runner knows when each git-wt it started
// ran. Its process still running then is the worst (a repair may undo a
// live creation); one that ended is still a violation, as nobody was
// killed.
func (c *calmCheck) judge(kind, task, line string, from, to time.Time, by string) {
	c.reports++
	m := byProcess.FindStringSubmatch(line)
	if m == nil {
		c.found = append(c.found, violation{"calm-stopped", fmt.Sprintf("%s says %s stopped, naming no process: %s", by, task, line)})
		return
	}
	pid, _ := strconv.Atoi(m[1])
	if owner := c.running(pid, task, from, to); owner != nil {
		c.found = append(c.found, violation{"calm-stopped-while-running", fmt.Sprintf("%s judged process %d stopped (%s of %s) while it ran: %s..%s %s; the report: %s",
			by, pid, kind, task, clock(owner.start), clock(owner.end), owner, line)})
		return
	}
	ended := "no git-wt the test started"
	if owner := c.lastOf(pid, to); owner != nil {
		ended = fmt.Sprintf("%s..%s %s", clock(owner.start), clock(owner.end), owner)
	}
	c.found = append(c.found, violation{"calm-stopped", fmt.Sprintf("%s judged process %d stopped (%s of %s), though nobody was killed; that process: %s; the report: %s",
		by, pid, kind, task, ended, line)})
}

// running is the git-wt run with pid that ran from before from until
// after to: on the host, by its pid; in a PID namespace (where the pid
// says nothing to the host) one that named the task.
func (c *calmCheck) running(pid int, task string, from, to time.Time) *run {
	for _, r := range c.runs {
		if !r.start.Before(from) || !r.end.After(to) {
			continue
		}
		if r.pidns && slices.Contains(r.args, task) || !r.pidns && r.pid == pid {
			return r
		}
	}
	return nil
}

// lastOf is the last host git-wt run with pid that started before t.
func (c *calmCheck) lastOf(pid int, t time.Time) *run {
	var last *run
	for _, r := range c.runs {
		if !r.pidns && r.pid == pid && r.start.Before(t) && (last == nil || r.start.After(last.start)) {
			last = r
		}
	}
	return last
}

func clock(t time.Time) string { return t.Format("15:04:05.000") }

// pidnsWorks says whether this machine lets the test run git-wt in a PID
// namespace (root, or user namespaces allowed), or why not.
func pidnsWorks() error {
	out, err := exec.Command("unshare", append(pidnsArgs, "--", "true")...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("unshare %s: %v %s", strings.Join(pidnsArgs, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}
