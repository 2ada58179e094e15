package gittest

import (
	"context"
	"fmt"
	"testing"

	"github.com/git-wt/git-wt/internal/git"
)

// recorder is a test that keeps its failures instead of failing.
type recorder struct {
	testing.TB
	errors   []string
	cleanups []func()
}

func (r *recorder) Helper()          {}
func (r *recorder) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) end() {
	for _, f := range r.cleanups {
		f()
	}
}

func TestFake(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		expect [][]string
		run    [][]string
		fails  int
	}{
		{"as expected", [][]string{{"status"}, {"log", "a b"}}, [][]string{{"status"}, {"log", "a b"}}, 0},
		{"a call missing", [][]string{{"status"}, {"log"}}, [][]string{{"status"}}, 1},
		{"a call not expected", [][]string{{"status"}}, [][]string{{"status"}, {"log"}}, 1},
		{"other arguments", [][]string{{"log", "a b"}}, [][]string{{"log", "a", "b"}}, 2}, // wrong, then missing
		{"out of order", [][]string{{"a"}, {"b"}}, [][]string{{"b"}, {"a"}}, 2},           // b for a, then b missing
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{TB: t}
			f := New(r)
			for _, args := range tc.expect {
				f.Expect(args...)
			}
			g := f.Git()
			for _, args := range tc.run {
				g.Run(ctx, "/r", args...)
			}
			r.end()
			if len(r.errors) != tc.fails {
				t.Errorf("%d failures, want %d: %q", len(r.errors), tc.fails, r.errors)
			}
		})
	}
}

func TestFakeAnswers(t *testing.T) {
	f := New(t)
	f.Expect("rev-parse", "HEAD").Out("abc\n")
	f.Expect("merge-base", "a", "b").Out("partial").Fail(1, "")
	g := f.Git()
	if out, err := g.Run(context.Background(), "/r", "rev-parse", "HEAD"); out != "abc\n" || err != nil {
		t.Errorf("got %q, %v", out, err)
	}
	out, err := g.Run(context.Background(), "/r", "merge-base", "a", "b")
	if out != "partial" || git.ExitCode(err) != 1 {
		t.Errorf("got %q, %v; want exit 1", out, err)
	}
}
