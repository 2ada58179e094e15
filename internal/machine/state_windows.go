package machine

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// registryOpen are the flags the registry is opened with besides the
// access mode: none on Windows, which has no fifo at a path.
const registryOpen = 0

// stateDir is %LocalAppData% on Windows, the folder for a user's data
// that stays on this machine (os.UserCacheDir's answer there).
func stateDir(getenv func(string) string) (string, bool) {
	dir := getenv("LocalAppData")
	if !filepath.IsAbs(dir) {
		return "", false
	}
	return dir, true
}

// appendLine writes line at the end of the registry f, opened to append,
// holding a lock on its first byte meanwhile: an append on Windows is a
// write at the end of the file that another process's append can land on
// between (Wine's is a seek, then a write), and the lock keeps
// registrations from 30 processes from writing over each other.
func appendLine(f *os.File, line []byte) {
	h := windows.Handle(f.Fd())
	var at windows.Overlapped
	if windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &at) != nil {
		return
	}
	defer windows.UnlockFileEx(h, 0, 1, 0, &at)
	f.Write(line)
}
