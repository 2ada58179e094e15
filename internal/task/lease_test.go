package task

import (
	"testing"
	"time"
)

// The lease is renewed four times per grace, never more often than every
// 2 s, and at least once a minute (SPEC §15): a grace of 10m costs a
// write a minute, and one an init outlasts by far, 2 s.
func TestLeaseInterval(t *testing.T) {
	for _, c := range []struct{ grace, want time.Duration }{
		{0, 2 * time.Second},
		{4 * time.Second, 2 * time.Second},
		{20 * time.Second, 5 * time.Second},
		{2 * time.Minute, 30 * time.Second},
		{10 * time.Minute, time.Minute},
		{24 * time.Hour, time.Minute},
	} {
		if got := LeaseInterval(c.grace); got != c.want {
			t.Errorf("LeaseInterval(%v) = %v, want %v", c.grace, got, c.want)
		}
	}
}
