package task

import (
	"context"
	"os"
	"time"
)

// CheckpointEnv names a step at which git-wt stops and waits to be killed:
// the crash tests set it to prove that a SIGKILL at that exact step leaves
// a state that doctor and gc repair. It is read nowhere else.
const CheckpointEnv = "GIT_WT_TEST_CHECKPOINT"

// checkpoint blocks until ctx is done (a signal) when the crash tests
// asked to stop at name, after creating the file
// $GIT_WT_TEST_CHECKPOINT_FILE to say it got there. When
// $GIT_WT_TEST_CHECKPOINT_GO names a file, it also goes on once that file
// exists: the race tests let the process continue after they changed
// something behind its back.
func checkpoint(ctx context.Context, name string) {
	if os.Getenv(CheckpointEnv) != name {
		return
	}
	if f := os.Getenv(CheckpointEnv + "_FILE"); f != "" {
		os.WriteFile(f, []byte(name), 0o644)
	}
	goFile := os.Getenv(CheckpointEnv + "_GO")
	for {
		if goFile != "" {
			if _, err := os.Stat(goFile); err == nil {
				return
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(5 * time.Millisecond):
		}
	}
}
