// These tests protect what the sweeper judges a leftover of a killed git:
// which lock files, which admin entries, which lock mismatches.
package leftover

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/events"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/proc"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/settings"
	"github.com/git-wt/git-wt/internal/task"
)

// sweeperIn is a sweeper of a repository whose common dir is common, with
// no git of this test working in it.
func sweeperIn(t *testing.T, common string) *Sweeper {
	t.Helper()
	dir := filepath.Dir(common)
	return New(&task.Manager{Repo: &git.Repo{CommonDir: common, MainDir: dir},
		Settings: &settings.Settings{BaseDir: filepath.Join(dir, "tasks")}})
}

// writeFile writes data to path, its folders made, last changed age ago.
func writeFile(t *testing.T, path, data string, age time.Duration) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o666); err != nil {
		t.Fatal(err)
	}
	when := time.Now().Add(-age)
	if err := os.Chtimes(path, when, when); err != nil {
		t.Fatal(err)
	}
}

func paths(problems []*task.Problem) []string {
	var out []string
	for _, p := range problems {
		out = append(out, p.Path)
	}
	slices.Sort(out)
	return out
}

func TestOnlyAnEmptyCommondirIsABrokenAdminEntry(t *testing.T) {
	common := filepath.Join(t.TempDir(), ".git")
	wts := filepath.Join(common, "worktrees")
	writeFile(t, filepath.Join(wts, "killed", "commondir"), "", 0)
	writeFile(t, filepath.Join(wts, "whole", "commondir"), "../..\n", 0)
	if err := os.MkdirAll(filepath.Join(wts, "nofile"), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(wts, "dirinstead", "commondir"), 0o777); err != nil {
		t.Fatal(err)
	}
	m := sweeperIn(t, common)
	problems := m.BrokenAdminEntries()
	if got, want := paths(problems), []string{filepath.Join(wts, "killed")}; !slices.Equal(got, want) {
		t.Fatalf("broken admin entries %v, want %v", got, want)
	}
	if err := problems[0].FixWith(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(wts, "killed", "commondir")); string(data) != "../..\n" {
		t.Errorf("the fix wrote %q into commondir, want what git writes, ../..", data)
	}
	if len(m.BrokenAdminEntries()) != 0 {
		t.Error("the entry is still broken after its fix")
	}
}

func TestStaleGCLocksAreTheMainAndEveryWorktreesGCLogLock(t *testing.T) {
	common := filepath.Join(t.TempDir(), ".git")
	hour := time.Hour
	writeFile(t, filepath.Join(common, "gc.log.lock"), "", hour)
	writeFile(t, filepath.Join(common, "worktrees", "task", "gc.log.lock"), "", hour)
	writeFile(t, filepath.Join(common, "worktrees", "pool1", "gc.log.lock"), "", hour)
	writeFile(t, filepath.Join(common, "worktrees", "task", "gc.log"), "", hour)        // the log, no lock
	writeFile(t, filepath.Join(common, "worktrees", "task", "index.lock"), "", hour)    // another kind
	writeFile(t, filepath.Join(common, "refs", "heads", "gc.log.lock"), "", hour)       // not where gc writes
	writeFile(t, filepath.Join(common, "worktrees", "a", "b", "gc.log.lock"), "", hour) // not an admin entry
	if proc.Sight() != nil {
		t.Skip("process facts cannot be seen here: every lock holder is unknown")
	}
	want := []string{
		filepath.Join(common, "gc.log.lock"),
		filepath.Join(common, "worktrees", "pool1", "gc.log.lock"),
		filepath.Join(common, "worktrees", "task", "gc.log.lock"),
	}
	problems := sweeperIn(t, common).StaleGCLocks()
	if got := paths(problems); !slices.Equal(got, want) {
		t.Fatalf("stale gc locks %v, want %v", got, want)
	}
	for _, p := range problems {
		if p.Kind != StaleGCLock || !strings.Contains(p.Detail, "killed") {
			t.Errorf("%s: kind %s, detail %q: want a stale gc lock a killed git left", p.Path, p.Kind, p.Detail)
		}
		if err := p.FixWith(context.Background(), false); err != nil {
			t.Errorf("fix of %s: %v", p.Path, err)
		}
		if _, err := os.Lstat(p.Path); err == nil {
			t.Errorf("%s is still there after its fix", p.Path)
		}
	}
}

func TestALockWhoseHolderIsUnknownIsNeverCalledKilled(t *testing.T) {
	for _, tc := range []struct {
		holder     proc.Liveness
		killed     bool // the detail says a killed git left it
		forceNamed bool // the detail tells how to delete it anyway
	}{
		{proc.Dead, true, false},
		{proc.Unknown, false, true},
	} {
		t.Run(tc.holder.String(), func(t *testing.T) {
			d := lockDetail(tc.holder, "its index.lock")
			if got := strings.Contains(d, "killed"); got != tc.killed {
				t.Errorf("%q: says killed = %v, want %v", d, got, tc.killed)
			}
			if got := strings.Contains(d, "--force"); got != tc.forceNamed {
				t.Errorf("%q: names --force = %v, want %v", d, got, tc.forceNamed)
			}
		})
	}
}

