// Package proc answers what git-wt asks of processes — is the process
// that drives a task alive, which processes work in a folder, does anyone
// hold a lock file — and answers honestly when it cannot see (SPEC §15):
// every fact is alive, dead or unknown, and only proof gives dead.
//
// A process is its pid, its host (name and boot id: names such as "vm"
// are not unique), its PID namespace and its start time. What the
// platform can tell is behind the table interface (table.go), with one
// backend per platform in build-tagged files; the fallback knows only
// what kill(pid, 0) says.
package proc

import (
	"errors"
	"io/fs"
	"os"
	"sync"
)

// ID names one process for as long as it runs, and never another.
type ID struct {
	PID   int
	Host  string // the host name
	Boot  string // the boot id of the host; "" where it cannot be read
	PIDNS string // the PID namespace the PID is counted in; "" where it cannot be read
	// Start is when the process started, in the platform's stable form
	// (the same every time it is read for the same process; see
	// table.start); "" where it cannot be read.
	Start string
}

// Self is the ID of this process.
func Self() ID { return self() }

var self = sync.OnceValue(func() ID {
	host, _ := os.Hostname()
	pid := os.Getpid()
	id := ID{PID: pid, Host: host, Boot: sys.bootID(), PIDNS: sys.pidNamespace()}
	if st, err := sys.stat(pid); err == nil {
		id.Start = st.start
	}
	return id
})

// Liveness is what can be said of a process.
type Liveness int

// Alive and Dead are certain; Unknown is everything else: a process on
// another host or boot, in another PID namespace, or where the process
// table cannot be read. Unknown is never taken for Dead.
const (
	Unknown Liveness = iota
	Alive
	Dead
)

func (l Liveness) String() string {
	switch l {
	case Alive:
		return "alive"
	case Dead:
		return "dead"
	}
	return "unknown"
}

// Check tells whether the process id names still runs. Dead needs proof:
// the process was stamped on this host, this boot and in this PID
// namespace, this process can see that namespace's process table, and
// the pid is absent from it, has exited, or belongs to a process that
// started at another time. Where the table cannot be read, kill(pid, 0)
// can still say that a process with that pid is alive; never that it is
// dead.
func Check(id ID) Liveness {
	me := Self()
	if id.PID <= 0 || id.Host != me.Host || differ(id.Boot, me.Boot) || differ(id.PIDNS, me.PIDNS) {
		return Unknown
	}
	if id.Boot == "" || id.PIDNS == "" || me.Boot == "" || me.PIDNS == "" || namespaceSight() != nil {
		return signalled(id.PID)
	}
	st, err := sys.stat(id.PID)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Dead
	case err != nil:
		return Unknown
	case st.exited:
		return Dead // a zombie: it has exited, its parent has not reaped it yet
	case id.Start != "" && st.start != "" && st.start != id.Start:
		return Dead // the pid was reused by a younger process
	}
	return Alive
}

// differ reports whether two stamps are both known and not the same.
func differ(a, b string) bool { return a != "" && b != "" && a != b }

// WorkingDir is this process's working directory as the kernel knows it,
// even when that folder has been deleted (where os.Getwd fails): the
// platform's table has it (Linux /proc/self/cwd, macOS libproc).
func WorkingDir() (string, error) {
	dir, _, err := sys.cwd(os.Getpid())
	return dir, err
}

// StartTime is when process pid started, in the stable form of ID.Start.
func StartTime(pid int) (string, error) {
	st, err := sys.stat(pid)
	if err != nil {
		return "", err
	}
	return st.start, nil
}

// BlindError says why this process cannot see the processes it would
// have to judge: a process fact is then unknown.
type BlindError struct{ Why string }

func (e *BlindError) Error() string { return "cannot see the processes here: " + e.Why }

// Sight is nil when this process can see every process that may work in
// its folders — it reads the whole process table of the host's PID
// namespace — else a *BlindError saying why not. It is probed once, not
// assumed: /proc may be missing, empty, another namespace's, or hide
// other users' processes, and a process in a PID namespace of its own
// cannot see the processes around it.
func Sight() error { return sight() }

var sight = sync.OnceValue(func() error {
	if err := namespaceSight(); err != nil {
		return err
	}
	if why := sys.nested(); why != "" {
		return &BlindError{Why: why}
	}
	return nil
})

// namespaceSight is nil when this process reads the whole process table
// of its own PID namespace: enough to judge a process stamped in it.
var namespaceSight = sync.OnceValue(func() error {
	if why := sys.blind(); why != "" {
		return &BlindError{Why: why}
	}
	return nil
})

// Unseen says why a process fact came out unknown here: this process's
// blindness (Sight), or else that the process is another host's, boot's
// or PID namespace's.
func Unseen() string {
	if err := Sight(); err != nil {
		return err.Error()
	}
	return "it runs on another host, boot or PID namespace, or its files cannot be read"
}
