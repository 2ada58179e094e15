//go:build !windows

package fsutil

// foldPath is the clean path itself: case is the file system's to fold
// (macOS' may; slug.Folds tells two task names apart there).
func foldPath(clean string) string { return clean }
