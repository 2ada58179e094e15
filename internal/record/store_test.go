// These tests protect how new's first record write is made: its
// update-ref started early, which writes reflogs only for a branch made
// with the record.
package record

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/git"
)

func TestCreateWithItsBlobAndUpdateStartedAhead(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"init", "-q", dir},
		{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "init"},
		{"-C", dir, "config", "core.logAllRefUpdates", "always"}, // the record's reflog would show
	} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Skipf("git %v: %v %s", args, err, out)
		}
	}
	ctx := context.Background()
	r := &git.Runner{}
	common := filepath.Join(dir, ".git")
	head, err := r.Run(ctx, dir, "rev-parse", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	store := &Store{Git: r, Dir: dir}
	reflog := func(ref string) bool {
		_, err := os.Stat(filepath.Join(common, "logs", ref))
		return err == nil
	}

	// With a branch: the early update-ref writes both, the branch with its
	// reflog.
	store.UseRefUpdate(r.StartRefUpdate(ctx, common, true))
	withBranch := &Record{Task: "a", Slug: "a", Branch: "wt/a", State: Creating}
	oid, err := store.Create(ctx, withBranch, git.Ref{Name: "refs/heads/wt/a", OID: strings.TrimSpace(head)})
	if err != nil {
		t.Fatal(err)
	}
	if data, err := r.Run(ctx, dir, "cat-file", "blob", oid); err != nil || data != string(withBranch.Encode()) {
		t.Fatalf("git reads the record's blob as %q (%v)", data, err)
	}
	if !reflog("refs/heads/wt/a") {
		t.Error("the branch made with the record has no reflog")
	}

	// Without one: the early update-ref (reflogs) is not used, and the
	// record gets no reflog whatever core.logAllRefUpdates says (made
	// with a branch, it shares the branch's transaction and its reflogs).
	store.UseRefUpdate(r.StartRefUpdate(ctx, common, true))
	if _, err := store.Create(ctx, &Record{Task: "b", Slug: "b", Branch: "main", State: Creating}); err != nil {
		t.Fatal(err)
	}
	if reflog(Ref("b")) {
		t.Error("a record made without a branch got a reflog")
	}
	if got, err := r.Run(ctx, dir, "rev-parse", "--verify", "-q", Ref("b")); err != nil || strings.TrimSpace(got) == "" {
		t.Fatalf("record b: %q (%v)", got, err)
	}
}

// The listing list starts early reads the record refs from the files of
// the repository found from the current directory, before git confirms
// it: a store of another repository (git located elsewhere) ignores it
// and lists its own, and the store of that one uses it.
func TestEarlyListingFromFilesServesOnlyItsRepository(t *testing.T) {
	ctx := context.Background()
	r := &git.Runner{}
	repos := map[string]string{}
	for _, name := range []string{"found", "located"} {
		dir := filepath.Join(t.TempDir(), name)
		for _, args := range [][]string{
			{"init", "-q", dir},
			{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "init"},
		} {
			if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v %s", args, err, out)
			}
		}
		store := &Store{Git: r, Dir: dir, Cache: CacheFile(filepath.Join(dir, ".git"))}
		if _, err := store.Create(ctx, &Record{Task: name, Slug: name, Branch: "main", State: Active}); err != nil {
			t.Fatal(err)
		}
		repos[name] = dir
	}
	for _, name := range []string{"found", "located"} {
		dir := repos[name]
		store := &Store{Git: r, Dir: dir, Cache: CacheFile(filepath.Join(dir, ".git"))}
		store.Use(StartAll(ctx, r, repos["found"], filepath.Join(repos["found"], ".git")))
		all, err := store.All(ctx)
		if err != nil || len(all) != 1 || all[0].Slug != name {
			t.Errorf("the store of %s listed %v (%v), want its own record %s", name, all, err, name)
		}
	}
}

// list decodes only the live records' blobs of the cache, which also
// holds their earlier versions; those still count towards the rewrite
// that drops them, so the file stays about as large as the live records.
func TestTheCacheOfAListedStoreDropsEarlierVersions(t *testing.T) {
	ctx := context.Background()
	r := &git.Runner{}
	dir := filepath.Join(t.TempDir(), "repo")
	for _, args := range [][]string{
		{"init", "-q", dir},
		{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "init"},
	} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	common := filepath.Join(dir, ".git")
	store := &Store{Git: r, Dir: dir, Cache: CacheFile(common)}
	if _, err := store.Create(ctx, &Record{Task: "a", Slug: "a", Branch: "main", Path: dir, State: Active}); err != nil {
		t.Fatal(err)
	}
	list := func() []Entry {
		t.Helper()
		p := StartAll(ctx, r, dir, common)
		p.Warm(CacheFile(common))
		store.Use(p)
		all, err := store.All(ctx)
		if err != nil || len(all) != 1 {
			t.Fatalf("All: %v %v", all, err)
		}
		return all
	}
	for i := range 2 * cacheSlack {
		e := list()[0]
		e.Record.Base = fmt.Sprintf("version %d", i)
		if err := store.Save(ctx, &e); err != nil {
			t.Fatal(err)
		}
	}
	if got := list()[0].Record.Base; got != fmt.Sprintf("version %d", 2*cacheSlack-1) {
		t.Fatalf("list read %q, not the last version", got)
	}
	if _, total, _ := (blobCache{CacheFile(common)}).load(nil); total > 1+cacheSlack+1 {
		t.Fatalf("the cache holds %d entries for 1 live record", total)
	}
}
