// These tests hold the names of saved states (SPEC §20) and the checks of
// their info blob, which anyone who can push or write the git dir may
// have written (SPEC §19).
package saved

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestStampsAreUTCSecondsWithASameSecondNumber(t *testing.T) {
	at := time.Date(2026, 11, 28, 3, 50, 0, 999, time.FixedZone("CET", 3600))
	for _, tc := range []struct {
		n    int
		want string
	}{{1, "20261128T025000Z"}, {2, "20261128T025000Z-2"}, {12, "20261128T025000Z-12"}} {
		got := Stamp(at, tc.n)
		if got != tc.want {
			t.Errorf("Stamp(%d) = %q, want %q", tc.n, got, tc.want)
		}
		back, n, ok := ParseStamp(got)
		if !ok || n != tc.n || !back.Equal(at.Truncate(time.Second)) {
			t.Errorf("ParseStamp(%q) = %v, %d, %v", got, back, n, ok)
		}
	}
}

func TestParseStampTakesOnlyWhatStampWrites(t *testing.T) {
	for _, s := range []string{"", "20261128T025000", "20261128T025000Z-1", "20261128T025000Z-02", "20261128T025000Z-",
		"20261128T025000Z-x", "20261328T025000Z", "2026-11-28T02:50:00Z", "20261128T025000z", "20261128T025060Z", "20261128T025000Z.json"} {
		if _, _, ok := ParseStamp(s); ok {
			t.Errorf("ParseStamp(%q) took it", s)
		}
	}
}

func TestRefNames(t *testing.T) {
	if got := CommitRef("fix-x", "20261128T025000Z"); got != "refs/git-wt/trash/fix-x/20261128T025000Z" {
		t.Errorf("CommitRef = %q", got)
	}
	if got := InfoRef("fix-x", "20261128T025000Z"); got != "refs/git-wt/trash/fix-x/20261128T025000Z.json" {
		t.Errorf("InfoRef = %q", got)
	}
	for _, tc := range []struct {
		name        string
		slug, stamp string
		info, ok    bool
	}{
		{"refs/git-wt/trash/fix-x/20261128T025000Z", "fix-x", "20261128T025000Z", false, true},
		{"refs/git-wt/trash/fix-x/20261128T025000Z-3.json", "fix-x", "20261128T025000Z-3", true, true},
		{"refs/git-wt/trash/fix-x/20261128T025000Z.json.json", "", "", false, false},
		{"refs/git-wt/trash/fix-x/yesterday", "", "", false, false},
		{"refs/git-wt/trash/a/b/20261128T025000Z", "", "", false, false},
		{"refs/git-wt/trash//20261128T025000Z", "", "", false, false},
		{"refs/git-wt/trash/20261128T025000Z", "", "", false, false},
		{"refs/git-wt/tasks/fix-x", "", "", false, false},
	} {
		slug, stamp, info, ok := ParseRef(tc.name)
		if slug != tc.slug || stamp != tc.stamp || info != tc.info || ok != tc.ok {
			t.Errorf("ParseRef(%q) = %q %q %v %v", tc.name, slug, stamp, info, ok)
		}
	}
}

// goodPath is a clean absolute path on this platform: Windows' has a
// volume.
func goodPath() string {
	if runtime.GOOS == "windows" {
		return `C:\w\r-worktrees\fix-_bug_-1`
	}
	return "/w/r-worktrees/fix-_bug_-1"
}

func good() Info {
	return Info{Task: "fix: bug #1", Slug: "fix-_bug_-1", Branch: "wt/fix-_bug_-1", Base: "refs/heads/main", Path: goodPath(), Why: "rm --force",
		By: By{User: "u", Host: "h", PID: 7, Command: "git wt rm --force x"}, Commits: 3}
}

func TestParseReadsWhatEncodeWrites(t *testing.T) {
	i := good()
	got, err := Parse(i.Encode(), "fix-_bug_-1")
	if err != nil {
		t.Fatal(err)
	}
	i.Version = infoVersion
	if *got != i {
		t.Errorf("Parse(Encode(i)) = %+v, want %+v", *got, i)
	}
	// A second task of the same slug is kept under its hashed slug.
	h := good()
	h.Slug = "fix-_bug_-1-" + strings.Repeat("0", 6)
	if _, err := Parse(h.Encode(), h.Slug); err == nil {
		t.Error("a hashed slug that is not the task's own was taken")
	}
}

