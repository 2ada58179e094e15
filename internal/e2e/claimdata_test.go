//go:build unix

// These tests protect what git-wt does with the data of claims (SPEC §19):
// anyone who can push writes a claim commit, so what it says never names
// a file, never reaches the terminal raw and never blocks another task.
package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// pushClaim writes a claim commit by hand on machine m, whose message
// holds body as its JSON, and forces it onto the remote as the claim ref
// of name: what anyone with push rights can do.
func (m *machine) pushClaim(name, body string) {
	oid := m.Git(m.Repo, "commit-tree", "4b825dc642cb6eb9a060e54bf8d69288fbee4904", "-m", "git-wt claim: by hand [skip ci]", "-m", body)
	m.Git(m.Repo, "push", "-q", "--force", "origin", oid+":refs/git-wt/claims/"+name)
}

// claimJSON is the JSON of a claim git-wt could have written.
func claimJSON(task, slug, machine, host string) string {
	data, _ := json.Marshal(map[string]string{"task": task, "slug": slug, "branch": "wt/" + slug, "machine": machine, "host": host,
		"created_at": "2026-01-01T00:00:00Z", "heartbeat_at": "2026-01-01T00:00:00Z"})
	return string(data)
}

func TestClaimWhoseSlugIsNotItsRefIsCorruptAndNamesNoFile(t *testing.T) {
	t.Parallel()
	f := newFleet(t)
	a := f.machine("a", f.fileURL())
	b := f.machine("b", f.fileURL(), "wt.orphanGrace", "0", "wt.claimTTL", "1s")
	evil := "../../../../../outside"
	a.pushClaim("evil", claimJSON("evil", evil, "m-x", "h"))
	// Where a sighting named by the claim's slug would land: beside the clones.
	outside := filepath.Join(b.Repo, ".git", "wt", "claims-seen", "origin", evil)
	if !strings.HasPrefix(outside, filepath.Dir(b.Repo)) || strings.HasPrefix(outside, b.Repo) {
		t.Fatalf("the test's path does not leave the repository: %s", outside)
	}

	var list []map[string]any
	if err := json.Unmarshal([]byte(b.MustWT("list", "--remote", "--json").Stdout), &list); err != nil {
		t.Fatal(err)
	}
	if testutil.Exists(outside) {
		t.Fatalf("list --remote: a claim's slug named a file outside the repository: %s", outside)
	}
	if len(list) != 1 || list[0]["slug"] != "evil" || !strings.Contains(list[0]["corrupt"].(string), "not its ref's name") {
		t.Fatalf("list --remote does not show the claim as corrupt: %v", list)
	}
	if r := b.MustWT("list", "--remote"); !strings.Contains(r.Stdout, "corrupt") {
		t.Fatalf("list --remote's table does not say corrupt:\n%s", r.Stdout)
	}
	b.MustWT("gc")
	if r := b.WT("new", "evil", "--no-init"); r.Code != 1 || !strings.Contains(r.Stderr, "not a git-wt claim") || b.hasTask("evil") {
		t.Fatalf("new over a corrupt claim: %s", r)
	}
	if testutil.Exists(outside) {
		t.Fatalf("a claim's slug named a file outside the repository: %s", outside)
	}
	if c := f.claimOn("evil"); c == nil || c["slug"] != evil {
		t.Fatalf("a corrupt claim was acted on: %v", c)
	}
}

func TestClaimMachineAndHostReachTheTerminalQuoted(t *testing.T) {
	t.Parallel()
	f := newFleet(t)
	a := f.machine("a", f.fileURL())
	b := f.machine("b", f.fileURL())
	machine, host := "m-\x1b[2J\u009b31m", "h\u202eost\a"
	a.pushClaim("T", claimJSON("T", "T", machine, host))
	raw := func(out string) bool { return strings.ContainsAny(out, "\x1b\u009b\u202e\a") }
	for _, args := range [][]string{{"new", "T", "--no-init"}, {"claim", "T"}} {
		if r := b.WT(args...); r.Code != 4 || raw(r.Stderr) || !strings.Contains(r.Stderr, `\x1b[2J`) {
			t.Fatalf("%v: the holder's machine reaches the terminal raw: %q", args, r.Stderr)
		}
	}
	if r := b.MustWT("list", "--remote"); raw(r.Stdout) || !strings.Contains(r.Stdout, `\x1b[2J`) {
		t.Fatalf("list --remote shows the machine raw: %q", r.Stdout)
	}
	// A task b holds, whose claim is then overwritten: push says by whom.
	b.pushWork("P")
	a.pushClaim("P", claimJSON("P", "P", machine, host))
	if r := b.WT("push", "P"); r.Code != 4 || raw(r.Stderr) || !strings.Contains(r.Stderr, `\x1b[2J`) {
		t.Fatalf("push: the new holder's machine reaches the terminal raw: %q", r.Stderr)
	}
	// JSON keeps the text as is.
	if list := b.MustWT("list", "--remote", "--json").Stdout; !strings.Contains(list, `"machine": "m-\u001b[2J`) {
		t.Fatalf("list --remote --json changed the machine: %s", list)
	}
}

