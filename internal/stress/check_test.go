//go:build unix

// The checker holds git-wt to its promises after a storm (SPEC §7): git's
// object store sound, records, git's worktrees and the folders agreeing,
// doctor silent, no work lost, no lock held, nothing written outside the
// repository and the base dir, and every exit code and message as SPEC §2
// says. It returns the violations; it never stops at the first.
package stress

import (
	"bufio"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// violation is one broken promise.
type violation struct {
	kind   string
	detail string
}

// checker inspects the sandbox after the storm.
type checker struct {
	repo     string // the main worktree
	baseDir  string
	root     string // the sandbox: home, repo, base dir, TMPDIR
	env      []string
	before   map[string]bool // the sandbox's listing before the storm, outside repo and base dir
	journal  *journal
	runs     []*run
	branches []string // users' own branches, which git-wt must never delete
	doctor   *run     // the last `git wt doctor`
	// neighbour is the other repository in the base dir, never to be
	// touched (neighbour_test.go).
	neighbour *neighbour
	found     []violation
}

func (c *checker) add(kind, format string, args ...any) {
	c.found = append(c.found, violation{kind, fmt.Sprintf(format, args...)})
}

// check runs every invariant and returns what broke.
func (c *checker) check() []violation {
	c.fsck()
	c.records()
	c.doctorSilent()
	c.filesKept()
	c.branchesKept()
	c.branchesByShortName()
	c.repoUnlocked()
	c.noGitLockFiles()
	c.nothingOutside()
	c.mainClean()
	c.exitCodesAndMessages()
	c.neighbourKept() // last: its doctor writes in its own .git
	return c.found
}

// git runs git in the main worktree.
func (c *checker) git(args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = c.repo
	cmd.Env = c.env
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		err = fmt.Errorf("%v: %s", err, strings.TrimSpace(string(ee.Stderr)))
	}
	return string(out), err
}

func (c *checker) fsck() {
	if out, err := c.git("fsck", "--no-progress", "--no-dangling"); err != nil {
		c.add("fsck", "git fsck: %v %s", err, out)
	}
}

// rec is the part of a record the checker reads.
type rec struct {
	Task   string `json:"task"`
	Slug   string `json:"slug"`
	Branch string `json:"branch"`
	Path   string `json:"path"`
	State  string `json:"state"`
	Locked bool   `json:"locked"`
}

// gitWorktree is one entry of `git worktree list --porcelain`.
type gitWorktree struct {
	path, branch string
	locked       bool
	lockReason   string
	prunable     bool
}

func (c *checker) worktrees() []gitWorktree {
	out, err := c.git("worktree", "list", "--porcelain")
	if err != nil {
		c.add("git-worktree-list", "%v", err)
		return nil
	}
	var wts []gitWorktree
	for _, block := range strings.Split(strings.TrimSpace(out), "\n\n") {
		var wt gitWorktree
		for _, line := range strings.Split(block, "\n") {
			key, val, _ := strings.Cut(line, " ")
			switch key {
			case "worktree":
				wt.path = val
			case "branch":
				wt.branch = strings.TrimPrefix(val, "refs/heads/")
			case "locked":
				wt.locked, wt.lockReason = true, val
			case "prunable":
				wt.prunable = true
			}
		}
		wts = append(wts, wt)
	}
	return wts
}

// recordRefs reads every record, in today's namespace and the legacy one.
func (c *checker) recordRefs() map[string]string {
	out, err := c.git("for-each-ref", "--format=%(refname) %(objectname)", "refs/git-wt/tasks/", "refs/wt/")
	if err != nil {
		c.add("git-for-each-ref", "%v", err)
		return nil
	}
	refs := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if name, oid, ok := strings.Cut(line, " "); ok {
			refs[name] = oid
		}
	}
	return refs
}

// finalStates are the states a task may rest in once nothing runs and
// doctor --fix has repaired what crashes left.
var finalStates = []string{"active", "failed", "adopted"}

