//go:build linux && !gitwt_noprocfs

package proc

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// procfs reads the Linux process table in /proc.
type procfs struct{}

var sys table = procfs{}

// blind probes /proc rather than assume it: inside a PID namespace that
// kept its parent's /proc, /proc/self names another pid than getpid();
// an empty /proc (a tmpfs mounted over it, a chroot) has no self; and
// hidepid=2 hides other users' processes from all but root.
func (procfs) blind() string {
	self, err := os.Readlink("/proc/self")
	if err != nil {
		return "/proc is missing or empty here (a chroot or a sandbox?)"
	}
	if self != strconv.Itoa(os.Getpid()) {
		return "/proc shows the processes of another PID namespace than this one (a sandbox or container?)"
	}
	if hidesOthers(readMountinfo()) && os.Geteuid() != 0 {
		return "/proc is mounted with hidepid, which hides other users' processes"
	}
	return ""
}

// hostPIDNamespace is the inode of the initial PID namespace, which the
// kernel fixes (PROC_PID_INIT_INO).
const hostPIDNamespace = "4026531836"

// nested: a process in any other PID namespace (a container, bubblewrap,
// unshare -p) cannot see the processes of the namespaces around it, and
// they may work in the repository it shares.
func (t procfs) nested() string {
	if ns := t.pidNamespace(); ns != hostPIDNamespace {
		return "this process runs in a PID namespace of its own (a sandbox or container?), and processes outside it cannot be seen"
	}
	return ""
}

func readMountinfo() string {
	data, _ := os.ReadFile("/proc/self/mountinfo")
	return string(data)
}

// hidesOthers reports whether the proc file system mounted last at /proc
// in mountinfo hides other users' processes (hidepid=2, invisible, or
// ptraceable).
func hidesOthers(mountinfo string) bool {
	hides := false
	sc := bufio.NewScanner(strings.NewReader(mountinfo))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		sep := -1
		for i, f := range fields {
			if f == "-" {
				sep = i
				break
			}
		}
		if sep < 5 || len(fields) < sep+4 || fields[4] != "/proc" || fields[sep+1] != "proc" {
			continue
		}
		hides = false
		for _, opt := range strings.Split(fields[sep+3], ",") {
			switch opt {
			case "hidepid=2", "hidepid=invisible", "hidepid=4", "hidepid=ptraceable":
				hides = true
			}
		}
	}
	return hides
}

func (procfs) bootID() string {
	data, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// pidNamespace is the inode of this process's PID namespace, from the
// link /proc/self/ns/pid ("pid:[4026531836]").
func (procfs) pidNamespace() string {
	link, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(strings.TrimPrefix(link, "pid:["), "]")
}

func (procfs) pids() ([]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	pids := make([]int, 0, len(entries))
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

func (procfs) stat(pid int) (stat, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return stat{}, err
	}
	st, err := parseStat(string(data))
	if err == nil && st.exited {
		_, goesOn := otherLiveThread(pid)
		st.exited = !goesOn
	}
	return st, err
}

// otherLiveThread is the /proc folder of a thread of process pid, other
// than its first, that has not exited and is not being killed. /proc/<pid>
// shows the first thread, which can end while the process goes on: a
// thread that execs ends every other thread, the first one too, before
// it takes the first's pid (Go's exec runs on whichever thread its
// goroutine is on), and a thread may exit alone. Meanwhile the first
// thread reads as a zombie, or as killed, without a working directory or
// open files; the process is alive, and its live threads show its
// working directory and open files, which they share.
func otherLiveThread(pid int) (string, bool) {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return "", false
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil || tid == pid {
			continue
		}
		dir := fmt.Sprintf("/proc/%d/task/%d", pid, tid)
		data, err := os.ReadFile(dir + "/stat")
		if err != nil {
			continue
		}
		if st, err := parseStat(string(data)); err == nil && !st.exited {
			return dir, true
		}
	}
	return "", false
}

// clockTicks is USER_HZ: the unit of /proc/<pid>/stat's start time. It is
// 100 on every Linux architecture git-wt builds for.
const clockTicks = 100

// parseStat reads a /proc/<pid>/stat line. The command name (field 2) is
// in parentheses and may hold spaces and parentheses, so the fields are
// counted after its last closing parenthesis: the state (3), the parent
// (4), the group (5), ... the start in clock ticks since boot (22).
func parseStat(s string) (stat, error) {
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return stat{}, errors.New("cannot read /proc stat")
	}
	f := strings.Fields(s[end+1:])
	if len(f) < 20 {
		return stat{}, errors.New("cannot read /proc stat")
	}
	st := stat{name: s[open+1 : end], exited: f[0] == "Z" || f[0] == "X" || killed(f) || exiting(f)}
	st.ppid, _ = strconv.Atoi(f[1])
	st.pgid, _ = strconv.Atoi(f[2])
	ticks, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return stat{}, fmt.Errorf("cannot read /proc stat: %v", err)
	}
	st.start = strconv.FormatUint(ticks, 10)
	if boot, err := bootTime(); err == nil {
		st.startUnix = float64(boot) + float64(ticks)/clockTicks
	}
	return st, nil
}

