package proc

// What Windows answers (table_windows.go and proc_windows.go make the
// calls), read and judged here. This file is built on every platform so
// that its tests run where CI runs: Wine runs the calls, but it is not
// Windows (its Restart Manager is a stub, it has no BootId), and Windows
// itself is not run by CI.
//
// The layouts are those of a 64-bit process (amd64, arm64, and x64 code
// emulated on arm64: the same offsets). The PEB's are checked against
// golang.org/x/sys/windows's PEB and RTL_USER_PROCESS_PARAMETERS when
// git-wt is built for windows (table_windows.go), so the cross-compile of
// make test fails if they drift; the Restart Manager's RM_PROCESS_INFO is
// not in x/sys and comes from <RestartManager.h>.

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf16"
)

// The Windows error numbers (winerror.h) the verdicts below read. They
// are syscall.Errno on every platform, so that the tests here can make
// them; on Windows they are x/sys's windows.ERROR_… values.
const (
	errorAccessDenied     = syscall.Errno(5)
	errorInvalidParameter = syscall.Errno(87)
	errorMoreData         = syscall.Errno(234)
)

// stillActive is the exit code GetExitCodeProcess reports for a process
// that has not exited (STILL_ACTIVE) — and for one that exited with the
// code 259, which only a wait tells apart.
const stillActive = 259

// openVerdict judges OpenProcess's answer for pid: nil when it opened
// that very process; an error wrapping fs.ErrNotExist when no process has
// that pid (OpenProcess answers ERROR_INVALID_PARAMETER, or — as it drops
// a pid's two low bits — opened another pid than the one asked for);
// else the error, for which the process is unknown (access denied: an
// elevated or protected process, another user's), never absent.
func openVerdict(pid int, err error, opened uint32) error {
	switch {
	case errors.Is(err, errorInvalidParameter):
		return fmt.Errorf("process %d: %w", pid, fs.ErrNotExist)
	case err != nil:
		return fmt.Errorf("process %d: %w", pid, err)
	case int64(opened) != int64(pid):
		return fmt.Errorf("process %d: %w (process %d answered)", pid, fs.ErrNotExist, opened)
	}
	return nil
}

// waitResult is what WaitForSingleObject(process, 0) said.
type waitResult int

const (
	waitNotTried  waitResult = iota // the handle may not wait (no SYNCHRONIZE access)
	waitSignalled                   // WAIT_OBJECT_0: the process has ended
	waitTimedOut                    // WAIT_TIMEOUT: it runs
	waitFailed
)

// waitVerdict reads WaitForSingleObject's answer.
func waitVerdict(event uint32, err error) waitResult {
	switch {
	case err != nil:
		return waitFailed
	case event == 0: // WAIT_OBJECT_0
		return waitSignalled
	case event == 258: // WAIT_TIMEOUT
		return waitTimedOut
	}
	return waitFailed
}

// exitVerdict judges whether a process has exited, from GetExitCodeProcess
// (code, or codeErr) and, for STILL_ACTIVE, the wait that tells a running
// process from one that exited with the code 259. A process whose exit
// code cannot be read is unknown (the error). One whose handle cannot
// wait and says STILL_ACTIVE counts as running: taking a live process
// for dead is the mistake that deletes, the other only waits.
func exitVerdict(codeErr error, code uint32, wait waitResult) (exited bool, err error) {
	switch {
	case codeErr != nil:
		return false, fmt.Errorf("cannot read its exit code: %w", codeErr)
	case code != stillActive:
		return true, nil
	}
	return wait == waitSignalled, nil
}

// filetimeUnixEpoch is 1970-01-01 as a FILETIME: 100 ns intervals since
// 1601-01-01 UTC.
const filetimeUnixEpoch = 116444736000000000

// filetimeStart is a process's creation time (GetProcessTimes, a FILETIME)
// as stat's start: the count itself, which no change of the wall clock
// moves once the process runs, and the same time in Unix seconds (0 where
// the FILETIME is not a time after 1970).
func filetimeStart(ft uint64) (string, float64) {
	var unix float64
	if ft > filetimeUnixEpoch {
		unix = float64(ft-filetimeUnixEpoch) / 1e7
	}
	return strconv.FormatUint(ft, 10), unix
}

// trueParent is the parent pid the process list gives (ppid) if it is
// still the parent: Windows does not give an orphan to another parent, and
// a pid whose process exited may name a younger process now. A parent
// must have started before its child; one whose start cannot be read is
// kept (what its pid names will be unknown too).
func trueParent(ppid int, childStart, parentStart uint64, parentErr error) int {
	if errors.Is(parentErr, fs.ErrNotExist) || parentErr == nil && parentStart > childStart {
		return 0
	}
	return ppid
}

// imageName is a process's name as the rest of the package compares it:
// the program's file name without ".exe" (git.exe is "git", as Linux's
// comm and macOS's p_comm say).
func imageName(exe string) string {
	if len(exe) > 4 && strings.EqualFold(exe[len(exe)-4:], ".exe") {
		return exe[:len(exe)-4]
	}
	return exe
}

