package settings

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/git"
)

// Every key git-wt reads is either kept in the config listing cache or
// asked of git, and a key of SPEC §14's classes (runs commands, reaches
// beyond the worktree, grants trust, clones) is never kept (SPEC §19).
func TestEveryKeyIsKeptOrAskedNeverBoth(t *testing.T) {
	asked := regexp.MustCompile(cacheKeys.Asked) // git's ERE, which Go's RE2 reads alike here
	for _, k := range Table {
		key := strings.ToLower(k.Name)
		if kept, isAsked := keptInCache(key), asked.MatchString(key); kept == isAsked {
			t.Errorf("%s: kept %v, asked %v; want one of them", k.Name, kept, isAsked)
		}
	}
	for key, want := range map[string]string{
		"wt.init": "asked", "wt.hook": "asked", "wt.poolinit": "asked", "wt.pool": "asked",
		"wt.preremove": "asked", "wt.symlink": "asked", "wt.gcmerged": "asked", "wt.claimremote": "asked",
		"wt.claimref": "asked", "wt.machineid": "asked", "wt.trusted": "asked", "wt.submodules": "asked", "wt.basedir": "asked",
		"submodule.lib.url": "asked", "submodule.a.b.url": "asked",
		"wt.port": "kept", "wt.copy": "kept", "core.bare": "kept", "core.worktree": "kept",
		"core.hookspath": "kept", "core.repositoryformatversion": "kept", "merge.ff": "kept",
		"branch.wt/T.remote": "kept", "branch.Main.pushremote": "kept", "remote.pushdefault": "kept",
		// Another of the user's settings is neither: no tokens, no
		// credentials, nothing git-wt does not read.
		"http.extraheader": "", "http.https://h.example/.extraheader": "", "remote.origin.url": "",
		"credential.helper": "", "user.email": "", "core.sshcommand": "", "wt.unknown": "", "branch": "",
		"wt.initx": "", "xwt.init": "", "submodule.lib.path": "",
	} {
		got := ""
		if keptInCache(key) {
			got = "kept"
		}
		if asked.MatchString(key) {
			got += "asked"
		}
		if got != want {
			t.Errorf("%s: %q, want %q", key, got, want)
		}
	}
}

// gitIn runs git in dir, failing the test if it fails.
func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// age sets every file under root back an hour, past the window in which
// a listing is never kept.
func age(root string) {
	old := time.Now().Add(-time.Hour)
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			os.Chtimes(p, old, old)
		}
		return nil
	})
}

// read reads the settings of the repository at repo as a command does,
// with start.
func read(t *testing.T, repo string, start func(context.Context, *git.Runner, string, *git.Discovered) *Pending) *Settings {
	t.Helper()
	s, err := start(context.Background(), &git.Runner{}, repo, git.Discover(repo)).Finish(repo)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The settings that run commands or grant trust come from git when the
// kept listing answers: all of them for a command that may act on them,
// and for a harmless one (list) wt.trusted where a .gitwt needs it; the
// base dir for both.
func TestSettingsThatActComeFromGitWhenTheListingIsKept(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("git's config listing is never kept on Windows, which gives no file ids (git/stat_windows.go)")
	}
	repo := hermeticRepo(t)
	gitIn(t, repo, "config", "wt.init", "make")
	gitIn(t, repo, "config", "wt.baseDir", "/trees")
	age(filepath.Dir(repo)) // the home and the repository
	read(t, repo, Start)    // keeps the listing
	if run, _ := read(t, repo, Start).InitCommands(); !slices.Equal(run, []string{"make"}) {
		t.Fatalf("from a kept listing wt.init is %q, want git's make", run)
	}
	harmless := read(t, repo, StartHarmless)
	if run, _ := harmless.InitCommands(); len(run) != 0 {
		t.Fatalf("a harmless read got wt.init %q from a kept listing", run)
	}
	if harmless.BaseDir != "/trees" || read(t, repo, Start).BaseDir != "/trees" {
		t.Fatalf("from a kept listing the base dir is %q, want git's /trees", harmless.BaseDir)
	}
	gitwt := "[wt]\n\tinit = npm ci\n"
	os.WriteFile(filepath.Join(repo, GitwtFile), []byte(gitwt), 0o644)
	sum := sha256.Sum256([]byte(gitwt))
	gitIn(t, repo, "config", "wt.trusted", hex.EncodeToString(sum[:]))
	age(filepath.Dir(repo)) // the home and the repository
	read(t, repo, Start)
	if s := read(t, repo, StartHarmless); !s.GitwtTrusted() || len(s.Warnings) != 0 {
		t.Fatalf("a harmless read from a kept listing: trusted %v, warnings %q; want the .gitwt trusted", s.GitwtTrusted(), s.Warnings)
	}
}
