//go:build unix

// This test protects git-wt's central promise (SPEC §7): any number of
// agents may run git wt at once on one repository and be killed anywhere,
// and after `git wt doctor --fix` nothing is lost, nothing is left locked
// or half made, and everything agrees.
//
// First a calm round (calm_test.go, a quarter of STRESS_TIME): thirty
// workers, no kill, and no git-wt may ever be judged stopped. Then the
// storm: workers run random operations on a shared set of tasks for the
// rest of STRESS_TIME while some of their git-wt processes are SIGKILLed
// with their whole process group; then the test repairs with doctor --fix
// and checks the invariants (check_test.go). The seed (STRESS_SEED to
// replay the same choices; the kills' timing still varies) is printed at
// the start and with every failure.
//
//	STRESS_TIME=10m make stress        # long run, fails on any violation
//	STRESS_SEED=123 make stress        # replay a seed
//	STRESS_KEEP=/tmp/k make stress     # keep the sandbox of a run that fails
//	STRESS_CALM_TIME=12s               # the calm round's length (0: none)
//	STRESS_CALM_WORKERS=30             # its workers (0: no calm round)
//	STRESS_PIDNS=0 make stress         # no worker's git-wt in a PID namespace (default: every fifth, as root)
//	go test ./internal/stress          # the run of make test (defaultTime)
package stress

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-wt/git-wt/internal/testutil"
)

func TestMain(m *testing.M) { testutil.Main(m) }

const (
	// defaultTime is the run of plain go test (make test); make stress
	// runs longer, and fails on what it finds.
	defaultTime = 45 * time.Second
	workers     = 10
	// files in the repository, so that checkouts take a moment
	checkoutFiles = 300
	killRate      = 0.2 // share of operations SIGKILLed at a random moment
	// The calm round (calm_test.go): this many workers, no kill, for
	// this share of the run, before the storm.
	calmWorkers = 30
	calmShare   = 4
)

// config is one run's parameters, from the environment.
type config struct {
	duration    time.Duration // the whole run: calm round and storm
	calmTime    time.Duration
	seed        int64
	workers     int
	calmWorkers int
	pidns       bool // some workers run git-wt in a PID namespace (pidns)
}

func readConfig(t *testing.T) config {
	c := config{seed: time.Now().UnixNano()}
	c.duration = envDuration(t, "STRESS_TIME", defaultTime, 0)
	c.calmTime = envDuration(t, "STRESS_CALM_TIME", c.duration/calmShare, c.duration)
	c.workers = envInt(t, "STRESS_WORKERS", workers, 1)
	c.calmWorkers = envInt(t, "STRESS_CALM_WORKERS", calmWorkers, 0)
	c.pidns = os.Getenv("STRESS_PIDNS") != "0"
	if v := os.Getenv("STRESS_SEED"); v != "" {
		seed, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("STRESS_SEED=%q: %v", v, err)
		}
		c.seed = seed
	}
	return c
}

// envDuration is the duration in the environment variable name, or def;
// at most most, unless most is 0.
func envDuration(t *testing.T, name string, def, most time.Duration) time.Duration {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		t.Fatalf("%s=%q: want a duration", name, v)
	}
	if most > 0 && d > most {
		t.Fatalf("%s=%q: want at most %s", name, v, most)
	}
	return d
}

// envInt is the number in the environment variable name, or def; at
// least least.
func envInt(t *testing.T, name string, def, least int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < least {
		t.Fatalf("%s=%q: want a number of at least %d", name, v, least)
	}
	return n
}