// records checks that every record is valid and agrees with git's
// worktrees and the folders, and that every worktree and folder has one.
func (c *checker) records() {
	wts := c.worktrees()
	byPath := map[string]gitWorktree{}
	for _, wt := range wts[min(1, len(wts)):] { // the first is the main worktree
		byPath[canon(wt.path)] = wt
		if wt.prunable {
			c.add("prunable-admin-entry", "git's admin entry for %s points at a folder that is gone", wt.path)
		}
	}
	recorded := map[string]bool{}
	for ref, oid := range c.recordRefs() {
		blob, err := c.git("cat-file", "blob", oid)
		var r rec
		if err == nil {
			err = json.Unmarshal([]byte(blob), &r)
		}
		slug := ref[strings.LastIndex(ref, "/")+1:]
		if err != nil || r.Task == "" || r.Path == "" || r.Slug != slug {
			c.add("record-invalid", "%s: %v %q", ref, err, blob)
			continue
		}
		recorded[canon(r.Path)] = true
		c.recordAgrees(ref, r, byPath)
	}
	pooled := c.poolEntries(byPath)
	for path := range byPath {
		if !recorded[path] && !pooled[path] {
			c.add("worktree-without-record", "git has a worktree at %s that no record or pool entry names", path)
		}
	}
	c.folders(recorded)
}

// poolEntries checks the warm pool: every worktree in the pool folder has
// a ready entry's ref, and every ref its worktree, detached and clean. It
// returns the entries' worktrees.
func (c *checker) poolEntries(byPath map[string]gitWorktree) map[string]bool {
	pooled := map[string]bool{}
	out, err := c.git("for-each-ref", "--format=%(refname) %(objectname)", "refs/git-wt/pool/")
	if err != nil {
		c.add("pool-refs", "%v", err)
		return pooled
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		ref, oid, found := strings.Cut(line, " ")
		if !found {
			continue
		}
		var e struct {
			Path  string `json:"path"`
			Ready bool   `json:"ready"`
		}
		blob, err := c.git("cat-file", "blob", oid)
		if err == nil {
			err = json.Unmarshal([]byte(blob), &e)
		}
		switch wt, ok := byPath[canon(e.Path)]; {
		case err != nil:
			c.add("pool-entry-invalid", "%s: %v %q", ref, err, blob)
		case !e.Ready:
			c.add("pool-entry-unfinished", "%s (%s) is not ready after doctor --fix, with no fill running", ref, e.Path)
		case !ok:
			c.add("pool-entry-without-worktree", "%s: git has no worktree at %s", ref, e.Path)
		case wt.branch != "":
			c.add("pool-entry-on-a-branch", "%s: %s has %s checked out", ref, e.Path, wt.branch)
		default:
			pooled[canon(e.Path)] = true
			if st, err := c.gitIn(e.Path, "status", "--porcelain"); err != nil || st != "" {
				c.add("pool-entry-dirty", "%s: %s: %v %s", ref, e.Path, err, st)
			}
		}
	}
	for path := range byPath {
		if inside(path, canon(filepath.Join(c.baseDir, ".pool"))) && !pooled[path] {
			c.add("pool-worktree-without-entry", "git has a worktree at %s in the pool folder that no ready entry names", path)
			pooled[path] = true // reported once
		}
	}
	return pooled
}

// gitIn runs git in dir.
func (c *checker) gitIn(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, c.env
	out, err := cmd.Output()
	return string(out), err
}

