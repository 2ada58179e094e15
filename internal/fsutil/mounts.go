package fsutil

import (
	"bufio"
	"bytes"
	"path/filepath"
	"strconv"
	"strings"
)

// A folder git-wt deletes (a worktree, a task's build output) may hold a
// mount point: a bind mount of a data set, a FUSE file system, a tmpfs.
// Deleting the folder would delete what is mounted there, which lives
// elsewhere and is no part of the folder; a bind mount of the same file
// system has the same device number, so only the mount table can tell.

// MountUnder is the first mount point at or below the folder dir (its
// links resolved), "" when there is none: what deleting dir's contents
// would reach into.
func MountUnder(dir string) (string, error) { return mountIn(dir, true) }

// MountInside is MountUnder leaving dir itself out: a worktree that is a
// file system of its own goes with its contents; one mounted inside it
// is not its to delete.
func MountInside(dir string) (string, error) { return mountIn(dir, false) }

func mountIn(dir string, self bool) (string, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	found, err := mountUnder(real, self)
	return found, err
}

// firstWithin is the first of the mount points that lies below dir, or
// at it when self.
func firstWithin(dir string, mounts []string, self bool) string {
	for _, m := range mounts {
		if Within(dir, m) && (self || m != dir) {
			return m
		}
	}
	return ""
}

// parseMountinfo reads the mount points of /proc/<pid>/mountinfo: the
// fifth field of each line, with the octal escapes the kernel writes for
// a space, a tab, a line break and a backslash (\040, \011, \012, \134).
func parseMountinfo(data []byte) []string {
	var mounts []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 5 {
			continue
		}
		mounts = append(mounts, unescapeMount(f[4]))
	}
	return mounts
}

// unescapeMount undoes the kernel's \ooo escapes in a mount point.
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
