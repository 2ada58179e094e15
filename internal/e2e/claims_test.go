//go:build unix

// These tests protect claims across machines (SPEC §18): several clones
// ("machines") of one bare repository, served by a real git daemon on
// 127.0.0.1 that the test starts and stops, or reached through file://.
package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/testutil"
)

// fleet is a bare repository, the daemon that serves it, and the clones
// that act as machines.
type fleet struct {
	s      *testutil.Sandbox
	root   string // the daemon's base path
	bare   string
	port   int
	daemon *exec.Cmd
}

func newFleet(t *testing.T) *fleet {
	s := testutil.NewSandbox(t)
	root := t.TempDir()
	f := &fleet{s: s, root: root, bare: filepath.Join(root, "shared.git")}
	s.Git(root, "clone", "-q", "--bare", s.Repo, f.bare)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f.port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	f.start()
	t.Cleanup(f.stop)
	return f
}

// start runs git daemon and returns once it accepts connections.
func (f *fleet) start() {
	t := f.s.T
	f.daemon = exec.Command("git", "daemon", "--export-all", "--enable=receive-pack", "--reuseaddr",
		"--base-path="+f.root, "--listen=127.0.0.1", "--port="+strconv.Itoa(f.port), f.root)
	f.daemon.Env = f.s.Env
	// git runs git-daemon as its child: the group is what must stop.
	f.daemon.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := f.daemon.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", f.port))
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("git daemon does not listen on %d: %v", f.port, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stop ends the daemon: the remote is down for every daemon clone.
func (f *fleet) stop() {
	if f.daemon != nil {
		syscall.Kill(-f.daemon.Process.Pid, syscall.SIGKILL)
		f.daemon.Wait()
		f.daemon = nil
	}
}

func (f *fleet) daemonURL() string { return fmt.Sprintf("git://127.0.0.1:%d/shared.git", f.port) }
func (f *fleet) fileURL() string   { return "file://" + f.bare }

// machine is one clone of the shared repository, with claims on origin.
type machine struct {
	*testutil.Sandbox
	name string
}

// machine clones url into a folder of its own and turns claims on.
func (f *fleet) machine(name, url string, config ...string) *machine {
	dir := filepath.Join(filepath.Dir(f.s.Repo), name)
	f.s.Git(filepath.Dir(f.s.Repo), "clone", "-q", url, dir)
	c := *f.s
	c.Repo = dir
	m := &machine{Sandbox: &c, name: name}
	m.Git(dir, "config", "wt.claimRemote", "origin")
	for i := 0; i+1 < len(config); i += 2 {
		m.Git(dir, "config", config[i], config[i+1])
	}
	return m
}

// id is the machine id git-wt generated for the clone.
func (m *machine) id() string {
	data, err := os.ReadFile(filepath.Join(m.Repo, ".git", "wt", "machine-id"))
	if err != nil {
		m.T.Fatal(err)
	}
	id, _, _ := strings.Cut(string(data), "\n") // then what it is bound to
	return id
}

// pushWork makes task slug on the machine, commits a's work in it (a.txt)
// and pushes its branch, which refreshes its claim; it returns the task's
// worktree.
func (m *machine) pushWork(slug string) string {
	path := m.MustWT("new", slug, "--no-init").Out()
	commitFile(m.Sandbox, path, "a.txt", "a's work", "a's work")
	m.MustWT("push", slug)
	return path
}

// hasTask reports whether the clone has a record or a worktree of task
// slug: a refused new must have made neither.
func (m *machine) hasTask(slug string) bool {
	return m.GitOK(m.Repo, "rev-parse", "-q", "--verify", "refs/git-wt/tasks/"+slug) ||
		testutil.Exists(filepath.Join(filepath.Dir(m.Repo), filepath.Base(m.Repo)+"-worktrees", slug))
}

// claimOn is the machine that holds slug's claim on the bare repository.
func (f *fleet) claimOn(slug string) map[string]any {
	out, err := exec.Command("git", "-C", f.bare, "log", "-1", "--format=%B", "refs/git-wt/claims/"+slug).Output()
	if err != nil {
		return nil
	}
	_, body, _ := strings.Cut(string(out), "\n\n")
	var c map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(body)), &c); err != nil {
		f.s.T.Fatalf("claim of %s: %v\n%s", slug, err, out)
	}
	return c
}

