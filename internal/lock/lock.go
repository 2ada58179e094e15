// Package lock is the repository-wide lock of SPEC §7: a flock (Windows:
// LockFileEx) on a file in the git common dir. The kernel drops it when
// its process dies, so a killed git-wt never leaves the repository locked.
package lock

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Lock is a held lock.
type Lock struct {
	f *os.File
}

// ErrTimeout is returned when the lock stayed busy for the whole wait.
type ErrTimeout struct {
	Path string
	Wait time.Duration
}

func (e *ErrTimeout) Error() string {
	return fmt.Sprintf("gave up waiting %s for the repository lock %s: another git-wt holds it (see wt.lockTimeout)", e.Wait, e.Path)
}

// Acquire takes the lock at path, waiting at most timeout (0: no limit)
// or until ctx is done. The waiting is done by the kernel (a blocking
// flock), so waiters are woken as soon as the holder lets go.
func Acquire(ctx context.Context, path string, timeout time.Duration) (*Lock, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	if ok, _ := tryLock(f); ok {
		return &Lock{f: f}, nil
	}

	got := make(chan error) // unbuffered: a lock got after we gave up is closed, not leaked
	abandoned := make(chan struct{})
	go func() {
		err := waitLock(f)
		select {
		case got <- err:
		case <-abandoned:
			f.Close() // we gave up; closing drops the lock we just got
		}
	}()
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	select {
	case err := <-got:
		if err != nil {
			f.Close()
			return nil, err
		}
		return &Lock{f: f}, nil
	case <-expired:
		close(abandoned)
		return nil, &ErrTimeout{Path: path, Wait: timeout}
	case <-ctx.Done():
		close(abandoned)
		return nil, ctx.Err()
	}
}

// TryAcquire takes the lock at path if nobody holds it, without waiting:
// ok is false (and the lock nil) when another process holds it.
func TryAcquire(path string) (l *Lock, ok bool, err error) {
	f, err := openFile(path)
	if err != nil {
		return nil, false, err
	}
	ok, err = tryLock(f)
	if !ok {
		f.Close()
		return nil, false, err
	}
	return &Lock{f: f}, true, nil
}

// openFile opens the lock file at path, made (and its folder) if missing;
// never through a link, which anything that can write the git dir could
// plant there to make git-wt create or lock a file elsewhere (SPEC §19).
func openFile(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return nil, err
	}
	// Its folder too: a link there would make the lock file elsewhere.
	if st, err := os.Lstat(filepath.Dir(path)); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s is a link, where git-wt keeps its lock files: remove it", filepath.Dir(path))
	}
	return openNoFollow(path)
}

// errLink is openNoFollow's refusal of a lock file that is a link.
func errLink(path string) error {
	return fmt.Errorf("%s is a link, where git-wt keeps a lock file: remove it", path)
}

// Release lets the lock go.
func (l *Lock) Release() {
	if l != nil && l.f != nil {
		l.f.Close()
		l.f = nil
	}
}
