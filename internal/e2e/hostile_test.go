//go:build unix

// These tests protect git-wt against hostile input and odd surroundings:
// any task id either works or is refused with exit 2, nothing is written
// outside the base dir, bad records are reported and never removed, and
// git's environment or language never redirects or confuses git-wt.
package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/testutil"
)

func TestHostileTaskIDsStayInsideTheBaseDir(t *testing.T) {
	s := testutil.NewSandbox(t)
	base := filepath.Join(filepath.Dir(s.Repo), "repo-worktrees")
	ids := []string{
		"line\nbreak", "tab\there", "bell\a\x1b[31mred", "\x01\x02\x7f", "\xff\xfe binary \xc3\x28",
		strings.Repeat("long-", 60), "../../etc/passwd", "/etc/passwd", "..", ".", "-rf", "--base=evil",
		"$(touch /tmp/pwned)", "`id`", "; rm -rf ~", "a/../../b", "CON", "nul.txt", "refs/heads/main",
		"HEAD", "@", "wt/x", "x.lock", "...", "./.",
	}
	var accepted []string
	for _, id := range ids {
		r := s.WT("new", "--", id)
		if r.Code == 2 && strings.Count(r.Stderr, "\n") == 1 {
			continue // refused with a one-line usage error: allowed
		}
		accepted = append(accepted, id)
		if r.Code != 0 {
			t.Errorf("new %q: %s", id, r)
			continue
		}
		path := r.Out()
		if filepath.Dir(path) != base {
			t.Errorf("new %q made %q, not a folder directly inside %s", id, path, base)
		}
		if got := s.WT("path", "--", id); got.Out() != path {
			t.Errorf("path %q = %s, want %q", id, got, path)
		}
	}
	if testutil.Exists("/tmp/pwned") {
		t.Fatal("a task id reached a shell")
	}
	var views []map[string]any
	if err := json.Unmarshal([]byte(s.MustWT("list", "--json", "--no-status").Stdout), &views); err != nil {
		t.Fatalf("list --json with hostile ids: %v", err)
	}
	if lines := strings.Count(s.MustWT("list", "--no-status").Stdout, "\n"); lines != len(views)+1 {
		t.Fatalf("list printed %d lines for %d tasks: a task id broke the table", lines, len(views))
	}
	for _, id := range accepted {
		if r := s.WT("rm", "--wait", "--", id); r.Code != 0 { // the base dir is looked at next: the deletions must be done
			t.Errorf("rm %q: %s", id, r)
		}
	}
	assertNothingLeft(t, s)
	if entries, _ := os.ReadDir(base); len(entries) != 0 {
		t.Fatalf("left in the base dir: %v", entries)
	}
}

func TestIDsThatDifferOnlyInCase(t *testing.T) {
	s := testutil.NewSandbox(t)
	a := s.MustWT("new", "Fix-Login").Out()
	b := s.MustWT("new", "fix-login").Out()
	if a == b || strings.EqualFold(filepath.Base(a), filepath.Base(b)) == false {
		t.Fatalf("on a case-sensitive file system the slugs keep their case: %q %q", a, b)
	}
	// Where the file system ignores case (git sets core.ignorecase), the
	// second must not land in the first one's folder or ref.
	s.Git(s.Repo, "config", "core.ignorecase", "true")
	c := s.MustWT("new", "FIX-LOGIN").Out()
	if strings.EqualFold(filepath.Base(c), filepath.Base(a)) {
		t.Fatalf("with core.ignorecase, FIX-LOGIN got %q, which folds onto %q", c, a)
	}
}

func TestBaseDirThatIsASymlink(t *testing.T) {
	s := testutil.NewSandbox(t)
	real := filepath.Join(filepath.Dir(s.Repo), "real-wts")
	os.MkdirAll(real, 0o755)
	link := filepath.Join(filepath.Dir(s.Repo), "link-wts")
	os.Symlink(real, link)
	s.Git(s.Repo, "config", "wt.baseDir", link)
	path := s.MustWT("new", "T").Out()
	if path != filepath.Join(real, "T") {
		t.Fatalf("a symlinked base dir is resolved once: got %q", path)
	}
	s.MustWT("rm", "T")
}