func TestParseRefusesWhatGitWtDoesNotWrite(t *testing.T) {
	for name, change := range map[string]func(*Info) string{
		"another slug":         func(i *Info) string { return "other" },
		"task of another slug": func(i *Info) string { i.Task = "other"; return i.Slug },
		"empty task":           func(i *Info) string { i.Task = ""; return i.Slug },
		"branch an option":     func(i *Info) string { i.Branch = "--upload-pack=x"; return i.Slug },
		"branch empty":         func(i *Info) string { i.Branch = ""; return i.Slug },
		"branch a line":        func(i *Info) string { i.Branch = "wt/x\nrefs/heads/main"; return i.Slug },
		"base an option":       func(i *Info) string { i.Base = "-x"; return i.Slug },
		"relative path":        func(i *Info) string { i.Path = "../../etc"; return i.Slug },
		"unclean path":         func(i *Info) string { i.Path = "/w/../etc"; return i.Slug },
		"negative count":       func(i *Info) string { i.Commits = -1; return i.Slug },
		"long branch":          func(i *Info) string { i.Branch = strings.Repeat("x", maxName+1); return i.Slug },
	} {
		i := good()
		refSlug := change(&i)
		if _, err := Parse(i.Encode(), refSlug); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: Parse = %v, want ErrCorrupt", name, err)
		}
	}
	for name, data := range map[string]string{
		"not JSON":      "{",
		"other version": `{"version":2,"task":"x","slug":"x","branch":"wt/x"}`,
		"too big":       `{"version":1,"task":"x","slug":"x","branch":"wt/x","why":"` + strings.Repeat("x", MaxInfo) + `"}`,
	} {
		if _, err := Parse([]byte(data), "x"); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: Parse = %v, want ErrCorrupt", name, err)
		}
	}
}

// FuzzParse: whatever a ref holds, Parse never panics, and what it takes
// holds to the rules restore relies on.
func FuzzParse(f *testing.F) {
	i := good()
	f.Add(i.Encode(), i.Slug)
	f.Add([]byte(`{"version":1,"task":"x","slug":"x","branch":"wt/x","path":"/a"}`), "x")
	f.Add([]byte(`{"version":1,"task":"x","slug":"y"}`), "y")
	f.Add([]byte(`null`), "")
	f.Fuzz(func(t *testing.T, data []byte, refSlug string) {
		info, err := Parse(data, refSlug)
		if err != nil {
			return
		}
		if info.Slug != refSlug || !ofSlug(info.Task, refSlug) || !plainName(info.Branch) || strings.HasPrefix(info.Base, "-") {
			t.Fatalf("Parse took %+v under %q", info, refSlug)
		}
		if info.Path != "" && !strings.HasPrefix(info.Path, "/") && !strings.Contains(info.Path, `:\`) {
			t.Fatalf("Parse took the path %q", info.Path)
		}
	})
}

func TestFindByIDStampOrTask(t *testing.T) {
	x := good()
	entries := []Entry{
		{ID: "a/20261128T025001Z", Slug: "a", Stamp: "20261128T025001Z", Info: &Info{Task: "A", Slug: "a"}},
		{ID: "b/20261128T025000Z-2", Slug: "b", Stamp: "20261128T025000Z-2", Info: &x},
		{ID: "a/20261128T025000Z", Slug: "a", Stamp: "20261128T025000Z", Info: &Info{Task: "A", Slug: "a"}},
		{ID: "c/20261128T025000Z", Slug: "c", Stamp: "20261128T025000Z"},
	}
	for arg, want := range map[string]string{
		"a/20261128T025000Z": "a/20261128T025000Z", "20261128T025001Z": "a/20261128T025001Z",
		"A": "a/20261128T025001Z", "a": "a/20261128T025001Z", "fix: bug #1": "b/20261128T025000Z-2",
	} {
		if e, err := Find(entries, arg); err != nil || e.ID != want {
			t.Errorf("Find(%q) = %v, %v; want %s", arg, e, err, want)
		}
	}
	for _, arg := range []string{"20261128T025000Z", "nothing", "c"} {
		if e, err := Find(entries, arg); err == nil {
			t.Errorf("Find(%q) = %s, want an error", arg, e.ID)
		}
	}
}
