//go:build !(windows && (amd64 || arm64)) || gitwt_noprocfs

package proc

import "errors"

// filesHolders: only Windows refuses to rename or delete a file another
// process has open, and only its Restart Manager (table_windows.go)
// names that process; here nobody is looked for.
func filesHolders([]string) (map[int]bool, error) {
	return nil, errors.New("this system does not say which process has a file open")
}
