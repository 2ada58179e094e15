package machine

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil/githome"
)

// One repository registered in several spellings Windows allows (git's
// C:/, another case, \\?\) and found by a runner is surveyed once.
func TestCollectTakesEverySpellingOfOneRepositoryOnce(t *testing.T) {
	h := githome.New(t)
	b := repoWithWorktree(t, filepath.Join(h, "b"), filepath.Join(h, "b-wt"))
	repos, skipped := Collect(
		[]string{filepath.ToSlash(b), strings.ToUpper(b), `\\?\` + b, b},
		[]Found{{CommonDir: strings.ToLower(b), Runner: "cursor"}})
	if len(repos) != 1 || !repos[0].Registered || len(repos[0].FoundUnder) != 1 || len(skipped) != 0 {
		t.Errorf("repos %+v, skipped %+v: want %s once", repos, skipped, b)
	}
}

// The registry lists one repository once in whatever spelling it was
// registered (two git-wts run from a folder typed in another case).
func TestParseRegistryTakesAPathOnceInAnyCase(t *testing.T) {
	got := ParseRegistry([]byte("C:\\Src\\R\\.git\nc:\\src\\r\\.git\nC:\\other\\.git\n"))
	if len(got) != 2 || got[0] != `C:\Src\R\.git` || got[1] != `C:\other\.git` {
		t.Errorf("ParseRegistry = %q", got)
	}
}
