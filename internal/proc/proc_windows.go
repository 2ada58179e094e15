package proc

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"syscall"

	"golang.org/x/sys/windows"
)

// signalled is what OpenProcess and the exit code say: a process with
// that pid runs (Alive: it may be another process that reuses the pid,
// and waiting for it is the safe mistake; also where access is denied, as
// for an elevated process), or nothing that proves the process dead
// (Unknown).
func signalled(pid int) Liveness {
	h, err := openProcess(pid, 0)
	if errors.Is(err, windows.ERROR_ACCESS_DENIED) {
		return Alive
	}
	if err != nil {
		return Unknown
	}
	defer windows.CloseHandle(h)
	if exited, err := hasExited(h); err == nil && !exited {
		return Alive
	}
	return Unknown
}

// openProcess opens process pid with PROCESS_QUERY_LIMITED_INFORMATION
// (which Windows grants for nearly every process, elevated ones too),
// SYNCHRONIZE where allowed (hasExited waits with it), and access. The
// error wraps fs.ErrNotExist when no process has that pid (openVerdict).
func openProcess(pid int, access uint32) (windows.Handle, error) {
	if pid <= 0 || int64(pid) > math.MaxUint32 {
		return 0, fmt.Errorf("process %d: %w", pid, fs.ErrNotExist)
	}
	access |= windows.PROCESS_QUERY_LIMITED_INFORMATION
	h, err := windows.OpenProcess(access|windows.SYNCHRONIZE, false, uint32(pid))
	if errors.Is(err, windows.ERROR_ACCESS_DENIED) {
		h, err = windows.OpenProcess(access, false, uint32(pid))
	}
	var opened uint32
	if err == nil {
		opened, err = windows.GetProcessId(h)
	}
	if err := openVerdict(pid, err, opened); err != nil {
		if h != 0 {
			windows.CloseHandle(h)
		}
		return 0, err
	}
	return h, nil
}

// hasExited reports whether the process of handle h has ended (while a
// handle is open, an ended process stays, as a zombie does on unix): its
// exit code, and for STILL_ACTIVE a wait of no time (exitVerdict).
func hasExited(h windows.Handle) (bool, error) {
	var code uint32
	codeErr := windows.GetExitCodeProcess(h, &code)
	wait := waitNotTried
	if codeErr == nil && code == stillActive {
		wait = waitVerdict(windows.WaitForSingleObject(h, 0))
	}
	return exitVerdict(codeErr, code, wait)
}

// ownGroup is 0: Windows has no process groups, and End takes no group
// id below 2.
func ownGroup() int { return 0 }

// kill ends process pid at once for SIGKILL (TerminateProcess, with the
// exit code 1, as os.Process.Kill). Windows can neither ask a process to
// end (SIGTERM) nor signal a process group: those are unsupported, and
// Reap's SIGKILL follows once its grace has passed.
func kill(pid int, sig syscall.Signal) error {
	if pid <= 0 || sig != syscall.SIGKILL {
		return errors.ErrUnsupported
	}
	h, err := openProcess(pid, windows.PROCESS_TERMINATE)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(h)
	return windows.TerminateProcess(h, 1)
}

// dirID is unknown (zero) on Windows: a folder is matched by path.
func dirID(os.FileInfo) fileID { return fileID{} }
