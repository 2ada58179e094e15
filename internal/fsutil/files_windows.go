package fsutil

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// openDirNoFollow opens path if it is a folder, never through a link.
// Windows has no O_NOFOLLOW|O_DIRECTORY: os.Lstat tells a folder from a
// symlink or junction (which Go does not report as a folder).
func openDirNoFollow(path string) (*os.File, error) {
	st, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("not a folder")}
	}
	return os.Open(path)
}

// Executable says whether the file at path can be run, as Git for Windows
// asks of a hook, there being no execute bit: a .exe, or a script that
// starts with "#!".
func Executable(path string) bool {
	if strings.HasSuffix(strings.ToLower(path), ".exe") {
		return true
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 2)
	n, _ := f.Read(head)
	return bytes.Equal(head[:n], []byte("#!"))
}

// Owner is not known on Windows yet (an owner is a SID, not a uid and a
// gid): ok is false.
func Owner(os.FileInfo) (uid, gid uint32, ok bool) { return 0, 0, false }
