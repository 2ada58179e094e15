//go:build unix

// These tests protect gc --reclaim (SPEC §20): in idle tasks it deletes
// only the build output git ignores whole — never a tracked file, an
// untracked file git does not ignore, or anything a symlink leads to —
// reports the bytes as du counts them, leaves tasks in use (or whose
// processes it cannot see), locked or active alone, deletes nothing in a
// dry run, and git wt init (or the task's next new) sets the task up
// again; over wt.maxTotalSize the build output goes before the pool and
// before any task.
package e2e

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/git-wt/git-wt/internal/testutil"
)

// reclaimDoc is gc --json's account of build output.
type reclaimDoc struct {
	Reclaim []struct {
		Task, Path, Outcome string
		Folders             []string
		Bytes               int64
	}
	ReclaimedBytes int64 `json:"reclaimed_bytes"`
	Retention      []struct{ Task, Outcome string }
	Pool           []struct{ Path, Outcome, Reason string }
}

func reclaimJSON(t *testing.T, s *testutil.Sandbox, args ...string) reclaimDoc {
	t.Helper()
	r := s.MustWT(append([]string{"gc", "--json"}, args...)...)
	var doc reclaimDoc
	if err := json.Unmarshal([]byte(r.Stdout), &doc); err != nil {
		t.Fatalf("gc --json: %v\n%s", err, r.Stdout)
	}
	return doc
}

// outcomes are the reclaim outcomes by task.
func (d reclaimDoc) outcomes() map[string]string {
	out := map[string]string{}
	for _, r := range d.Reclaim {
		out[r.Task] = r.Outcome
	}
	return out
}

