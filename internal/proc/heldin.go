package proc

import (
	"cmp"
	"io/fs"
	"path/filepath"
	"slices"
)

// heldFilesLimit bounds the files HoldersIn asks about: a worktree with
// node_modules has hundreds of thousands, and the answer only names who
// to close, after a removal the system refused (DESIGN.md).
const heldFilesLimit = 2000

// HoldersIn lists the processes that have one of the regular files under
// dir open (at most heldFilesLimit of them, in the walk's order; links
// and junctions are not followed), each with its pid and name; this
// process is among them when it holds one. Only Windows can tell (the
// Restart Manager, asked once for all the files): elsewhere an open file
// stops no rename or delete, and the answer is an error, as it is where
// the system cannot answer. No holders is not proof that none holds a
// file: a file past the limit, or a process the system would not name,
// may.
func HoldersIn(dir string) ([]User, error) {
	held, err := filesHolders(regularFilesUnder(dir, heldFilesLimit))
	if err != nil {
		return nil, err
	}
	users := make([]User, 0, len(held))
	for pid := range held {
		users = append(users, User{PID: pid, Name: nameOf(pid)})
	}
	slices.SortFunc(users, func(a, b User) int { return cmp.Compare(a.PID, b.PID) })
	return users, nil
}

// regularFilesUnder lists at most limit regular files under dir. The walk
// reads each entry without following it: a symbolic link, and on Windows
// a junction (an irregular file to Go), is neither a file nor a folder to
// walk into. Folders that cannot be read are passed over.
func regularFilesUnder(dir string, limit int) []string {
	var files []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil // an unreadable folder: WalkDir skips it
		case len(files) >= limit:
			return fs.SkipAll
		case d.Type().IsRegular():
			files = append(files, path)
		}
		return nil
	})
	return files
}
