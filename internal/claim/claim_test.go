package claim

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func TestMessageParsesBack(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, c := range []Claim{
		{Task: "T", Slug: "T", Branch: "wt/T", Machine: "m-1", Host: "h", CreatedAt: at, HeartbeatAt: at},
		{Task: "two\n\nparagraphs", Slug: "two-paragraphs", Machine: "m-3", CreatedAt: at, HeartbeatAt: at},
		{Task: "fix: bug #1", Slug: "fix-bug-1", Branch: "wt/fix-bug-1", Machine: "m-2", CreatedAt: at, HeartbeatAt: at, Released: true},
	} {
		commit := "tree 4b82\nauthor git-wt <git-wt@localhost> 1 +0000\n\n" + c.Message()
		got, err := Parse([]byte(commit))
		if err != nil || got != c {
			t.Errorf("%+v: parsed back as %+v, %v", c, got, err)
		}
	}
}

func TestParseRefusesWhatGitWtDidNotWrite(t *testing.T) {
	for _, commit := range []string{
		"tree x\n\njust a commit\n",
		"tree x\n\nsubject\n\nnot json\n",
		"tree x\n\nsubject\n\n{\"task\":\"T\"}\n", // no machine
		"no headers",
	} {
		if _, err := Parse([]byte(commit)); err == nil {
			t.Errorf("%q parsed as a claim", commit)
		}
	}
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
			if ids[i], err = MachineID(dir, ""); err != nil {
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
	if id, _ := MachineID(dir, "box-1"); id != "box-1" {
		t.Errorf("wt.machineId wins: %q", id)
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
