// This test protects reading refs from git's files (FileRefs): what a
// for-each-ref of the prefix would list, without the process.
package git

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestFileRefsReadsLooseAndPackedAsGitWould(t *testing.T) {
	common := t.TempDir()
	a, b, c := strings.Repeat("a", 40), strings.Repeat("b", 40), strings.Repeat("c", 40)
	os.WriteFile(filepath.Join(common, "packed-refs"), []byte("# pack-refs with: peeled fully-peeled sorted\n"+
		a+" refs/git-wt/tasks/old\n"+a+" refs/git-wt/tasks/both\n"+a+" refs/heads/main\n"), 0o644)
	tasks := filepath.Join(common, "refs", "git-wt", "tasks")
	os.MkdirAll(filepath.Join(tasks, "sub"), 0o755)
	os.WriteFile(filepath.Join(tasks, "both"), []byte(b+"\n"), 0o644)               // loose wins over packed
	os.WriteFile(filepath.Join(tasks, "sub", "x"), []byte(c+"\n"), 0o644)           // nested
	os.WriteFile(filepath.Join(tasks, "new.lock"), []byte(c+"\n"), 0o644)           // a write under way
	os.WriteFile(filepath.Join(tasks, "sym"), []byte("ref: refs/heads/x\n"), 0o644) // not a record
	got, ok := FileRefs(common, "refs/git-wt/tasks/")
	want := []Ref{{"refs/git-wt/tasks/both", b}, {"refs/git-wt/tasks/old", a}, {"refs/git-wt/tasks/sub/x", c}}
	if !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, %v; want %v", got, ok, want)
	}
	os.Mkdir(filepath.Join(common, "reftable"), 0o755)
	if _, ok := FileRefs(common, "refs/git-wt/tasks/"); ok {
		t.Fatal("a reftable repository's refs are not in files: the caller must ask git")
	}
}
