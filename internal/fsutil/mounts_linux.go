package fsutil

import "os"

// mountUnder reads this mount namespace's table; where it cannot (no
// /proc), it walks dir for a folder on another device.
func mountUnder(dir string, self bool) (string, error) {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return deviceChange(dir, self)
	}
	return firstWithin(dir, parseMountinfo(data), self), nil
}
