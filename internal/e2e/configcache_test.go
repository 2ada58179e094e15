//go:build unix

package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/testutil"
)

// keptListings are the config listings git-wt keeps in the repository.
func keptListings(s *testutil.Sandbox) []string {
	kept, _ := filepath.Glob(filepath.Join(s.Repo, ".git", "wt", "config-cache", "*.json"))
	return kept
}

// ageSandbox sets every file of the sandbox back an hour, past the time
// in which a changed config file is never trusted to a kept listing.
func ageSandbox(s *testutil.Sandbox) {
	old := time.Now().Add(-time.Hour)
	filepath.Walk(filepath.Dir(s.Repo), func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			os.Chtimes(p, old, old)
		}
		return nil
	})
}

// A setting changed with git config is what the next command uses, even
// though the listing before the change was kept; and a removed task's
// kept listing goes with it.
func TestAConfigChangeIsSeenAtOnceThoughTheListingWasKept(t *testing.T) {
	s := testutil.NewSandbox(t)
	ageSandbox(s)
	s.MustWT("list")
	if len(keptListings(s)) != 1 {
		t.Fatalf("list kept no config listing: %v", keptListings(s))
	}
	s.Git(s.Repo, "config", "wt.branchPrefix", "mine/")
	path := s.MustWT("new", "-q", "T").Out()
	if !s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/mine/T") {
		t.Fatal("new used the kept listing from before git config wt.branchPrefix")
	}
	ageSandbox(s)
	s.MustWT("-C", path, "list") // keeps the task worktree's listing
	if len(keptListings(s)) != 2 {
		t.Fatalf("want the main worktree's and the task's listings kept, got %v", keptListings(s))
	}
	s.MustWT("rm", "-q", "T")
	if len(keptListings(s)) != 1 {
		t.Fatalf("rm left the task's kept listing: %v", keptListings(s))
	}
}

// plantInKeptListing adds lines to the kept config listing of the main
// worktree by hand, as anything that can write the git dir can (an agent
// whose sandbox guards only .git/config and .git/hooks), leaving the
// fingerprint of what it was read from as it was.
func plantInKeptListing(t *testing.T, s *testutil.Sandbox, entries ...[2]string) {
	t.Helper()
	kept := keptListings(s)
	if len(kept) != 1 {
		t.Fatalf("want one kept listing, got %v", kept)
	}
	data, err := os.ReadFile(kept[0])
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	listing, _ := c["listing"].(string)
	for _, kv := range entries {
		listing += "local\x00file:.git/config\x00" + kv[0] + "\n" + kv[1] + "\x00"
	}
	c["listing"] = listing
	if data, err = json.Marshal(c); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(kept[0], data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// A kept listing is no source of settings that run commands or grant
// trust (SPEC §19): wt.init or wt.hook planted in it, or a forged
// wt.trusted for a committed .gitwt, run nothing at the next new.
func TestSettingsPlantedInTheKeptListingRunNothing(t *testing.T) {
	const gitwt = "[wt]\n\tinit = touch ran\n"
	sum := sha256.Sum256([]byte(gitwt))
	for name, planted := range map[string][2]string{
		"wt.init":    {"wt.init", "touch ran"},
		"wt.hook":    {"wt.hook", "touch ran"},
		"wt.trusted": {"wt.trusted", hex.EncodeToString(sum[:])},
	} {
		t.Run(name, func(t *testing.T) {
			s := testutil.NewSandbox(t)
			if name == "wt.trusted" {
				s.Write(".gitwt", gitwt)
				s.Git(s.Repo, "add", ".gitwt")
				s.Git(s.Repo, "commit", "-qm", "gitwt")
			}
			ageSandbox(s)
			s.MustWT("list")
			plantInKeptListing(t, s, planted)
			path := s.MustWT("new", "-q", "T").Out()
			if testutil.Exists(filepath.Join(path, "ran")) {
				t.Fatalf("new ran a command through %s planted in the kept listing", name)
			}
		})
	}
}

// The user's own wt.init still runs when the listing comes from the
// cache: settings that run commands are read from git every time.
func TestInitRunsWhenTheListingIsKept(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "config", "wt.init", "touch from-init")
	ageSandbox(s)
	s.MustWT("list")
	if len(keptListings(s)) != 1 {
		t.Fatalf("list kept no config listing: %v", keptListings(s))
	}
	path := s.MustWT("new", "-q", "T").Out()
	if !testutil.Exists(filepath.Join(path, "from-init")) {
		t.Fatal("new did not run wt.init when the listing was kept")
	}
}

// A kept listing holds nothing of the user's other settings (no token of
// ~/.gitconfig reaches a file under .git, which docker-args mounts into
// containers), and only its owner may read it.
func TestKeptListingsHoldNoOtherSettingsAndArePrivate(t *testing.T) {
	s := testutil.NewSandbox(t)
	const token = "Authorization: Bearer s3cr3t-t0k3n"
	s.Git(s.Repo, "config", "--global", "http.extraheader", token)
	s.Git(s.Repo, "config", "remote.origin.url", "https://user:s3cr3t-t0k3n@example.com/r.git")
	ageSandbox(s)
	s.MustWT("list")
	path := s.MustWT("new", "-q", "T").Out()
	ageSandbox(s)
	s.MustWT("-C", path, "list")
	s.MustWT("list")
	kept := keptListings(s)
	if len(kept) != 2 {
		t.Fatalf("want the main worktree's and the task's listings kept, got %v", kept)
	}
	for _, f := range kept {
		if st, err := os.Stat(f); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v (%v), want 0600", f, st.Mode().Perm(), err)
		}
	}
	filepath.Walk(filepath.Join(s.Repo, ".git"), func(p string, info os.FileInfo, err error) error {
		if err != nil || !info.Mode().IsRegular() || p == filepath.Join(s.Repo, ".git", "config") {
			return nil
		}
		if data, _ := os.ReadFile(p); strings.Contains(string(data), "s3cr3t-t0k3n") {
			t.Errorf("%s holds the token of the user's config", p)
		}
		return nil
	})
}

