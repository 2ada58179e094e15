// These tests protect the config listing cache: a kept listing is used
// only while it is what git would list, and whatever could change the
// listing without changing a watched file keeps nothing.
package git

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/testutil/githome"
)

// cacheCase is one repository for the cache's tests: its main worktree,
// a system config file (absent at first), and the home folder.
type cacheCase struct {
	t                  *testing.T
	root, repo, system string
}

func newCacheCase(t *testing.T) *cacheCase {
	requireFileIDs(t)
	root := githome.New(t)
	c := &cacheCase{t: t, root: root, repo: filepath.Join(root, "repo"), system: filepath.Join(root, "etc", "gitconfig")}
	os.Unsetenv("GIT_CONFIG_NOSYSTEM")
	t.Setenv("GIT_CONFIG_SYSTEM", c.system)
	os.MkdirAll(filepath.Dir(c.system), 0o755) // git names a system file only in a folder that exists
	newRepo(t, c.repo)
	return c
}

// everyKey keeps every key: the tests of what is kept when.
var everyKey = ConfigKeys{Kept: func(string) bool { return true }}

// list runs the listing as the commands do (from the cache when it can,
// keeping it when it can) after ageing every config file past the racy
// window, and returns it.
func (c *cacheCase) list(dir string) string {
	c.t.Helper()
	c.age()
	out, _, err := (&Runner{}).StartConfigList(context.Background(), dir, Discover(dir), everyKey)()
	if err != nil && ExitCode(err) != 1 {
		c.t.Fatal(err)
	}
	return out
}

// age sets every file under root back an hour: as if written long ago.
func (c *cacheCase) age() {
	old := time.Now().Add(-time.Hour)
	filepath.Walk(c.root, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			os.Chtimes(p, old, old)
		}
		return nil
	})
}

// kept is the kept listing that would be used from dir now.
func (c *cacheCase) kept(dir string) (string, bool) {
	return CachedConfigList(Discover(dir), everyKey)
}

// fresh is what git lists from dir now.
func (c *cacheCase) fresh(dir string) string {
	c.t.Helper()
	out, _ := (&Runner{}).Run(context.Background(), dir, ConfigListArgs...)
	return out
}

func (c *cacheCase) write(path, content string) {
	c.t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		c.t.Fatal(err)
	}
}

func TestAKeptListingIsWhatGitLists(t *testing.T) {
	c := newCacheCase(t)
	first := c.list(c.repo)
	got, ok := c.kept(c.repo)
	if !ok || got != first || got != c.fresh(c.repo) {
		t.Fatalf("kept %v %q, want git's listing %q", ok, got, first)
	}
	// From a folder inside the worktree too: git lists the same there.
	sub := filepath.Join(c.repo, "sub")
	os.MkdirAll(sub, 0o755)
	if got, ok := c.kept(sub); !ok || got != c.fresh(sub) {
		t.Fatalf("from a folder inside: kept %v %q, want %q", ok, got, c.fresh(sub))
	}
}

// Every change that changes what git lists is a miss, and the next
// listing keeps the new one.
func TestAnyChangeToWhatGitReadsIsAMiss(t *testing.T) {
	changes := map[string]func(c *cacheCase){
		"local config":   func(c *cacheCase) { githome.Git(c.t, c.repo, "config", "wt.baseDir", "/elsewhere") },
		"global created": func(c *cacheCase) { c.write(filepath.Join(c.root, ".gitconfig"), "[wt]\n\tbaseDir = /g\n") },
		"xdg global created": func(c *cacheCase) {
			c.write(filepath.Join(c.root, ".config", "git", "config"), "[wt]\n\tbaseDir = /x\n")
		},
		"system created":    func(c *cacheCase) { c.write(c.system, "[wt]\n\tbaseDir = /s\n") },
		"GIT_CONFIG_GLOBAL": func(c *cacheCase) { c.t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(c.root, "other")) },
		"git -c":            func(c *cacheCase) { c.t.Setenv("GIT_CONFIG_PARAMETERS", "'wt.basedir'='/c'") },
		"GIT_CONFIG_COUNT": func(c *cacheCase) {
			setEnvs(c.t, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=wt.basedir", "GIT_CONFIG_VALUE_0=/k")
		},
		"GIT_CONFIG_NOSYSTEM": func(c *cacheCase) { c.t.Setenv("GIT_CONFIG_NOSYSTEM", "1") },
		"worktree config made": func(c *cacheCase) {
			c.write(filepath.Join(c.repo, ".git", "config.worktree"), "[wt]\n\tbaseDir = /w\n")
		},
	}
	for name, change := range changes {
		t.Run(name, func(t *testing.T) {
			c := newCacheCase(t)
			c.list(c.repo)
			if _, ok := c.kept(c.repo); !ok {
				t.Fatal("nothing kept to begin with")
			}
			change(c)
			if got, ok := c.kept(c.repo); ok {
				t.Fatalf("after the change the kept listing is still used: %q", got)
			}
			if got := c.list(c.repo); got != c.fresh(c.repo) {
				t.Fatalf("after the change: %q, git lists %q", got, c.fresh(c.repo))
			}
		})
	}
}

