package proc

// table is what a platform can tell of its processes. Each platform's
// backend lives in its own build-tagged file (table_linux.go: /proc;
// table_darwin.go: sysctl kern.proc and libproc, whose answers
// table_darwin_layout.go reads on every platform so that its tests run
// here; table_windows.go: the Win32 API, read and judged likewise by
// table_windows_layout.go; the fallback, table_other.go, used on other
// systems and by a build with -tags gitwt_noprocfs, knows nothing and
// says so). The rest of the package asks only this.
type table interface {
	// blind is "" when the table shows every process of this process's
	// PID namespace, else why it does not.
	blind() string
	// nested is "" when this process runs in the host's PID namespace,
	// else why processes outside its namespace (which may work in the
	// same folders) cannot be seen.
	nested() string
	// bootID and pidNamespace identify this boot of the host and this
	// process's PID namespace; "" where they cannot be read.
	bootID() string
	pidNamespace() string
	// pids lists the processes of the table.
	pids() ([]int, error)
	// stat reads one process; an error wrapping fs.ErrNotExist when no
	// process has that pid.
	stat(pid int) (stat, error)
	// cwd is a process's working directory, as a path and as the
	// directory itself (for a comparison by device and inode).
	cwd(pid int) (string, fileID, error)
	// args are the arguments a process was started with, its argv[0]
	// first.
	args(pid int) ([]string, error)
	// env is the environment a process was started with.
	env(pid int) ([]string, error)
	// holders are the processes that have the file at path open; a
	// process whose open files cannot be read is not among them. An error
	// says that the table cannot tell at all (the holders are unknown).
	holders(path string) (map[int]bool, error)
	// rename sets this process's name (what stat's name reads), where the
	// platform allows it.
	rename(name string)
}

// stat is what the table says of one process.
type stat struct {
	ppid, pgid int
	name       string // the command name
	exited     bool   // a zombie, waiting to be reaped
	// start is the start in a form that is the same every time it is read
	// for the same process (Linux: clock ticks since boot, which a change
	// of the wall clock does not move); startUnix the same start as a wall
	// clock time in seconds, 0 where unknown.
	start     string
	startUnix float64
}

// eachHolds lists the holders of path by asking each process of the
// table whether it has the file open (holds): the backends that read a
// process's open files one process at a time.
func eachHolds(pids func() ([]int, error), holds func(pid int, path string) (bool, error), path string) (map[int]bool, error) {
	all, err := pids()
	if err != nil {
		return nil, err
	}
	holders := map[int]bool{}
	for _, pid := range all {
		if held, _ := holds(pid, path); held {
			holders[pid] = true
		}
	}
	return holders, nil
}

// fileID names a directory by device and inode; zero when unknown.
type fileID struct{ dev, ino uint64 }