// Two tasks whose ids have one slug, on two machines: each gets its
// claim; the second's is under its hashed slug, and every later step
// (refresh, push, rm) finds it there. Released, the plain slug's claim
// leaves a release commit while the hashed one lives, so that a new of
// the second task elsewhere never takes the plain one as well.
func TestClaimsOfTasksWithOneSlugDoNotBlockEachOther(t *testing.T) {
	t.Parallel()
	f := newFleet(t)
	a := f.machine("a", f.fileURL())
	b := f.machine("b", f.fileURL())
	a.MustWT("new", "fix/login", "--no-init")
	b.pushWork("fix-login")
	var list []map[string]any
	if err := json.Unmarshal([]byte(a.MustWT("list", "--remote", "--json").Stdout), &list); err != nil || len(list) != 2 {
		t.Fatalf("two claims: %v %v", list, err)
	}
	hashed := ""
	for _, c := range list {
		if c["task"] == "fix-login" {
			hashed, _ = c["slug"].(string)
		}
	}
	if !strings.HasPrefix(hashed, "fix-login-") || f.claimOn(hashed)["machine"] != b.id() || f.claimOn("fix-login")["machine"] != a.id() {
		t.Fatalf("the second task's claim is not under its hashed slug: %v", list)
	}
	// The task is still claimed once: a third machine is refused.
	c := f.machine("c", f.fileURL())
	if r := c.WT("new", "fix-login", "--no-init"); r.Code != 4 || !strings.Contains(r.Stderr, b.id()) || c.hasTask("fix-login") {
		t.Fatalf("a third machine took fix-login: %s", r)
	}
	// a gives its task up: its slug is free, yet fix-login stays where it is.
	a.MustWT("rm", "fix/login")
	if r := c.WT("new", "fix-login", "--no-init"); r.Code != 4 || c.hasTask("fix-login") {
		t.Fatalf("fix-login was claimed again under its plain slug: %s", r)
	}
	if plain := f.claimOn("fix-login"); plain["released"] != true {
		t.Fatalf("the plain slug's release, with a hashed one beside it, is a commit that says so: %v", plain)
	}
	b.MustWT("claim", "fix-login", "--refresh")
	b.MustWT("rm", "fix-login")
	if f.claimOn(hashed) != nil {
		t.Fatalf("rm left the claim: %v", f.claimOn(hashed))
	}
	// The plain slug is free for a third task of that slug.
	c.MustWT("new", "fix:login", "--no-init")
	if plain := f.claimOn("fix-login"); plain["task"] != "fix:login" || plain["machine"] != c.id() {
		t.Fatalf("the released plain slug was not taken: %v", plain)
	}
}

// copyClone copies machine m's clone as cp -a does (a backup restored, a
// VM image): its .git, machine id file and all.
func (m *machine) copyClone(name string) *machine {
	dir := filepath.Join(filepath.Dir(m.Repo), name)
	if out, err := exec.Command("cp", "-a", m.Repo, dir).CombinedOutput(); err != nil {
		m.T.Fatalf("cp -a: %v\n%s", err, out)
	}
	c := *m.Sandbox
	c.Repo = dir
	return &machine{Sandbox: &c, name: name}
}

// A copied clone is another machine (SPEC §19): its first claim makes a
// new machine id and says so once, so that the copy does not hold the
// original's claims. An id the user set is kept in both.
func TestACopiedCloneGetsAMachineIDOfItsOwn(t *testing.T) {
	t.Parallel()
	f := newFleet(t)
	a := f.machine("a", f.fileURL())
	a.MustWT("new", "T", "--no-init")
	id := a.id()
	b := a.copyClone("b")
	r := b.WT("claim", "T")
	if r.Code != 4 || !strings.Contains(r.Stderr, "machine id is now "+b.id()) || b.id() == id {
		t.Fatalf("the copy holds the original's claim: %s", r)
	}
	if r := b.MustWT("claim", "U"); strings.Contains(r.Stderr, "machine id") {
		t.Fatalf("the new id is said more than once: %s", r)
	}
	if r := a.MustWT("claim", "T", "--refresh"); strings.Contains(r.Stderr, "machine id") || a.id() != id {
		t.Fatalf("the original's id changed: %s", r)
	}
	a.Git(a.Repo, "config", "wt.machineId", "box-1")
	c := a.copyClone("c")
	if r := c.MustWT("claim", "V"); strings.Contains(r.Stderr, "machine id") || f.claimOn("V")["machine"] != "box-1" {
		t.Fatalf("the id the user set is not kept: %s\n%v", r, f.claimOn("V"))
	}
}

