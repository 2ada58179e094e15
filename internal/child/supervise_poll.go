//go:build unix && !linux

package child

import (
	"os"
	"time"
)

// pollParent returns a channel closed when process parent, this
// process's parent, has died, where the system cannot say so: getppid,
// once a second (a dead parent's children are given to another process).
func pollParent(parent int) <-chan struct{} {
	died := make(chan struct{})
	go func() { waitPoll(parent); close(died) }()
	return died
}

// waitPoll returns once process parent is no longer this process's parent.
func waitPoll(parent int) {
	for os.Getppid() == parent {
		time.Sleep(time.Second)
	}
}
