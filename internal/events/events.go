// Package events is git-wt's event log (SPEC §4): one JSON line per change
// git-wt makes or refuses, in <git common dir>/wt/events.jsonl, so that
// "who removed my worktree, and why?" has an answer.
package events

import (
	"bufio"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/git-wt/git-wt/internal/fsutil"
)

// MaxBytes bounds the log: past it, the log is moved to events.jsonl.1
// (replacing the older one) and a new one begun.
const MaxBytes = 1 << 20

// Event is one line of the log.
type Event struct {
	Time    time.Time `json:"time"`
	PID     int       `json:"pid"`
	Host    string    `json:"host"`
	Command string    `json:"command"`
	Task    string    `json:"task,omitempty"`
	Slug    string    `json:"slug,omitempty"`
	Path    string    `json:"path,omitempty"`
	Outcome string    `json:"outcome"`
	Reason  string    `json:"reason,omitempty"`
	// LockWaitMS is how long the command waited for the repository lock.
	LockWaitMS int64 `json:"lock_wait_ms,omitempty"`
}

// Log appends to and reads one event log.
type Log struct {
	Path    string // .../wt/events.jsonl
	Command string // the git-wt command writing, e.g. "rm"
}

// Append writes e, filling in time, pid, host and command. The log is best
// effort: a failure to write it never fails the command, so the error is
// only returned for the caller to mention.
func (l *Log) Append(e Event) error {
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	e.PID = os.Getpid()
	e.Host, _ = os.Hostname()
	if e.Command == "" {
		e.Command = l.Command
	}
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(l.Path), 0o777); err != nil {
		return err
	}
	l.rotate()
	// O_APPEND: concurrent writers' lines never interleave (one write each).
	// Never through a link planted in git-wt's folder.
	f, err := fsutil.OpenUnder(filepath.Dir(l.Path), l.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o666)
	if err != nil {
		return err
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// rotate starts a new log when the current one is full. Two processes may
// both see it full; the second rename then moves a young log over the old
// one, which loses at most a few lines of history, never a write.
func (l *Log) rotate() {
	st, err := os.Stat(l.Path)
	if err != nil || st.Size() < MaxBytes {
		return
	}
	os.Rename(l.Path, l.Path+".1")
}

// Read returns the events of the log, oldest first, including the rotated
// part. Lines it cannot read are skipped.
func (l *Log) Read() ([]Event, error) {
	var all []Event
	for _, p := range []string{l.Path + ".1", l.Path} {
		evs, err := readFile(p)
		if err != nil {
			return nil, err
		}
		all = append(all, evs...)
	}
	return all, nil
}

func readFile(path string) ([]Event, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var evs []Event
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		var e Event
		if json.Unmarshal(sc.Bytes(), &e) == nil {
			evs = append(evs, e)
		}
	}
	return evs, sc.Err()
}
