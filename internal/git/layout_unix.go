//go:build unix

package git

import (
	"errors"
	"fmt"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// readRefFile reads a loose ref file (an object id and a newline, or a
// symbolic ref) with three system calls, where os.ReadFile makes six: list
// reads fifty of them before it can print anything.
func readRefFile(path string) ([]byte, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	buf := make([]byte, refFileMax)
	n := 0
	for n < len(buf) {
		m, err := unix.Read(fd, buf[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if m == 0 {
			return buf[:n], nil
		}
		n += m
	}
	return nil, fmt.Errorf("%s: longer than a ref", path)
}

// Unwritable returns the first folder of the repository whose common dir
// is commonDir that git must write to for a new worktree and this process
// may not, as the kernel decides for git (access(2): mode bits, ACLs, a
// read-only mount): the common dir (ref locks, packed-refs), objects/,
// refs/ and worktrees/ (a folder that is not there yet is git's to make).
// "" when git may write to them all.
func Unwritable(commonDir string) string {
	for _, d := range []string{commonDir, filepath.Join(commonDir, "objects"), filepath.Join(commonDir, "refs"), filepath.Join(commonDir, "worktrees")} {
		if err := unix.Access(d, unix.W_OK); errors.Is(err, unix.EACCES) || errors.Is(err, unix.EROFS) || errors.Is(err, unix.EPERM) {
			return d
		}
	}
	return ""
}
