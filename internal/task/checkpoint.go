package task

import (
	"context"
	"io"
	"os"
	"slices"
	"strings"
	"time"
)

// CheckpointEnv names a step at which git-wt stops: the crash tests set it
// to prove that a SIGKILL at that exact step leaves a state that doctor
// and gc repair, the race tests to change something behind git-wt's back
// at that step and then let it go on. It is read nowhere else.
const CheckpointEnv = "GIT_WT_TEST_CHECKPOINT"

// Checkpoint blocks when the tests asked to stop at name (one of the
// comma-separated names in $GIT_WT_TEST_CHECKPOINT), after creating
// the file $GIT_WT_TEST_CHECKPOINT_FILE to say it got there: until ctx is
// done (a signal), or, when $GIT_WT_TEST_CHECKPOINT_FIFO names a fifo,
// until the test has opened it for writing and closed it again, or, when
// $GIT_WT_TEST_CHECKPOINT_GO names a file, until that file exists. The
// race tests use the last two to do something behind git-wt's back at
// that exact step, then let it go on.
func Checkpoint(ctx context.Context, name string) {
	if !slices.Contains(strings.Split(os.Getenv(CheckpointEnv), ","), name) {
		return
	}
	if f := os.Getenv(CheckpointEnv + "_FILE"); f != "" {
		os.WriteFile(f, []byte(name), 0o644)
	}
	if fifo := os.Getenv(CheckpointEnv + "_FIFO"); fifo != "" {
		if f, err := os.Open(fifo); err == nil { // blocks until a writer opens it
			io.Copy(io.Discard, f) // until the writer closes it
			f.Close()
			return
		}
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
