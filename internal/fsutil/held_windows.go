package fsutil

// Held reports whether err is Windows refusing a rename or a delete
// because another process holds a file (winerr.go), what Rename and
// RemoveAll retry briefly before they report it.
func Held(err error) bool { return windowsHeld(err) }

// NoSpace reports whether err is a full disk: ERROR_DISK_FULL or
// ERROR_HANDLE_DISK_FULL (Go's syscall.ENOSPC is never returned here).
func NoSpace(err error) bool { return windowsDiskFull(err) }

// CrossDevice reports whether err is a rename refused because it crosses
// volumes: ERROR_NOT_SAME_DEVICE (EXDEV's twin).
func CrossDevice(err error) bool { return windowsNotSameDevice(err) }