// recordAgrees checks one record against git's worktree and the folder.
func (c *checker) recordAgrees(ref string, r rec, byPath map[string]gitWorktree) {
	if !slices.Contains(finalStates, r.State) {
		c.add("record-stuck", "%s (task %s) is in state %s after doctor --fix, with no git-wt running", ref, r.Task, r.State)
	}
	if !inside(r.Path, c.baseDir) {
		c.add("record-outside-base-dir", "%s: path %s is not inside the base dir %s", ref, r.Path, c.baseDir)
	}
	wt, ok := byPath[canon(r.Path)]
	if !ok {
		c.add("record-without-worktree", "%s (task %s, state %s): git has no worktree at %s (folder exists: %v)", ref, r.Task, r.State, r.Path, exists(r.Path))
		return
	}
	if !exists(filepath.Join(r.Path, ".git")) {
		c.add("record-without-folder", "%s (task %s): %s has no .git", ref, r.Task, r.Path)
	}
	if wt.branch != r.Branch {
		c.add("record-branch-mismatch", "%s (task %s): record says branch %q, the worktree has %q", ref, r.Task, r.Branch, wt.branch)
	}
	if wt.locked != r.Locked {
		c.add("lock-mismatch", "%s (task %s): record locked=%v, git's admin entry locked=%v %q", ref, r.Task, r.Locked, wt.locked, wt.lockReason)
	}
}

// folders checks that every folder in the base dir is a recorded worktree
// and that the trash is empty.
func (c *checker) folders(recorded map[string]bool) {
	entries, _ := os.ReadDir(c.baseDir)
	for _, e := range entries {
		path := filepath.Join(c.baseDir, e.Name())
		switch {
		case c.neighbour != nil && c.neighbour.owned[path]:
			// the other repository's: neighbourKept checks it
		case e.Name() == ".git-wt-trash":
			if left, _ := os.ReadDir(path); len(left) > 0 {
				c.add("trash-left", "%s still holds %d entries (%s ...) after doctor --fix", path, len(left), left[0].Name())
			}
		case e.Name() == ".pool":
			c.poolFolders(path)
		case !recorded[canon(path)]:
			c.add("stray-folder", "%s is in the base dir but no record names it", path)
		}
	}
}

// poolFolders checks that every folder in the pool folder is a worktree
// of git's (a pool entry: poolEntries checks it has its ref).
func (c *checker) poolFolders(pool string) {
	entries, _ := os.ReadDir(pool)
	for _, e := range entries {
		if !exists(filepath.Join(pool, e.Name(), ".git")) {
			c.add("stray-pool-folder", "%s is in the pool folder but is no worktree", filepath.Join(pool, e.Name()))
		}
	}
}

func (c *checker) doctorSilent() {
	if d := c.doctor; d != nil && (d.code != 0 || strings.TrimSpace(d.stdout) != "") {
		c.add("doctor-not-silent", "after doctor --fix, git wt doctor exits %d and reports:\n%s", d.code, d.stdout)
	}
}

// filesKept checks that every file a worker wrote, and nobody force-removed,
// is on disk in its worktree or in a commit reachable from a ref.
func (c *checker) filesKept() {
	reachable := c.reachableBlobs()
	for _, w := range c.journal.writes {
		if c.journal.discarded(w) {
			continue
		}
		if data, err := os.ReadFile(filepath.Join(w.dir, w.name)); err == nil && string(data) == w.content {
			continue
		}
		if reachable[blobID(w.content)] {
			continue
		}
		c.add("file-lost", "%s, written by worker %d into task %s at %s (%s), is neither there nor in any commit; %s; what ran on the task then:%s",
			w.name, w.worker, w.task, w.dir, w.start.Format("15:04:05.000"), c.whereIs(w), c.runsAround(w))
	}
}

// runsAround are the runs that named the write's task, or could have
// removed it (gc, doctor --fix), from 2 s before the write to 5 s after.
func (c *checker) runsAround(w write) string {
	var b strings.Builder
	for _, r := range c.runs {
		if r.end.Before(w.start.Add(-2*time.Second)) || r.start.After(w.start.Add(5*time.Second)) {
			continue
		}
		if slices.Contains(r.args, w.task) || (len(r.args) > 0 && (r.args[0] == "gc" || slices.Contains(r.args, "--fix"))) {
			fmt.Fprintf(&b, "\n      %s..%s worker %d: %s", r.start.Format("05.000"), r.end.Format("05.000"), r.worker, r)
		}
	}
	return b.String()
}

