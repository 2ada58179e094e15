// These tests protect the two shapes of background work: a value started
// now and read later, and a bounded pool.
package async

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

func TestValueWaitsForItsResult(t *testing.T) {
	release := make(chan struct{})
	v := Start(func() (int, error) { <-release; return 42, errors.New("late") })
	got := make(chan int)
	go func() { n, _ := v.Get(); got <- n }()
	select {
	case <-got:
		t.Fatal("Get returned before the function did")
	case <-time.After(20 * time.Millisecond):
	}
	close(release)
	if n := <-got; n != 42 {
		t.Fatalf("Get = %d, want 42", n)
	}
	if _, err := v.Get(); err == nil || err.Error() != "late" {
		t.Fatalf("a second Get = %v, want the same error", err)
	}
}

func TestANilValueIsZero(t *testing.T) {
	var v *Value[string]
	if s, err := v.Get(); s != "" || err != nil {
		t.Fatalf("nil Value gave %q, %v", s, err)
	}
}

func TestEachRunsEveryIndexOnceWithAtMostWorkers(t *testing.T) {
	const n, workers = 50, 3
	var running, most atomic.Int32
	seen := make([]atomic.Int32, n)
	Each(n, workers, func(i int) {
		now := running.Add(1)
		for {
			m := most.Load()
			if now <= m || most.CompareAndSwap(m, now) {
				break
			}
		}
		time.Sleep(time.Millisecond)
		seen[i].Add(1)
		running.Add(-1)
	})
	for i := range seen {
		if seen[i].Load() != 1 {
			t.Fatalf("f(%d) ran %d times", i, seen[i].Load())
		}
	}
	if most.Load() > workers || most.Load() < 2 {
		t.Fatalf("%d ran at once, want between 2 and %d", most.Load(), workers)
	}
}

func TestEachOfNothingReturns(t *testing.T) {
	Each(0, 0, func(int) { t.Fatal("called") })
}

func TestLimitBoundsWhatRunsAtOnce(t *testing.T) {
	l := NewLimit(2)
	var running, most atomic.Int32
	var vals []*Value[int]
	for i := range 10 {
		vals = append(vals, Start(func() (int, error) {
			l.Do(func() {
				now := running.Add(1)
				for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
				}
				time.Sleep(time.Millisecond)
				running.Add(-1)
			})
			return i, nil
		}))
	}
	for i, v := range vals {
		if n, _ := v.Get(); n != i {
			t.Fatalf("value %d = %d", i, n)
		}
	}
	if most.Load() > 2 {
		t.Fatalf("%d ran at once under a limit of 2", most.Load())
	}
}
