// These tests protect the git runner's parsing and its environment: the
// variables that would point git at another repository are dropped, and
// machine-readable output is read exactly.
package git

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestLocationVarsMatchGit(t *testing.T) {
	out, err := exec.Command("git", "rev-parse", "--local-env-vars").Output()
	if err != nil {
		t.Skip("no git")
	}
	for _, name := range strings.Fields(string(out)) {
		keep := name == "GIT_CONFIG_PARAMETERS" || name == "GIT_CONFIG_COUNT"
		if locationVars[name] == keep {
			t.Errorf("%s: scrubbed=%v, want %v", name, locationVars[name], !keep)
		}
	}
}

func TestScrubbedEnvKeepsUserSettings(t *testing.T) {
	env := ScrubbedEnv([]string{"GIT_DIR=/x", "GIT_WORK_TREE=/y", "GIT_INDEX_FILE=/z", "GIT_CONFIG_PARAMETERS='a.b'='c'",
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=a.b", "GIT_CONFIG_VALUE_0=c", "HOME=/h"})
	want := []string{"GIT_CONFIG_PARAMETERS='a.b'='c'", "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=a.b", "GIT_CONFIG_VALUE_0=c", "HOME=/h"}
	if !reflect.DeepEqual(env, want) {
		t.Fatalf("ScrubbedEnv = %q", env)
	}
}

// Cmd.Config numbers its settings after the user's own GIT_CONFIG_KEY_<n>,
// which stay in force.
func TestWithConfigKeepsTheUsersSettings(t *testing.T) {
	env := []string{"HOME=/h", "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=a.b", "GIT_CONFIG_VALUE_0=c"}
	got := withConfig(env, []ConfigPair{{"x.y", "1"}, {"s.a=b.url", "/p"}})
	want := append(env, "GIT_CONFIG_KEY_1=x.y", "GIT_CONFIG_VALUE_1=1", "GIT_CONFIG_KEY_2=s.a=b.url", "GIT_CONFIG_VALUE_2=/p", "GIT_CONFIG_COUNT=3")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got := withConfig([]string{"HOME=/h"}, []ConfigPair{{"x.y", "1"}}); !reflect.DeepEqual(got, []string{"HOME=/h", "GIT_CONFIG_KEY_0=x.y", "GIT_CONFIG_VALUE_0=1", "GIT_CONFIG_COUNT=1"}) {
		t.Errorf("with no setting of the user's: %q", got)
	}
}

// git reads a key of Cmd.Config whole, "=" and all, where -c splits it.
func TestGitReadsCmdConfigKeysWhole(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	key := "submodule.lib.update=!touch PWNED #.url"
	out, err := (&Runner{}).Exec(context.Background(), Cmd{Dir: t.TempDir(), Config: []ConfigPair{{key, "/p"}},
		Args: []string{"config", "-z", "--get-regexp", `^submodule\.lib\.`}})
	if err != nil || string(out) != key+"\n/p\x00" {
		t.Errorf("git read %q (%v), want the key %q whole", out, err, key)
	}
}

func TestParseBatch(t *testing.T) {
	out := []byte("aaa blob 5\nhello\nrefs/git-wt/tasks/x missing\nbbb commit 3\nabc\n")
	objs, err := parseBatch(out, []string{"refs/git-wt/tasks/a", "refs/git-wt/tasks/x", "refs/git-wt/tasks/c"})
	if err != nil {
		t.Fatal(err)
	}
	if string(objs[0].Data) != "hello" || objs[0].Type != "blob" || !objs[1].Missing || objs[2].Type != "commit" {
		t.Fatalf("parseBatch = %+v", objs)
	}
	if _, err := parseBatch([]byte("aaa blob 99\nshort\n"), []string{"x"}); err == nil {
		t.Fatal("a truncated object must be an error")
	}
}

func TestParseBatchCheck(t *testing.T) {
	objs, err := parseBatchCheck([]byte("aaa blob 5\nx missing\nbbb commit 104857600\n"), []string{"a", "x", "b"})
	if err != nil {
		t.Fatal(err)
	}
	if objs[0].Size != 5 || objs[0].Type != "blob" || !objs[1].Missing || objs[1].Name != "x" || objs[2].Size != 100<<20 || objs[2].OID != "bbb" {
		t.Fatalf("parseBatchCheck = %+v", objs)
	}
	for _, bad := range []string{"aaa blob 5\n", "aaa blob -1\nx missing\nb c d\n", "aaa blob x\nx missing\nb c 1\n"} {
		if _, err := parseBatchCheck([]byte(bad), []string{"a", "x", "b"}); err == nil {
			t.Errorf("parseBatchCheck(%q) is no error", bad)
		}
	}
}

func TestReadObjectsUpToNeverReadsABigObject(t *testing.T) {
	dir := t.TempDir()
	r := &Runner{}
	if _, err := r.Run(context.Background(), dir, "init", "-q"); err != nil {
		t.Fatal(err)
	}
	small, _ := r.HashObject(context.Background(), dir, []byte("small"))
	big, _ := r.HashObject(context.Background(), dir, bytes.Repeat([]byte("x"), 1000))
	objs, err := r.ReadObjectsUpTo(context.Background(), dir, 100, small, big, "refs/heads/none")
	if err != nil {
		t.Fatal(err)
	}
	if string(objs[0].Data) != "small" || objs[0].TooBig || objs[0].Name != small {
		t.Errorf("a small object: %+v", objs[0])
	}
	if !objs[1].TooBig || objs[1].Data != nil || objs[1].Size != 1000 || objs[1].Type != "blob" || objs[1].OID != big {
		t.Errorf("a big object: %+v", objs[1])
	}
	if !objs[2].Missing {
		t.Errorf("no object: %+v", objs[2])
	}
}

func TestParseWorktrees(t *testing.T) {
	out := "worktree /r\x00HEAD abc\x00branch refs/heads/main\x00\x00worktree /w\x00HEAD def\x00detached\x00locked why\nnot\x00prunable gone\x00\x00"
	wts := parseWorktrees(out, "\x00")
	if len(wts) != 2 || wts[0].Branch != "refs/heads/main" || !wts[1].Detached || wts[1].LockReason != "why\nnot" || !wts[1].Prunable {
		t.Fatalf("parseWorktrees = %+v", wts)
	}
}

func TestParseVersion(t *testing.T) {
	for in, want := range map[string]Version{"git version 2.39.5\n": {2, 39}, "git version 2.31.0.windows.1": {2, 31}} {
		if v, err := ParseVersion(in); err != nil || v != want {
			t.Errorf("ParseVersion(%q) = %v, %v", in, v, err)
		}
	}
	if _, err := ParseVersion("nonsense"); err == nil {
		t.Error("ParseVersion(nonsense) accepted")
	}
	if (Version{2, 30}).AtLeast(MinVersion) || !(Version{3, 0}).AtLeast(MinVersion) {
		t.Error("AtLeast")
	}
}

func TestTransientLockIsRecognisedByPath(t *testing.T) {
	de := &Error{Code: 128, Stderr: "fatal: Konnte '/r/.git/index.lock' nicht erstellen: Die Datei existiert."}
	if !transientLock(de) {
		t.Error("a German lock message must be recognised by its path")
	}
	if transientLock(&Error{Code: 128, Stderr: "fatal: invalid reference: x"}) {
		t.Error("not a lock error")
	}
	lockErr := &Error{Code: 128, Stderr: "fatal: cannot lock ref 'refs/x': Unable to create '/r/.git/./refs/x.lock': File exists."}
	if lock, ok := LockFileOf(lockErr); !ok || lock != filepath.Clean("/r/.git/refs/x.lock") {
		t.Errorf("LockFileOf = %q, %v: want the lock git names, cleaned", lock, ok)
	}
	win := &Error{Code: 128, Stderr: "fatal: Unable to create 'C:/r/.git/index.lock': File exists."}
	if !transientLock(win) {
		t.Error("Git for Windows' lock message must be recognised by its path")
	}
	if _, ok := LockFileOf(&Error{Code: 128, Stderr: "fatal: invalid reference: x"}); ok {
		t.Error("LockFileOf names a lock in an error about none")
	}
}

func TestUpdateRefCompareAndSwap(t *testing.T) {
	ctx, r, dir, a, b := repoWithTwoBlobs(t)
	if err := r.UpdateRef(ctx, dir, "refs/git-wt/tasks/x", a, ""); err != nil {
		t.Fatal(err)
	}
	if err := r.UpdateRef(ctx, dir, "refs/git-wt/tasks/x", b, ""); err == nil || !strings.Contains(err.Error(), ErrStale.Error()) {
		t.Fatalf("creating an existing ref: %v", err)
	}
	if err := r.UpdateRef(ctx, dir, "refs/git-wt/tasks/x", b, a); err != nil {
		t.Fatal(err)
	}
	if err := r.DeleteRef(ctx, dir, "refs/git-wt/tasks/x", a); err == nil {
		t.Fatal("deleting with a stale old value must fail")
	}
	if err := r.DeleteRef(ctx, dir, "refs/git-wt/tasks/x", b); err != nil {
		t.Fatal(err)
	}
}

func TestReplaceRefAndCreateAreCompareAndSwap(t *testing.T) {
	ctx, r, dir, a, b := repoWithTwoBlobs(t)
	if err := r.UpdateRef(ctx, dir, "refs/wt/x", a, ""); err != nil {
		t.Fatal(err)
	}
	// A create beside a ref that must be absent, which is there: nothing.
	u := r.StartRefUpdate(ctx, dir, false)
	if err := u.Create(ctx, []Ref{{Name: "refs/git-wt/tasks/x", OID: b}}, "refs/wt/x"); !errors.Is(err, ErrStale) {
		t.Fatalf("create while refs/wt/x exists: %v", err)
	}
	if oids, _ := r.ObjectIDs(ctx, dir, "refs/git-wt/tasks/x"); oids[0] != "" {
		t.Fatal("the create was made")
	}
	if err := r.ReplaceRef(ctx, dir, "refs/wt/x", b, "refs/git-wt/tasks/x", a); !errors.Is(err, ErrStale) {
		t.Fatalf("a move from a stale value: %v", err)
	}
	if err := r.ReplaceRef(ctx, dir, "refs/wt/x", a, "refs/git-wt/tasks/x", a); err != nil {
		t.Fatal(err)
	}
	oids, _ := r.ObjectIDs(ctx, dir, "refs/wt/x", "refs/git-wt/tasks/x")
	if oids[0] != "" || oids[1] != a {
		t.Fatalf("after the move: %q", oids)
	}
	r.UpdateRef(ctx, dir, "refs/wt/x", b, "")
	if err := r.ReplaceRef(ctx, dir, "refs/wt/x", b, "refs/git-wt/tasks/x", b); !errors.Is(err, ErrStale) {
		t.Fatalf("a move onto an existing ref: %v", err)
	}
	if oids, _ := r.ObjectIDs(ctx, dir, "refs/wt/x", "refs/git-wt/tasks/x"); oids[0] != b || oids[1] != a {
		t.Fatalf("a failed move changed something: %q", oids)
	}
}

func TestParseMergeTree(t *testing.T) {
	tree, paths := parseMergeTree("abc\x00")
	if tree != "abc" || len(paths) != 0 {
		t.Fatalf("clean merge: %q %q", tree, paths)
	}
	tree, paths = parseMergeTree("abc\x00a b.txt\x00dir/c\x00")
	if tree != "abc" || !reflect.DeepEqual(paths, []string{"a b.txt", "dir/c"}) {
		t.Fatalf("conflicts: %q %q", tree, paths)
	}
}

// A pool claim is one transaction: the pool ref goes, at the value
// examined, and the record comes; a claim of an entry another process
// took changes nothing.
func TestCreateDeletingTakesTheDeletedRefAtItsValueOnly(t *testing.T) {
	ctx, r, dir, a, b := repoWithTwoBlobs(t)
	r.UpdateRef(ctx, dir, "refs/git-wt/pool/p", a, "")
	stale := r.StartRefUpdate(ctx, dir, false)
	if err := stale.CreateDeleting(ctx, []Ref{{Name: "refs/git-wt/tasks/x", OID: b}}, []Ref{{Name: "refs/git-wt/pool/p", OID: b}}); !errors.Is(err, ErrStale) {
		t.Fatalf("a claim at a stale value: %v", err)
	}
	if oids, _ := r.ObjectIDs(ctx, dir, "refs/git-wt/tasks/x", "refs/git-wt/pool/p"); oids[0] != "" || oids[1] != a {
		t.Fatalf("a failed claim changed something: %q", oids)
	}
	u := r.StartRefUpdate(ctx, dir, false)
	if err := u.CreateDeleting(ctx, []Ref{{Name: "refs/git-wt/tasks/x", OID: b}}, []Ref{{Name: "refs/git-wt/pool/p", OID: a}}); err != nil {
		t.Fatal(err)
	}
	if oids, _ := r.ObjectIDs(ctx, dir, "refs/git-wt/tasks/x", "refs/git-wt/pool/p"); oids[0] != b || oids[1] != "" {
		t.Fatalf("after the claim: %q", oids)
	}
	again := r.StartRefUpdate(ctx, dir, false)
	if err := again.CreateDeleting(ctx, []Ref{{Name: "refs/git-wt/tasks/y", OID: b}}, []Ref{{Name: "refs/git-wt/pool/p", OID: a}}); !errors.Is(err, ErrStale) {
		t.Fatalf("a second claim of the same entry: %v", err)
	}
}

// repoWithTwoBlobs is a new repository with two blobs written, a and b,
// for the compare-and-swap tests.
func repoWithTwoBlobs(t *testing.T) (ctx context.Context, r *Runner, dir, a, b string) {
	t.Helper()
	dir = t.TempDir()
	if err := exec.Command("git", "init", "-q", dir).Run(); err != nil {
		t.Skip("no git")
	}
	ctx, r = context.Background(), &Runner{}
	a, _ = r.HashObject(ctx, dir, []byte("a"))
	b, _ = r.HashObject(ctx, dir, []byte("b"))
	return ctx, r, dir, a, b
}

func TestAReadOnlyRunnerWritesNoObjectIntoTheRepository(t *testing.T) {
	ctx, _, dir, a, _ := repoWithTwoBlobs(t)
	objects := filepath.Join(dir, ".git", "objects")
	before, _ := filepath.Glob(filepath.Join(objects, "??", "*"))
	scratch := t.TempDir()
	r := &Runner{}
	r.ReadOnly(filepath.Join(dir, ".git"), scratch)
	c, err := r.HashObject(ctx, dir, []byte("c"))
	if err != nil {
		t.Fatal(err)
	}
	after, _ := filepath.Glob(filepath.Join(objects, "??", "*"))
	if len(after) != len(before) {
		t.Errorf("the repository gained %d objects through a read-only runner", len(after)-len(before))
	}
	if _, err := os.Stat(filepath.Join(scratch, c[:2], c[2:])); err != nil {
		t.Errorf("the new object is not in the scratch folder: %v", err)
	}
	// The repository's own objects are still read.
	if out, err := r.Run(ctx, dir, "cat-file", "-t", a); err != nil || out != "blob\n" {
		t.Errorf("cat-file of the repository's own blob: %q %v", out, err)
	}
}
