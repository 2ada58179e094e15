// Package ports hands out the TCP ports of tasks (SPEC §10): each name in
// wt.port gets a port of the range that no other task holds and that
// nothing on this host listens on, the same first choice every time for
// the same task of the same repository.
package ports

import (
	"errors"
	"fmt"
	"hash/fnv"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Range is the inclusive range ports come from (wt.portRange).
type Range struct{ First, Last int }

// DefaultRange is wt.portRange's default.
var DefaultRange = Range{20000, 29999}

func (r Range) String() string { return fmt.Sprintf("%d-%d", r.First, r.Last) }

func (r Range) size() int { return r.Last - r.First + 1 }

// ParseRange reads "FIRST-LAST", both within 1-65535, FIRST <= LAST.
func ParseRange(s string) (Range, error) {
	a, b, ok := strings.Cut(strings.TrimSpace(s), "-")
	first, err1 := strconv.Atoi(strings.TrimSpace(a))
	last, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || first < 1 || last > 65535 || first > last {
		return Range{}, fmt.Errorf("%q is not a port range like 20000-29999", s)
	}
	return Range{first, last}, nil
}

// namePattern is what a port's name may be (SPEC §14 "Port names"): a
// name that says it holds a port, so that no committed file can name a
// variable git, a shell or the dynamic linker reads (GIT_CONFIG_GLOBAL,
// BASH_ENV, LD_PRELOAD) and point it at a file named like a port. SPEC's
// [A-Z][A-Z0-9_]*PORT, read so that PORT itself, its first example, is a
// name too.
var namePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:[A-Z][A-Z0-9_]*)?PORT$`) })

// CheckName refuses a wt.port value that is not a port's name (upper
// case, ending in PORT), or that is one of git's variables (GIT_*) or
// git-wt's own (WT_*).
func CheckName(name string) error {
	switch {
	case !namePattern().MatchString(name):
		return fmt.Errorf("%q is not a port's name: use upper case letters, digits and _, ending in PORT (PORT, API_PORT)", name)
	case strings.HasPrefix(name, "GIT_"):
		return fmt.Errorf("%q would set one of git's GIT_ variables", name)
	case strings.HasPrefix(name, "WT_"):
		return fmt.Errorf("%q would replace one of git-wt's WT_ variables", name)
	}
	return nil
}

// ErrExhausted means every port of the range is held or in use.
var ErrExhausted = errors.New("no free port left in the range")

// Allocate gives each of names that has no port in have a port of r: the
// first candidate hashed from the repository (its git common dir), the
// task's slug and the name, then the next ones, wrapping around. A port
// in taken (held by another task) or in this allocation, or one inUse
// reports busy, is skipped. It returns have with the new ports added.
func Allocate(names []string, have map[string]int, repo, slug string, r Range, taken map[int]bool, inUse func(port int) bool) (map[string]int, error) {
	out := make(map[string]int, len(names))
	held := make(map[int]bool, len(taken)+len(have))
	for p := range taken {
		held[p] = true
	}
	for name, p := range have {
		out[name] = p
		held[p] = true
	}
	for _, name := range names {
		if _, ok := out[name]; ok {
			continue
		}
		p, err := pick(first(repo, slug, name, r), r, held, inUse)
		if err != nil {
			return nil, err
		}
		out[name] = p
		held[p] = true
	}
	return out, nil
}

// first is a name's first candidate for the task.
func first(repo, slug, name string, r Range) int {
	h := fnv.New32a()
	h.Write([]byte(repo + "\x00" + slug + "\x00" + name))
	return r.First + int(h.Sum32()%uint32(r.size()))
}

// pick walks the range from start and returns the first port neither
// held nor in use.
func pick(start int, r Range, held map[int]bool, inUse func(int) bool) (int, error) {
	for i := 0; i < r.size(); i++ {
		p := r.First + (start-r.First+i)%r.size()
		if !held[p] && !inUse(p) {
			return p, nil
		}
	}
	return 0, ErrExhausted
}

// InUse reports whether something on this host has port: a bind on
// 127.0.0.1 and on ::1 that fails with EADDRINUSE or EACCES. Any other
// failure (no IPv6 in a container: EADDRNOTAVAIL, EAFNOSUPPORT) says
// nothing about the port (SPEC §14).
func InUse(port int) bool {
	for _, host := range []string{"127.0.0.1", "::1"} {
		l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
		if err == nil {
			l.Close()
			continue
		}
		if errors.Is(err, errAddrInUse) || errors.Is(err, errAccess) {
			return true
		}
	}
	return false
}