// A 64-bit process's environment block (winternl.h).
const (
	pebProcessParameters   = 0x20 // PEB.ProcessParameters, a pointer
	paramsCurrentDirectory = 0x38 // RTL_USER_PROCESS_PARAMETERS.CurrentDirectory.DosPath, a UNICODE_STRING
	unicodeStringSize      = 16   // UNICODE_STRING: uint16 Length (bytes), uint16 MaximumLength, then at 8 the pointer Buffer
	unicodeStringBuffer    = 8
	// maxPathBytes bounds a path read from another process: the longest
	// a UNICODE_STRING can say (a 16-bit length in bytes).
	maxPathBytes = 1<<16 - 2
)

// memReader reads n bytes at addr of another process's memory
// (ReadProcessMemory).
type memReader func(addr uint64, n int) ([]byte, error)

// readCurrentDirectory follows a 64-bit process's memory from its PEB (at
// peb) to its working folder: PEB.ProcessParameters, then the parameters'
// CurrentDirectory.DosPath, then the UTF-16 path it points at, which ends
// with a backslash (dropped but for a drive's root). The process may
// change its folder meanwhile: what is read is checked to be a path, not
// trusted to be one.
func readCurrentDirectory(read memReader, peb uint64) (string, error) {
	if peb == 0 {
		return "", errors.New("the process has no PEB")
	}
	b, err := read(peb+pebProcessParameters, 8)
	if err != nil {
		return "", fmt.Errorf("cannot read its PEB: %w", err)
	}
	params := le.Uint64(b)
	if params == 0 {
		return "", errors.New("its process parameters are not set up (yet)")
	}
	us, err := read(params+paramsCurrentDirectory, unicodeStringSize)
	if err != nil {
		return "", fmt.Errorf("cannot read its process parameters: %w", err)
	}
	length, buf := int(le.Uint16(us)), le.Uint64(us[unicodeStringBuffer:])
	if length == 0 || length%2 != 0 || length > maxPathBytes || buf == 0 {
		return "", fmt.Errorf("its current directory is no path (%d bytes at %#x)", length, buf)
	}
	raw, err := read(buf, length)
	if err != nil {
		return "", fmt.Errorf("cannot read its current directory: %w", err)
	}
	return dosPath(raw)
}

// dosPath decodes a UTF-16LE path, which must be absolute (C:\… or
// \\server\…), and drops the backslash that ends a process's current
// directory, but for a root's (C:\).
func dosPath(raw []byte) (string, error) {
	units := make([]uint16, len(raw)/2)
	for i := range units {
		units[i] = le.Uint16(raw[2*i:])
	}
	p := string(utf16.Decode(units))
	if strings.IndexByte(p, 0) >= 0 || !absolute(p) {
		return "", fmt.Errorf("its current directory is no path: %q", p)
	}
	if strings.HasSuffix(p, `\`) && !strings.HasSuffix(p, `:\`) && strings.Trim(p, `\`) != "" {
		p = strings.TrimSuffix(p, `\`)
	}
	return p, nil
}

// absolute reports whether p is an absolute Windows path: a drive's
// (C:\) or a share's (\\server\share, \\?\C:\).
func absolute(p string) bool {
	if strings.HasPrefix(p, `\\`) {
		return true
	}
	return len(p) >= 3 && p[1] == ':' && p[2] == '\\' && ('a' <= p[0]|0x20 && p[0]|0x20 <= 'z')
}

// The Restart Manager's RM_PROCESS_INFO (<RestartManager.h>): the
// process (RM_UNIQUE_PROCESS: DWORD dwProcessId, FILETIME
// ProcessStartTime), WCHAR strAppName[256], WCHAR
// strServiceShortName[64], then four DWORDs; 4-byte aligned.
const (
	rmProcessInfoSize = 668
	rmPID             = 0 // Process.dwProcessId
	rmStartLow        = 4 // Process.ProcessStartTime, a FILETIME
	rmStartHigh       = 8
)

// rmHolder is one process the Restart Manager says has a file open.
type rmHolder struct {
	pid   int
	start string // as stat's start (filetimeStart)
}

// parseRMProcessInfo reads the n RM_PROCESS_INFO that RmGetList wrote
// into b.
func parseRMProcessInfo(b []byte, n int) ([]rmHolder, error) {
	if n < 0 || n*rmProcessInfoSize > len(b) {
		return nil, fmt.Errorf("RM_PROCESS_INFO: %w (%d of %d bytes)", errShort, len(b), n*rmProcessInfoSize)
	}
	holders := make([]rmHolder, n)
	for i := range holders {
		info := b[i*rmProcessInfoSize:]
		ft := uint64(le.Uint32(info[rmStartHigh:]))<<32 | uint64(le.Uint32(info[rmStartLow:]))
		holders[i].pid = int(le.Uint32(info[rmPID:]))
		holders[i].start, _ = filetimeStart(ft)
	}
	return holders, nil
}

// bootIDValue is the boot stamp from the registry's BootId, a count of
// the system's boots; "" (unknown) where it cannot be read or is 0.
func bootIDValue(v uint64, err error) string {
	if err != nil || v == 0 {
		return ""
	}
	return strconv.FormatUint(v, 10)
}
