//go:build (!linux && !darwin && !(windows && (amd64 || arm64))) || gitwt_noprocfs

package proc

import "errors"

// blindTable is the fallback (SPEC §15): a system without a backend of
// its own (32-bit Windows too), or a build with -tags gitwt_noprocfs. It can list no process
// and read none, so liveness comes from kill(pid, 0) alone (Windows:
// OpenProcess and the exit code; alive or unknown, never dead), and the
// users of a folder and the holders of a lock file are unknown.
type blindTable struct{}

var sys table = blindTable{}

var errNoTable = errors.New("this build of git-wt cannot read the process table")

func (blindTable) blind() string {
	return "this build of git-wt cannot read the process table of this system"
}
func (blindTable) nested() string                       { return "" }
func (blindTable) bootID() string                       { return "" }
func (blindTable) pidNamespace() string                 { return "" }
func (blindTable) pids() ([]int, error)                 { return nil, errNoTable }
func (blindTable) stat(int) (stat, error)               { return stat{}, errNoTable }
func (blindTable) cwd(int) (string, fileID, error)      { return "", fileID{}, errNoTable }
func (blindTable) args(int) ([]string, error)           { return nil, errNoTable }
func (blindTable) env(int) ([]string, error)            { return nil, errNoTable }
func (blindTable) holders(string) (map[int]bool, error) { return nil, errNoTable }
func (blindTable) rename(string)                        {}