// A machine id is no secret (every claim shows it), and anything that can
// write the git dir can plant another machine's id in .git/wt/machine-id
// (SPEC §19): gc then must still not release that machine's claim as "the
// task is gone here", nor may the clone take, reuse or release it. Only a
// claim this clone can prove it took is its own.
func TestAPlantedMachineIDHoldsNoClaimOfAnotherMachine(t *testing.T) {
	t.Parallel()
	f := newFleet(t)
	b := f.machine("b", f.fileURL())
	b.MustWT("new", "t", "--no-init")
	a := f.machine("a", f.fileURL(), "wt.orphanGrace", "0")
	a.MustWT("list", "--remote") // makes a's machine id and its binding
	idFile := filepath.Join(a.Repo, ".git", "wt", "machine-id")
	data, err := os.ReadFile(idFile)
	if err != nil {
		t.Fatal(err)
	}
	_, bound, _ := strings.Cut(string(data), "\n")
	if err := os.WriteFile(idFile, []byte(b.id()+"\n"+bound), 0o600); err != nil {
		t.Fatal(err)
	}
	r := a.MustWT("gc")
	if c := f.claimOn("t"); c == nil || c["machine"] != b.id() || strings.Contains(r.Stderr, "released") {
		t.Fatalf("gc released another machine's claim by a planted machine id: %s\n%v", r, c)
	}
	var list []map[string]any
	if err := json.Unmarshal([]byte(a.MustWT("list", "--remote", "--json").Stdout), &list); err != nil || len(list) != 1 || list[0]["mine"] != false {
		t.Fatalf("list --remote shows another machine's claim as this clone's by a planted machine id: %v %v", err, list)
	}
	r = a.WT("claim", "t", "--release")
	if c := f.claimOn("t"); c == nil || c["machine"] != b.id() {
		t.Fatalf("claim --release released another machine's claim by a planted machine id: %s\n%v", r, c)
	}
	if r := a.WT("new", "t", "--no-init"); r.Code != 4 || a.hasTask("t") {
		t.Fatalf("new took over another machine's claim by a planted machine id: %s", r)
	}
	// The holder's own gc still releases its claim of a task gone there.
	b.Git(b.Repo, "config", "wt.orphanGrace", "0")
	b.Git(b.Repo, "update-ref", "-d", "refs/git-wt/tasks/t")
	if r := b.MustWT("gc"); f.claimOn("t") != nil {
		t.Fatalf("gc kept the claim of a task gone here: %s", r)
	}
}

// A claim is bounded before it is read (SPEC §19): a claim commit bigger
// than a claim's 64 KiB is corrupt, and git-wt (or the git it runs to
// read it) never holds it in memory.
func TestABigClaimIsCorruptWithoutBeingRead(t *testing.T) {
	t.Parallel()
	f := newFleet(t)
	a := f.machine("a", f.fileURL())
	const size = 100 << 20
	msg := filepath.Join(t.TempDir(), "msg")
	writeBig(t, msg, "git-wt claim: big [skip ci]\n\n", size, "\n\n"+claimJSON("big", "big", "m-x", "h")+"\n")
	// Made in a's own clone: reading the claim needs no fetch, whose git
	// (a connectivity check) would load the commit whatever git-wt does.
	oid := a.Git(a.Repo, "commit-tree", "4b825dc642cb6eb9a060e54bf8d69288fbee4904", "-F", msg)
	a.Git(a.Repo, "push", "-q", "origin", oid+":refs/git-wt/claims/big")

	cmd := a.Cmd(a.Repo, "claim", "big", "--release")
	out, _ := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 1 || !strings.Contains(string(out), "more than a claim's") {
		t.Fatalf("claim --release of a big claim does not call it corrupt: %s", out)
	}
	// ru_maxrss: the most of git-wt, or of any git it waited for, in KiB
	// (and at least this test process's own: its memory until git-wt
	// started, which writeBig keeps small).
	if rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10; rss > size*3/4 {
		t.Fatalf("git-wt held %d MiB to read a claim of %d MiB", rss>>20, size>>20)
	}
	var list []map[string]any
	if err := json.Unmarshal([]byte(a.MustWT("list", "--remote", "--json").Stdout), &list); err != nil || len(list) != 1 || !strings.Contains(fmt.Sprint(list[0]["corrupt"]), "more than a claim's") {
		t.Fatalf("list --remote does not list the big claim as corrupt: %v %v", err, list)
	}
	if _, err := exec.Command("git", "-C", f.bare, "rev-parse", "--verify", "refs/git-wt/claims/big").Output(); err != nil {
		t.Fatal("a corrupt claim was released")
	}
}

// writeBig writes head, n bytes of x, then tail to path, never holding
// the n bytes in memory.
func writeBig(t *testing.T, path, head string, n int, tail string) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := []byte(strings.Repeat("x", 1<<20))
	f.WriteString(head)
	for n > 0 {
		k := min(n, len(chunk))
		f.Write(chunk[:k])
		n -= k
	}
	if _, err := f.WriteString(tail); err != nil {
		t.Fatal(err)
	}
}
