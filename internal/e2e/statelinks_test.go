package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// Anything that can write the git dir (an agent whose sandbox guards only
// .git/config and .git/hooks) can put a link where git-wt keeps its own
// files; git-wt's writes there must never follow it out of its folder
// (SPEC §19): the file the link names is left as it was.
func TestLinksPlantedInGitWtsFolderLeadNoWriteOutside(t *testing.T) {
	for _, name := range []string{"events.jsonl", "logs/T.log", "records.cache", "checkout-sizes", "logs/pool.log", "git-version"} {
		t.Run(name, func(t *testing.T) {
			s := testutil.NewSandbox(t)
			s.Git(s.Repo, "config", "wt.init", "echo init output")
			victim := filepath.Join(s.Home, "victim")
			s.Write(victim, "keep\n")
			link := filepath.Join(s.Repo, ".git", "wt", name)
			os.MkdirAll(filepath.Dir(link), 0o755)
			os.Remove(link)
			if err := os.Symlink(victim, link); err != nil {
				t.Fatal(err)
			}
			s.WT("new", "-q", "T")
			s.WT("list")
			s.Git(s.Repo, "config", "wt.pool", "1")
			s.WT("pool", "--fill", "-q")
			if data, _ := os.ReadFile(victim); string(data) != "keep\n" {
				t.Fatalf("a link at .git/wt/%s led git-wt's write outside: the file it names holds %q", name, data)
			}
		})
	}
}
