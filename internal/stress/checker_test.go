//go:build unix

// This test keeps the stress test honest: its checker must see each kind
// of broken promise when one is staged by hand, or a clean stress run
// would mean nothing.
package stress

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

func TestCheckerSeesViolations(t *testing.T) {
	st := setup(t, &config{workers: 1})
	made := st.runner.wt(0, 0, "new", "-q", "t00")
	if made.code != 0 {
		t.Fatal(made)
	}
	dir := filepath.Join(st.baseDir, "t00")

	// A file an agent wrote, then lost behind git-wt's back.
	st.journal.addWrite(write{task: "t00", dir: dir, name: "lost.txt", content: "work\n", start: time.Now()})
	// A user's branch deleted.
	st.s.Git(st.s.Repo, "branch", "-D", "user/b0")
	// A stale git lock file.
	st.s.Write(filepath.Join(st.s.Repo, ".git", "index.lock"), "")
	// Something written outside the repository and the base dir.
	st.s.Write(filepath.Join(st.root, "home", "stray"), "")
	// A message without its prefix, and an exit code beyond 5.
	st.runner.keep(&run{args: []string{"gc"}, code: 7, stderr: "fatal: raw git\n"})
	// The repository lock held by someone still running.
	f, err := os.OpenFile(filepath.Join(st.s.Repo, ".git", "wt", "lock"), os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	// (flock is per open file: the checker opens its own, and must fail.)
	// The other repository in the base dir lost its uncommitted file.
	os.Remove(st.neighbour.dirty)
	// And doctor, after the repair, still reporting a problem.
	st.doctor = &run{args: []string{"doctor"}, code: 1, stdout: "stuck-creation: ...\n"}

	var kinds []string
	for _, v := range st.checker().check() {
		kinds = append(kinds, v.kind)
	}
	for _, want := range []string{"file-lost", "user-branch-deleted", "git-lock-file-left", "outside",
		"unprefixed-message", "exit-code", "repo-lock-held", "doctor-not-silent", "neighbour-touched"} {
		if !slices.Contains(kinds, want) {
			t.Errorf("the checker did not report %s; it reported %v", want, kinds)
		}
	}
}

// The calm round's check: a report that a process stopped, while the
// runner knows it ran, and a repair logged in the event log of a process
// that ended on its own.
func TestCalmCheckSeesStoppedReports(t *testing.T) {
	t0 := time.Now()
	creator := &run{args: []string{"new", "-q", "t01"}, pid: 4242, start: t0, end: t0.Add(10 * time.Second)}
	doctor := &run{args: []string{"doctor"}, pid: 5, start: t0.Add(time.Second), end: t0.Add(2 * time.Second),
		stdout: "stuck-creation: /base/t01: creation by process 4242 on vm stopped in state creating (--fix: ...)\n"}
	// A doctor in a PID namespace that says it cannot see the creator
	// claims nothing.
	blind := &run{args: []string{"doctor"}, pid: 7, start: t0.Add(time.Second), end: t0.Add(2 * time.Second),
		stdout: "stuck-creation: /base/t01: creation by process 4242 on vm " + unseen + ", so it may still run (...)\n"}
	c := &calmCheck{runs: []*run{creator, doctor, blind}}
	c.readOutput(doctor)
	c.readOutput(blind)

	dir := t.TempDir()
	event := `{"time":"` + t0.Add(20*time.Second).UTC().Format(time.RFC3339Nano) + `","pid":6,"command":"gc","task":"t01","outcome":"repaired","reason":"stuck-creation: creation by process 4242 on vm stopped in state creating; roll the creation back"}`
	os.WriteFile(filepath.Join(dir, "events.jsonl"), []byte(event+"\n"), 0o644)
	c.readEvents(dir, t0)

	var kinds []string
	for _, v := range c.found {
		kinds = append(kinds, v.kind)
	}
	if want := []string{"calm-stopped-while-running", "calm-stopped"}; !slices.Equal(kinds, want) {
		t.Errorf("the calm check found %v, want %v", kinds, want)
	}
}
