//go:build unix

// These tests protect SPEC §20's "every removal can be undone": what a
// forced removal discards that no commit holds (changes staged or not,
// deletions, untracked files, executable bits, symbolic links, commits on
// no remote) is saved under refs/git-wt/trash first, git wt restore
// brings it back byte for byte, a removal with nothing to save writes
// nothing, and gc expires old states.
package e2e

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/saved"
	"github.com/git-wt/git-wt/internal/testutil"
)

// fileState is what a worktree holds at one path: its mode and its bytes,
// or the target of a link.
type fileState struct {
	Mode fs.FileMode
	Data string
}

// worktreeFiles reads every file and link of the worktree at dir, .git
// and the paths skip names left out.
func worktreeFiles(t *testing.T, dir string, skip ...string) map[string]fileState {
	t.Helper()
	files := map[string]fileState{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if rel == ".git" {
			return nil
		}
		for _, s := range skip {
			if rel == s {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
		}
		info, err := d.Info()
		if err != nil || d.IsDir() {
			return err
		}
		st := fileState{Mode: info.Mode()}
		if info.Mode()&fs.ModeSymlink != 0 {
			st.Data, err = os.Readlink(path)
		} else {
			var b []byte
			b, err = os.ReadFile(path)
			st.Data = string(b)
		}
		files[rel] = st
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// trashRefs lists the refs under refs/git-wt/trash.
func trashRefs(s *testutil.Sandbox) []string {
	return strings.Fields(s.Git(s.Repo, "for-each-ref", "--format=%(refname)", saved.Prefix))
}

// dirtyTask makes task id with a commit on no remote and every kind of
// change on top: modified, staged new, deleted, untracked, an executable
// bit, a symbolic link, and an ignored file (which is not saved).
func dirtyTask(t *testing.T, s *testutil.Sandbox, id string) string {
	t.Helper()
	path := s.MustWT("new", id).Out()
	s.Write(filepath.Join(path, "gone.txt"), "to be deleted\n")
	s.Write(filepath.Join(path, "tool.sh"), "#!/bin/sh\necho hi\n")
	s.Git(path, "add", ".")
	s.Git(path, "commit", "-q", "-m", "unpushed work")
	s.Write(filepath.Join(path, "README.md"), "changed\n")
	s.Write(filepath.Join(path, "staged.txt"), "staged\n")
	s.Git(path, "add", "staged.txt")
	os.Remove(filepath.Join(path, "gone.txt"))
	s.Write(filepath.Join(path, "sub", "untracked.txt"), "untracked\n")
	os.Chmod(filepath.Join(path, "tool.sh"), 0o755)
	if err := os.Symlink("README.md", filepath.Join(path, "link")); err != nil {
		t.Fatal(err)
	}
	s.Write(filepath.Join(path, "STATE.json"), `{"ignored": true}`)
	return path
}

func TestRestoreBringsBackWhatRmForceDiscardedByteForByte(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := dirtyTask(t, s, "T")
	before := worktreeFiles(t, path, "STATE.json")
	r := s.WT("rm", "--force", "--json", "T")
	if r.Code != 0 {
		t.Fatalf("rm --force: %s", r)
	}
	var rm []struct {
		Saved string `json:"saved"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &rm); err != nil || len(rm) != 1 || !strings.HasPrefix(rm[0].Saved, "T/") {
		t.Fatalf("rm --json must name the saved state: %v %s", err, r)
	}
	if testutil.Exists(path) || s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/wt/T") {
		t.Fatal("rm --force left the worktree or the branch")
	}
	if refs := trashRefs(s); len(refs) != 2 {
		t.Fatalf("want the saved commit and its info blob, got %v", refs)
	}
	msg := s.Git(s.Repo, "log", "-1", "--format=%B", saved.CommitRef("T", strings.TrimPrefix(rm[0].Saved, "T/")))
	if !strings.Contains(msg, "Not saved: ignored files") {
		t.Errorf("the saved commit's message must say ignored files are not saved:\n%s", msg)
	}

	r = s.WT("trash", "--json")
	var list []struct {
		ID      string `json:"id"`
		Task    string `json:"task"`
		Files   int    `json:"files"`
		Commits int    `json:"unmerged_commits"`
		Why     string `json:"why"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &list); err != nil || len(list) != 1 || list[0].ID != rm[0].Saved || list[0].Task != "T" || list[0].Why != "rm --force" {
		t.Fatalf("trash --json: %v %s", err, r)
	}
	// README.md, staged.txt, gone.txt, sub/untracked.txt, tool.sh, link.
	if list[0].Files != 6 || list[0].Commits != 1 {
		t.Errorf("trash says %d files and %d commits, want 6 and 1: %s", list[0].Files, list[0].Commits, r)
	}

	r = s.WT("restore", "T")
	if r.Code != 0 || r.Out() != path {
		t.Fatalf("restore: %s", r)
	}
	if after := worktreeFiles(t, path); !reflect.DeepEqual(after, before) {
		t.Errorf("restored files differ:\n got %v\nwant %v", after, before)
	}
	if testutil.Exists(filepath.Join(path, "STATE.json")) {
		t.Error("an ignored file came back: it was never saved")
	}
	if log := s.Git(s.Repo, "log", "--format=%s", "wt/T"); !strings.Contains(log, "unpushed work") {
		t.Errorf("the branch lost its commit:\n%s", log)
	}
	if st := s.Git(path, "status", "--porcelain"); !strings.Contains(st, "?? staged.txt") || !strings.Contains(st, " D gone.txt") || !strings.Contains(st, "M README.md") {
		t.Errorf("the saved changes must be uncommitted changes again:\n%s", st)
	}
	if show := s.WT("show", "T"); show.Code != 0 {
		t.Errorf("the restored task has no record: %s", show)
	}
	if refs := trashRefs(s); len(refs) != 2 {
		t.Errorf("the saved state stays after a restore until it expires: %v", refs)
	}
}

func TestRestoreRefusesWhereTheTaskOrItsBranchExists(t *testing.T) {
	s := testutil.NewSandbox(t)
	dirtyTask(t, s, "T")
	s.MustWT("rm", "--force", "T")

	path := s.MustWT("new", "T").Out()
	r := s.WT("restore", "--json", "T")
	if r.Code != 3 || !strings.Contains(r.Stdout, `"kind": "conflict"`) && !strings.Contains(r.Stdout, `"kind":"conflict"`) {
		t.Fatalf("restore over an existing task: %s", r)
	}
	if testutil.Exists(filepath.Join(path, "staged.txt")) {
		t.Fatal("a refused restore wrote into the existing task")
	}
	s.MustWT("rm", "T")

	s.Git(s.Repo, "branch", "wt/T")
	main := s.Git(s.Repo, "rev-parse", "main")
	if r := s.WT("restore", "T"); r.Code != 3 || !strings.Contains(r.Stderr, "branch wt/T exists") {
		t.Fatalf("restore over an existing branch: %s", r)
	}
	if s.Git(s.Repo, "rev-parse", "wt/T") != main || s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/git-wt/tasks/T") || testutil.Exists(path) {
		t.Fatal("a refused restore changed something")
	}
	if refs := trashRefs(s); len(refs) != 2 {
		t.Errorf("a refused restore must keep the saved state: %v", refs)
	}
}

func TestRemovalsWithNothingToSaveWriteNothing(t *testing.T) {
	s := testutil.NewSandbox(t)
	root := filepath.Dir(s.Repo)
	s.Git(root, "init", "-q", "--bare", "origin.git")
	s.Git(s.Repo, "remote", "add", "origin", filepath.Join(root, "origin.git"))
	// Pushed, then removed with --force: the commits are on a remote.
	path := s.MustWT("new", "pushed").Out()
	s.Write(filepath.Join(path, "work.txt"), "work\n")
	s.MustWT("commit", "pushed", "-m", "work")
	s.MustWT("push", "pushed")
	s.Write(filepath.Join(path, "STATE.json"), "ignored only")
	s.MustWT("rm", "--force", "pushed")
	// Merged, removed without --force.
	path = s.MustWT("new", "merged").Out()
	s.Write(filepath.Join(path, "m.txt"), "m\n")
	s.MustWT("commit", "merged", "-m", "m")
	s.Git(s.Repo, "merge", "-q", "--ff-only", "wt/merged")
	s.MustWT("rm", "merged")
	// Clean, removed with --force.
	s.MustWT("new", "clean")
	s.MustWT("rm", "--force", "clean")
	// Merged by git wt merge, which cleans up; and one gc's retention
	// removes. Neither discards anything (both refuse a dirty worktree
	// and keep an unmerged branch): they go through rm's save, which
	// finds nothing.
	path = s.MustWT("new", "bymerge").Out()
	s.Write(filepath.Join(path, "b.txt"), "b\n")
	s.MustWT("commit", "bymerge", "-m", "b")
	s.MustWT("merge", "bymerge")
	s.MustWT("new", "old1")
	s.MustWT("new", "old2")
	if r := s.MustWT("gc", "--max-count", "1"); !strings.Contains(r.Stdout, "retention") {
		t.Fatalf("gc must remove a task by retention: %s", r)
	}
	if refs := trashRefs(s); len(refs) != 0 {
		t.Fatalf("removals that lost nothing saved %v", refs)
	}
}

func TestTwoSavesInOneSecondKeepBoth(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	s.Write(filepath.Join(path, "a.txt"), "a\n")
	// The stamps of the next seconds are taken already, as by another
	// removal of a task of that slug in the same second.
	now := time.Now()
	head := s.Git(s.Repo, "rev-parse", "main")
	var taken []string
	for i := range 30 {
		ref := saved.CommitRef("T", saved.Stamp(now.Add(time.Duration(i)*time.Second), 1))
		s.Git(s.Repo, "update-ref", ref, head)
		taken = append(taken, ref)
	}
	r := s.WT("rm", "--force", "--json", "T")
	if r.Code != 0 || !strings.Contains(r.Stdout, `-2"`) {
		t.Fatalf("rm --force with its stamp taken must save under the next number: %s", r)
	}
	for _, ref := range taken {
		if s.Git(s.Repo, "rev-parse", ref) != head {
			t.Fatalf("%s was overwritten", ref)
		}
	}
}

func TestGCExpiresOldSavedStates(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "T").Out()
	s.Write(filepath.Join(path, "a.txt"), "a\n")
	r := s.WT("rm", "--force", "--json", "T")
	var rm []struct {
		Saved string `json:"saved"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &rm); err != nil || len(rm) != 1 || rm[0].Saved == "" {
		t.Fatalf("rm --force: %v %s", err, r)
	}
	stamp := strings.TrimPrefix(rm[0].Saved, "T/")
	// The same state, saved 30 days ago.
	old := "20200101T000000Z"
	s.Git(s.Repo, "update-ref", saved.CommitRef("T", old), saved.CommitRef("T", stamp))
	s.Git(s.Repo, "update-ref", saved.InfoRef("T", old), saved.InfoRef("T", stamp))

	s.Git(s.Repo, "config", "wt.trashKeep", "0")
	if s.MustWT("gc"); len(trashRefs(s)) != 4 {
		t.Fatalf("wt.trashKeep 0 keeps every state: %v", trashRefs(s))
	}
	s.Git(s.Repo, "config", "--unset", "wt.trashKeep")
	r = s.MustWT("gc", "--json")
	var gc struct {
		Trash []struct {
			ID   string `json:"id"`
			Task string `json:"task"`
		} `json:"trash"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &gc); err != nil || len(gc.Trash) != 1 || gc.Trash[0].ID != "T/"+old || gc.Trash[0].Task != "T" {
		t.Fatalf("gc --json must report the expired state: %v %s", err, r)
	}
	if refs := trashRefs(s); len(refs) != 2 || !strings.Contains(strings.Join(refs, " "), stamp) {
		t.Fatalf("gc must delete only the old state: %v", refs)
	}
	if r := s.MustWT("restore", "T"); r.Out() != path || !testutil.Exists(filepath.Join(path, "a.txt")) {
		t.Fatalf("the recent state must still restore: %s", r)
	}
}

func TestForcedRepairOfADirtyOrphanSavesItsFiles(t *testing.T) {
	s := testutil.NewSandbox(t)
	path := s.MustWT("new", "dirty").Out()
	s.Write(filepath.Join(path, "unsaved.txt"), "work")
	// git lost its admin entry: the folder is no worktree git knows.
	os.RemoveAll(filepath.Join(s.Repo, ".git", "worktrees", "dirty"))
	r := s.WT("doctor", "--fix", "--force")
	if testutil.Exists(path) {
		t.Fatalf("doctor --fix --force must delete the dirty orphan: %s", r)
	}
	if refs := trashRefs(s); len(refs) != 2 {
		t.Fatalf("the orphan's files must be saved first: %v\n%s", refs, r)
	}
	if r := s.WT("restore", "dirty"); r.Code != 0 || !testutil.Exists(filepath.Join(path, "unsaved.txt")) {
		t.Fatalf("restore of the orphan: %s", r)
	}
}

// A change git can tell only by reading the file (same size, same mtime
// as the index entry, in the second the index was written: "racily
// clean") is saved: the copy of the index the save works through keeps
// the index's own time, or git would trust the entry's stat data.
func TestASaveSeesAChangeOnlyItsContentShows(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Git(s.Repo, "config", "core.trustctime", "false") // the change's ctime must not give it away
	path := s.MustWT("new", "T").Out()
	file := filepath.Join(path, "README.md")
	index := filepath.Join(s.Repo, ".git", "worktrees", "T", "index")
	past := time.Now().Add(-100 * time.Second).Truncate(time.Second)
	os.Chtimes(file, past, past)
	s.Git(path, "update-index", "-q", "--refresh") // the entry records the past time
	s.Write(file, "HELLO\n")                       // the same size as "hello\n"
	os.Chtimes(file, past, past)
	os.Chtimes(index, past, past) // the entry is as old as the index: racily clean
	if st := s.Git(path, "--no-optional-locks", "status", "--porcelain"); !strings.Contains(st, "README.md") {
		t.Fatalf("git itself must see the change: %q", st)
	}
	s.MustWT("rm", "--force", "T")
	if refs := trashRefs(s); len(refs) != 2 {
		t.Fatalf("the change was not saved: %v", refs)
	}
	s.MustWT("restore", "T")
	if b, _ := os.ReadFile(file); string(b) != "HELLO\n" {
		t.Fatalf("restored README.md = %q, want the change", b)
	}
}

// A saved state's info blob comes from a ref anyone who can push may have
// written (SPEC §19): one that names another task is listed as corrupt
// and never restored; the path one records is never where restore writes.
func TestAForgedSavedStateIsNeverActedOn(t *testing.T) {
	s := testutil.NewSandbox(t)
	s.Write("more.txt", "more\n") // a commit with a parent, as a saved one has
	s.Git(s.Repo, "add", "more.txt")
	s.Git(s.Repo, "commit", "-q", "-m", "more")
	head := s.Git(s.Repo, "rev-parse", "main")
	forge := func(slug, stamp, info string) {
		hash := exec.Command("git", "hash-object", "-w", "--stdin")
		hash.Dir, hash.Env, hash.Stdin = s.Repo, s.Env, strings.NewReader(info)
		blob, err := hash.Output()
		if err != nil {
			t.Fatal(err)
		}
		s.Git(s.Repo, "update-ref", saved.CommitRef(slug, stamp), head)
		s.Git(s.Repo, "update-ref", saved.InfoRef(slug, stamp), strings.TrimSpace(string(blob)))
	}
	forge("victim", "20261128T025000Z", `{"version":1,"task":"other","slug":"other","branch":"wt/other","path":"/tmp"}`)
	r := s.MustWT("trash", "--json")
	if !strings.Contains(r.Stdout, `"corrupt"`) {
		t.Fatalf("a forged state must be listed as corrupt: %s", r)
	}
	r = s.WT("restore", "--json", "victim/20261128T025000Z")
	if r.Code != 3 || !strings.Contains(r.Stdout, "unsafe_input") {
		t.Fatalf("restore of a forged state: %s", r)
	}
	if s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/heads/wt/other") || s.GitOK(s.Repo, "rev-parse", "--verify", "-q", "refs/git-wt/tasks/other") {
		t.Fatal("a refused restore made something")
	}
	// Well formed, but its path points elsewhere: restore makes the task
	// at its usual place.
	elsewhere := filepath.Join(t.TempDir(), "elsewhere")
	forge("x", "20261128T025000Z", `{"version":1,"task":"x","slug":"x","branch":"wt/x","path":"`+elsewhere+`"}`)
	r = s.MustWT("restore", "x")
	if want := filepath.Join(filepath.Dir(s.Repo), "repo-worktrees", "x"); r.Out() != want || testutil.Exists(elsewhere) {
		t.Fatalf("restore must make the task at %s, never at the recorded path: %s", want, r)
	}
}

// A submodule moved to another commit is a change rm --force saves (the
// gitlink), even where the repository's config tells git to ignore that
// submodule: the first look must not be blinded by it.
func TestASaveSeesAMovedSubmoduleItsIgnoreSettingHides(t *testing.T) {
	s := testutil.NewSandbox(t)
	remotes := submoduleRepos(t, s)
	tool := filepath.Join(remotes, "tool")
	s.Git(tool, "commit", "-q", "--allow-empty", "-m", "newer")
	newer := s.Git(tool, "rev-parse", "HEAD")
	path := s.MustWT("new", "T").Out()
	s.Git(filepath.Join(path, "tool"), "-c", "protocol.file.allow=always", "fetch", "-q", "origin")
	s.Git(filepath.Join(path, "tool"), "checkout", "-q", newer)
	s.Git(s.Repo, "config", "submodule.tool.ignore", "all")
	s.MustWT("rm", "--force", "T")
	refs := trashRefs(s)
	if len(refs) != 2 {
		t.Fatalf("the moved submodule was not saved: %v", refs)
	}
	if got := s.Git(s.Repo, "rev-parse", refs[0]+":tool"); got != newer {
		t.Errorf("saved gitlink of tool %s, want %s", got, newer)
	}
}
