// These tests pin the answers of "merged" (SPEC §7) on a real repository,
// and hold the cheap pre-check (changedOnBase: one diff-tree for all
// tasks) to the meaning of the per-path look-up it replaced: a task is
// ruled out when the base holds, at some path the task changed, the blob
// base_sha held there.
package inspect

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
)

type gitRepo struct {
	t   *testing.T
	dir string
}

func (r gitRepo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (r gitRepo) write(name, content string) {
	r.t.Helper()
	path := filepath.Join(r.dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// makeExecutable gives name the executable bit, in the index too: on
// Windows, where files have none, git keeps it there only.
func (r gitRepo) makeExecutable(name string) {
	r.t.Helper()
	os.Chmod(filepath.Join(r.dir, name), 0o755)
	r.git("update-index", "--chmod=+x", "--", name)
}

func (r gitRepo) commit(msg string) string {
	r.git("add", "-A")
	r.git("commit", "-q", "--allow-empty", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

// A repository whose tasks were merged in every way git users merge, and
// some that were not.
func mergedScenarios(t *testing.T) (gitRepo, []*record.Record, map[string]bool) {
	r := gitRepo{t, t.TempDir()}
	r.git("init", "-q", "-b", "main")
	for _, f := range []string{"a", "b", "c", "d", "e", "x", "m"} {
		r.write(f+".txt", f+"\n")
	}
	fork := r.commit("start")
	var recs []*record.Record
	want := map[string]bool{}
	task := func(name string, merged bool, work func()) {
		r.git("checkout", "-q", "-b", "wt/"+name, fork)
		work()
		recs = append(recs, &record.Record{Task: name, Slug: name, Branch: "wt/" + name, Base: "refs/heads/main", BaseSHA: fork})
		want[name] = merged
		r.git("checkout", "-q", "main")
	}
	task("squashed", true, func() {
		r.write("a.txt", "a squashed\n")
		r.write("new.txt", "n\n")
		r.commit("a1")
		r.write("a.txt", "a squashed 2\n")
		r.commit("a2")
	})
	task("rebased", true, func() { r.write("b.txt", "b1\n"); r.commit("b1"); r.write("c.txt", "c1\n"); r.commit("b2") })
	task("picked-one", false, func() { r.write("d.txt", "d1\n"); r.commit("d1"); r.write("e.txt", "e1\n"); r.commit("d2") })
	task("renamed", true, func() { r.git("mv", "x.txt", "y.txt"); r.commit("rename") })
	task("mode", false, func() { r.makeExecutable("m.txt"); r.commit("mode") })
	task("untouched", false, func() { r.write("u.txt", "u\n"); r.commit("u") })
	task("reverted", true, func() { r.write("r.txt", "r\n"); r.commit("r") })
	task("fresh", false, func() {})

	// main: a squash of "squashed", the commits of "rebased" replayed, one
	// of "picked-one"'s two, "renamed" squashed, the same mode change as
	// "mode" (a mode-only change is no change), "reverted" merged and
	// reverted, and work of its own.
	r.git("merge", "-q", "--squash", "wt/squashed")
	r.commit("squash")
	r.git("cherry-pick", "wt/rebased~1", "wt/rebased")
	r.git("cherry-pick", "wt/picked-one~1")
	r.git("merge", "-q", "--squash", "wt/renamed")
	r.commit("rename squash")
	r.makeExecutable("m.txt")
	r.commit("mode on main")
	r.git("merge", "-q", "--no-ff", "-m", "merge reverted", "wt/reverted")
	r.git("revert", "--no-edit", "HEAD", "-m", "1")
	r.write("own.txt", "main's own\n")
	r.commit("own")
	return r, recs, want
}

func TestMergedOnARealRepository(t *testing.T) {
	r, recs, want := mergedScenarios(t)
	ctx := context.Background()
	runner := &git.Runner{}
	repo, err := runner.Locate(ctx, r.dir)
	if err != nil {
		t.Fatal(err)
	}
	in := New(&task.Manager{Git: runner, Repo: repo}, nil)
	set, err := in.MergedSet(ctx, recs, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		if set[rec.Slug] != want[rec.Slug] {
			t.Errorf("task %s: merged %v, want %v", rec.Slug, set[rec.Slug], want[rec.Slug])
		}
	}

	// The pre-check keeps exactly the tasks the per-path look-up kept.
	checks, err := in.resolveChecks(ctx, recs)
	if err != nil {
		t.Fatal(err)
	}
	kept, err := in.changedOnBase(ctx, checks)
	if err != nil {
		t.Fatal(err)
	}
	if got, old := slugsOf(kept), slugsOf(changedOnBaseByLookUp(t, in, checks)); !reflect.DeepEqual(got, old) {
		t.Errorf("changedOnBase kept %v, the per-path look-up %v", got, old)
	}
}

func slugsOf(checks []*mergeCheck) []string {
	var slugs []string
	for _, c := range checks {
		slugs = append(slugs, c.rec.Slug)
	}
	sort.Strings(slugs)
	return slugs
}

// changedOnBaseByLookUp is the meaning of the pre-check, asked the slow
// way: <base tip>:<path> for every path every task changed.
func changedOnBaseByLookUp(t *testing.T, in *Inspector, checks []*mergeCheck) []*mergeCheck {
	ctx := context.Background()
	var keep []*mergeCheck
	for _, c := range checks {
		out, err := in.Git.History().DiffTrees(ctx, in.Repo.MainDir, [][2]string{{c.tip, c.rec.BaseSHA}})
		if err != nil {
			t.Fatal(err)
		}
		changes := diffSections(out, 1)[0]
		names := make([]string, len(changes))
		for i, ch := range changes {
			names[i] = c.base + ":" + ch.path
		}
		now, err := in.Git.ObjectIDs(ctx, in.Repo.MainDir, names...)
		if err != nil {
			t.Fatal(err)
		}
		untouched := false
		for i, ch := range changes {
			if now[i] == ch.before || now[i] == "" && strings.Trim(ch.before, "0") == "" {
				untouched = true
			}
		}
		if !untouched {
			keep = append(keep, c)
		}
	}
	return keep
}

// diff-tree's -z output split into sections, and a task ruled out at a
// path the base left alone or changed only in mode.
func TestDiffSectionsAndEveryPathChanged(t *testing.T) {
	const z = "0000000000000000000000000000000000000000"
	out := "t1 b\x00:100644 100644 aaa bbb M\x00a.txt\x00:000000 100644 " + z + " ccc A\x00dir/n.txt\x00" +
		"t2 b\x00" + // an empty diff: its header only (--always)
		"main b\x00:100644 100755 aaa aaa M\x00a.txt\x00:000000 100644 " + z + " ccc A\x00dir/n.txt\x00"
	got := diffSections([]byte(out), 3)
	want := [][]pathChange{
		{{"a.txt", "aaa", "bbb"}, {"dir/n.txt", z, "ccc"}},
		nil,
		{{"a.txt", "aaa", "aaa"}, {"dir/n.txt", z, "ccc"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("diffSections = %q, want %q", got, want)
	}
	for _, c := range []struct {
		name string
		task []pathChange
		base map[string]bool
		want bool
	}{
		{"every path changed", want[0], map[string]bool{"a.txt": true, "dir/n.txt": true}, true},
		{"one path left alone", want[0], map[string]bool{"dir/n.txt": true}, false},
		{"nothing changed", nil, nil, true},
	} {
		if got := everyPathChanged(c.task, c.base); got != c.want {
			t.Errorf("%s: everyPathChanged = %v, want %v", c.name, got, c.want)
		}
	}
}