// reachableBlobs are the ids of every object reachable from a ref.
func (c *checker) reachableBlobs() map[string]bool {
	out, err := c.git("rev-list", "--all", "--objects")
	if err != nil {
		c.add("git-rev-list", "%v", err)
	}
	ids := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		id, _, _ := strings.Cut(sc.Text(), " ")
		ids[id] = true
	}
	return ids
}

// blobID is git's object id of a blob with content.
func blobID(content string) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00%s", len(content), content)
	return hex.EncodeToString(h.Sum(nil))
}

// whereIs says where a lost file went, for the diagnosis.
func (c *checker) whereIs(w write) string {
	var elsewhere []string
	filepath.WalkDir(c.root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == w.name {
			elsewhere = append(elsewhere, p)
		}
		return nil
	})
	if len(elsewhere) > 0 {
		return "found only at " + strings.Join(elsewhere, ", ")
	}
	if _, err := c.git("cat-file", "-e", blobID(w.content)); err == nil {
		return "its blob is in the object store but no ref reaches it (committed, then its branch deleted?)"
	}
	return "no copy anywhere (deleted before any commit)"
}

// branchesKept checks that the users' own branches survived (SPEC §4,
// branch ownership: git-wt deletes only branches it created).
func (c *checker) branchesKept() {
	for _, b := range c.branches {
		if _, err := c.git("rev-parse", "--verify", "-q", "refs/heads/"+b); err != nil {
			c.add("user-branch-deleted", "branch %s existed before any task and is gone; events that deleted the branch of a task made on it:%s", b, c.events(c.tasksOnBranch(b), 4))
		}
	}
}

// branchesByShortName checks that plain git finds each task's branch by
// its short name (SPEC §4: no git-wt ref may shadow it): `git log wt/T`
// must show the branch's own tip.
func (c *checker) branchesByShortName() {
	out, _ := c.git("for-each-ref", "--format=%(refname:lstrip=2) %(objectname)", "refs/heads/")
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		short, oid, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		got, err := c.git("rev-parse", "--verify", "-q", short)
		if got = strings.TrimSpace(got); err != nil || got != oid {
			c.add("branch-shadowed", "git rev-parse %s gives %q (%v), not the branch's tip %s: another ref shadows it", short, got, err, oid)
		}
	}
}

// repoUnlocked checks that nobody holds git-wt's own locks: the
// repository lock <common dir>/wt/lock and the other flock files under
// wt/ (one per merge target), which only a live process may hold.
func (c *checker) repoUnlocked() {
	filepath.WalkDir(filepath.Join(c.repo, ".git", "wt"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || (d.Name() != "lock" && !strings.HasSuffix(d.Name(), ".lock")) {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return nil
		}
		defer f.Close()
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			c.add("repo-lock-held", "%s is held after every git-wt ended: %v (a leftover child holds it)", p, err)
		}
		return nil
	})
}

// noGitLockFiles checks that no git lock file (index.lock, a ref's .lock,
// config.lock) is left in the git directory; git-wt's own flock files
// under wt/ are checked by repoUnlocked.
func (c *checker) noGitLockFiles() {
	gitDir := filepath.Join(c.repo, ".git")
	filepath.WalkDir(gitDir, func(p string, d fs.DirEntry, err error) error {
		if p == filepath.Join(gitDir, "wt") {
			return filepath.SkipDir
		}
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".lock") {
			c.add("git-lock-file-left", "%s is left after doctor --fix", p)
		}
		return nil
	})
}

// listing is every path in the sandbox outside the repository and the base dir.
func listing(root, repo, baseDir string) map[string]bool {
	seen := map[string]bool{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if p == repo || p == baseDir {
			return filepath.SkipDir
		}
		if err == nil {
			seen[p] = true
		}
		return nil
	})
	return seen
}

func (c *checker) nothingOutside() {
	for p := range listing(c.root, c.repo, c.baseDir) {
		if !c.before[p] {
			c.add("outside", "%s appeared outside the repository and the base dir", p)
		}
	}
}

