//go:build unix

// The runner starts each git-wt in a process group of its own, can SIGKILL
// that whole group at a chosen moment, and keeps every run's exit status
// and stderr for the checker.
package stress

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// opTimeout bounds one git-wt process: the repository's wt.lockTimeout
// (set in setup) is far below it, so a process still running then hangs.
const opTimeout = 3 * time.Minute

// run is one git-wt process and what became of it.
type run struct {
	worker     int // -1: the final phase
	args       []string
	pid        int  // the process the runner started (unshare's, in a PID namespace)
	pidns      bool // git-wt ran in a PID namespace of its own (see pidns)
	start, end time.Time
	code       int    // exit status; -1 when a signal ended it
	killed     bool   // the test sent it SIGKILL
	hung       bool   // it outlived opTimeout (and was then killed)
	hungIn     string // then: the processes of its group (ps)
	leftOver   bool   // something it started still held its output after it exited
	stdout     string
	stderr     string
}

func (r *run) String() string {
	s := fmt.Sprintf("git wt %s: exit %d", strings.Join(r.args, " "), r.code)
	if r.killed {
		s += " (killed by the test)"
	}
	if msg := strings.TrimSpace(r.stderr); msg != "" {
		if len(msg) > 400 {
			msg = msg[:400] + "..."
		}
		s += "; stderr: " + msg
	}
	return s
}

// runner starts git-wt processes and keeps their runs.
type runner struct {
	bin string
	dir string
	env []string

	mu   sync.Mutex
	runs []*run
}

// proc is a started process group that may be killed until it is reaped.
type proc struct {
	mu     sync.Mutex
	pid    int
	reaped bool
	killed bool
}

// kill sends SIGKILL to the whole group unless the leader was reaped (its
// pgid could then belong to another process). An unreaped leader, even a
// zombie, keeps its group id from reuse.
func (p *proc) kill() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.reaped || p.pid == 0 {
		return false
	}
	p.killed = true
	syscall.Kill(-p.pid, syscall.SIGKILL)
	return true
}

// wt runs git-wt with args; when killAfter > 0 its process group is
// SIGKILLed after that long (if it still runs).
func (rn *runner) wt(worker int, killAfter time.Duration, args ...string) *run {
	return rn.launch(&run{worker: worker, args: args}, killAfter)
}

// launch runs r's git-wt, in a PID namespace of its own when r.pidns.
func (rn *runner) launch(r *run, killAfter time.Duration) *run {
	cmd := exec.Command(rn.bin, r.args...)
	if r.pidns {
		cmd = exec.Command("unshare", append(pidnsArgs, append([]string{"--", rn.bin}, r.args...)...)...)
	}
	cmd.Dir = rn.dir
	cmd.Env = rn.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// A process that escaped the group (an init in a group of its own)
	// may hold the pipes open: do not wait for it forever.
	cmd.WaitDelay = 5 * time.Second

	p := &proc{}
	r.start = time.Now()
	if err := cmd.Start(); err != nil {
		r.code, r.stderr, r.end = -2, "cannot start: "+err.Error(), time.Now()
		rn.keep(r)
		return r
	}
	p.mu.Lock()
	p.pid = cmd.Process.Pid
	p.mu.Unlock()
	r.pid = cmd.Process.Pid
	var timers []*time.Timer
	if killAfter > 0 {
		timers = append(timers, time.AfterFunc(killAfter, func() { p.kill() }))
	}
	hung := false
	timers = append(timers, time.AfterFunc(opTimeout, func() {
		// Before the kill, what the hung group was doing: its
		// processes, and (SIGQUIT) the Go stacks of git-wt on stderr.
		procs := groupProcesses(r.pid)
		p.mu.Lock()
		r.hungIn = procs
		p.mu.Unlock()
		syscall.Kill(-r.pid, syscall.SIGQUIT)
		time.Sleep(2 * time.Second)
		if p.kill() {
			hung = true
		}
	}))
	err := cmd.Wait()
	p.mu.Lock()
	p.reaped = true
	r.killed = p.killed
	r.hung = hung
	p.mu.Unlock()
	for _, tm := range timers {
		tm.Stop()
	}
	r.end = time.Now()
	r.stdout, r.stderr = stdout.String(), stderr.String()
	r.code = exitStatus(err)
	r.leftOver = errors.Is(err, exec.ErrWaitDelay)
	rn.keep(r)
	return r
}

func (rn *runner) keep(r *run) {
	rn.mu.Lock()
	rn.runs = append(rn.runs, r)
	rn.mu.Unlock()
}

// exitStatus is the exit status of a waited command, -1 after a signal.
func exitStatus(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	case errors.Is(err, exec.ErrWaitDelay):
		return 0 // it exited; something it left behind held the pipes
	default:
		return -2
	}
}

// groupProcesses lists the processes of process group pgid as ps shows
// them (pid, parent, elapsed time, command line), for a hang's report.
func groupProcesses(pgid int) string {
	out, _ := exec.Command("ps", "-o", "pid,ppid,etime,args", "-g", strconv.Itoa(pgid)).CombinedOutput()
	return string(out)
}
