// This test protects the documentation of settings: every wt.* key that
// git-wt's code names is in Keys, which the man page is made from.
package settings

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestEveryKeyTheCodeReadsIsDocumented(t *testing.T) {
	documented := map[string]bool{}
	for _, k := range Keys {
		documented[strings.ToLower(k.Name)] = true
	}
	literal := regexp.MustCompile(`"(wt\.[A-Za-z]+)"`)
	root := filepath.Join("..", "..")
	found := 0
	err := filepath.WalkDir(filepath.Join(root, "internal"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range literal.FindAllStringSubmatch(string(src), -1) {
			found++
			if !documented[strings.ToLower(m[1])] {
				t.Errorf("%s reads %s, which settings.Keys does not document", path, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Fatal("found no wt.* key in the code: the scan is broken")
	}
}
