//go:build darwin && !gitwt_noprocfs

package proc

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
	"golang.org/x/sys/unix"
)

// kernProc reads the macOS process table: sysctl kern.proc for the
// processes (kinfo_proc), libproc for their working directories and open
// files, called through purego so that git-wt needs no cgo. The bytes
// are read by table_darwin_layout.go.
type kernProc struct{}

var sys table = kernProc{}

// The offsets of table_darwin_layout.go are x/sys's: a difference fails
// this file's build.
var kp unix.KinfoProc

var (
	_ [kinfoProcSize]byte = [unix.SizeofKinfoProc]byte{}
	_ [kpStartSec]byte    = [unsafe.Offsetof(kp.Proc.P_starttime)]byte{}
	_ [kpStartUsec]byte   = [unsafe.Offsetof(kp.Proc.P_starttime) + unsafe.Offsetof(kp.Proc.P_starttime.Usec)]byte{}
	_ [kpStat]byte        = [unsafe.Offsetof(kp.Proc.P_stat)]byte{}
	_ [kpPID]byte         = [unsafe.Offsetof(kp.Proc.P_pid)]byte{}
	_ [kpComm]byte        = [unsafe.Offsetof(kp.Proc.P_comm)]byte{}
	_ [kpCommLen]byte     = [len(kp.Proc.P_comm)]byte{}
	_ [kpPPID]byte        = [unsafe.Offsetof(kp.Eproc) + unsafe.Offsetof(kp.Eproc.Ppid)]byte{}
	_ [kpPGID]byte        = [unsafe.Offsetof(kp.Eproc) + unsafe.Offsetof(kp.Eproc.Pgid)]byte{}
)

// blind probes rather than assume: a sandbox (sandbox-exec, the App
// Sandbox) may deny sysctl kern.proc for other processes, and then this
// process cannot see who works in a folder. It must read itself and
// launchd (pid 1), and find itself in the list.
func (t kernProc) blind() string {
	if _, err := t.stat(os.Getpid()); err != nil {
		return fmt.Sprintf("sysctl kern.proc cannot read this process (%v)", err)
	}
	if _, err := t.stat(1); err != nil {
		return fmt.Sprintf("sysctl kern.proc cannot read other processes (%v): a sandbox?", err)
	}
	pids, err := t.pids()
	if err != nil {
		return fmt.Sprintf("sysctl kern.proc.all cannot list the processes (%v)", err)
	}
	for _, pid := range pids {
		if pid == os.Getpid() {
			return ""
		}
	}
	return "sysctl kern.proc.all does not list this process: a sandbox?"
}

// nested: macOS has no PID namespaces.
func (kernProc) nested() string { return "" }

// bootID is the UUID macOS draws at each boot.
func (kernProc) bootID() string {
	id, err := unix.Sysctl("kern.bootsessionuuid")
	if err != nil {
		return ""
	}
	return id
}

// pidNamespace: every process of a Mac counts pids in the one space, so
// a constant says "the same namespace" to Check, which with the boot id
// lets it prove a process dead.
func (kernProc) pidNamespace() string { return "darwin" }

func (kernProc) pids() ([]int, error) {
	// The table may grow between sysctl's size and its read: retry.
	for try := 0; ; try++ {
		b, err := unix.SysctlRaw("kern.proc.all")
		if errors.Is(err, unix.ENOMEM) && try < 5 {
			continue
		}
		if err != nil {
			return nil, err
		}
		return parseKinfoProcs(b)
	}
}

func (kernProc) stat(pid int) (stat, error) {
	b, err := unix.SysctlRaw("kern.proc.pid", pid)
	if err != nil {
		return stat{}, err
	}
	if len(b) == 0 {
		return stat{}, fmt.Errorf("process %d: %w", pid, fs.ErrNotExist)
	}
	_, st, err := parseKinfoProc(b)
	return st, err
}

func (kernProc) cwd(pid int) (string, fileID, error) {
	b := make([]byte, vnodePathInfoSize)
	if err := pidInfo(pid, procPIDVnodePathInfo, b); err != nil {
		return "", fileID{}, err
	}
	return parseCwd(b)
}

func (kernProc) args(pid int) ([]string, error) {
	args, _, err := procArgs2(pid)
	return args, err
}