// idle makes the task look untouched for d: its record and git-wt's
// access stamp (age), and the worktree's last activity — git's index and
// HEAD's reflog for it, and its top-level entries (links themselves).
func idle(t *testing.T, s *testutil.Sandbox, slug, path string, d time.Duration) {
	t.Helper()
	age(t, s, slug, d)
	then := time.Now().Add(-d)
	data, err := os.ReadFile(filepath.Join(path, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	admin := strings.TrimSpace(strings.TrimPrefix(string(data), "gitdir: "))
	for _, p := range []string{filepath.Join(admin, "index"), filepath.Join(admin, "logs", "HEAD")} {
		os.Chtimes(p, then, then)
	}
	entries, _ := os.ReadDir(path)
	tv := []unix.Timeval{unix.NsecToTimeval(then.UnixNano()), unix.NsecToTimeval(then.UnixNano())}
	for _, e := range entries {
		if err := unix.Lutimes(filepath.Join(path, e.Name()), tv); err != nil {
			t.Fatal(err)
		}
	}
}

// duBytes is what du counts for the trees at paths together: allocated
// blocks, links not followed, a file with several hard links once.
func duBytes(t *testing.T, paths ...string) int64 {
	t.Helper()
	type id struct{ dev, ino uint64 }
	seen := map[id]bool{}
	var total int64
	for _, root := range paths {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			var st syscall.Stat_t
			if err := syscall.Lstat(p, &st); err != nil {
				return err
			}
			if st.Nlink > 1 && !d.IsDir() {
				key := id{uint64(st.Dev), uint64(st.Ino)}
				if seen[key] {
					return nil
				}
				seen[key] = true
			}
			total += int64(st.Blocks) * 512
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("du", append([]string{"-s", "-c", "-B1", "--"}, paths...)...).Output(); err == nil {
		// GNU du, where it is: its total must agree with the count above.
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if n, err := strconv.ParseInt(strings.Fields(lines[len(lines)-1])[0], 10, 64); err == nil && n != total {
			t.Fatalf("du counts %d bytes in %v, the test %d", n, paths, total)
		}
	}
	return total
}

// reclaimSandbox is a repository whose init writes node_modules/marker,
// with a tracked file in build/ (which git ignores but for it) and in a
// nested package.
func reclaimSandbox(t *testing.T) *testutil.Sandbox {
	s := testutil.NewSandbox(t)
	s.Write(".gitignore", "node_modules\ntarget\nbuild/\n")
	s.Write("build/keep.txt", "tracked in an ignored folder\n")
	s.Write("packages/a/package.json", "{}\n")
	s.Git(s.Repo, "add", ".gitignore", "packages")
	s.Git(s.Repo, "add", "-f", "build/keep.txt")
	s.Git(s.Repo, "commit", "-qm", "files")
	s.Git(s.Repo, "config", "wt.init", `mkdir -p node_modules && echo "$WT_TASK" > node_modules/marker`)
	return s
}

func TestGCReclaimDeletesOnlyTheIgnoredBuildOutputOfIdleTasks(t *testing.T) {
	s := reclaimSandbox(t)
	paths := map[string]string{}
	for _, id := range []string{"T", "N", "inuse", "locked", "recent"} {
		paths[id] = s.MustWT("new", id).Out()
	}
	wt := paths["T"]
	outside := filepath.Join(filepath.Dir(s.Repo), "outside")
	s.Write(filepath.Join(outside, "node_modules", "precious.js"), strings.Repeat("p", 10000))
	s.Write(filepath.Join(outside, "keep.txt"), "outside\n")
	s.Write(filepath.Join(wt, "node_modules", "pkg", "index.js"), strings.Repeat("x", 50000))
	os.MkdirAll(filepath.Join(wt, "node_modules", "dup"), 0o755)
	if err := os.Link(filepath.Join(wt, "node_modules", "pkg", "index.js"), filepath.Join(wt, "node_modules", "dup", "index.js")); err != nil {
		t.Fatal(err)
	}
	s.Write(filepath.Join(wt, "packages", "a", "node_modules", "x", "x.js"), strings.Repeat("y", 20000))
	s.Write(filepath.Join(wt, "build", "out.o"), "ignored file in a folder with a tracked one\n")
	s.Write(filepath.Join(wt, "dist", "app.js"), "untracked, not ignored\n")
	os.Symlink(outside, filepath.Join(wt, "target"))                                               // ignored, a link: git's file
	os.Symlink(filepath.Join(outside, "node_modules"), filepath.Join(wt, "packages", "b-modules")) // leads out
	os.MkdirAll(filepath.Join(wt, "packages", "b"), 0o755)
	os.Symlink(filepath.Join(outside, "node_modules"), filepath.Join(wt, "packages", "b", "node_modules")) // planted, named like a match
	statusBefore := s.Git(wt, "status", "--porcelain", "--ignored")
	want := duBytes(t, filepath.Join(wt, "node_modules"), filepath.Join(wt, "packages", "a", "node_modules"))

	s.MustWT("lock", "locked")
	startIn(t, paths["inuse"], "sleep", "60")
	for _, id := range []string{"T", "N", "inuse", "locked"} {
		idle(t, s, id, paths[id], 4*24*time.Hour)
	}
	idle(t, s, "recent", paths["recent"], time.Hour)

	var listed []struct {
		Slug        string
		Reclaimable *int64 `json:"reclaimable_bytes"`
	}
	json.Unmarshal([]byte(s.MustWT("list", "--size", "--json").Stdout), &listed)
	for _, l := range listed {
		if l.Slug == "T" && (l.Reclaimable == nil || *l.Reclaimable != want) {
			t.Errorf("list --size says T can free %v bytes, du counts %d", l.Reclaimable, want)
		}
	}

	if r := s.WT("gc", "--reclaim", "--max-age", "1d"); r.Code != 2 {
		t.Fatalf("gc --reclaim with a retention flag it would not apply: %s", r)
	}
	dry := reclaimJSON(t, s, "--reclaim", "--dry-run")
	if got := dry.outcomes(); got["T"] != "would reclaim" || got["N"] != "would reclaim" || dry.ReclaimedBytes < want {
		t.Fatalf("gc --reclaim --dry-run: %+v", dry)
	}
	if !testutil.Exists(filepath.Join(wt, "node_modules", "pkg", "index.js")) || !testutil.Exists(filepath.Join(paths["N"], "node_modules", "marker")) {
		t.Fatal("the dry run deleted build output")
	}

	doc := reclaimJSON(t, s, "--reclaim")
	got := doc.outcomes()
	if got["T"] != "reclaimed" || got["N"] != "reclaimed" {
		t.Fatalf("gc --reclaim: %+v", doc)
	}
	for id, why := range map[string]string{"inuse": "kept: in use by process", "locked": "kept: locked", "recent": "kept: active 1h ago"} {
		if !strings.HasPrefix(got[id], why) {
			t.Errorf("%s: %q, want %q...", id, got[id], why)
		}
		if !testutil.Exists(filepath.Join(paths[id], "node_modules", "marker")) {
			t.Errorf("%s: its build output went", id)
		}
	}
	for _, r := range doc.Reclaim {
		if r.Task == "T" && (r.Bytes != want || !slices.Equal(r.Folders, []string{"node_modules", filepath.Join("packages", "a", "node_modules")})) {
			t.Errorf("T: reclaimed %v, %d bytes; du counted %d", r.Folders, r.Bytes, want)
		}
	}
	for _, gone := range []string{"node_modules", "packages/a/node_modules"} {
		if _, err := os.Lstat(filepath.Join(wt, gone)); err == nil {
			t.Errorf("%s is still there", gone)
		}
	}
	for _, kept := range []string{"build/keep.txt", "build/out.o", "dist/app.js", "packages/a/package.json", ".gitignore",
		"target/keep.txt", "packages/b/node_modules/precious.js", "packages/b-modules/precious.js"} {
		if !testutil.Exists(filepath.Join(wt, kept)) {
			t.Errorf("%s went", kept)
		}
	}
	reclaimed := func(line string) bool { return line == "!! node_modules/" || line == "!! packages/a/node_modules/" }
	if after := s.Git(wt, "status", "--porcelain", "--ignored"); after != strings.Join(slices.DeleteFunc(strings.Split(statusBefore, "\n"), reclaimed), "\n") {
		t.Errorf("git status before:\n%s\nafter:\n%s", statusBefore, after)
	}
	if r := s.MustWT("list"); !strings.Contains(r.Stdout, "reclaimed") {
		t.Errorf("list does not say T was reclaimed:\n%s", r.Stdout)
	}
	var shown struct{ Reclaimed *struct{ Bytes int64 } }
	json.Unmarshal([]byte(s.MustWT("show", "--json", "T").Stdout), &shown)
	if shown.Reclaimed == nil || shown.Reclaimed.Bytes != want {
		t.Fatalf("T's record notes %+v, want %d bytes reclaimed", shown.Reclaimed, want)
	}

	// git wt init sets T up again; N's next new does.
	s.MustWT("init", "T")
	s.MustWT("new", "N")
	for _, id := range []string{"T", "N"} {
		if data, _ := os.ReadFile(filepath.Join(paths[id], "node_modules", "marker")); strings.TrimSpace(string(data)) != id {
			t.Errorf("%s: the init did not run again: marker %q", id, data)
		}
		rec := readRecord(t, s, id)
		if _, noted := rec["reclaimed"]; noted {
			t.Errorf("%s: the setup left the reclaimed note: %v", id, rec["reclaimed"])
		}
	}
}

// Over wt.maxTotalSize, an idle task's build output goes first, and when
// that brings the tasks under the limit, neither the pool nor the task
// does; when it does not, the pool drains and the task goes.
func TestMaxTotalSizeReclaimsBuildOutputBeforeThePoolAndTheTasks(t *testing.T) {
	s := poolSandbox(t, "0")
	task := s.MustWT("new", "--no-copy", "T").Out()
	entry := oneEntry(t, s, false)
	s.Write(filepath.Join(task, "node_modules", "big.bin"), strings.Repeat("x", 400<<10))
	idle(t, s, "T", task, 4*24*time.Hour)
	s.Git(s.Repo, "config", "wt.maxTotalSize", "300k")

	doc := reclaimJSON(t, s)
	if got := doc.outcomes(); got["T"] != "reclaimed" || doc.ReclaimedBytes < 400<<10 || len(doc.Pool) != 0 || len(doc.Retention) != 0 {
		t.Fatalf("gc over wt.maxTotalSize: %+v, want the build output reclaimed and nothing else", doc)
	}
	if !testutil.Exists(entry) || !testutil.Exists(filepath.Join(task, "a", "keep.txt")) || testutil.Exists(filepath.Join(task, "node_modules")) {
		t.Fatal("the pool entry or the task went, or the build output stayed")
	}

	s.Write(filepath.Join(task, "node_modules", "big.bin"), strings.Repeat("x", 400<<10))
	idle(t, s, "T", task, 4*24*time.Hour)
	s.Git(s.Repo, "config", "wt.maxTotalSize", "1k")
	doc = reclaimJSON(t, s)
	if got := doc.outcomes(); got["T"] != "reclaimed" || len(doc.Pool) != 1 || doc.Pool[0].Outcome != "removed" || len(doc.Retention) != 1 || doc.Retention[0].Outcome != "removed" {
		t.Fatalf("gc over a limit the build output cannot meet: %+v, want it reclaimed, the pool drained, the task removed", doc)
	}
}

// Where git-wt cannot see every process (SPEC §15), whether one works in
// an idle task is unknown: gc --reclaim keeps its build output and says
// why.
func TestBlindReclaimKeepsWhatItCannotSee(t *testing.T) {
	forEachBlindPlace(t, func(t *testing.T, blind func(*testutil.Sandbox, string, ...string) testutil.Result) {
		s := reclaimSandbox(t)
		path := s.MustWT("new", "T").Out()
		idle(t, s, "T", path, 4*24*time.Hour)
		r := blind(s, s.Repo, "gc", "--reclaim", "--json")
		var doc reclaimDoc
		if err := json.Unmarshal([]byte(r.Stdout), &doc); err != nil || r.Code != 0 {
			t.Fatalf("gc --reclaim: %v\n%s", err, r)
		}
		if got := doc.outcomes()["T"]; !strings.HasPrefix(got, "kept: cannot tell whether a process works in it") || !testutil.Exists(filepath.Join(path, "node_modules", "marker")) {
			t.Fatalf("gc --reclaim where processes cannot be seen: %q; the build output must stay", got)
		}
	})
}

// What changes between gc --reclaim's listing and its deletion is seen:
// a file git tracks now (git add -f) keeps the folder, a lock keeps the
// task.
func TestReclaimLooksAgainBeforeItDeletes(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		meanwhile  func(s *testutil.Sandbox, path string)
	}{
		{"a file tracked since", "kept: git tracks a file in each folder now", func(s *testutil.Sandbox, path string) {
			s.Git(path, "add", "-f", "node_modules/marker")
			then := time.Now().Add(-4 * 24 * time.Hour) // the add is no activity to this test
			data, _ := os.ReadFile(filepath.Join(path, ".git"))
			os.Chtimes(filepath.Join(strings.TrimSpace(strings.TrimPrefix(string(data), "gitdir: ")), "index"), then, then)
		}},
		{"locked since", "kept: locked", func(s *testutil.Sandbox, path string) { s.MustWT("lock", "T") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := reclaimSandbox(t)
			path := s.MustWT("new", "T").Out()
			idle(t, s, "T", path, 4*24*time.Hour)
			cmd, stdout, _, goOn := paused(t, s, s.Repo, "reclaim:listed", "gc", "--reclaim", "--json")
			tc.meanwhile(s, path)
			goOn()
			if code := exitCode(cmd); code != 0 {
				t.Fatalf("gc --reclaim: exit %d\n%s", code, stdout)
			}
			var doc reclaimDoc
			json.Unmarshal(stdout.Bytes(), &doc)
			if got := doc.outcomes()["T"]; got != tc.want || !testutil.Exists(filepath.Join(path, "node_modules", "marker")) {
				t.Fatalf("gc --reclaim: %q, want %q; the build output must stay", got, tc.want)
			}
		})
	}
}