// Bad records are reported, and deleted only by doctor --fix --force
// (SPEC §7): gc, rm and doctor --fix without --force keep them.
func TestBadRecordsAreRemovedOnlyByDoctorFixForce(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.MustWT("new", "good")
	head := s.Git(s.Repo, "rev-parse", "HEAD")
	tree := s.Git(s.Repo, "rev-parse", "HEAD^{tree}")
	garbage := filepath.Join(t.TempDir(), "garbage")
	os.WriteFile(garbage, []byte("{not json"), 0o644)
	blob := s.Git(s.Repo, "hash-object", "-w", garbage)
	// borrowed: a good record, another task's, under a ref not its own.
	bad := map[string]string{"commit": head, "tree": tree, "garbage": blob, "borrowed": s.Git(s.Repo, "rev-parse", "refs/git-wt/tasks/good")}
	for name, oid := range bad {
		s.Git(s.Repo, "update-ref", "refs/git-wt/tasks/"+name, oid)
	}
	for range 2 { // with the record blobs read from git, then from the cache
		r := s.MustWT("list")
		if !strings.Contains(r.Stdout, "good") || strings.Count(r.Stderr, "warning") != len(bad) {
			t.Fatalf("list must show the good task and warn about each bad record: %s", r)
		}
	}
	r := s.WT("doctor")
	if r.Code != 1 || strings.Count(r.Stdout, string(task.CorruptRecord)) != len(bad) {
		t.Fatalf("doctor must report each bad record: %s", r)
	}
	if r := s.WT("doctor", "--fix"); r.Code != 1 {
		t.Fatalf("doctor --fix without --force must keep bad records and say so: %s", r)
	}
	s.WT("gc", "--force")
	if r := s.WT("rm", "--force", "garbage"); r.Code != 1 {
		t.Fatalf("rm of a bad record: %s", r)
	}
	for name := range bad {
		if !s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/git-wt/tasks/"+name) {
			t.Errorf("bad record refs/git-wt/tasks/%s was removed", name)
		}
	}
	if r := s.WT("doctor", "--fix", "--force"); r.Code != 0 || strings.Count(r.Stdout, "[fixed]") != len(bad) {
		t.Fatalf("doctor --fix --force must delete each bad record: %s", r)
	}
	for name := range bad {
		if s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/git-wt/tasks/"+name) {
			t.Errorf("bad record refs/git-wt/tasks/%s was kept by doctor --fix --force", name)
		}
	}
	if r := s.MustWT("list"); !strings.Contains(r.Stdout, "good") || r.Stderr != "" {
		t.Fatalf("the good task must survive, with nothing left to warn about: %s", r)
	}
}

func TestGitSpeakingGermanChangesNothing(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Env = append(replaceEnv(s.Env, "LANG", "C.UTF-8"), "LANGUAGE=de")
	if !strings.Contains(s.Git(s.Repo, "status"), "Branch") {
		t.Skip("git has no German translation here")
	}
	path := s.MustWT("new", "T").Out()
	s.Write(filepath.Join(path, "x"), "x")
	if r := s.WT("rm", "T"); r.Code != 3 {
		t.Fatalf("rm of a dirty worktree in German: %s", r)
	}
	s.Git(path, "add", ".")
	s.Git(path, "commit", "-qm", "x")
	if r := s.WT("rm", "T"); r.Code != 0 || !strings.Contains(r.Stderr, "kept branch wt/T: 1 commit not merged") {
		t.Fatalf("rm in German: %s", r)
	}
	if r := s.WT("new", "T", "--base", "no-such"); r.Code != 5 {
		t.Fatalf("a bad base in German: %s", r)
	}
}

func TestCallersGitVariablesDoNotRedirect(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	s.Write(filepath.Join(path, "dirty.txt"), "x")
	// As from a hook in the main worktree: git's own variables point at it.
	hooked := *s
	hooked.Env = append(append([]string(nil), s.Env...),
		"GIT_DIR="+filepath.Join(s.Repo, ".git"), "GIT_WORK_TREE="+s.Repo,
		"GIT_INDEX_FILE="+filepath.Join(s.Repo, ".git", "index"), "GIT_PREFIX=sub/")
	if r := hooked.WT("rm", "T"); r.Code != 3 {
		t.Fatalf("rm with the main worktree's GIT_INDEX_FILE must still see the task's own changes: %s", r)
	}
	if r := hooked.WT("new", "U"); r.Code != 0 || !testutil.Exists(filepath.Join(r.Out(), "README.md")) {
		t.Fatalf("new under a hook's variables: %s", r)
	}
	if s.Git(s.Repo, "status", "--porcelain") != "" {
		t.Fatal("the main worktree was changed")
	}
}

