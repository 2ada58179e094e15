package child

import "strconv"

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
