// This test protects the rule that every git argv and every parser of
// git's output lives in this package: outside it, code calls typed
// operations, never Run, RunIn, Lines or Exec with a git.Cmd.
package git_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestNoGitArgvOutsideThisPackage(t *testing.T) {
	argv := regexp.MustCompile(`\b[Gg]it\.(Run|RunIn|Lines|Exec)\(|git\.Cmd\{`)
	root := filepath.Join("..", "..")
	scanned := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (d.Name() == "git" && filepath.Base(filepath.Dir(path)) == "internal" || d.Name() == "testutil" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		scanned++
		for i, line := range strings.Split(string(src), "\n") {
			if argv.MatchString(line) {
				t.Errorf("%s:%d builds git argv: add a typed operation to internal/git instead", path, i+1)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if scanned < 50 {
		t.Fatalf("scanned %d files: the walk is broken", scanned)
	}
}
