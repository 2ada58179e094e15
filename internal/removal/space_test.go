package removal

import "testing"

func TestACachedCheckoutSizeIsOnlyAHint(t *testing.T) {
	const free = 10 << 30
	for _, c := range []struct {
		name string
		size int64
		want bool
	}{
		{"a small checkout", 200 << 20, true},
		{"half the free space", free / 2, true},
		{"more than half: it could refuse a pool entry", free/2 + 1, false},
		{"more than is free: it would refuse new", 9000000000000000000, false},
		{"negative", -1, false},
	} {
		if got := usableCachedSize(c.size, free); got != c.want {
			t.Errorf("%s: usable %v, want %v", c.name, got, c.want)
		}
	}
}
