package task

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"time"
)

// PauseEnv names a step at which git-wt stops until the race tests let it
// go on: it creates the file $GIT_WT_TEST_PAUSE_FILE to say it got there,
// and goes on once the test has removed it (having, say, removed the task
// meanwhile). Unlike checkpoint, the command then finishes normally. It is
// read nowhere else.
const PauseEnv = "GIT_WT_TEST_PAUSE"

// pause waits at step name while the race tests hold it (see PauseEnv).
func pause(ctx context.Context, name string) {
	if os.Getenv(PauseEnv) != name {
		return
	}
	f := os.Getenv(PauseEnv + "_FILE")
	if f == "" || os.WriteFile(f, []byte(name), 0o644) != nil {
		return
	}
	for ctx.Err() == nil {
		if _, err := os.Stat(f); errors.Is(err, fs.ErrNotExist) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}
