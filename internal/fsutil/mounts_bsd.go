//go:build unix && !linux

package fsutil

// mountUnder walks dir for a folder on another device: macOS and the
// BSDs have no bind mounts, so a mount point is a change of device.
func mountUnder(dir string, self bool) (string, error) { return deviceChange(dir, self) }
