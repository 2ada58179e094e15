//go:build unix

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/testutil"
)

// Anything that can write the git dir (an agent whose sandbox guards only
// .git/config and .git/hooks) can put a link where git-wt keeps its own
// files; git-wt's writes there must never follow it out of its folder
// (SPEC §19): the file the link names is left as it was (content and
// time), and a link to no file makes none.
func TestLinksPlantedInGitWtsFolderLeadNoWriteOutside(t *testing.T) {
	for _, name := range []string{"events.jsonl", "logs/T.log", "records.cache", "checkout-sizes", "logs/pool.log", "git-version", "access/T", "gc-stamp", "lock", "pool.lock"} {
		for _, to := range []string{"file", "nothing"} {
			t.Run(name+" to "+to, func(t *testing.T) {
				s := testutil.NewSandbox(t)
				s.Git(s.Repo, "config", "wt.init", "echo init output")
				target := filepath.Join(s.Home, "victim")
				old := time.Now().Add(-time.Hour).Truncate(time.Second)
				if to == "file" {
					s.Write(target, "keep\n")
					os.Chtimes(target, old, old)
				}
				link := filepath.Join(s.Repo, ".git", "wt", name)
				os.MkdirAll(filepath.Dir(link), 0o755)
				os.Remove(link)
				if err := os.Symlink(target, link); err != nil {
					t.Fatal(err)
				}
				s.WT("new", "-q", "T")
				s.WT("path", "T")
				s.WT("list")
				s.Git(s.Repo, "config", "wt.pool", "1")
				s.WT("pool", "--fill", "-q")
				st, err := os.Stat(target)
				if to == "nothing" {
					if err == nil {
						t.Fatalf("a link at .git/wt/%s to no file made one", name)
					}
					return
				}
				if data, _ := os.ReadFile(target); string(data) != "keep\n" {
					t.Fatalf("a link at .git/wt/%s led git-wt's write outside: the file it names holds %q", name, data)
				}
				if err != nil || !st.ModTime().Equal(old) {
					t.Fatalf("a link at .git/wt/%s led git-wt to touch the file it names", name)
				}
			})
		}
	}
}

// The same with git-wt's folder itself a link (.git/wt → a folder of the
// user's): nothing is made there, and a command that needs the folder
// says what is wrong.
func TestGitWtsFolderALinkLeadsNoWriteOutside(t *testing.T) {
	t.Parallel()
	s := testutil.NewSandbox(t)
	outside := filepath.Join(s.Home, "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	wt := filepath.Join(s.Repo, ".git", "wt")
	os.RemoveAll(wt)
	if err := os.Symlink(outside, wt); err != nil {
		t.Fatal(err)
	}
	r := s.WT("new", "T", "--no-init")
	s.WT("list")
	s.WT("gc")
	if names, _ := os.ReadDir(outside); len(names) > 0 {
		t.Fatalf("git-wt wrote through the link .git/wt: %s holds %v", outside, names)
	}
	if r.Code != 1 || !strings.Contains(r.Stderr, "is a link") {
		t.Fatalf("new with .git/wt a link does not say so: %s", r)
	}
}

// The size cache lies in the git dir, where anything that can write it can
// forge a size (SPEC §19): a forged size never refuses a checkout for want
// of disk (no_space); only a size git-wt computes from git can.
func TestAForgedCheckoutSizeRefusesNoCheckout(t *testing.T) {
	t.Parallel()
	s := testutil.NewSandbox(t)
	head := s.Git(s.Repo, "rev-parse", "HEAD")
	s.Write(filepath.Join(s.Repo, ".git", "wt", "checkout-sizes"), head+" 9000000000000000000\n")
	if r := s.WT("new", "T", "--no-init"); r.Code != 0 {
		t.Fatalf("new refused by a forged checkout size: %s", r)
	}
}
