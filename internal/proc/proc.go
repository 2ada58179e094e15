// Package proc identifies processes across pid reuse: a process is its
// pid, its host and its start time (Linux: /proc/<pid>/stat). A record
// left in "creating" by a dead process is found this way.
package proc

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ID names one process for as long as it runs, and never another.
type ID struct {
	PID   int
	Host  string
	Start string // RFC 3339 start time; "" where it cannot be read
}

// Self is the ID of this process.
func Self() ID {
	host, _ := os.Hostname()
	pid := os.Getpid()
	start, _ := StartTime(pid)
	return ID{PID: pid, Host: host, Start: start}
}

// Liveness is what can be said of a process.
type Liveness int

// Alive and Dead are certain; Unknown is a process on another host.
const (
	Unknown Liveness = iota
	Alive
	Dead
)

// Check tells whether the process id names still runs.
func Check(id ID) Liveness {
	host, _ := os.Hostname()
	if id.Host != host || id.PID <= 0 {
		return Unknown
	}
	fields, err := statFields(id.PID)
	if errors.Is(err, fs.ErrNotExist) {
		return Dead
	}
	if err != nil {
		return Unknown
	}
	if exited(fields) {
		return Dead // a zombie: it has exited, its parent has not reaped it yet
	}
	start, err := startOf(fields)
	if err != nil {
		return Unknown
	}
	if id.Start != "" && start != id.Start {
		return Dead // the pid was reused by a younger process
	}
	return Alive
}

// exited says whether the state field of /proc/<pid>/stat (fields[0]) is
// that of a process that has exited: Z (zombie) or X (dead).
func exited(fields []string) bool {
	return len(fields) > 0 && (fields[0] == "Z" || fields[0] == "X")
}

// clockTicks is USER_HZ: the unit of /proc/<pid>/stat's start time. It is
// 100 on every Linux architecture git-wt builds for.
const clockTicks = 100

// StartTime is when process pid started, as an RFC 3339 string that is the
// same every time it is computed for the same process.
func StartTime(pid int) (string, error) {
	fields, err := statFields(pid)
	if err != nil {
		return "", err
	}
	return startOf(fields)
}

// startOf is the start time in the fields of /proc/<pid>/stat.
func startOf(fields []string) (string, error) {
	// fields[0] is field 3 (state); starttime is field 22.
	if len(fields) < 20 {
		return "", errors.New("cannot read /proc stat")
	}
	ticks, err := strconv.ParseInt(fields[19], 10, 64)
	if err != nil {
		return "", err
	}
	boot, err := bootTime()
	if err != nil {
		return "", err
	}
	t := time.Unix(boot, 0).Add(time.Duration(ticks) * time.Second / clockTicks)
	return t.UTC().Format(time.RFC3339Nano), nil
}

// statFields reads /proc/<pid>/stat and returns its fields from the third
// (state) on. The command name (field 2) is in parentheses and may hold
// spaces, so fields are counted after its closing parenthesis.
func statFields(pid int) ([]string, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil, errors.New("cannot read /proc stat")
	}
	return strings.Fields(s[i+1:]), nil
}

var (
	bootOnce sync.Once
	bootSec  int64
	bootErr  error
)

// bootTime reads btime from /proc/stat: seconds since the epoch at boot.
func bootTime() (int64, error) {
	bootOnce.Do(func() {
		data, err := os.ReadFile("/proc/stat")
		if err != nil {
			bootErr = err
			return
		}
		for _, line := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(line, "btime "); ok {
				bootSec, bootErr = strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				return
			}
		}
		bootErr = errors.New("no btime in /proc/stat")
	})
	return bootSec, bootErr
}