// gitRepo makes a repository with one commit in a temp dir.
func gitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, args := range [][]string{
		{"init", "-q", dir},
		{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "init"},
	} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Skipf("git %v: %v %s", args, err, out)
		}
	}
	return dir
}

func TestAGitLockIsStaleOnlyWhenItIsThereAndNoGitHoldsIt(t *testing.T) {
	if proc.Sight() != nil {
		t.Skip("process facts cannot be seen here: every lock holder is unknown")
	}
	repo := gitRepo(t)
	common := filepath.Join(repo, ".git")
	notRepo := t.TempDir()
	writeFile(t, filepath.Join(repo, ".git", "index.lock"), "", time.Hour)
	// A task's .git file, which the agent can write, naming a folder
	// outside that holds a stale-looking index.lock: not git's entry.
	elsewhere, planted := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(elsewhere, "index.lock"), "", time.Hour)
	writeFile(t, filepath.Join(planted, ".git"), "gitdir: "+elsewhere+"\n", time.Hour)
	for _, tc := range []struct {
		name, dir, lock string
		want            proc.Liveness
	}{
		{"a lock file no git holds is stale", repo, "index.lock", proc.Dead},
		{"no lock file: nothing to delete", repo, "HEAD.lock", proc.Alive},
		{"not a worktree: nothing to delete", notRepo, "index.lock", proc.Alive},
		{"a .git file naming another folder: nothing to delete", planted, "index.lock", proc.Alive},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, got := judgeLock(common, tc.dir, tc.lock); got != tc.want {
				t.Errorf("holder %v, want %v", got, tc.want)
			}
		})
	}
	if err := removeStaleLock(common, planted, "index.lock", true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(elsewhere, "index.lock")); err != nil {
		t.Errorf("the lock in the folder a .git file names was deleted: %v", err)
	}
	if err := removeStaleLock(common, repo, "index.lock", false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(repo, ".git", "index.lock")); err == nil {
		t.Error("the stale index.lock is still there")
	}
}

func TestALockMismatchMakesTheRecordFollowGit(t *testing.T) {
	for _, tc := range []struct {
		name      string
		wt        *git.Worktree
		recLocked bool
		want      string // the detail, "" for no problem
	}{
		{"both unlocked", &git.Worktree{}, false, ""},
		{"both locked", &git.Worktree{Locked: true, LockReason: "mine"}, true, ""},
		{"no worktree: another problem", nil, true, ""},
		{"git's initializing lock is a killed add's, not a mismatch", &git.Worktree{Locked: true, LockReason: initializingReason}, false, ""},
		{"locked by hand", &git.Worktree{Locked: true}, false, "git has the worktree locked, its record unlocked"},
		{"unlocked by hand", &git.Worktree{}, true, "git has the worktree unlocked, its record locked"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &record.Entry{Record: &record.Record{Task: "t", Locked: tc.recLocked}}
			p := (&Sweeper{}).DiagnoseLock(e, tc.wt, &task.Problem{})
			switch {
			case tc.want == "" && p != nil:
				t.Errorf("reported %s: %s", p.Kind, p.Detail)
			case tc.want != "" && p == nil:
				t.Errorf("not reported, want %q", tc.want)
			case p != nil && (p.Kind != LockMismatch || p.Detail != tc.want):
				t.Errorf("reported %s %q, want %s %q", p.Kind, p.Detail, LockMismatch, tc.want)
			}
		})
	}
}

func TestAKilledMergeIsTakenBackFromTheWorktreeOnItsBase(t *testing.T) {
	wts := []git.Worktree{{Path: "/main", Branch: "refs/heads/main"}, {Path: "/t", Branch: "refs/heads/wt/t"}, {Path: "/d"}}
	for _, tc := range []struct{ base, want string }{
		{"refs/heads/main", "/main"},
		{"refs/heads/wt/t", "/t"},
		{"refs/heads/gone", ""},                          // nothing has the base checked out: nothing to take back
		{"0123456789abcdef0123456789abcdef01234567", ""}, // a base that is a commit: no worktree is on it
	} {
		got := ""
		if wt := worktreeOnBranch(wts, tc.base); wt != nil {
			got = wt.Path
		}
		if got != tc.want {
			t.Errorf("worktree on %q: %q, want %q", tc.base, got, tc.want)
		}
	}
}

