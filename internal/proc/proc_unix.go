//go:build unix

package proc

import (
	"errors"
	"os"
	"syscall"
)

// signalled is what kill(pid, 0) says: a process with that pid exists in
// this process's namespace (Alive: it may be another process that reuses
// the pid, and waiting for it is the safe mistake), or nothing that
// proves the process dead (Unknown: it may run where this process cannot
// see).
func signalled(pid int) Liveness {
	if err := syscall.Kill(pid, 0); err == nil || errors.Is(err, syscall.EPERM) {
		return Alive
	}
	return Unknown
}

// ownGroup is this process's process group.
func ownGroup() int { return syscall.Getpgrp() }

// kill sends sig to process pid, or to process group -pid.
func kill(pid int, sig syscall.Signal) error { return syscall.Kill(pid, sig) }

// dirID is the device and inode of a folder that was stat'ed; zero when
// unknown.
func dirID(st os.FileInfo) fileID {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return fileID{dev: uint64(s.Dev), ino: s.Ino}
	}
	return fileID{}
}
