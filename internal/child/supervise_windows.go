package child

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"unsafe"

	"github.com/git-wt/git-wt/internal/exitcode"
	"golang.org/x/sys/windows"
)

// groupAttr starts a command in a console process group of its own, out
// of reach of the console's Ctrl+C, as a unix group leader is out of its
// terminal's. The group that dies with git-wt is the supervisor's job
// object (Supervise).
func groupAttr(bool) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
}

// everyGroupSupervised: Windows has no process groups to end a command's
// tree by; the supervisor's job object is the group, so every Group
// command runs under the supervisor.
const everyGroupSupervised = true

// selfExe: no name for the own program; os.Executable finds it.
const selfExe = ""

// diedCode is the exit code of the processes of a job ended because its
// git-wt died: 128+SIGKILL, as a shell reports a unix group killed so.
const diedCode = 128 + 9

// Supervise is git-wt run as a supervisor on Windows (SPEC §21): it puts
// itself in a job object of its own that kills on close, then runs the
// command as its child, so that the command and everything it starts are
// in the job (a process cannot leave it), and waits. When its git-wt
// dies, however it dies, it ends the job (TerminateJobObject), itself
// included; should the supervisor itself be killed (an interrupt's
// cancel, or with git-wt's own tree), its handle to the job, the only
// one, closes and Windows kills what the job holds. When the command ends,
// the supervisor lifts the kill on close, so that what the command left
// running lives on as a unix group's does, and it ends with the
// command's exit code. The command's environment, directory, input and
// output are the supervisor's own, which git-wt set up as the command's.
func Supervise(args []string) int {
	if len(args) < 3 {
		fmt.Fprintf(os.Stderr, "git-wt: %s PARENT PATH ARGV0 [ARGS...] is for git-wt's own use\n", SuperviseCommand)
		return exitcode.Usage
	}
	parent, ok := parentArg(args[0])
	if !ok {
		return exitcode.Usage
	}
	watch, err := openParent(parent)
	if err != nil {
		return diedCode // git-wt died before the watch began
	}
	defer windows.CloseHandle(watch)
	job, err := joinNewJob()
	if err != nil {
		fmt.Fprintf(os.Stderr, "git-wt: cannot run %s in a job object that ends it with git-wt: %v\n", args[1], err)
		return 127
	}
	cmd, exited := startCommand(args[1], args[2:])
	if cmd == nil {
		return 127
	}
	died := make(chan struct{})
	go func() { windows.WaitForSingleObject(watch, windows.INFINITE); close(died) }()
	select {
	case <-exited:
		setKillOnClose(job, false)
		return cmd.ProcessState.ExitCode()
	case <-died:
		windows.TerminateJobObject(job, diedCode)
		return diedCode
	}
}

// openParent opens the git-wt that started this supervisor, to wait for
// its end. Its pid alone may name another process by now (Windows reuses
// an exited process's pid, and does not give its children to another
// parent): the process opened must have started before this one.
func openParent(parent int) (windows.Handle, error) {
	if parent <= 0 || os.Getppid() != parent {
		return 0, fmt.Errorf("process %d is not this process's parent", parent)
	}
	h, err := windows.OpenProcess(windows.SYNCHRONIZE|windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(parent))
	if err != nil {
		return 0, err
	}
	parentStart, err := started(h)
	if err == nil {
		var ownStart uint64
		if ownStart, err = started(windows.CurrentProcess()); err == nil && parentStart > ownStart {
			err = errors.New("the parent's pid names a younger process now")
		}
	}
	if err != nil {
		windows.CloseHandle(h)
		return 0, err
	}
	return h, nil
}

// started is when the process of handle h started, as a FILETIME.
func started(h windows.Handle) (uint64, error) {
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(h, &created, &exited, &kernel, &user); err != nil {
		return 0, err
	}
	return uint64(created.HighDateTime)<<32 | uint64(created.LowDateTime), nil
}

// joinNewJob makes a job object that kills its processes when its last
// handle closes, and puts this process in it: the processes it starts
// from now on are in it too.
func joinNewJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, err
	}
	if err := setKillOnClose(job, true); err != nil {
		windows.CloseHandle(job)
		return 0, err
	}
	if err := windows.AssignProcessToJobObject(job, windows.CurrentProcess()); err != nil {
		windows.CloseHandle(job)
		return 0, err
	}
	return job, nil
}

// setInformationJobObject is kernel32's, called through LazyProc.Call:
// x/sys's wrapper takes the structure as a uintptr converted before the
// call, which a move of the goroutine's stack would leave stale.
var setInformationJobObject = windows.NewLazySystemDLL("kernel32.dll").NewProc("SetInformationJobObject")

// setKillOnClose sets or lifts the job's JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
// (its only limit).
func setKillOnClose(job windows.Handle, on bool) error {
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	if on {
		info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	}
	ok, _, err := setInformationJobObject.Call(uintptr(job), windows.JobObjectExtendedLimitInformation, uintptr(unsafe.Pointer(&info)), unsafe.Sizeof(info))
	if ok == 0 {
		return err
	}
	return nil
}
