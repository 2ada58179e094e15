// These tests protect the registry of repositories (SPEC §20): a line
// that names no repository git-wt registered is never read as one, and
// registering costs a write only for a repository the file does not list.
package machine

import (
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil/platform"
)

// sys is registry data written the unix way made this system's: each
// line's path as platform.Abs has it (on Windows C:\r\.git).
func sys(data string) string {
	lines := strings.Split(data, "\n")
	for i, l := range lines {
		lines[i] = platform.Abs(l)
	}
	return strings.Join(lines, "\n")
}

// abs is each of the unix paths ps as platform.Abs has it.
func abs(ps ...string) []string {
	var out []string
	for _, p := range ps {
		out = append(out, platform.Abs(p))
	}
	return out
}

func TestParseRegistryKeepsOnlyAbsoluteCleanPrintablePaths(t *testing.T) {
	long := "/" + strings.Repeat("a", maxLine)
	for _, tc := range []struct {
		name string
		data string
		want []string
	}{
		{"empty", "", nil},
		{"one", "/r/.git\n", []string{"/r/.git"}},
		{"duplicates once, first order", "/b/.git\n/a/.git\n/b/.git\n", []string{"/b/.git", "/a/.git"}},
		{"a torn last line is skipped", "/a/.git\n/b/.g", []string{"/a/.git"}},
		{"relative", "r/.git\n./r\n/a\n", []string{"/a"}},
		{"not clean", "/a/../b\n/a//b\n/a/\n/c\n", []string{"/c"}},
		{"control characters", "/a\x1b[31m\n/b\r\n/c\x00d\n/e\u0085\n/f\n", []string{"/f"}},
		{"invalid utf-8", "/a\xff\n/b\n", []string{"/b"}},
		{"empty lines", "\n\n/a\n\n", []string{"/a"}},
		{"a line too long", long + "\n/a\n", []string{"/a"}},
		{"a line too long whose tail looks like a path", "/" + strings.Repeat("x", maxLine) + "/tail\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, want := sys(tc.data), abs(tc.want...)
			if got := ParseRegistry([]byte(data)); !slices.Equal(got, want) {
				t.Errorf("ParseRegistry(%q) = %q, want %q", data, got, want)
			}
		})
	}
}

func FuzzParseRegistry(f *testing.F) {
	for _, seed := range []string{"", "/r/.git\n", "/a\n/a\n", "/a\n/b", "x\n/\x00\n", "/a/../b\n", "/\u202e\n"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got := ParseRegistry(data)
		seen := map[string]bool{}
		for _, p := range got {
			if !validPath(p) || seen[p] || strings.Contains(p, "\n") {
				t.Fatalf("ParseRegistry(%q) gave %q", data, p)
			}
			seen[p] = true
			// Every path read is one Register could have written.
			if line, ok := registryLine(p); !ok || !listed(data, line) {
				t.Fatalf("ParseRegistry(%q) gave %q, which is no whole line of it", data, p)
			}
		}
	})
}

func TestRegistryPathFollowsXDGThenHome(t *testing.T) {
	// The platform's state folder: ~/.local/state, on Windows
	// %LocalAppData%; the other's variable names nothing.
	state, other := map[string]string{"HOME": "/h"}, map[string]string{"LocalAppData": "/l"}
	stateDir := "/h/.local/state"
	if runtime.GOOS == "windows" {
		state, other, stateDir = other, state, "/l"
	}
	with := func(env map[string]string, k, v string) map[string]string {
		env = maps.Clone(env)
		env[k] = v
		return env
	}
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
		ok   bool
	}{
		{"XDG_STATE_HOME", with(state, "XDG_STATE_HOME", "/s"), "/s/git-wt/repos", true},
		{"a relative XDG_STATE_HOME is ignored", with(state, "XDG_STATE_HOME", "s"), stateDir + "/git-wt/repos", true},
		{"the state folder", state, stateDir + "/git-wt/repos", true},
		{"another system's variable", other, "", false},
		{"no home", map[string]string{}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := RegistryPath(func(k string) string { return platform.Abs(tc.env[k]) })
			if got != platform.Abs(tc.want) || ok != tc.ok {
				t.Errorf("got %q %v, want %q %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestRegisterWritesOnlyANewRepository(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "git-wt", "repos")
	Register(path, platform.Abs("/a/.git"))
	Register(path, platform.Abs("/b/.git"))
	st1, _ := os.Stat(path)
	Register(path, platform.Abs("/a/.git"))
	Register(path, "relative")                                         // not registrable: nothing written
	Register(path, platform.Abs("/c")+"\n"+platform.Abs("/evil/.git")) // a newline would forge a line
	Register(path, platform.Abs("/"+strings.Repeat("x", maxLine)))     // too long for one atomic append
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != sys("/a/.git\n/b/.git\n") {
		t.Errorf("registry holds %q", data)
	}
	if st2, _ := os.Stat(path); st2.Size() != st1.Size() {
		t.Errorf("a repository already listed was written again")
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 && runtime.GOOS != "windows" { // no unix modes there
		t.Errorf("registry mode %v, want 0600 (it names the user's repositories)", st.Mode().Perm())
	}
}

func TestRegisterAfterATornLineStillRegisters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "repos")
	os.WriteFile(path, []byte(sys("/a/.git\n/b/.g")), 0o600) // a crash mid-line
	Register(path, platform.Abs("/b/.git"))
	// The torn line is ended (a path that is no repository: the survey
	// skips it) and the new one is a line of its own.
	if got, err := ReadRegistry(path); err != nil || !slices.Equal(got, abs("/a/.git", "/b/.g", "/b/.git")) {
		t.Errorf("registry lists %q %v: the torn line must not swallow the new one", got, err)
	}
}

func TestRegisterIntoAFolderItCannotWriteIsSilent(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "state"), nil, 0o600) // a file where the folder would go
	Register(filepath.Join(dir, "state", "git-wt", "repos"), platform.Abs("/a/.git"))
	if got, _ := ReadRegistry(filepath.Join(dir, "state", "git-wt", "repos")); len(got) != 0 {
		t.Errorf("got %q", got)
	}
	if st, err := os.Stat(filepath.Join(dir, "state")); err != nil || st.IsDir() || st.Size() != 0 {
		t.Errorf("the file in the way was changed: %v %v", st, err)
	}
}

func TestConcurrentRegistrationsKeepEveryLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "repos")
	var want []string
	var wg sync.WaitGroup
	for i := range 30 {
		p := filepath.Join(platform.Abs("/repos"), strings.Repeat("r", 200+i), ".git")
		want = append(want, p)
		wg.Add(1)
		go func() { defer wg.Done(); Register(path, p) }()
	}
	wg.Wait()
	got, err := ReadRegistry(path)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("registry lists %d of %d repositories", len(got), len(want))
	}
}

func TestReadRegistryOfNoFileListsNone(t *testing.T) {
	got, err := ReadRegistry(filepath.Join(t.TempDir(), "none"))
	if got != nil || err != nil {
		t.Errorf("got %q %v", got, err)
	}
}

// BenchmarkRegisterListed is what every command pays: the registry read,
// for a repository it lists among 200.
func BenchmarkRegisterListed(b *testing.B) {
	path := filepath.Join(b.TempDir(), "repos")
	for i := range 200 {
		Register(path, filepath.Join("/home/user/src", strings.Repeat("r", i%40)+string(rune('a'+i%26)), ".git"))
	}
	Register(path, "/home/user/src/this/.git")
	for b.Loop() {
		Register(path, "/home/user/src/this/.git")
	}
}