func setEnvs(t *testing.T, kvs ...string) {
	for _, kv := range kvs {
		for i := range kv {
			if kv[i] == '=' {
				t.Setenv(kv[:i], kv[i+1:])
				break
			}
		}
	}
}

// What the fingerprint cannot cover keeps nothing: includes (what they
// read may depend on the branch or the path), and a file changed within
// the racy window (a second change in the same tick keeps its time).
func TestAListingThatCannotBeWatchedIsNotKept(t *testing.T) {
	t.Run("include", func(t *testing.T) {
		c := newCacheCase(t)
		c.write(filepath.Join(c.root, "inc"), "[wt]\n\tbaseDir = /i\n")
		githome.Git(t, c.repo, "config", "include.path", filepath.Join(c.root, "inc"))
		c.list(c.repo)
		if _, ok := c.kept(c.repo); ok {
			t.Fatal("a listing with include.path was kept")
		}
	})
	t.Run("includeIf", func(t *testing.T) {
		c := newCacheCase(t)
		c.write(filepath.Join(c.root, ".gitconfig"), "[includeIf \"onbranch:main\"]\n\tpath = "+filepath.Join(c.root, "inc")+"\n")
		c.list(c.repo)
		if _, ok := c.kept(c.repo); ok {
			t.Fatal("a listing with includeIf was kept")
		}
	})
	t.Run("just changed", func(t *testing.T) {
		c := newCacheCase(t)
		c.age()
		githome.Git(t, c.repo, "config", "wt.baseDir", "/now")
		if _, _, err := (&Runner{}).StartConfigList(context.Background(), c.repo, Discover(c.repo), everyKey)(); err != nil {
			t.Fatal(err)
		}
		if _, ok := c.kept(c.repo); ok {
			t.Fatal("a listing of a file changed a moment ago was kept")
		}
	})
}

// Each worktree has its own kept listing, and a removed worktree's is
// forgotten.
func TestEachWorktreeKeepsItsOwnListing(t *testing.T) {
	c := newCacheCase(t)
	linked := filepath.Join(c.root, "linked")
	githome.Git(t, c.repo, "worktree", "add", "-q", linked)
	githome.Git(t, c.repo, "config", "extensions.worktreeConfig", "true")
	githome.Git(t, linked, "config", "--worktree", "wt.baseDir", "/linked")
	c.list(c.repo)
	c.list(linked)
	inMain, _ := c.kept(c.repo)
	inLinked, ok := c.kept(linked)
	if !ok || inLinked != c.fresh(linked) || inLinked == inMain {
		t.Fatalf("the linked worktree's kept listing %q, git lists %q (main's: %q)", inLinked, c.fresh(linked), inMain)
	}
	ForgetConfigCache(filepath.Join(c.repo, ".git"), linked)
	if _, ok := c.kept(linked); ok {
		t.Fatal("a forgotten listing is still kept")
	}
}

// onlyWt keeps the wt.* keys but wt.init, which is asked of git.
var onlyWt = ConfigKeys{
	Kept:  func(key string) bool { return strings.HasPrefix(key, "wt.") && key != "wt.init" },
	Asked: `^wt\.init$`,
}

// keysOf are the keys of a listing, in order.
func keysOf(listing string) []string {
	var keys []string
	for _, e := range ParseConfigList(listing) {
		keys = append(keys, e.Key+"="+e.Value)
	}
	return keys
}

