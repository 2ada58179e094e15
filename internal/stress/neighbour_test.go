//go:build unix

package stress

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/testutil"
)

// neighbour is a second repository that shares the storm's base dir
// (SPEC §14's shared base dir: its wt.baseDir names the folder the storm's
// repository uses by default), with tasks, an uncommitted file and a pool
// entry of its own. Nothing the storm's git-wt processes do — doctor
// --fix, gc, drains, removals — may list, judge or delete any of it.
type neighbour struct {
	repo   string
	env    []string
	dirty  string          // a file of one of its tasks, never committed
	owned  map[string]bool // what it had in the shared base dir
	refs   string          // its records and pool entries
	runBin string
}

// neighbourFile is the uncommitted file in the neighbour's first task.
const neighbourFile = "neighbour's work\n"

// makeNeighbour sets the neighbour up next to the storm's repository,
// before the storm, and waits for the pool fill its new started.
func makeNeighbour(t *testing.T, root, baseDir string, env []string) *neighbour {
	t.Helper()
	n := &neighbour{repo: filepath.Join(root, "neighbour"), env: env, runBin: filepath.Join(testutil.BinDir(t), "git-wt"), owned: map[string]bool{}}
	n.git(t, root, "init", "-q", "-b", "main", "neighbour")
	os.WriteFile(filepath.Join(n.repo, "README.md"), []byte("neighbour\n"), 0o644)
	n.git(t, n.repo, "add", ".")
	n.git(t, n.repo, "commit", "-q", "-m", "neighbour")
	n.git(t, n.repo, "config", "wt.baseDir", baseDir)
	n.git(t, n.repo, "config", "wt.pool", "1")
	first := strings.TrimSpace(n.wt(t, "new", "-q", "n1"))
	n.wt(t, "new", "-q", "n2")
	n.wt(t, "pool", "--fill")
	n.dirty = filepath.Join(first, "work.txt")
	os.WriteFile(n.dirty, []byte(neighbourFile), 0o644)
	deadline := time.Now().Add(opTimeout)
	for testutil.FillRunning(n.repo) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	entries, _ := os.ReadDir(baseDir)
	for _, e := range entries {
		n.owned[filepath.Join(baseDir, e.Name())] = true
	}
	n.refs = n.git(t, n.repo, "for-each-ref", "--format=%(refname)", "refs/git-wt/")
	if !strings.Contains(n.refs, "refs/git-wt/pool/") {
		t.Fatalf("the neighbour's pool entry was not made: %s", n.refs)
	}
	return n
}

func (n *neighbour) git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, n.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("neighbour: git %s: %v %s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (n *neighbour) wt(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(n.runBin, args...)
	cmd.Dir, cmd.Env = n.repo, n.env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("neighbour: git wt %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}

// kept checks, after the storm and its repair, that the neighbour has all
// it had: its folders in the shared base dir, its uncommitted file, its
// records and pool entries, and a doctor with nothing to say.
func (c *checker) neighbourKept() {
	n := c.neighbour
	if n == nil {
		return
	}
	for path := range n.owned {
		if !exists(path) {
			c.add("neighbour-touched", "%s, the other repository's in the shared base dir, is gone", path)
		}
	}
	if data, err := os.ReadFile(n.dirty); err != nil || string(data) != neighbourFile {
		c.add("neighbour-touched", "the other repository's uncommitted file %s is lost (%v)", n.dirty, err)
	}
	cmd := exec.Command("git", "for-each-ref", "--format=%(refname)", "refs/git-wt/")
	cmd.Dir, cmd.Env = n.repo, n.env
	if refs, _ := cmd.Output(); string(refs) != n.refs {
		c.add("neighbour-touched", "the other repository's records and pool entries changed: %q, were %q", refs, n.refs)
	}
	doctor := exec.Command(n.runBin, "doctor")
	doctor.Dir, doctor.Env = n.repo, n.env
	if out, err := doctor.CombinedOutput(); err != nil {
		c.add("neighbour-touched", "git wt doctor in the other repository: %v\n%s", err, out)
	}
}
