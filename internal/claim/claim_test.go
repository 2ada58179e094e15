package claim

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/slug"
)

func TestMessageParsesBack(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, c := range []Claim{
		{Task: "T", Slug: "T", Branch: "wt/T", Machine: "m-1", Host: "h", CreatedAt: at, HeartbeatAt: at},
		{Task: "two\n\nparagraphs", Slug: "two-paragraphs", Machine: "m-3", CreatedAt: at, HeartbeatAt: at},
		{Task: "fix: bug #1", Slug: "fix-bug-1", Branch: "wt/fix-bug-1", Machine: "m-2", CreatedAt: at, HeartbeatAt: at, Released: true},
	} {
		commit := "tree 4b82\nauthor git-wt <git-wt@localhost> 1 +0000\n\n" + c.Message()
		got, err := Parse(c.Slug, []byte(commit))
		if err != nil || got != c {
			t.Errorf("%+v: parsed back as %+v, %v", c, got, err)
		}
	}
}

func TestParseRefusesWhatGitWtDidNotWrite(t *testing.T) {
	for _, commit := range []string{
		"tree x\n\njust a commit\n",
		"tree x\n\nsubject\n\nnot json\n",
		"tree x\n\nsubject\n\n{\"task\":\"T\",\"slug\":\"T\"}\n",    // no machine
		"tree x\n\nsubject\n\n{\"slug\":\"T\",\"machine\":\"m\"}\n", // no task
		"no headers",
	} {
		if _, err := Parse("T", []byte(commit)); err == nil {
			t.Errorf("%q parsed as a claim", commit)
		}
	}
}