func TestStress(t *testing.T) {
	if testing.Short() {
		t.Skip("the stress test runs for a while; -short skips it")
	}
	cfg := readConfig(t)
	t.Logf("stress: seed %d (replay: STRESS_SEED=%d make stress), %s, %d workers; first a calm round of %s, %d workers",
		cfg.seed, cfg.seed, cfg.duration, cfg.workers, cfg.calmTime, cfg.calmWorkers)
	fmt.Fprintf(os.Stderr, "stress: seed %d, %s, %d workers, calm round %s\n", cfg.seed, cfg.duration, cfg.workers, cfg.calmTime)

	st := setup(t, &cfg)
	found := st.calm(cfg)
	st.storm(cfg)
	st.repair()
	found = append(found, st.checker().check()...)
	st.summary(t)
	report(t, cfg, found)
	if dir := os.Getenv("STRESS_KEEP"); dir != "" && len(found) > 0 {
		st.keep(dir)
	}
}

// keep copies the sandbox (the repository with its event log, the base
// dir, the trash) to dir for a diagnosis: STRESS_KEEP=dir.
func (st *stress) keep(dir string) {
	dest := filepath.Join(dir, filepath.Base(filepath.Dir(st.root)))
	os.MkdirAll(dir, 0o755)
	if out, err := exec.Command("cp", "-a", st.root, dest).CombinedOutput(); err != nil {
		st.t.Logf("STRESS_KEEP: %v: %s", err, out)
		return
	}
	st.t.Logf("STRESS_KEEP: the sandbox is kept at %s", dest)
}

// stress is one run's sandbox and what happened in it.
type stress struct {
	t        *testing.T
	s        *testutil.Sandbox
	baseDir  string
	root     string
	before   map[string]bool
	runner   *runner
	journal  *journal
	branches []string
	tasks    []string
	doctor   *run
	// neighbour shares the base dir (neighbour_test.go).
	neighbour *neighbour
}

// setup makes the repository: many files, users' own branches that tasks may reuse,
// an init that takes a moment (so kills land in it), no grace for orphans
// (the repair must not wait ten minutes), new's gc --auto often, and a
// private TMPDIR inside the sandbox so that its leftovers are seen.
func setup(t *testing.T, cfg *config) *stress {
	if cfg.pidns {
		if err := pidnsWorks(); err != nil {
			t.Logf("no worker runs in a PID namespace: git-wt cannot run in one here (%v)", err)
			cfg.pidns = false
		}
	}
	s := testutil.NewSandbox(t)
	root := filepath.Dir(s.Repo)
	tmp := filepath.Join(root, "tmp")
	os.MkdirAll(tmp, 0o755)
	env := append(withoutVar(s.Env, "TMPDIR"), "TMPDIR="+tmp)
	s.Env = env
	for k, v := range map[string]string{
		"wt.orphanGrace": orphanGrace(cfg),
		"wt.gcInterval":  "2s",
		"wt.lockTimeout": "30s",
		"wt.init":        "sleep 0.05; mkdir -p build && echo ok > build/init.txt",
		// A warm pool: new claims entries, fills run in the background.
		"wt.pool":     "2",
		"wt.poolInit": "sleep 0.05; mkdir -p build && echo pool > build/pool.txt",
	} {
		s.Git(s.Repo, "config", k, v)
	}
	// Enough files that a checkout, a status or a commit takes a moment,
	// so that kills land inside git's own steps (index.lock) too.
	for i := range checkoutFiles {
		s.Write(fmt.Sprintf("src/d%02d/f%04d.txt", i%20, i), fmt.Sprintf("file %d\n", i))
	}
	s.Git(s.Repo, "add", ".")
	s.Git(s.Repo, "commit", "-q", "-m", "files to check out")
	branches := []string{"user/b0", "user/b1", "user/b2"}
	for _, b := range append(branches, historyBranch) {
		s.Git(s.Repo, "branch", b, "main")
	}
	var tasks []string
	for i := range max(cfg.workers, cfg.calmWorkers) + 4 {
		tasks = append(tasks, fmt.Sprintf("t%02d", i))
	}
	baseDir := filepath.Join(root, "repo-worktrees")
	next := makeNeighbour(t, root, baseDir, env)
	st := &stress{
		t: t, s: s, baseDir: baseDir, root: root,
		before:    listing(root, s.Repo, baseDir),
		runner:    &runner{bin: filepath.Join(testutil.BinDir(t), "git-wt"), dir: s.Repo, env: env},
		journal:   &journal{},
		branches:  branches,
		tasks:     tasks,
		neighbour: next,
	}
	t.Cleanup(st.waitForFills) // before the sandbox goes: a fill writes in it
	return st
}

