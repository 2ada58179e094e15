// These tests protect the progress line of long operations: drawn in place
// only when enabled and only after the delay, ending with ", done.", and
// silent when the operation was quick or the stream is not a terminal.
package progress

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestNilPrinterAndMeterDoNothing(t *testing.T) {
	var buf bytes.Buffer
	p := NewPrinter(&buf, false, nil)
	m := p.Start("copying", 10, Count)
	m.Add(5)
	m.Done()
	if p != nil || m != nil || buf.Len() != 0 {
		t.Fatalf("disabled printer drew %q", buf.String())
	}
}

func TestMeterDrawsInPlaceAndEndsWithDone(t *testing.T) {
	t.Setenv("GIT_PROGRESS_DELAY", "0")
	var buf bytes.Buffer
	m := NewPrinter(&buf, true, mebibytes).Start("checking worktrees", 4, Count)
	for range 4 {
		m.Add(1)
	}
	m.Done()
	want := "\rgit-wt: checking worktrees:   0% (0/4)\r" +
		"\rgit-wt: checking worktrees:  25% (1/4)\r" +
		"\rgit-wt: checking worktrees:  50% (2/4)\r" +
		"\rgit-wt: checking worktrees:  75% (3/4)\r" +
		"\rgit-wt: checking worktrees: 100% (4/4)\r" +
		"\rgit-wt: checking worktrees: 100% (4/4), done.\n"
	if buf.String() != want {
		t.Fatalf("got  %q\nwant %q", buf.String(), want)
	}
}

func TestQuickOperationShowsNothing(t *testing.T) {
	t.Setenv("GIT_PROGRESS_DELAY", "")
	var buf bytes.Buffer
	m := NewPrinter(&buf, true, mebibytes).Start("copying", 3, Count)
	m.Add(3)
	m.Done()
	if buf.Len() != 0 {
		t.Fatalf("a quick operation drew %q", buf.String())
	}
}

func TestBytesUnknownTotalAndPadding(t *testing.T) {
	t.Setenv("GIT_PROGRESS_DELAY", "0")
	var buf bytes.Buffer
	p := NewPrinter(&buf, true, mebibytes)
	m := p.Start("copying .env", 0, Bytes)
	m.Add(3 << 20)
	m.Done()
	if want := "\rgit-wt: copying .env: 0.0M\r\rgit-wt: copying .env: 3.0M, done.\n"; buf.String() != want {
		t.Fatalf("got %q, want %q", buf.String(), want)
	}
	// A shorter line blanks out what is left of a longer one.
	buf.Reset()
	m = p.Start("x", 1000, Count)
	m.Add(1000)
	m.drawn = 60
	m.Done()
	if line := strings.TrimSuffix(buf.String(), "\n"); len(strings.TrimPrefix(line[strings.LastIndex(line, "\r"):], "\r")) != 60 {
		t.Fatalf("no padding over the longer line: %q", buf.String())
	}
}

func TestMeterCountsFromManyGoroutines(t *testing.T) {
	t.Setenv("GIT_PROGRESS_DELAY", "0")
	var buf bytes.Buffer
	m := NewPrinter(&buf, true, mebibytes).Start("checking", 200, Count)
	var wg sync.WaitGroup
	for range 200 {
		wg.Add(1)
		go func() { defer wg.Done(); m.Add(1) }()
	}
	wg.Wait()
	m.Done()
	if !strings.HasSuffix(buf.String(), "100% (200/200), done.\n") {
		t.Fatalf("final line: %q", buf.String())
	}
}

func TestLongStepShowsTheMeterAtTheDelay(t *testing.T) {
	t.Setenv("GIT_PROGRESS_DELAY", "1")
	var buf syncBuffer
	m := NewPrinter(&buf, true, mebibytes).Start("init in /w", 1, Count)
	time.Sleep(1300 * time.Millisecond) // one init command that sleeps
	if got := buf.String(); got != "\rgit-wt: init in /w:   0% (0/1)\r" {
		t.Errorf("after the delay, with no step done: %q", got)
	}
	m.Add(1)
	m.Done()
}

func TestOtherOutputClearsTheMeterLineFirst(t *testing.T) {
	t.Setenv("GIT_PROGRESS_DELAY", "0")
	var buf bytes.Buffer
	p := NewPrinter(&buf, true, mebibytes)
	m := p.Start("init", 2, Count)
	buf.Reset()
	fmt.Fprint(p.Output(), "first done\n")
	if want := "\r" + strings.Repeat(" ", len("git-wt: init:   0% (0/2)")) + "\rfirst done\n"; buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
	buf.Reset()
	fmt.Fprint(p.Output(), "more\n") // the line is clear already
	m.Add(1)
	if want := "more\n\rgit-wt: init:  50% (1/2)\r"; buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
	m.Done()
}

// syncBuffer is a bytes.Buffer the meter's timer and the test may use at
// once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// mebibytes stands for the size format the cli passes (settings.FormatSize).
func mebibytes(n int64) string { return fmt.Sprintf("%.1fM", float64(n)/(1<<20)) }