// Anyone who can push writes a claim (SPEC §19): its slug names the
// claim's local files no more, and must be its ref's own name.
func TestParseRefusesAClaimThatIsNotItsRefs(t *testing.T) {
	claim := func(slug string) string {
		return "tree x\n\ngit-wt claim\n\n" + `{"task":"T","slug":` + strconv.Quote(slug) + `,"machine":"m"}` + "\n"
	}
	for _, c := range []struct{ name, commit, why string }{
		{"T", claim("../../../../x"), "not its ref's name"},
		{"T", claim("U"), "not its ref's name"},
		{"a/b", claim("a/b"), "not its ref's name"}, // a ref name that is no slug
		{"..", claim(".."), "not its ref's name"},
		{"T", claim("T") + strings.Repeat(" ", MaxSize), "more than"},
	} {
		if _, err := Parse(c.name, []byte(c.commit)); err == nil || !strings.Contains(err.Error(), c.why) {
			t.Errorf("Parse(%q, %.60q) = %v, want an error saying %q", c.name, c.commit, err, c.why)
		}
	}
	if _, err := Parse("T", []byte(claim("T"))); err != nil {
		t.Errorf("a claim whose slug is its ref's name: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	f.Add("T", []byte("tree 4b82\n\n"+Claim{Task: "T", Slug: "T", Machine: "m", CreatedAt: at, HeartbeatAt: at}.Message()))
	f.Add("x", []byte("tree 4b82\n\nsubject\n\n{\"task\":\"t\",\"slug\":\"../x\",\"machine\":\"m\"}"))
	f.Fuzz(func(t *testing.T, name string, commit []byte) {
		c, err := Parse(name, commit)
		if err != nil {
			return
		}
		if c.Slug != name || slug.Make(name) != name || c.Machine == "" || c.Task == "" || len(commit) > MaxSize {
			t.Fatalf("Parse(%q) accepted %+v", name, c)
		}
		if filepath.Base(c.Slug) != c.Slug || !filepath.IsLocal(c.Slug) {
			t.Fatalf("an accepted claim's slug is not one local path element: %q", c.Slug)
		}
	})
}

func TestMachineIDIsMadeOnceForEveryone(t *testing.T) {
	dir := t.TempDir()
	ids := make([]string, 8)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			if ids[i], err = MachineID(dir, "", t.Errorf); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for _, id := range ids {
		if id != ids[0] || id == "" {
			t.Fatalf("ids differ: %v", ids)
		}
	}
	if id, _ := MachineID(dir, "box-1", t.Errorf); id != "box-1" {
		t.Errorf("wt.machineId wins: %q", id)
	}
}

// A generated id belongs to the clone it was made in (SPEC §19): another
// binding (a copy, a booted VM image) makes a new id, said once; an id
// written by a git-wt that did not bind ids is kept, and bound.
func TestMachineIDIsBoundToItsClone(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wt", "machine-id")
	var said []string
	say := func(format string, args ...any) { said = append(said, fmt.Sprintf(format, args...)) }
	id, err := boundID(path, "bound 1:2 boot-a", say)
	if err != nil || len(said) != 0 {
		t.Fatalf("first id: %q %v %q", id, err, said)
	}
	if again, _ := boundID(path, "bound 1:2 boot-a", say); again != id || len(said) != 0 {
		t.Fatalf("the same clone keeps its id quietly: %q, %q", again, said)
	}
	for _, bind := range []string{"bound 1:3 boot-a", "bound 1:3 boot-b"} { // a copy; then a restart
		before := id
		if id, err = boundID(path, bind, say); err != nil || id == before {
			t.Fatalf("%s: the id stays %q (%v)", bind, id, err)
		}
		if n := len(said); n == 0 || !strings.Contains(said[n-1], before) || !strings.Contains(said[n-1], id) {
			t.Fatalf("%s: not said which id replaced which: %q", bind, said)
		}
		if again, _ := boundID(path, bind, say); again != id {
			t.Fatalf("the new id is kept: %q, %q", again, id)
		}
	}
	if len(said) != 2 {
		t.Errorf("each change is said once: %q", said)
	}
	// An id of before binding.
	if err := os.WriteFile(path, []byte("old-1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	said = nil
	if got, _ := boundID(path, "bound 1:3 boot-b", say); got != "old-1" || len(said) != 0 {
		t.Fatalf("an unbound id is kept and bound: %q %q", got, said)
	}
	if data, _ := os.ReadFile(path); string(data) != "old-1\nbound 1:3 boot-b\n" {
		t.Fatalf("the file: %q", data)
	}
}

func TestSightingsKeepTheFirstTimeOfOneCommit(t *testing.T) {
	s := Sightings{Dir: t.TempDir()}
	t0 := time.Unix(1000, 0)
	if got := s.See("T", "aaa", t0); !got.Equal(t0) {
		t.Fatalf("first sighting: %v", got)
	}
	if got := s.See("T", "aaa", t0.Add(time.Hour)); !got.Equal(t0) {
		t.Errorf("the same commit later keeps its first sighting: %v", got)
	}
	if got := s.See("T", "bbb", t0.Add(2*time.Hour)); !got.Equal(t0.Add(2 * time.Hour)) {
		t.Errorf("a new commit (a heartbeat) starts again: %v", got)
	}
}

func TestBeatsAreDueOncePerInterval(t *testing.T) {
	b := Beats{Dir: filepath.Join(t.TempDir(), "beats")}
	now := time.Now()
	if !b.Due("T", time.Minute, now) {
		t.Fatal("never sent: due")
	}
	if b.Due("T", time.Minute, now.Add(time.Second)) {
		t.Error("sent a second ago: not due")
	}
	if !b.Due("T", time.Minute, now.Add(2*time.Minute)) {
		t.Error("sent two minutes ago: due")
	}
	if _, err := os.Stat(filepath.Join(b.Dir, "T")); err != nil {
		t.Error(err)
	}
}

func TestHeartbeatDueness(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, c := range []struct {
		name  string
		last  time.Time
		every time.Duration
		want  bool
	}{
		{"sent just now", now, time.Minute, false},
		{"sent within the interval", now.Add(-59 * time.Second), time.Minute, false},
		{"sent an interval ago", now.Add(-time.Minute), time.Minute, true},
		{"sent long ago", now.Add(-time.Hour), time.Minute, true},
		{"every command, wt.claimHeartbeat 0", now, 0, true},
		{"stamped a second in the future", now.Add(time.Second), time.Minute, true},
		{"stamped a day in the future", now.Add(24 * time.Hour), time.Hour, true},
	} {
		if got := due(c.last, c.every, now); got != c.want {
			t.Errorf("%s: due = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestHostPart(t *testing.T) {
	for in, want := range map[string]string{"build-box.example.com": "build-box", "": "machine", "ünï": "n", "a_b": "ab"} {
		if got := hostPart(in); got != want {
			t.Errorf("hostPart(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestHashedOf(t *testing.T) {
	plain := slug.Make("fix/login")
	for name, want := range map[string]bool{
		slug.WithSuffix(plain, "fix-login"): true,
		slug.WithSuffix(plain, "fix:login"): true,
		plain:                               false,
		plain + "-12345":                    false,
		plain + "-1234567":                  false,
		plain + "-ABCDEF":                   false,
		"fix-logout-abcdef":                 false,
	} {
		if got := hashedOf(name, plain); got != want {
			t.Errorf("hashedOf(%q, %q) = %v, want %v", name, plain, got, want)
		}
	}
}