// orphanGrace is the storm's wt.orphanGrace: none, so that repairs run at
// once, unless some workers run in a PID namespace. Then an operation of
// theirs cannot be seen from the host (nor the host's from theirs): it is
// unknown, never dead (SPEC §15), and waits out a grace longer than any
// live operation takes, else a repair would rightly take it over. The
// repair after the storm runs with none.
func orphanGrace(cfg *config) string {
	if cfg.pidns {
		return "20s"
	}
	return "0s"
}

func withoutVar(env []string, key string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, key+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// storm runs the workers, some of whose git-wt processes are SIGKILLed,
// until the deadline, and waits for all of them.
func (st *stress) storm(cfg config) {
	st.round(cfg, cfg.workers, cfg.duration-cfg.calmTime, ops, killRate, st.tasks[:cfg.workers+4], 0)
}

// round runs n workers, picking from mix on tasks, for d, and waits for
// all of them. Every pidnsEvery-th worker runs its git-wt in a PID
// namespace of its own when cfg.pidns.
func (st *stress) round(cfg config, n int, d time.Duration, mix []op, killRate float64, tasks []string, firstID int) {
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for i := firstID; i < firstID+n; i++ {
		w := &worker{
			id: i, rnd: rand.New(rand.NewSource(cfg.seed + int64(i))),
			run: st.runner, journal: st.journal, ops: mix,
			tasks: tasks, branches: st.branches, killRate: killRate,
			pidns: cfg.pidns && i%pidnsEvery == pidnsEvery-1,
			paths: map[string]string{}, took: map[string]time.Duration{},
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.loop(deadline)
		}()
	}
	wg.Wait()
}

// repair is what a person does after the storm: doctor --fix twice, then
// doctor. One thing SPEC leaves to a person first: a merge killed inside
// git's own merge stays half done in the main worktree (never reset by
// git-wt); as doctor says, abort it there and run git wt merge again for
// the task left merging. A record left merging without that (killed
// before or after git's merge) is doctor --fix's to repair.
func (st *stress) repair() {
	st.waitForFills()
	testutil.WaitForDeleters(st.t, st.baseDir) // the folders rm handed over are theirs till they end
	if exists(filepath.Join(st.s.Repo, ".git", "MERGE_HEAD")) {
		st.t.Log("repair: a killed merge left the main worktree mid-merge: git merge --abort, then git wt merge again")
		st.s.GitOK(st.s.Repo, "merge", "--abort")
		c := st.checker()
		for ref, oid := range c.recordRefs() {
			if out, err := c.git("cat-file", "blob", oid); err == nil && strings.Contains(out, `"state":"merging"`) {
				r := st.runner.wt(-1, 0, "merge", ref[strings.LastIndex(ref, "/")+1:])
				st.t.Logf("repair: %s was left merging: %s", ref, r)
			}
		}
	}
	st.s.Git(st.s.Repo, "config", "wt.orphanGrace", "0s") // every worker has stopped
	for range 2 {
		r := st.runner.wt(-1, 0, "doctor", "--fix")
		if r.code != 0 || r.stdout != "" {
			st.t.Logf("repair: %s\n%s", r, r.stdout)
		}
	}
	st.doctor = st.runner.wt(-1, 0, "doctor")
}

// waitForFills waits until no pool fill that a new or a gc started in
// the background runs: they outlive the storm's processes.
func (st *stress) waitForFills() {
	deadline := time.Now().Add(opTimeout)
	for time.Now().Before(deadline) {
		if !testutil.FillRunning(st.s.Repo) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	st.t.Errorf("a background pool fill still runs %s after the storm", opTimeout)
}

func (st *stress) checker() *checker {
	return &checker{
		repo: st.s.Repo, baseDir: st.baseDir, root: st.root, env: st.runner.env,
		before: st.before, journal: st.journal, runs: st.runner.runs,
		branches: st.branches, doctor: st.doctor, neighbour: st.neighbour,
	}
}

// summary logs what ran: per operation, how often, how long (median and
// 90th percentile, to aim the kills), with which exit codes, how many were
// killed; the messages of the failures (exit 1); and how many files were
// written and discarded.
func (st *stress) summary(t *testing.T) {
	type tally struct {
		n, killed int
		codes     map[int]int
		took      []time.Duration
	}
	byOp := map[string]*tally{}
	failures := map[string]int{}
	for _, r := range st.runner.runs {
		name := opName(r)
		if byOp[name] == nil {
			byOp[name] = &tally{codes: map[int]int{}}
		}
		tl := byOp[name]
		tl.n++
		if r.killed {
			tl.killed++
			continue
		}
		tl.codes[r.code]++
		tl.took = append(tl.took, r.end.Sub(r.start))
		if r.code == 1 {
			failures[name+": "+firstLine(r.stderr)]++
		}
	}
	var b strings.Builder
	for _, name := range sortedKeys(byOp) {
		tl := byOp[name]
		slices.Sort(tl.took)
		p := func(q float64) time.Duration {
			if len(tl.took) == 0 {
				return 0
			}
			return tl.took[int(q*float64(len(tl.took)-1))].Round(time.Millisecond)
		}
		fmt.Fprintf(&b, "\n  %-18s %5d runs, %4d killed, took %v (p90 %v), exit codes %v", name, tl.n, tl.killed, p(0.5), p(0.9), tl.codes)
	}
	if len(failures) > 0 {
		b.WriteString("\n  failures (exit 1):")
		for _, msg := range sortedKeys(failures) {
			fmt.Fprintf(&b, "\n    %dx %s", failures[msg], msg)
		}
	}
	discarded := 0
	for _, w := range st.journal.writes {
		if st.journal.discarded(w) {
			discarded++
		}
	}
	t.Logf("stress: %d git-wt runs:%s\n  files written %d, of them discarded by rm --force %d",
		len(st.runner.runs), b.String(), len(st.journal.writes), discarded)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

func opName(r *run) string {
	if len(r.args) == 0 {
		return "?"
	}
	name := r.args[0]
	if name == "rm" && len(r.args) > 1 && r.args[1] == "--force" {
		name = "rm --force"
	}
	if name == "doctor" && len(r.args) > 1 {
		name = "doctor --fix"
	}
	if r.worker < 0 {
		name = "final " + name
	}
	return name
}

// report prints the violations grouped by kind, a few examples each, with
// the seed, and fails the test.
func report(t *testing.T, cfg config, found []violation) {
	if len(found) == 0 {
		t.Logf("stress: seed %d: no violation", cfg.seed)
		return
	}
	byKind := map[string][]string{}
	var kinds []string
	for _, v := range found {
		if byKind[v.kind] == nil {
			kinds = append(kinds, v.kind)
		}
		byKind[v.kind] = append(byKind[v.kind], v.detail)
	}
	sort.Strings(kinds)
	var b strings.Builder
	fmt.Fprintf(&b, "stress: seed %d (replay: STRESS_SEED=%d make stress): %d violations of %d kinds:", cfg.seed, cfg.seed, len(found), len(kinds))
	for _, k := range kinds {
		fmt.Fprintf(&b, "\n\n[%s] %d", k, len(byKind[k]))
		for i, d := range byKind[k] {
			if i == 5 {
				fmt.Fprintf(&b, "\n  ... and %d more", len(byKind[k])-5)
				break
			}
			fmt.Fprintf(&b, "\n  - %s", d)
		}
	}
	t.Error(b.String())
}
