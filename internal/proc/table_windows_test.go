//go:build windows && (amd64 || arm64) && !gitwt_noprocfs

// These tests protect the Windows backend's system calls (run under Wine
// by make test-windows): the table sees this process and the children it
// starts, with their parents, start times and working folders; a child
// that was killed is dead, or another process, never alive; a process
// that exits with the code 259 (STILL_ACTIVE) has exited. What Wine cannot
// show — the Restart Manager's holders, the registry's BootId — is said
// where it is skipped.
package proc

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// roleEnv makes the test binary one of the children these tests start.
const roleEnv = "GIT_WT_PROC_TEST_ROLE"

func TestMain(m *testing.M) {
	switch os.Getenv(roleEnv) {
	case "sleep":
		time.Sleep(time.Minute)
		os.Exit(0)
	case "exit259":
		os.Exit(stillActive)
	case "spawn": // starts a sleeping child in GIT_WT_PROC_TEST_DIR, says its pid
		cmd := exec.Command(os.Args[0])
		cmd.Dir, cmd.Env = os.Getenv("GIT_WT_PROC_TEST_DIR"), append(os.Environ(), roleEnv+"=sleep")
		if cmd.Start() != nil {
			os.Exit(3)
		}
		fmt.Println(cmd.Process.Pid)
		cmd.Wait()
		os.Exit(0)
	case "hold": // keeps the file of GIT_WT_PROC_TEST_FILE open
		f, err := os.Open(os.Getenv("GIT_WT_PROC_TEST_FILE"))
		if err != nil {
			os.Exit(3)
		}
		defer f.Close()
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// startChild starts the test binary in role, in dir, and kills it when
// the test ends.
func startChild(t *testing.T, role, dir string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), append(env, roleEnv+"="+role)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd
}

// tempDir is a new folder, removed (where Wine lets it: Go's RemoveAll
// fails there) when the test ends. Not t.TempDir, which fails the test
// under Wine.
func tempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "proc-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// underWine reports whether the tests run under Wine, whose ntdll says so.
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

// plausibleStart fails the test unless st started within the last hour.
func plausibleStart(t *testing.T, who string, st stat) {
	t.Helper()
	now := float64(time.Now().UnixNano()) / 1e9
	if st.start == "" || st.startUnix < now-3600 || st.startUnix > now+5 {
		t.Fatalf("%s started at %q (%f), now is %f", who, st.start, st.startUnix, now)
	}
}

func TestWindowsTableSeesThisProcess(t *testing.T) {
	if err := Sight(); err != nil {
		t.Fatalf("the Windows table is blind: %v", err)
	}
	pids, err := sys.pids()
	if err != nil || !slices.Contains(pids, os.Getpid()) {
		t.Fatalf("the snapshot does not list this process %d: %v %v", os.Getpid(), pids, err)
	}
	st, err := sys.stat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	plausibleStart(t, "this process", st)
	// os.Getppid reads the same snapshot; under Wine a program started
	// from Linux has the parent 0.
	if st.exited || st.ppid != os.Getppid() || st.name != imageName(filepath.Base(os.Args[0])) {
		t.Fatalf("this process: %+v, want parent %d and name %q", st, os.Getppid(), imageName(filepath.Base(os.Args[0])))
	}
	wd, _ := os.Getwd()
	if dir, err := WorkingDir(); err != nil || !strings.EqualFold(dir, wd) {
		t.Fatalf("WorkingDir = %q %v, want %q", dir, err, wd)
	}
	if id := Self(); id.PIDNS != "windows" || id.Start != st.start || Check(id) != Alive {
		t.Fatalf("Self = %+v, Check = %v", id, Check(id))
	}
	if boot := Self().Boot; boot == "" {
		t.Logf("no BootId in the registry (Wine has none): a dead process is unknown here, not dead")
	}
}

func TestWindowsTableSeesAChildThenItsDeath(t *testing.T) {
	dir := tempDir(t)
	child := startChild(t, "sleep", dir)
	pid := child.Process.Pid
	st, err := sys.stat(pid)
	if err != nil {
		t.Fatal(err)
	}
	plausibleStart(t, "the child", st)
	me, _ := sys.stat(os.Getpid())
	if st.exited || st.ppid != os.Getpid() || st.name != me.name || st.startUnix < me.startUnix {
		t.Fatalf("the child: %+v; this process: %+v", st, me)
	}
	if cwd, _, err := sys.cwd(pid); err != nil || !strings.EqualFold(filepath.Clean(cwd), filepath.Clean(dir)) {
		t.Fatalf("the child works in %q (%v), want %q", cwd, err, dir)
	}
	id := Self()
	id.PID, id.Start = pid, st.start
	if got := Check(id); got != Alive {
		t.Fatalf("the running child is %v", got)
	}

	if err := kill(pid, syscall.SIGTERM); !errors.Is(err, errors.ErrUnsupported) {
		t.Fatalf("SIGTERM: %v, want unsupported (Windows cannot ask a process to end)", err)
	}
	if err := kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	child.Wait() // closes the last handle: the process object goes
	after, err := sys.stat(pid)
	if err == nil && after.start == st.start && !after.exited {
		t.Fatalf("the killed child still runs: %+v", after)
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the killed child is unknown: %v", err)
	}
	want := Dead
	if id.Boot == "" {
		want = Unknown // no boot id, no proof (Wine)
	}
	if got := Check(id); got != want {
		t.Fatalf("the killed child is %v, want %v", got, want)
	}
}

// A process working in a folder is a user of it; this process's own
// children are not (UsersOf), so the user is a grandchild.
func TestWindowsUsersOfAFolder(t *testing.T) {
	dir := tempDir(t)
	spawner := exec.Command(os.Args[0])
	spawner.Env = append(os.Environ(), roleEnv+"=spawn", "GIT_WT_PROC_TEST_DIR="+dir)
	out, err := spawner.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := spawner.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	if _, err := fmt.Fscan(out, &pid); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		kill(pid, syscall.SIGKILL)
		spawner.Wait()
	})
	users, err := UsersOf(dir)
	if err != nil || !slices.ContainsFunc(users, func(u User) bool { return u.PID == pid && !u.Caller }) {
		t.Fatalf("UsersOf(%s) = %+v %v, want the grandchild %d", dir, users, err, pid)
	}
	if users, err := UsersOf(tempDir(t)); err != nil || len(users) != 0 {
		t.Fatalf("an unused folder has the users %+v %v", users, err)
	}
}

