package fsutil

import "strings"

// foldPath folds a clean path's case: Windows' file systems ignore it.
// (filepath.Clean has already made git's forward slashes back slashes.)
func foldPath(clean string) string { return strings.ToLower(clean) }