// wt.baseDir decides where git-wt writes, so no kept config listing is
// its source (SPEC §19): one planted there moves no checkout.
func TestBaseDirPlantedInTheKeptListingIsIgnored(t *testing.T) {
	s := testutil.NewSandbox(t)
	ageSandbox(s)
	s.MustWT("list")
	elsewhere := filepath.Join(s.Home, "elsewhere")
	plantInKeptListing(t, s, [2]string{"wt.basedir", elsewhere})
	path := s.MustWT("new", "-q", "T").Out()
	if want := filepath.Join(filepath.Dir(s.Repo), "repo-worktrees", "T"); path != want {
		t.Fatalf("new made %s, want %s", path, want)
	}
	if testutil.Exists(elsewhere) {
		t.Fatalf("new wrote to the base dir planted in the kept listing")
	}
	// Nor does list look there for the notes of failed deletions, which it
	// says and marks said.
	sum := sha256.Sum256([]byte(filepath.Join(s.Repo, ".git")))
	var notes []string
	for _, trash := range []string{".git-wt-trash", ".git-wt-trash-repo-" + hex.EncodeToString(sum[:4])} {
		note := filepath.Join(elsewhere, trash, "x.failed")
		s.Write(note, "planted")
		notes = append(notes, note)
	}
	r := s.MustWT("list", "--no-status")
	for _, note := range notes {
		if strings.Contains(r.Stderr, "planted") || !testutil.Exists(note) {
			t.Errorf("list acted on %s, in the planted base dir: %s", note, r)
		}
	}
}

// The base dir the user configured is still found by list when the
// listing is kept (it is asked of git).
func TestListFindsTheConfiguredBaseDirWhenTheListingIsKept(t *testing.T) {
	s := testutil.NewSandbox(t)
	base := filepath.Join(s.Home, "trees")
	s.Git(s.Repo, "config", "wt.baseDir", base)
	s.Git(s.Repo, "config", "wt.pool", "1")
	s.MustWT("pool", "--fill")
	ageSandbox(s)
	s.MustWT("list")
	out := s.MustWT("list", "--all", "--no-status").Stdout
	if !strings.Contains(out, "pooled") {
		t.Errorf("list --all with the listing kept: no pool entry in the configured base dir:\n%s", out)
	}
}
