package git

import (
	"fmt"
	"os"
)

// readRefFile reads a loose ref file (an object id and a newline, or a
// symbolic ref).
func readRefFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err == nil && len(b) >= refFileMax {
		return nil, fmt.Errorf("%s: longer than a ref", path)
	}
	return b, err
}

// Unwritable is "" on Windows, where access(2) has no equivalent short of
// evaluating the folders' ACLs: git itself reports a folder it cannot
// write to.
func Unwritable(commonDir string) string { return "" }
