// This test protects reading refs from git's files (FileRefs): what a
// for-each-ref of the prefix would list, without the process.
package git

import (
	"os"
	"os/exec"
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

// A git pack-refs that runs between the two reads (git gc --auto, which
// the stress test's agents start all the time) packs a loose ref and
// deletes its file: the ref is still listed, from one read or the other.
// Read in the other order (packed-refs first), it was in neither.
func TestFileRefsSeeARefThatPackRefsMovesMeanwhile(t *testing.T) {
	repo := t.TempDir()
	gitIn := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	gitIn("init", "-q")
	gitIn("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "i")
	gitIn("update-ref", "refs/git-wt/tasks/t", "HEAD")
	common := filepath.Join(repo, ".git")
	testHookBetweenRefReads = func() { gitIn("pack-refs", "--all", "--prune") }
	defer func() { testHookBetweenRefReads = func() {} }()
	got, ok := FileRefs(common, "refs/git-wt/tasks/")
	if !ok || len(got) != 1 || got[0].Name != "refs/git-wt/tasks/t" {
		t.Fatalf("a ref packed between the reads: got %v, %v; want refs/git-wt/tasks/t", got, ok)
	}
	if _, err := os.Stat(filepath.Join(common, "refs", "git-wt", "tasks", "t")); !os.IsNotExist(err) {
		t.Fatalf("pack-refs did not move the ref (%v): the test tests nothing", err)
	}
}

func TestFileRefsListsEveryPrefixAskedFor(t *testing.T) {
	common := t.TempDir()
	a, b := strings.Repeat("a", 40), strings.Repeat("b", 40)
	os.WriteFile(filepath.Join(common, "packed-refs"), []byte(a+" refs/wt/legacy\n"+a+" refs/heads/main\n"), 0o644)
	os.MkdirAll(filepath.Join(common, "refs", "git-wt", "tasks"), 0o755)
	os.WriteFile(filepath.Join(common, "refs", "git-wt", "tasks", "t"), []byte(b+"\n"), 0o644)
	got, ok := FileRefs(common, "refs/git-wt/tasks/", "refs/wt/")
	want := []Ref{{"refs/git-wt/tasks/t", b}, {"refs/wt/legacy", a}}
	if !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, %v; want %v", got, ok, want)
	}
}
