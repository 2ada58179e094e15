// These tests protect how ports are handed out (SPEC §10): the same first
// choice for the same task, never a port another task holds or something
// on the host listens on, and an exhausted range as an error.
package ports

import (
	"errors"
	"net"
	"strings"
	"testing"
)

func never(int) bool { return false }

func TestTheSameTaskAsksForTheSamePortsFirst(t *testing.T) {
	a, err := Allocate([]string{"PORT", "API_PORT"}, nil, "/repo/.git", "T", DefaultRange, nil, never)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Allocate([]string{"PORT", "API_PORT"}, nil, "/repo/.git", "T", DefaultRange, nil, never)
	if a["PORT"] != b["PORT"] || a["API_PORT"] != b["API_PORT"] {
		t.Fatalf("%v then %v: the first choice must not change", a, b)
	}
	if a["PORT"] == a["API_PORT"] {
		t.Fatalf("two names got one port: %v", a)
	}
	other, _ := Allocate([]string{"PORT"}, nil, "/other/.git", "T", DefaultRange, nil, never)
	if other["PORT"] == a["PORT"] {
		t.Logf("two repositories met on %d (rare, allowed)", a["PORT"])
	}
	for _, p := range a {
		if p < DefaultRange.First || p > DefaultRange.Last {
			t.Fatalf("port %d outside %v", p, DefaultRange)
		}
	}
}

func TestAllocateSkipsHeldAndBusyPortsAndWraps(t *testing.T) {
	r := Range{100, 104}
	start := first("/repo", "T", "PORT", r)
	held := map[int]bool{start: true}
	busy := r.First + (start-r.First+1)%5
	got, err := Allocate([]string{"PORT"}, nil, "/repo", "T", r, held, func(p int) bool { return p == busy })
	if err != nil {
		t.Fatal(err)
	}
	if want := r.First + (start-r.First+2)%5; got["PORT"] != want {
		t.Fatalf("got %d, want %d: the first port neither held nor busy, wrapping around the range", got["PORT"], want)
	}
}

func TestAllocateKeepsThePortsATaskHas(t *testing.T) {
	got, err := Allocate([]string{"PORT", "API_PORT"}, map[string]int{"PORT": 20001, "OLD": 20002}, "/repo", "T", DefaultRange, nil, func(p int) bool { return p == 20001 })
	if err != nil {
		t.Fatal(err)
	}
	if got["PORT"] != 20001 || got["OLD"] != 20002 || got["API_PORT"] == 0 || got["API_PORT"] == 20001 || got["API_PORT"] == 20002 {
		t.Fatalf("got %v: a task keeps its ports (even busy, even of a name no longer configured); a new name gets another", got)
	}
}

func TestAnExhaustedRangeIsAnError(t *testing.T) {
	r := Range{100, 101}
	_, err := Allocate([]string{"A_PORT", "B_PORT", "C_PORT"}, nil, "/repo", "T", r, nil, never)
	if !errors.Is(err, ErrExhausted) {
		t.Fatalf("got %v, want ErrExhausted", err)
	}
	_, err = Allocate([]string{"A_PORT"}, nil, "/repo", "T", r, map[int]bool{100: true, 101: true}, never)
	if !errors.Is(err, ErrExhausted) {
		t.Fatalf("got %v, want ErrExhausted when other tasks hold every port", err)
	}
}

func TestParseRange(t *testing.T) {
	for in, want := range map[string]Range{"20000-29999": DefaultRange, " 1 - 1 ": {1, 1}} {
		if got, err := ParseRange(in); err != nil || got != want {
			t.Errorf("ParseRange(%q) = %v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "3000", "0-10", "10-70000", "20-10", "a-b"} {
		if _, err := ParseRange(bad); err == nil {
			t.Errorf("ParseRange(%q) accepted", bad)
		}
	}
}

func TestCheckName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"PORT", true},
		{"API_PORT", true},
		{"VITE_PORT", true},
		{"DB2_PORT", true},
		{"X_PORT", true},
		{"APIPORT", true},
		{"", false},
		{"port", false},
		{"Api_PORT", false},
		{"_PORT", false},  // starts with _
		{"9_PORT", false}, // starts with a digit
		{"MY-PORT", false},
		{"A=PORT", false},
		{"PORT ", false},
		{"PORT\n", false},
		{"PORTS", false},
		{"PORT_NUMBER", false},
		{"BASH_ENV", false},
		{"LD_PRELOAD", false},
		{"GIT_CONFIG_GLOBAL", false},
		{"GIT_PORT", false},
		{"GIT_SSH_PORT", false},
		{"WT_PORT", false},
		{"WT_PATH", false},
	} {
		if err := CheckName(tc.name); (err == nil) != tc.ok {
			t.Errorf("CheckName(%q) = %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}

// FuzzCheckName: what CheckName accepts is a port's name, safe to export
// as it is: upper case ASCII, digits and _, ending in PORT, never one of
// git's or git-wt's variables.
func FuzzCheckName(f *testing.F) {
	for _, seed := range []string{"PORT", "API_PORT", "GIT_PORT", "WT_PORT", "BASH_ENV", "A\nPORT", "PORT\x00", "ÄPORT", "_PORT"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if CheckName(name) != nil {
			return
		}
		if !strings.HasSuffix(name, "PORT") || strings.HasPrefix(name, "GIT_") || strings.HasPrefix(name, "WT_") || name[0] < 'A' || name[0] > 'Z' {
			t.Fatalf("CheckName accepted %q", name)
		}
		for _, r := range name {
			if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
				t.Fatalf("CheckName accepted %q, with %q", name, r)
			}
		}
	})
}

func TestInUseSeesAListener(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip("cannot listen on 127.0.0.1:", err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	if !InUse(port) {
		t.Fatalf("port %d has a listener but InUse says free", port)
	}
	l.Close()
	if InUse(port) {
		t.Fatalf("port %d is free again but InUse says busy", port)
	}
}