// mainClean checks that the main worktree is clean: the workers never
// write there, so a change is what git-wt left.
func (c *checker) mainClean() {
	out, err := c.git("status", "--porcelain", "--untracked-files=all")
	if err != nil || strings.TrimSpace(out) != "" {
		c.add("main-worktree-dirty", "the main worktree is not clean at the end: %v\n%s", err, out)
	}
}

// listBound is how long a list may take under the storm: a list that
// took longer is broken as a hang is (issue 35: a merged check quadratic
// in the history made lists of a fleet of 32 run for minutes).
const listBound = 30 * time.Second

// exitCodesAndMessages checks every run: exit code 0–5 (unless the test
// killed it), no hang, no list slower than listBound, nothing left
// running, every stderr line prefixed.
func (c *checker) exitCodesAndMessages() {
	for _, r := range c.runs {
		switch {
		case r.hung:
			c.add("hung", "%s: still running after %s; its processes then:\n%s\nits stderr's end (Go's stacks on SIGQUIT):\n%s",
				r, opTimeout, r.hungIn, tail(r.stderr, 6000))
		case r.args[0] == "list" && !r.killed && r.end.Sub(r.start) > listBound:
			c.add("slow-list", "%s: took %s (more than %s)", r, r.end.Sub(r.start).Round(time.Millisecond), listBound)
		case !r.killed && (r.code < 0 || r.code > 5):
			c.add("exit-code", "%s", r)
		}
		if r.leftOver {
			c.add("left-running", "%s: a process it started still held its stderr 5s after it exited", r)
		}
		if r.args[0] == "commit" {
			// A commit passes git commit's own stderr on, as a plain git
			// commit shows it, whether it succeeded or not (a hook that
			// refuses the commit says why there): the user's hooks, and
			// git's auto-maintenance (whose pack-refs may race the
			// workers' ref updates, and which warns about a gc.log a
			// detached gc left). Those lines are not git-wt's messages.
			continue
		}
		var bad []string
		for _, line := range messageLines(r) {
			if !strings.HasPrefix(line, "git-wt: ") {
				bad = append(bad, line)
			}
		}
		if len(bad) > 0 {
			c.add("unprefixed-message", "%d unprefixed lines, the first %q, from %s", len(bad), bad[0], r)
		}
	}
}

// messageLines are the complete lines of a run's stderr (a killed process
// may have been cut mid-line).
func messageLines(r *run) []string {
	text := r.stderr
	if r.killed && !strings.HasSuffix(text, "\n") {
		text = text[:strings.LastIndex(text, "\n")+1]
	}
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// canon is a path with its symlinks resolved, when it exists.
func canon(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

func inside(p, dir string) bool {
	rel, err := filepath.Rel(canon(dir), canon(p))
	return err == nil && rel != "." && !strings.HasPrefix(rel, "..")
}

// tasksOnBranch are the tasks some worker made with --branch b.
func (c *checker) tasksOnBranch(b string) []string {
	var tasks []string
	for _, r := range c.runs {
		if len(r.args) > 4 && r.args[0] == "new" && r.args[3] == "--branch" && r.args[4] == b && !slices.Contains(tasks, r.args[2]) {
			tasks = append(tasks, r.args[2])
		}
	}
	return tasks
}

// events are the last n events in git-wt's event log where one of tasks
// lost its branch, for a diagnosis.
func (c *checker) events(tasks []string, n int) string {
	data, _ := os.ReadFile(filepath.Join(c.repo, ".git", "wt", "events.jsonl"))
	var hits []string
	for _, line := range strings.Split(string(data), "\n") {
		var ev struct{ Task, Outcome, Reason string }
		json.Unmarshal([]byte(line), &ev)
		if slices.Contains(tasks, ev.Task) && (strings.Contains(ev.Reason, "branch deleted") || ev.Outcome == "rolled-back") {
			hits = append(hits, "\n      "+line)
		}
	}
	if len(hits) == 0 {
		return " none (the path that deleted it logs no branch outcome)"
	}
	return strings.Join(hits[max(0, len(hits)-n):], "")
}

// tail is the last n bytes of s.
func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
