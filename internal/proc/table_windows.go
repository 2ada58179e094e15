//go:build windows && (amd64 || arm64) && !gitwt_noprocfs

package proc

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"unsafe"

	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/registry"
)

// win32 reads the Windows process table (SPEC §21): the list and the
// parents from a toolhelp snapshot, liveness and start from a process
// handle, the working folder from the process's PEB, the holders of a
// file from the Restart Manager (rm_windows.go). The answers are read and
// judged by table_windows_layout.go.
type win32 struct{}

var sys table = win32{}

// The offsets of table_windows_layout.go are x/sys's: a difference fails
// this file's build.
var (
	peb    windows.PEB
	params windows.RTL_USER_PROCESS_PARAMETERS
)

var (
	_ [pebProcessParameters]byte   = [unsafe.Offsetof(peb.ProcessParameters)]byte{}
	_ [paramsCurrentDirectory]byte = [unsafe.Offsetof(params.CurrentDirectory) + unsafe.Offsetof(params.CurrentDirectory.DosPath)]byte{}
	_ [unicodeStringSize]byte      = [unsafe.Sizeof(params.CurrentDirectory.DosPath)]byte{}
	_ [unicodeStringBuffer]byte    = [unsafe.Offsetof(params.CurrentDirectory.DosPath.Buffer)]byte{}
)

// blind probes rather than assume: this process must find itself in the
// snapshot and read its own start.
func (t win32) blind() string {
	pids, err := t.pids()
	if err != nil {
		return fmt.Sprintf("the toolhelp snapshot cannot list the processes (%v)", err)
	}
	if !slices.Contains(pids, os.Getpid()) {
		return "the toolhelp snapshot does not list this process"
	}
	if _, err := t.stat(os.Getpid()); err != nil {
		return fmt.Sprintf("this process cannot read itself (%v)", err)
	}
	return ""
}

// nested: Windows has no PID namespaces. (A process-isolated Windows
// container has a host name of its own, so its stamps are another
// host's: unknown.)
func (win32) nested() string { return "" }

// bootID is the count of boots the memory manager keeps in the registry;
// "" where it cannot be read (Wine has none).
func (win32) bootID() string {
	k, err := registry.OpenKey(registry.LOCAL_MACHINE, `SYSTEM\CurrentControlSet\Control\Session Manager\Memory Management\PrefetchParameters`, registry.QUERY_VALUE)
	if err != nil {
		return ""
	}
	defer k.Close()
	v, _, err := k.GetIntegerValue("BootId")
	return bootIDValue(v, err)
}

// pidNamespace: every process of a Windows host counts pids in the one
// space, so a constant says "the same namespace" to Check, which with the
// boot id lets it prove a process dead.
func (win32) pidNamespace() string { return "windows" }

// snapEntry is one process of a toolhelp snapshot.
type snapEntry struct {
	ppid int
	name string // the program's file name, git.exe
}

// snapshot lists the processes by pid.
func snapshot() (map[int]snapEntry, error) {
	h, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return nil, err
	}
	defer windows.CloseHandle(h)
	procs := map[int]snapEntry{}
	e := windows.ProcessEntry32{Size: uint32(unsafe.Sizeof(windows.ProcessEntry32{}))}
	for err = windows.Process32First(h, &e); err == nil; err = windows.Process32Next(h, &e) {
		procs[int(e.ProcessID)] = snapEntry{ppid: int(e.ParentProcessID), name: windows.UTF16ToString(e.ExeFile[:])}
	}
	if !errors.Is(err, windows.ERROR_NO_MORE_FILES) {
		return nil, err
	}
	return procs, nil
}

func (win32) pids() ([]int, error) {
	procs, err := snapshot()
	if err != nil {
		return nil, err
	}
	pids := make([]int, 0, len(procs))
	for pid := range procs {
		pids = append(pids, pid)
	}
	slices.Sort(pids)
	return pids, nil
}