// Run with -tags gitwt_noprocfs, where no process fact can be seen.
func TestAnUnknownHolderNeverMakesALockStale(t *testing.T) {
	if proc.Sight() == nil {
		t.Skip("process facts can be seen here: run with -tags gitwt_noprocfs")
	}
	repo := gitRepo(t)
	lock := filepath.Join(repo, ".git", "index.lock")
	writeFile(t, lock, "", 24*time.Hour) // however old
	if _, holder := judgeLock(filepath.Join(repo, ".git"), repo, "index.lock"); holder != proc.Unknown {
		t.Fatalf("holder %v, want unknown", holder)
	}
	m := sweeperIn(t, filepath.Join(repo, ".git"))
	m.Warn = func(string, ...any) {}
	m.ClearStaleLocks(&record.Record{Task: "t", Path: repo})
	if err := removeStaleLock(filepath.Join(repo, ".git"), repo, "index.lock", false); err == nil {
		t.Error("a lock of an unknown holder was deleted without --force")
	}
	if _, err := os.Lstat(lock); err != nil {
		t.Fatalf("the lock of an unknown holder was deleted: %v", err)
	}
	if err := removeStaleLock(filepath.Join(repo, ".git"), repo, "index.lock", true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(lock); err == nil {
		t.Error("--force did not delete the lock of an unknown holder")
	}
}

// gitIn runs git in dir, failing the test if it fails.
func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	args = append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)
	if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v %s", args, err, out)
	}
}

func TestAKilledMergeLosesOnlyFilesItsBranchKeeps(t *testing.T) {
	repo := gitRepo(t)
	gitIn(t, repo, "switch", "-q", "-c", "wt/t")
	writeFile(t, filepath.Join(repo, "merged.txt"), "merged\n", 0)
	writeFile(t, filepath.Join(repo, "dir", "cut.txt"), "the whole content\n", 0)
	writeFile(t, filepath.Join(repo, "staged.txt"), "staged\n", 0)
	writeFile(t, filepath.Join(repo, "edited.txt"), "the branch's\n", 0)
	gitIn(t, repo, "add", "-A")
	gitIn(t, repo, "commit", "-q", "-m", "task")
	gitIn(t, repo, "switch", "-q", "-")
	// What git merge wrote before it was killed, and the user's own files.
	writeFile(t, filepath.Join(repo, "merged.txt"), "merged\n", 0)
	writeFile(t, filepath.Join(repo, "dir", "cut.txt"), "the wh", 0)
	writeFile(t, filepath.Join(repo, "staged.txt"), "staged\n", 0)
	gitIn(t, repo, "add", "staged.txt")
	writeFile(t, filepath.Join(repo, "edited.txt"), "the user's\n", 0)
	writeFile(t, filepath.Join(repo, "mine.txt"), "the user's\n", 0)
	writeFile(t, filepath.Join(repo, "empty-but-mine.txt"), "", 0)

	m := sweeperIn(t, filepath.Join(repo, ".git"))
	m.Git = &git.Runner{}
	m.Git.SetRepository(m.Repo.CommonDir, m.Repo.MainDir)
	m.Events = &events.Log{Path: filepath.Join(t.TempDir(), "events.jsonl")}
	m.Warn = t.Logf
	if err := m.takeBackCheckout(context.Background(), repo, &record.Record{Task: "t", Branch: "wt/t", Path: repo}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file string
		kept bool
	}{
		{"merged.txt", false},        // the branch's content: the branch keeps it
		{"dir/cut.txt", false},       // cut short: the start of the branch's
		{"staged.txt", false},        // staged by the merge, the branch's content
		{"edited.txt", true},         // not the branch's content
		{"mine.txt", true},           // not in the branch at all
		{"empty-but-mine.txt", true}, // empty, but in no blob of the branch
	} {
		_, err := os.Lstat(filepath.Join(repo, filepath.FromSlash(tc.file)))
		if kept := err == nil; kept != tc.kept {
			t.Errorf("%s kept = %v, want %v", tc.file, kept, tc.kept)
		}
	}
	if _, err := os.Lstat(filepath.Join(repo, "dir")); err == nil {
		t.Error("the folder the merge made is still there, empty")
	}
	out, err := exec.Command("git", "-C", repo, "diff", "--cached", "--name-only").Output()
	if err != nil || len(out) != 0 {
		t.Errorf("still staged after the take-back: %q (%v)", out, err)
	}
}

// doctor listed an unlisted entry; before its fix ran, an agent swapped
// the worktrees folder for a link to the user's home: the fix deletes
// nothing there.
func TestTheUnlistedEntrysFixDeletesNothingThroughALinkedWorktreesFolder(t *testing.T) {
	root := t.TempDir()
	common := filepath.Join(root, ".git")
	home := filepath.Join(root, "home")
	documents := filepath.Join(home, "Documents")
	writeFile(t, filepath.Join(documents, "thesis.tex"), "years of work", 0)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(documents, old, old)
	os.MkdirAll(common, 0o777)
	if err := os.Symlink(home, filepath.Join(common, "worktrees")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	m := sweeperIn(t, common)
	if err := m.dropUnlisted(context.Background(), filepath.Join(common, "worktrees", "Documents")); err != nil {
		t.Logf("dropUnlisted: %v", err)
	}
	if _, err := os.Stat(filepath.Join(documents, "thesis.tex")); err != nil {
		t.Fatalf("the fix deleted the user's folder through the link: %v", err)
	}
}