func TestOddBasesAndHEADs(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "tag", "v1")
	first := s.Git(s.Repo, "rev-parse", "HEAD")
	s.Write("later.txt", "x")
	s.Git(s.Repo, "add", ".")
	s.Git(s.Repo, "commit", "-qm", "later")
	clone := filepath.Join(filepath.Dir(s.Repo), "clone")
	s.Git(filepath.Dir(s.Repo), "clone", "-q", s.Repo, clone)
	for base, want := range map[string]string{"v1": "refs/tags/v1", first: first, "origin/main": "refs/remotes/origin/main"} {
		r := s.WTIn(clone, "new", "--json", "from-"+base, "--base", base)
		var rec struct{ Base string }
		if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &rec) != nil || rec.Base != want {
			t.Errorf("--base %s: %s", base, r)
		}
	}
	s.Git(s.Repo, "checkout", "-q", "--detach", first)
	r := s.MustWT("new", "--json", "detached")
	if !strings.Contains(r.Stdout, `"base": "`+first+`"`) {
		t.Fatalf("from a detached main worktree, the base is its commit:\n%s", r.Stdout)
	}
}

func TestRmDeletesOnlyTheRecordedBranch(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	s.Git(path, "switch", "-q", "-c", "by-hand")
	commitFile(s, path, "w", "w", "w")
	s.MustWT("rm", "T")
	if s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/wt/T") {
		t.Fatal("the recorded branch was kept")
	}
	if !s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/by-hand") {
		t.Fatal("rm deleted a branch it did not make")
	}
	// A recorded branch checked out in another worktree is never deleted.
	path = s.MustWT("new", "U").Out()
	s.Git(path, "switch", "-q", "--detach")
	other := filepath.Join(filepath.Dir(s.Repo), "other")
	s.Git(s.Repo, "worktree", "add", "-q", "--detach", other)
	s.Git(other, "switch", "-q", "wt/U")
	if r := s.MustWT("rm", "U"); !strings.Contains(r.Stderr, "checked out") {
		t.Fatalf("rm with the branch checked out elsewhere: %s", r)
	}
	if !s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/wt/U") {
		t.Fatal("rm deleted a branch checked out in another worktree")
	}
}

func TestCleanWorktreeWithSubmoduleIsRemovable(t *testing.T) {
	s := testutil.NewSandbox(t)
	lib := filepath.Join(filepath.Dir(s.Repo), "lib")
	s.Git(filepath.Dir(s.Repo), "init", "-q", "-b", "main", "lib")
	s.Write(filepath.Join(lib, "lib.txt"), "lib")
	s.Git(lib, "add", ".")
	s.Git(lib, "commit", "-qm", "lib")
	s.Git(s.Repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "lib")
	s.Git(s.Repo, "commit", "-qm", "submodule")
	path := s.MustWT("new", "T").Out()
	s.Git(path, "-c", "protocol.file.allow=always", "submodule", "update", "-q", "--init")
	if !testutil.Exists(filepath.Join(path, "lib", "lib.txt")) {
		t.Fatal("submodule not checked out")
	}
	s.Write(filepath.Join(path, "lib", "lib.txt"), "changed")
	if r := s.WT("rm", "T"); r.Code != 3 {
		t.Fatalf("a dirty submodule makes the worktree dirty: %s", r)
	}
	s.Git(filepath.Join(path, "lib"), "checkout", "-q", "--", ".")
	s.MustWT("rm", "T")
	gone(t, s, "T", path)
}

func TestRepositoryPathWithSpacesAndNonASCII(t *testing.T) {
	s := testutil.NewSandbox(t)
	odd := filepath.Join(filepath.Dir(s.Repo), "my répo ünïcode")
	if err := os.Rename(s.Repo, odd); err != nil {
		t.Fatal(err)
	}
	s.Repo = odd
	path := s.MustWT("new", "T").Out()
	if path != filepath.Join(filepath.Dir(odd), "my répo ünïcode-worktrees", "T") {
		t.Fatalf("path = %q", path)
	}
	s.MustWT("list")
	s.MustWT("rm", "T")
	gone(t, s, "T", path)
}