// A kept listing holds only the keys its reader may keep, reads back only
// those (a line added by hand is dropped), and the asked keys come from
// git whenever the cache answers, which is said (cached).
func TestAKeptListingHoldsOnlyTheKeptKeysAndAsksGitForTheRest(t *testing.T) {
	c := newCacheCase(t)
	githome.Git(t, c.repo, "config", "wt.baseDir", "/b")
	githome.Git(t, c.repo, "config", "wt.init", "make")
	githome.Git(t, c.repo, "config", "http.extraHeader", "Authorization: token")
	c.age()
	start := func(keys ConfigKeys) (string, bool) {
		out, cached, err := (&Runner{}).StartConfigList(context.Background(), c.repo, Discover(c.repo), keys)()
		if err != nil {
			t.Fatal(err)
		}
		return out, cached
	}
	if out, cached := start(onlyWt); cached || !slices.Contains(keysOf(out), "wt.init=make") {
		t.Fatalf("a miss lists %v (cached %v), want all of git's listing", keysOf(out), cached)
	}
	path := configCachePath(filepath.Join(c.repo, ".git"), c.repo)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("the kept listing's mode is %v, want 0600", st.Mode().Perm())
	}
	for _, leak := range []string{"token", "make"} {
		if strings.Contains(string(data), leak) {
			t.Errorf("the kept listing holds %q: %s", leak, data)
		}
	}
	// Planted by hand, the fingerprint left as it was.
	var kept configCache
	json.Unmarshal(data, &kept)
	kept.Listing += "local\x00file:.git/config\x00wt.init\nrm -rf ~\x00"
	data, _ = json.Marshal(kept)
	os.WriteFile(path, data, 0o600)

	if out, cached := start(onlyWt); !cached || !slices.Equal(keysOf(out), []string{"wt.basedir=/b", "wt.init=make"}) {
		t.Fatalf("a hit lists %v (cached %v), want the kept wt.baseDir and git's wt.init", keysOf(out), cached)
	}
}

// With AskedNames, a hit asks git only when a file git reads (or git -c)
// names one of them: where none does, no git runs and none is listed.
func TestAHitAsksGitOnlyWhereAFileNamesAnAskedKey(t *testing.T) {
	keys := ConfigKeys{Kept: onlyWt.Kept, Asked: onlyWt.Asked, AskedNames: []string{"init"}}
	for name, tc := range map[string]struct {
		setup func(c *cacheCase)
		asks  bool
	}{
		"named nowhere": {func(c *cacheCase) { githome.Git(c.t, c.repo, "config", "wt.baseDir", "/b") }, false},
		"local":         {func(c *cacheCase) { githome.Git(c.t, c.repo, "config", "wt.init", "make") }, true},
		"another key":   {func(c *cacheCase) { githome.Git(c.t, c.repo, "config", "init.defaultBranch", "main") }, true},
		"global":        {func(c *cacheCase) { c.write(filepath.Join(c.root, ".gitconfig"), "[wt]\n\tINIT = make\n") }, true},
		"system":        {func(c *cacheCase) { c.write(c.system, "[wt]\n\tinit = make\n") }, true},
		"an include":    {func(c *cacheCase) { c.write(c.system, "[include]\n\tpath = /elsewhere\n") }, true},
	} {
		t.Run(name, func(t *testing.T) {
			c := newCacheCase(t)
			tc.setup(c)
			c.list(c.repo) // keeps the listing
			var trace strings.Builder
			out, cached, err := (&Runner{Trace: &trace}).StartConfigList(context.Background(), c.repo, Discover(c.repo), keys)()
			if err != nil || !cached {
				if name != "an include" { // an include is never kept
					t.Fatalf("no hit: %v, %v", cached, err)
				}
				return
			}
			if asked := strings.Contains(trace.String(), "--get-regexp"); asked != tc.asks {
				t.Errorf("asked git %v, want %v (ran: %q)", asked, tc.asks, trace.String())
			}
			if want := strings.Contains(c.fresh(c.repo), "wt.init\nmake"); strings.Contains(out, "wt.init\nmake") != want {
				t.Errorf("listed %q; git lists wt.init: %v", out, want)
			}
		})
	}
}

// A listing kept by an earlier git-wt (which kept every key) is never
// read, and goes.
func TestAnEarlierVersionsListingIsDropped(t *testing.T) {
	c := newCacheCase(t)
	c.list(c.repo)
	path := configCachePath(filepath.Join(c.repo, ".git"), c.repo)
	data, _ := os.ReadFile(path)
	var kept configCache
	json.Unmarshal(data, &kept)
	kept.Version = 1
	data, _ = json.Marshal(kept)
	os.WriteFile(path, data, 0o644)
	if _, ok := c.kept(c.repo); ok || exists(path) {
		t.Fatalf("an earlier version's listing was used (%v) or left (%v)", ok, exists(path))
	}
}