// allAtOnce runs git wt with args on every machine at once.
func allAtOnce(ms []*machine, args ...string) []testutil.Result {
	results := make([]testutil.Result, len(ms))
	var wg sync.WaitGroup
	for i, m := range ms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = m.WT(args...)
		}()
	}
	wg.Wait()
	return results
}

// rounds is the full size the claims promise is tested at (5 machines
// racing 50 times, 5 machines × 100 tasks: about a minute here), or n
// under go test -short.
func rounds(n, full int) int {
	if testing.Short() {
		return n
	}
	return full
}

func TestClaimRaceHasExactlyOneWinner(t *testing.T) {
	t.Parallel()
	f := newFleet(t)
	var ms []*machine
	for i := range 5 {
		url := f.daemonURL()
		if i == 4 {
			url = f.fileURL() // both transports in every race
		}
		ms = append(ms, f.machine(fmt.Sprintf("m%d", i), url))
	}
	for round := range rounds(10, 50) {
		task := fmt.Sprintf("race-%d", round)
		results := allAtOnce(ms, "new", task, "--no-init")
		winner := -1
		for i, r := range results {
			switch r.Code {
			case 0:
				if winner >= 0 {
					t.Fatalf("round %d: %s and %s both won", round, ms[winner].name, ms[i].name)
				}
				winner = i
			case 4:
				if ms[i].hasTask(task) {
					t.Fatalf("round %d: %s lost yet made the task", round, ms[i].name)
				}
				if !strings.Contains(r.Stderr, "claimed on origin by machine") {
					t.Fatalf("round %d: %s's refusal does not say who holds it: %s", round, ms[i].name, r)
				}
			default:
				t.Fatalf("round %d: %s: %s", round, ms[i].name, r)
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: nobody won", round)
		}
		if c := f.claimOn(task); c["machine"] != ms[winner].id() {
			t.Fatalf("round %d: the remote says %v holds it, %s won", round, c["machine"], ms[winner].name)
		}
		for i, r := range results {
			if i != winner && !strings.Contains(r.Stderr, ms[winner].id()) {
				t.Fatalf("round %d: the refusal names another machine than %s: %s", round, ms[winner].id(), r.Stderr)
			}
		}
	}
}

func TestClaimFleetClaimsEveryTaskOnce(t *testing.T) {
	t.Parallel()
	f := newFleet(t)
	tasks := rounds(20, 100)
	var ms []*machine
	for i := range 5 {
		ms = append(ms, f.machine(fmt.Sprintf("m%d", i), f.daemonURL()))
	}
	won := make([]map[string]bool, len(ms))
	var wg sync.WaitGroup
	for i, m := range ms {
		won[i] = map[string]bool{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range tasks {
				task := fmt.Sprintf("t%d", (k+i*tasks/len(ms))%tasks) // each starts elsewhere
				switch r := m.WT("claim", task); r.Code {
				case 0:
					won[i][task] = true
				case 4:
				default:
					t.Errorf("%s claim %s: %s", m.name, task, r)
				}
			}
		}()
	}
	wg.Wait()
	total := 0
	for i, m := range ms {
		total += len(won[i])
		for task := range won[i] {
			if c := f.claimOn(task); c["machine"] != m.id() {
				t.Errorf("%s won %s, the remote says %v holds it", m.name, task, c["machine"])
			}
		}
	}
	if total != tasks {
		t.Fatalf("%d claims won for %d tasks", total, tasks)
	}
	var list []map[string]any
	if err := json.Unmarshal([]byte(ms[0].MustWT("list", "--remote", "--json").Stdout), &list); err != nil || len(list) != tasks {
		t.Fatalf("list --remote shows %d claims (%v), want %d", len(list), err, tasks)
	}
}

func TestClaimTakeoverAfterTTLWithoutOpenPR(t *testing.T) {
	t.Parallel()
	f := newFleet(t)
	a := f.machine("a", f.daemonURL())
	// b reaches the same repository through file://, so that a can be
	// cut off (the daemon stopped) while b still works.
	b := f.machine("b", f.fileURL(), "wt.claimTTL", "1s")
	path := a.pushWork("T")
	if r := b.WT("new", "T", "--no-init", "--take-over", "--force"); r.Code != 4 || !strings.Contains(r.Stderr, "not stale") || b.hasTask("T") {
		t.Fatalf("a claim seen just now is not stale: %s", r)
	}
	// A heartbeat is a new claim commit: b's clock starts again.
	time.Sleep(1100 * time.Millisecond)
	a.MustWT("claim", "T", "--refresh")
	if r := b.WT("new", "T", "--no-init", "--take-over", "--force"); r.Code != 4 || !strings.Contains(r.Stderr, "not stale") {
		t.Fatalf("a refreshed claim is not stale: %s", r)
	}
	// a is cut off; b has seen its claim unchanged for the TTL.
	f.stop()
	if r := a.WT("claim", "T", "--refresh"); r.Code != 1 {
		t.Fatalf("refresh with the remote down: %s", r)
	}
	time.Sleep(1100 * time.Millisecond)
	gh, _, state := withGh(t, b.Sandbox)
	if r := gh.WT("new", "T", "--no-init", "--take-over"); r.Code != 4 || !strings.Contains(r.Stderr, "pull request is open") || b.hasTask("T") {
		t.Fatalf("takeover with an open PR: %s", r)
	}
	if r := b.WT("new", "T", "--no-init", "--take-over"); r.Code != 3 || !strings.Contains(r.Stderr, "--force") {
		t.Fatalf("takeover without gh and without --force: %s", r)
	}
	if err := os.WriteFile(state, []byte("CLOSED"), 0o644); err != nil {
		t.Fatal(err)
	}
	bpath := gh.MustWT("new", "T", "--no-init", "--take-over").Out()
	if c := f.claimOn("T"); c["machine"] != b.id() {
		t.Fatalf("after the takeover the remote says %v", c)
	}
	commitFile(b.Sandbox, bpath, "b.txt", "b's work", "b's work")
	if list := gh.MustWT("list", "--remote", "--json").Stdout; !strings.Contains(list, `"pr_state": "CLOSED"`) {
		t.Fatalf("list --remote does not show the PR's state from gh:\n%s", list)
	}
	if log := b.MustWT("log", "T").Stdout; !strings.Contains(log, "claim-taken-over") || !strings.Contains(log, a.id()) {
		t.Fatalf("the event log does not say who the task was taken from:\n%s", log)
	}
	// a comes back: its refresh and its push refuse, naming b; its work
	// stays; the remote branch is not a's.
	f.start()
	before := a.Git(f.bare, "rev-parse", "refs/heads/wt/T")
	commitFile(a.Sandbox, path, "a2.txt", "more", "more of a's work")
	for _, args := range [][]string{{"claim", "T", "--refresh"}, {"push", "T"}} {
		if r := a.WT(args...); r.Code != 4 || !strings.Contains(r.Stderr, "taken over") || !strings.Contains(r.Stderr, b.id()) {
			t.Fatalf("%v after the takeover: %s", args, r)
		}
	}
	if got := a.Git(f.bare, "rev-parse", "refs/heads/wt/T"); got != before {
		t.Fatalf("the old holder's push moved the branch")
	}
	if !testutil.Exists(filepath.Join(path, "a2.txt")) || !a.hasTask("T") {
		t.Fatal("the old holder's work is gone")
	}
}

func TestClaimRemoteDownMakesNothingAndGcReleasesLater(t *testing.T) {
	t.Parallel()
	f := newFleet(t)
	a := f.machine("a", f.daemonURL())
	if r := a.WT("new", "T", "--force"); r.Code != 2 || !strings.Contains(r.Stderr, "--take-over") || a.hasTask("T") {
		t.Fatalf("--force alone: %s", r)
	}
	unclaimed := withVars(a.Sandbox, "GIT_CONFIG_PARAMETERS='wt.claimRemote'=''")
	if r := unclaimed.WT("new", "T", "--take-over"); r.Code != 2 || !strings.Contains(r.Stderr, "wt.claimRemote") || a.hasTask("T") {
		t.Fatalf("--take-over without claims: %s", r)
	}
	f.stop()
	if r := a.WT("new", "T", "--no-init"); r.Code != 1 || a.hasTask("T") {
		t.Fatalf("new with the remote down: %s", r)
	}
	// A task removed while the remote is down keeps its claim there,
	// until gc releases it (past wt.orphanGrace).
	f.start()
	a.MustWT("new", "U", "--no-init")
	f.stop()
	if r := a.WT("rm", "U"); r.Code != 0 || !strings.Contains(r.Stderr, "claim") {
		t.Fatalf("rm with the remote down removes, and warns of the claim: %s", r)
	}
	f.start()
	a.Git(a.Repo, "config", "wt.orphanGrace", "0")
	if r := a.MustWT("gc"); f.claimOn("U") != nil {
		t.Fatalf("gc left the claim of a task gone here: %s", r)
	}
}

func TestClaimReleasedByRmMergeAndAFailedNew(t *testing.T) {
	t.Parallel()
	f := newFleet(t)
	a := f.machine("a", f.fileURL())
	b := f.machine("b", f.fileURL())
	a.MustWT("new", "T", "--no-init")
	if r := b.WT("new", "T", "--no-init"); r.Code != 4 {
		t.Fatalf("b while a holds T: %s", r)
	}
	a.MustWT("rm", "T")
	if f.claimOn("T") != nil {
		t.Fatal("rm left the claim")
	}
	b.MustWT("new", "T", "--no-init")
	// A new that fails here after claiming gives its claim back.
	if r := a.WT("new", "U", "--base", "no-such-ref"); r.Code != 5 || f.claimOn("U") != nil {
		t.Fatalf("a failed new keeps its claim: %s", r)
	}
	// Merge's cleanup releases too.
	path := a.MustWT("new", "M", "--no-init").Out()
	commitFile(a.Sandbox, path, "m.txt", "m", "m")
	a.MustWT("merge", "M")
	if f.claimOn("M") != nil {
		t.Fatal("merge's cleanup left the claim")
	}
}

// restore makes a task again as new makes it, so it claims it as new
// does: refused (exit 4, nothing made) while another machine holds it,
// and the claim is this machine's once it is restored.
func TestRestoreClaimsTheTaskAsNewDoes(t *testing.T) {
	t.Parallel()
	f := newFleet(t)
	a := f.machine("a", f.fileURL())
	b := f.machine("b", f.fileURL())
	path := a.MustWT("new", "T", "--no-init").Out()
	a.Write(filepath.Join(path, "work.txt"), "a's work\n")
	a.MustWT("rm", "--force", "T")
	b.MustWT("new", "T", "--no-init")
	if r := a.WT("restore", "T"); r.Code != 4 || a.hasTask("T") {
		t.Fatalf("a restores T while b holds its claim: %s", r)
	}
	b.MustWT("rm", "T")
	restored := a.MustWT("restore", "T").Out()
	if c := f.claimOn("T"); c["machine"] != a.id() {
		t.Fatalf("a restored T, and the remote says %v holds it", c["machine"])
	}
	if data, err := os.ReadFile(filepath.Join(restored, "work.txt")); err != nil || string(data) != "a's work\n" {
		t.Fatalf("the restored task's file: %q, %v", data, err)
	}
}

func TestClaimHostRefusingTheNamespaceNeedsClaimRef(t *testing.T) {
	t.Parallel()
	f := newFleet(t)
	hook := filepath.Join(f.bare, "hooks", "pre-receive")
	f.s.Write(hook, "#!/bin/sh\nwhile read old new ref; do case $ref in refs/git-wt/*) echo \"refs outside refs/heads are not allowed\" >&2; exit 1;; esac; done\n")
	os.Chmod(hook, 0o755)
	// What such hosts also tend to deny: only forward moves, no deletion.
	f.s.Git(f.bare, "config", "receive.denyDeletes", "true")
	f.s.Git(f.bare, "config", "receive.denyNonFastForwards", "true")
	a := f.machine("a", f.daemonURL())
	b := f.machine("b", f.daemonURL())
	if r := a.WT("new", "T", "--no-init"); r.Code != 1 || !strings.Contains(r.Stderr, "wt.claimRef") || a.hasTask("T") {
		t.Fatalf("new on a host refusing refs/git-wt/: %s", r)
	}
	for _, m := range []*machine{a, b} {
		m.Git(m.Repo, "config", "wt.claimRef", "refs/heads/git-wt-claims/")
	}
	a.MustWT("new", "T", "--no-init")
	if r := b.WT("new", "T", "--no-init"); r.Code != 4 || b.hasTask("T") {
		t.Fatalf("b while a holds T: %s", r)
	}
	a.MustWT("claim", "T", "--refresh")
	a.MustWT("rm", "T")
	msg := a.Git(f.bare, "log", "-1", "--format=%s", "refs/heads/git-wt-claims/T")
	if !strings.Contains(msg, "release") || !strings.Contains(msg, "[skip ci]") {
		t.Fatalf("a release under refs/heads is a commit that says so: %q", msg)
	}
	if list := b.MustWT("list", "--remote", "--json").Out(); list != "[]" {
		t.Fatalf("a released claim is listed: %s", list)
	}
	b.MustWT("new", "T", "--no-init")
	if list := a.MustWT("list", "--remote", "--json").Out(); !strings.Contains(list, b.id()) {
		t.Fatalf("list --remote under refs/heads/: %s", list)
	}
	if n := a.Git(f.bare, "rev-list", "--count", "refs/heads/git-wt-claims/T"); n != "4" {
		t.Fatalf("claim, refresh, release, claim: each a child of the last, got %s commits", n)
	}
}

func TestClaimHeartbeatFromWorkInTheBackground(t *testing.T) {
	t.Parallel()
	f := newFleet(t)
	a := f.machine("a", f.fileURL(), "wt.claimHeartbeat", "0")
	path := a.MustWT("new", "T", "--no-init").Out()
	before := a.Git(f.bare, "rev-parse", "refs/git-wt/claims/T")
	a.Write(filepath.Join(path, "w.txt"), "work")
	a.MustWT("commit", "T", "-m", "work")
	// The refresh runs detached from commit: wait for the remote to show
	// it, which it must within the deadline.
	deadline := time.Now().Add(20 * time.Second)
	for a.Git(f.bare, "rev-parse", "refs/git-wt/claims/T") == before {
		if time.Now().After(deadline) {
			t.Fatal("commit sent no heartbeat")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if c := f.claimOn("T"); c["machine"] != a.id() || a.Git(f.bare, "rev-parse", "refs/git-wt/claims/T^") != before {
		t.Fatalf("the heartbeat is a child of the claim it refreshes: %v", c)
	}
	// An agent's status report is work too.
	reported := a.Git(f.bare, "rev-parse", "refs/git-wt/claims/T")
	if r := hook(t, a.Sandbox, path, "claude-status", `{"session_id":"s1","hook_event_name":"UserPromptSubmit","cwd":"`+path+`"}`); r.Code != 0 {
		t.Fatalf("agent-hook claude-status: %s", r)
	}
	deadline = time.Now().Add(20 * time.Second)
	for a.Git(f.bare, "rev-parse", "refs/git-wt/claims/T") == reported {
		if time.Now().After(deadline) {
			t.Fatal("an agent's status report sent no heartbeat")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// By hand, from inside the task: TASK defaults to the worktree's.
	beat := a.Git(f.bare, "rev-parse", "refs/git-wt/claims/T")
	if r := a.WTIn(path, "claim", "--refresh"); r.Code != 0 || a.Git(f.bare, "rev-parse", "refs/git-wt/claims/T^") != beat {
		t.Fatalf("claim --refresh in the worktree: %s", r)
	}
	if r := a.WT("claim", "--refresh"); r.Code != 5 {
		t.Fatalf("claim --refresh outside any task: %s", r)
	}
}

func TestClaimTakeoverRaceHasOneWinner(t *testing.T) {
	t.Parallel()
	f := newFleet(t)
	a := f.machine("a", f.fileURL())
	a.MustWT("claim", "T")
	var ms []*machine
	for i := range 4 {
		m := f.machine(fmt.Sprintf("m%d", i), f.daemonURL(), "wt.claimTTL", "1s")
		// The first sighting, recorded by list --remote.
		if list := m.MustWT("list", "--remote").Stdout; !strings.Contains(list, a.id()) || !strings.Contains(list, "T") {
			t.Fatalf("list --remote does not show a's claim:\n%s", list)
		}
		ms = append(ms, m)
	}
	time.Sleep(1100 * time.Millisecond)
	results := allAtOnce(ms, "new", "T", "--no-init", "--take-over", "--force")
	winners := 0
	for i, r := range results {
		switch {
		case r.Code == 0:
			winners++
			if c := f.claimOn("T"); c["machine"] != ms[i].id() {
				t.Errorf("%s won, the remote says %v", ms[i].name, c["machine"])
			}
		case r.Code == 4 && !ms[i].hasTask("T"):
		default:
			t.Errorf("%s: %s", ms[i].name, r)
		}
	}
	if winners != 1 {
		t.Fatalf("%d machines took the task over", winners)
	}
}

// gc releases a claim whose branch is merged on the remote (SPEC §18),
// whoever holds it, once nobody refreshed it for wt.claimTTL: a machine
// that died after its PR was merged on the forge holds no task for ever.
// A claim whose branch is not merged stays.
func TestGCReleasesAStaleClaimWhoseBranchIsMerged(t *testing.T) {
	t.Parallel()
	f := newFleet(t)
	a := f.machine("a", f.fileURL())
	b := f.machine("b", f.fileURL(), "wt.claimTTL", "1s")
	a.pushWork("T")
	a.MustWT("new", "U", "--no-init")
	// The PR is merged on the forge; main moves on; b fetches.
	b.Git(b.Repo, "fetch", "-q", "origin")
	b.Git(b.Repo, "merge", "-q", "--no-ff", "-m", "merge T", "origin/wt/T")
	b.Git(b.Repo, "push", "-q", "origin", "main")
	b.Git(b.Repo, "fetch", "-q", "origin")
	b.MustWT("list", "--remote") // b's first sighting of the claims
	b.MustWT("gc")
	if c := f.claimOn("T"); c == nil {
		t.Fatal("gc released a merged claim seen just now: it is not stale yet")
	}
	time.Sleep(1100 * time.Millisecond) // wt.claimTTL, by b's clock
	r := b.MustWT("gc")
	if !strings.Contains(r.Stderr, "released the claim of \"T\"") {
		t.Fatalf("gc did not say it released the merged claim: %s", r)
	}
	if c := f.claimOn("T"); c != nil {
		t.Fatalf("the merged, stale claim is still on the remote: %v\n%s", c, r)
	}
	if c := f.claimOn("U"); c == nil || c["machine"] != a.id() {
		t.Fatalf("gc released a claim whose branch is not merged: %v", c)
	}
}