// stat reads a process from its handle (start, exit) and the snapshot
// (parent, name). A process that has exited but whose object a handle
// keeps is in no snapshot: exited, with no parent or name.
func (win32) stat(pid int) (stat, error) {
	h, err := openProcess(pid, 0)
	if err != nil {
		return stat{}, err
	}
	defer windows.CloseHandle(h)
	created, err := creationTime(h)
	if err != nil {
		return stat{}, fmt.Errorf("process %d: %w", pid, err)
	}
	var st stat
	st.start, st.startUnix = filetimeStart(created)
	if st.exited, err = hasExited(h); err != nil {
		return stat{}, fmt.Errorf("process %d: %w", pid, err)
	}
	if st.exited {
		return st, nil
	}
	procs, err := snapshot()
	if err != nil {
		return stat{}, err
	}
	if e, ok := procs[pid]; ok {
		st.name = imageName(e.name)
		parentStart, err := startOf(e.ppid)
		st.ppid = trueParent(e.ppid, created, parentStart, err)
	}
	return st, nil
}

// creationTime is when the process of handle h started, as a FILETIME.
func creationTime(h windows.Handle) (uint64, error) {
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(h, &created, &exited, &kernel, &user); err != nil {
		return 0, fmt.Errorf("cannot read its start: %w", err)
	}
	return uint64(created.HighDateTime)<<32 | uint64(created.LowDateTime), nil
}

// startOf is when process pid started.
func startOf(pid int) (uint64, error) {
	h, err := openProcess(pid, 0)
	if err != nil {
		return 0, err
	}
	defer windows.CloseHandle(h)
	return creationTime(h)
}

// errWow64 is a 32-bit process on 64-bit Windows, whose PEB has another
// layout than the one read here.
var errWow64 = errors.New("a 32-bit process: its working folder is not read")

// cwd reads a process's working folder from its PEB. A 32-bit process,
// and one that may not be read (another user's, an elevated one), are
// unknown: an error. Windows gives no device and inode: a folder is
// matched by path.
func (win32) cwd(pid int) (string, fileID, error) {
	h, err := openProcess(pid, windows.PROCESS_VM_READ)
	if err != nil {
		return "", fileID{}, err
	}
	defer windows.CloseHandle(h)
	var wow64 bool
	if err := windows.IsWow64Process(h, &wow64); err != nil {
		return "", fileID{}, fmt.Errorf("process %d: %w", pid, err)
	}
	if wow64 {
		return "", fileID{}, fmt.Errorf("process %d: %w", pid, errWow64)
	}
	var pbi windows.PROCESS_BASIC_INFORMATION
	if err := windows.NtQueryInformationProcess(h, windows.ProcessBasicInformation, unsafe.Pointer(&pbi), uint32(unsafe.Sizeof(pbi)), nil); err != nil {
		return "", fileID{}, fmt.Errorf("process %d: %w", pid, err)
	}
	read := func(addr uint64, n int) ([]byte, error) {
		b := make([]byte, n)
		var got uintptr
		if err := windows.ReadProcessMemory(h, uintptr(addr), &b[0], uintptr(n), &got); err != nil {
			return nil, err
		}
		if int(got) != n {
			return nil, fmt.Errorf("%d of %d bytes", got, n)
		}
		return b, nil
	}
	dir, err := readCurrentDirectory(read, uint64(uintptr(unsafe.Pointer(pbi.PebBaseAddress))))
	if err != nil {
		return "", fileID{}, fmt.Errorf("process %d: %w", pid, err)
	}
	return dir, fileID{}, nil
}

// errNotRead: what git-wt does not read of another process on Windows.
var errNotRead = errors.New("not read on Windows")

// args and env are not read: only proc.Group uses them, to tell a
// leftover process group, and Windows has none (the supervisor's job
// object ends the tree when its handle closes).
func (win32) args(int) ([]string, error) { return nil, errNotRead }
func (win32) env(int) ([]string, error)  { return nil, errNotRead }

// holders asks the Restart Manager which processes have the file open.
// Where it cannot answer, the holders are unknown.
func (win32) holders(path string) (map[int]bool, error) {
	return filesHolders([]string{path})
}

// filesHolders asks the Restart Manager which processes have any of the
// files open, and keeps those whose pid still names the process it
// answered for (or one whose start cannot be read: it may be that one).
func filesHolders(paths []string) (map[int]bool, error) {
	answered, err := restartManagerHolders(paths)
	if err != nil {
		return nil, err
	}
	holders := map[int]bool{}
	for _, h := range answered {
		st, err := sys.stat(h.pid)
		if errors.Is(err, fs.ErrNotExist) || err == nil && (st.exited || st.start != h.start) {
			continue
		}
		holders[h.pid] = true
	}
	return holders, nil
}

// rename: a process's name on Windows is its program's file name; it
// cannot be changed (see MarkAsUser).
func (win32) rename(string) {}
