package proc

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/windows"
)

// stillActive is the exit code Windows reports for a process that has
// not exited (STILL_ACTIVE).
const stillActive = 259

// signalled is what OpenProcess and the exit code say: a process with
// that pid runs (Alive: it may be another process that reuses the pid,
// and waiting for it is the safe mistake; also where access is denied, as
// for an elevated process), or nothing that proves the process dead
// (Unknown).
func signalled(pid int) Liveness {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if errors.Is(err, windows.ERROR_ACCESS_DENIED) {
		return Alive
	}
	if err != nil {
		return Unknown
	}
	defer windows.CloseHandle(h)
	var code uint32
	if windows.GetExitCodeProcess(h, &code) == nil && code == stillActive {
		return Alive
	}
	return Unknown
}

// ownGroup is 0: Windows has no process groups, and End takes no group
// id below 2.
func ownGroup() int { return 0 }

// kill is not implemented on Windows yet (SPEC §21: a job object will end
// an init's tree). Nothing reaches it: the fallback table sees no process
// to end.
func kill(int, syscall.Signal) error { return errors.ErrUnsupported }

// dirID is unknown (zero) on Windows yet: a folder is matched by path.
func dirID(os.FileInfo) fileID { return fileID{} }