// A process that exited with the code 259 says STILL_ACTIVE; the wait
// tells it has exited. Its object stays while the handle os/exec keeps
// is open, as a zombie does on unix.
func TestWindowsExitCode259IsExited(t *testing.T) {
	child := startChild(t, "exit259", "")
	for i := 0; ; i++ {
		st, err := sys.stat(child.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		if st.exited {
			break
		}
		if i == 1000 {
			t.Fatalf("a process that exited with 259 still runs: %+v", st)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if child.Wait(); child.ProcessState.ExitCode() != stillActive {
		t.Fatalf("the child exited with %d, want 259", child.ProcessState.ExitCode())
	}
}

// A file a process has open: the Restart Manager names its holder. Wine's
// Restart Manager is a stub that names none.
func TestWindowsLockHolderIsTheProcessThatHasItOpen(t *testing.T) {
	dir := tempDir(t)
	lock := filepath.Join(dir, "index.lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	child := startChild(t, "hold", "", "GIT_WT_PROC_TEST_FILE="+lock)
	time.Sleep(500 * time.Millisecond) // the child opens the file
	held, err := sys.holders(lock)
	if err != nil {
		t.Fatalf("the Restart Manager: %v", err)
	}
	if underWine() {
		t.Skipf("Wine's Restart Manager is a stub (it named %v): the holder is not checked", held)
	}
	if !held[child.Process.Pid] {
		t.Fatalf("the holders of %s are %v, want the child %d", lock, held, child.Process.Pid)
	}
	seen, _ := os.Lstat(lock)
	if got := LockHolder(lock, seen, dir); got != Alive {
		t.Fatalf("LockHolder = %v, want alive", got)
	}
}