func (kernProc) env(pid int) ([]string, error) {
	_, env, err := procArgs2(pid)
	return env, err
}

func procArgs2(pid int) (args, env []string, err error) {
	b, err := unix.SysctlRaw("kern.procargs2", pid)
	if err != nil {
		return nil, nil, err
	}
	return parseProcArgs2(b)
}

func (t kernProc) holders(path string) (map[int]bool, error) {
	return eachHolds(t.pids, t.holds, path)
}

func (kernProc) holds(pid int, path string) (bool, error) {
	// With no buffer, proc_pidinfo says how many bytes the list needs;
	// room for a few more descriptors covers files opened meanwhile.
	n, err := libproc().pidinfo(int32(pid), procPIDListFDs, 0, nil, 0)
	if err != nil {
		return false, err
	}
	list := make([]byte, int(n)+16*fdInfoSize)
	n, err = libproc().pidinfo(int32(pid), procPIDListFDs, 0, &list[0], int32(len(list)))
	if err != nil {
		return false, err
	}
	info := make([]byte, fdVnodePathInfoSize)
	for _, fd := range parseVnodeFDs(list[:n]) {
		if _, err := libproc().pidfdinfo(int32(pid), int32(fd), procPIDFDVnodePathInfo, &info[0], int32(len(info))); err != nil {
			continue // closed meanwhile
		}
		if p, err := parseFDPath(info); err == nil && p == path {
			return true, nil
		}
	}
	return false, nil
}

// rename: a process's name on macOS (p_comm) is its program's, set by
// exec; it cannot be changed (see MarkAsUser).
func (kernProc) rename(string) {}

// pidInfo fills b by proc_pidinfo with a flavor whose answer has b's size.
func pidInfo(pid, flavor int, b []byte) error {
	n, err := libproc().pidinfo(int32(pid), int32(flavor), 0, &b[0], int32(len(b)))
	if err != nil {
		return err
	}
	if int(n) < len(b) {
		return fmt.Errorf("proc_pidinfo of process %d: %d of %d bytes", pid, n, len(b))
	}
	return nil
}

// libprocFuncs are libproc's calls, from libSystem (which holds libproc
// on every macOS git-wt runs on). They return the bytes written, and 0
// or less with errno set on failure.
type libprocFuncs struct {
	procPidinfo   func(pid, flavor int32, arg uint64, buf *byte, size int32) int32
	procPidfdinfo func(pid, fd, flavor int32, buf *byte, size int32) int32
	errno         func() *int32
	err           error
}

var libproc = sync.OnceValue(func() *libprocFuncs {
	l := &libprocFuncs{}
	h, err := purego.Dlopen("/usr/lib/libSystem.B.dylib", purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		l.err = fmt.Errorf("cannot load libproc: %w", err)
		return l
	}
	purego.RegisterLibFunc(&l.procPidinfo, h, "proc_pidinfo")
	purego.RegisterLibFunc(&l.procPidfdinfo, h, "proc_pidfdinfo")
	purego.RegisterLibFunc(&l.errno, h, "__error")
	return l
})

func (l *libprocFuncs) pidinfo(pid, flavor int32, arg uint64, buf *byte, size int32) (int32, error) {
	if l.err != nil {
		return 0, l.err
	}
	return l.call(func() int32 { return l.procPidinfo(pid, flavor, arg, buf, size) }, buf == nil)
}

func (l *libprocFuncs) pidfdinfo(pid, fd, flavor int32, buf *byte, size int32) (int32, error) {
	if l.err != nil {
		return 0, l.err
	}
	return l.call(func() int32 { return l.procPidfdinfo(pid, fd, flavor, buf, size) }, false)
}

// call runs one libproc call and reads errno on the same OS thread (it
// is the thread's). An answer of 0 is a failure but for a size query
// (sizeOnly) of a process that has no files.
func (l *libprocFuncs) call(f func() int32, sizeOnly bool) (int32, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	errno := l.errno()
	*errno = 0
	n := f()
	if n < 0 || n == 0 && !sizeOnly {
		if e := *errno; e != 0 {
			if unix.Errno(e) == unix.ESRCH {
				return 0, fmt.Errorf("%w: %w", fs.ErrNotExist, unix.Errno(e))
			}
			return 0, unix.Errno(e)
		}
		return 0, errors.New("libproc gave no answer")
	}
	return n, nil
}
