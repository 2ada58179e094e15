package machine

import "path/filepath"

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
