package git

import "os"

// fileIDs is not known on Windows yet (Go's file info carries no volume
// serial or file index): the config cache's fingerprints never match, so
// it is never trusted, and Discover leaves finding the repository to git.
func fileIDs(os.FileInfo) (dev, ino uint64, ok bool) { return 0, 0, false }

// fileOwner is not known on Windows yet (an owner is a SID, not a uid):
// the config cache is never trusted.
func fileOwner(os.FileInfo) (uid uint32, ok bool) { return 0, false }
