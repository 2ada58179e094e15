package child

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"

	"github.com/git-wt/git-wt/internal/proc"
)

// SuperviseCommand is the hidden first argument that makes git-wt a
// supervisor (SPEC §15): `git-wt __supervise PARENT PATH ARGV0 ARGS...`
// runs the program PATH with the arguments ARGV0 ARGS... and ends its
// whole process group when process PARENT, the git-wt that started it,
// dies. It is for git-wt's own use: cli.Main hands it to Supervise
// before anything else runs.
const SuperviseCommand = "__supervise"

// SupervisorArgs are the first arguments of the supervisor that the
// git-wt of pid parent starts: what tells a group's leader as git-wt's
// own (proc.Group).
func SupervisorArgs(parent int) []string {
	return []string{"git-wt", SuperviseCommand, strconv.Itoa(parent)}
}

// parentArg is the supervisor's first argument, the pid of the git-wt
// that started it; false, said on stderr, when it is no number.
func parentArg(arg string) (int, bool) {
	parent, err := strconv.Atoi(arg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "git-wt: %s: the parent %q is not a process id\n", SuperviseCommand, arg)
		return 0, false
	}
	return parent, true
}

// startCommand starts the supervisor's command, the program path with
// the arguments argv, with the supervisor's own environment, folder,
// input and output, which git-wt set up as the command's. The
// supervisor's pid in its environment (proc.GroupEnv) tells its
// processes as git-wt's should the supervisor be killed (proc.Group.End).
// exited closes once the command has ended and been waited for. cmd is
// nil, said on stderr, when it could not start.
func startCommand(path string, argv []string) (cmd *exec.Cmd, exited <-chan struct{}) {
	env := append(os.Environ(), proc.GroupEnv+"="+strconv.Itoa(os.Getpid()))
	cmd = &exec.Cmd{Path: path, Args: argv, Env: env, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "git-wt: cannot run %s: %v\n", path, err)
		return nil, nil
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	return cmd, done
}

// supervise makes cmd, its program looked up, the supervisor's command:
// git-wt itself, which runs cmd's program with cmd's arguments. Where
// git-wt cannot find its own program (Linux without /proc, say), cmd is
// left as it is and leads its group itself: false.
func supervise(cmd *exec.Cmd) bool {
	self := ownProgram()
	if self == "" {
		return false
	}
	cmd.Args = append(append(SupervisorArgs(os.Getpid()), cmd.Path), cmd.Args...)
	cmd.Path = self
	return true
}

// ownProgram is the file of the program this process runs, "" when it
// cannot be found: the system's own name for it (selfExe) where it has
// one, else os.Executable, else the program's name looked up in PATH (as
// git runs git-wt).
func ownProgram() string {
	if selfExe != "" {
		if _, err := os.Stat(selfExe); err == nil {
			return selfExe
		}
	}
	if p, err := os.Executable(); err == nil {
		return p
	}
	if p, err := exec.LookPath(os.Args[0]); err == nil {
		return p
	}
	return ""
}