// killed reports whether a SIGKILL is pending for the process whose
// /proc stat fields (from the state on) are f: it can no longer do a thing
// but end. A process killed a moment ago on a busy machine may not have
// run since; it counts as ended, so a lock it leaves is stale at once.
// Field 31 is the thread's pending signals, which a fatal signal sent to
// any of its group (kill -9 of a process group) sets in every thread.
func killed(f []string) bool {
	if len(f) < 29 {
		return false
	}
	pending, err := strconv.ParseUint(f[28], 10, 64)
	return err == nil && pending&(1<<(syscall.SIGKILL-1)) != 0
}

// exiting reports whether the thread whose /proc stat fields (from the
// state on) are f is ending: its flags (field 9) hold PF_EXITING, which
// the kernel sets as the thread begins to exit, after it has taken a
// fatal signal off its pending ones (so killed no longer sees it). A
// thread stuck there (closing a file on a hung mount) does nothing more.
func exiting(f []string) bool {
	const pfExiting = 0x4
	flags, err := strconv.ParseUint(f[6], 10, 64)
	return err == nil && flags&pfExiting != 0
}

// bootTime reads btime from /proc/stat: seconds since the epoch at boot.
// It moves when the wall clock is set, so it only places a start on the
// wall clock (a lock file's age); process identity uses the ticks.
var bootTime = sync.OnceValues(func() (int64, error) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			return strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
	}
	return 0, errors.New("no btime in /proc/stat")
})

func (procfs) cwd(pid int) (string, fileID, error) {
	link := fmt.Sprintf("/proc/%d/cwd", pid)
	cwd, err := os.Readlink(link)
	if errors.Is(err, fs.ErrNotExist) { // no process, or its first thread has ended
		if thread, ok := otherLiveThread(pid); ok {
			link = thread + "/cwd"
			cwd, err = os.Readlink(link)
		}
	}
	if err != nil {
		return "", fileID{}, err
	}
	var id fileID
	if st, err := os.Stat(link); err == nil {
		if s, ok := st.Sys().(*syscall.Stat_t); ok {
			id = fileID{dev: uint64(s.Dev), ino: s.Ino}
		}
	}
	return strings.TrimSuffix(cwd, " (deleted)"), id, nil
}

func (procfs) args(pid int) ([]string, error) { return readNULList(pid, "cmdline") }

func (procfs) env(pid int) ([]string, error) { return readNULList(pid, "environ") }

// readNULList reads a /proc/<pid> file of NUL-terminated strings.
func readNULList(pid int, name string) ([]string, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, name))
	if err != nil {
		return nil, err
	}
	return strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00"), nil
}

func (t procfs) holders(path string) (map[int]bool, error) {
	return eachHolds(t.pids, t.holds, path)
}

func (procfs) holds(pid int, path string) (bool, error) {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	fds, err := os.ReadDir(dir)
	if err != nil || len(fds) == 0 {
		// An ended first thread's fd folder is unreadable, or, to root,
		// empty: the process's files are its live threads'.
		if thread, ok := otherLiveThread(pid); ok {
			dir = thread + "/fd"
			fds, err = os.ReadDir(dir)
		}
	}
	if err != nil {
		return false, err
	}
	for _, fd := range fds {
		if target, err := os.Readlink(dir + "/" + fd.Name()); err == nil && target == path {
			return true, nil
		}
	}
	return false, nil
}

// rename names every thread of this process (at most 15 bytes). The
// process reads as its first thread's name, but a thread that execs takes
// the first one's place with its own name until the exec names it after
// the program: renamed alone, the first thread would leave the process
// named as before for that moment. A thread made while the threads are
// renamed takes the name of the one that made it, so the threads are
// renamed again until none has another name.
func (procfs) rename(name string) {
	for range 5 {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return
		}
		renamed := false
		for _, t := range tasks {
			comm := "/proc/self/task/" + t.Name() + "/comm"
			if now, err := os.ReadFile(comm); err == nil && strings.TrimSuffix(string(now), "\n") == name {
				continue
			}
			os.WriteFile(comm, []byte(name), 0)
			renamed = true
		}
		if !renamed {
			return
		}
	}
}
