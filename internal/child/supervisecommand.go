package child

import (
	"os"
	"os/exec"
	"strconv"
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
