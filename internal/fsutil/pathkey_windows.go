package fsutil

import "strings"

// foldPath folds a clean path's case, which Windows' file systems ignore,
// and drops the \\?\ prefix of a long path, which names the same file.
// (filepath.Clean has already made git's forward slashes back slashes.)
func foldPath(clean string) string {
	if rest, ok := strings.CutPrefix(clean, `\\?\UNC\`); ok {
		clean = `\\` + rest
	} else {
		clean = strings.TrimPrefix(clean, `\\?\`)
	}
	return strings.ToLower(clean)
}
