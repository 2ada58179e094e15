// Package async starts work now and hands its answer out later. A git
// process costs milliseconds before it reads its input, so git-wt's hot
// paths start what they will need (the settings, the records, a task's
// lookup, the worktrees' statuses) before they need it; this is the one
// shape all of that takes.
package async

import (
	"runtime"
	"sync"
)

// Value is the result of a function running in the background.
type Value[T any] struct {
	done chan struct{}
	v    T
	err  error
}

// Start runs f in the background; Get waits for its result.
func Start[T any](f func() (T, error)) *Value[T] {
	v := &Value[T]{done: make(chan struct{})}
	go func() {
		defer close(v.done)
		v.v, v.err = f()
	}()
	return v
}

// Get waits for the result. A nil Value was never started: its result is
// the zero value, with no error.
func (v *Value[T]) Get() (T, error) {
	if v == nil {
		var zero T
		return zero, nil
	}
	<-v.done
	return v.v, v.err
}

// Limit bounds how many functions run at once: as many as there are
// cores, the most that help when each starts a process or does disk work.
type Limit chan struct{}

// NewLimit returns a bound of n at once (0: as many as there are cores).
func NewLimit(n int) Limit {
	if n <= 0 {
		n = runtime.NumCPU()
	}
	return make(Limit, n)
}

// Do runs f once fewer than the bound run.
func (l Limit) Do(f func()) {
	l <- struct{}{}
	defer func() { <-l }()
	f()
}

// Each runs f(0), ..., f(n-1) on at most workers goroutines at once (0:
// as many as there are cores) and returns when all have.
func Each(n, workers int, f func(i int)) {
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	workers = min(workers, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