func TestRmAndGCWorkOnAFullDisk(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "config", "wt.orphanGrace", "0s") // orphans go at once
	small := smallDisk(t, s, "2m")
	s.Git(s.Repo, "config", "wt.baseDir", small)
	a := s.MustWT("new", "a").Out()
	b := s.MustWT("new", "b").Out()
	// Fill the disk with ignored build output until writing fails.
	big := []byte(strings.Repeat("x", 64<<10))
	for i := 0; ; i++ {
		if err := os.MkdirAll(filepath.Join(a, "build"), 0o755); err != nil {
			break
		}
		if err := os.WriteFile(filepath.Join(a, "build", strings.Repeat("f", i%50+1)+string(rune('a'+i%26))), big, 0o644); err != nil {
			break
		}
	}
	os.RemoveAll(b) // and an orphan for gc
	s.MustWT("rm", "a")
	gone(t, s, "a", a)
	s.MustWT("gc")
	if s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/git-wt/tasks/b") {
		t.Fatal("gc did not clean the orphan on a full disk")
	}
}

func TestAgentsAndTheUsersOwnGitAtOnce(t *testing.T) {
	s := testutil.NewSandbox(t)
	// The user commits, looks, packs refs and collects garbage in the main
	// worktree while agents create and remove tasks. (Commands that list
	// worktrees, such as checking out a branch, can fail on git 2.39 at the
	// instant any other process is inside `git worktree add`: git's own
	// race, documented in docs/DESIGN.md, and not one git-wt's locks cause.)
	user := exec.Command("sh", "-c", `for i in $(seq 1 15); do
		echo $i > user.txt && git add user.txt && git commit -qm "user $i" &&
		git status --porcelain >/dev/null && git log -1 --oneline >/dev/null &&
		git pack-refs --all && git gc --quiet --auto || exit 1
	done`)
	user.Dir, user.Env = s.Repo, s.Env
	var cmds []*exec.Cmd
	for i := 0; i < 10; i++ {
		id := "agent-" + string(rune('a'+i))
		cmds = append(cmds, exec.Command("sh", "-c", `"$0" new --quiet "$1" >/dev/null && "$0" rm "$1"`, filepath.Join(testutil.BinDir(t), "git-wt"), id))
		cmds[i].Dir, cmds[i].Env = s.Repo, s.Env
		cmds[i].Stderr = &strings.Builder{}
	}
	out := &strings.Builder{}
	user.Stdout, user.Stderr = out, out
	if err := user.Start(); err != nil {
		t.Fatal(err)
	}
	startTogether(t, cmds)
	for i, c := range cmds {
		if code := exitCode(c); code != 0 {
			t.Errorf("agent %d exited %d: %s", i, code, c.Stderr)
		}
	}
	if err := user.Wait(); err != nil {
		t.Fatalf("the user's own git failed while agents worked: %v\n%s", err, out)
	}
	assertNothingLeft(t, s)
}

func TestGitsTransientLockErrorsAreRetried(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.MustWT("new", "T")
	s.Git(s.Repo, "pack-refs", "--all") // deleting a packed ref needs packed-refs.lock
	lock := filepath.Join(s.Repo, ".git", "packed-refs.lock")
	os.WriteFile(lock, nil, 0o644)
	cmd := s.Cmd(s.Repo, "--verbose", "rm", "T")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Another git holds packed-refs.lock: release it once git-wt has
	// tried the same command twice.
	seen := map[string]int{}
	buf := make([]byte, 64<<10)
	var all strings.Builder
	for {
		n, err := stderr.Read(buf)
		all.Write(buf[:n])
		for _, line := range strings.Split(all.String(), "\n") {
			if strings.Contains(line, "git branch -D") || strings.Contains(line, "update-ref -d") {
				seen[line]++
			}
		}
		retried := false
		for _, c := range seen {
			retried = retried || c >= 2
		}
		if retried || err != nil {
			break
		}
		seen = map[string]int{}
	}
	os.Remove(lock)
	if code := exitCode(cmd); code != 0 {
		t.Fatalf("rm while another git briefly held packed-refs.lock: exit %d\n%s", code, all.String())
	}
	assertNothingLeft(t, s)
}
