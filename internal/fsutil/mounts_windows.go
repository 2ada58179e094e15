package fsutil

// mountUnder finds none on Windows, where git-wt does not look for them
// (a volume mounted into a folder is a reparse point there).
func mountUnder(string, bool) (string, error) { return "", nil }
