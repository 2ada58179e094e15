//go:build darwin || freebsd

package fsutil

import "golang.org/x/sys/unix"

// mountUnder reads the mount table (getfsstat(2), one system call; macOS
// and FreeBSD have no bind mounts, but a disk image, an NFS or a FUSE
// file system can be mounted in any folder).
func mountUnder(dir string, self bool) (string, error) {
	n, err := unix.Getfsstat(nil, unix.MNT_NOWAIT)
	if err != nil {
		return "", err
	}
	buf := make([]unix.Statfs_t, n+8) // room for a mount made meanwhile
	if n, err = unix.Getfsstat(buf, unix.MNT_NOWAIT); err != nil {
		return "", err
	}
	mounts := make([]string, 0, n)
	for _, st := range buf[:n] {
		mounts = append(mounts, unix.ByteSliceToString(st.Mntonname[:]))
	}
	return firstWithin(dir, mounts, self), nil
}
