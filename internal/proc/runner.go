package proc

import "os"

// hookGlue are the processes between an agent runner and the git-wt its
// hook runs: the shell the runner starts the command with, git's
// dispatch of `git wt`, an env or timeout wrapper.
var hookGlue = map[string]bool{
	"sh": true, "bash": true, "dash": true, "zsh": true, "fish": true, "ash": true,
	"git": true, "git-wt": true, "env": true, "timeout": true, "nohup": true,
}

// Caller is the first process above this one that is not the glue a hook
// runs through (SPEC §16): the agent runner whose hook started git-wt.
// ok is false when the process table cannot say.
func Caller() (ID, bool) {
	me := Self()
	seen := map[int]bool{}
	for pid := os.Getppid(); pid > 1 && !seen[pid]; {
		seen[pid] = true
		st, err := sys.stat(pid)
		if err != nil {
			return ID{}, false
		}
		if !hookGlue[st.name] {
			return ID{PID: pid, Host: me.Host, Boot: me.Boot, PIDNS: me.PIDNS, Start: st.start}, true
		}
		pid = st.ppid
	}
	return ID{}, false
}
