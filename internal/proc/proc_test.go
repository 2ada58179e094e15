// These tests protect how a process is judged alive or dead: a zombie (a
// child that exited and was not reaped) is dead, so a creation it left
// behind is repaired rather than waited for.
package proc

import (
	"os/exec"
	"runtime"
	"testing"
	"time"
)

func TestZombieIsDead(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a zombie is unix's: see TestWindowsExitCode259IsExited")
	}
	needSight(t)
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	id := Self()
	id.PID = cmd.Process.Pid
	id.Start, _ = StartTime(id.PID)
	if got := Check(id); got != Alive {
		t.Fatalf("a running child is %v, want Alive", got)
	}
	// Killed and not waited for, the child stays a zombie.
	cmd.Process.Kill()
	deadline := time.Now().Add(time.Minute)
	for {
		st, err := sys.stat(id.PID)
		if err != nil {
			t.Fatal(err)
		}
		if st.exited {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the child did not become a zombie")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got := Check(id); got != Dead {
		t.Fatalf("a zombie is %v, want Dead", got)
	}
	cmd.Wait()
	if got := Check(id); got != Dead {
		t.Fatalf("a reaped child is %v, want Dead", got)
	}
}

func TestSelfIsAlive(t *testing.T) {
	needSight(t)
	if got := Check(Self()); got != Alive {
		t.Fatalf("this process is %v", got)
	}
	reused := Self()
	reused.Start = "1"
	want := Dead
	if reused.Boot == "" {
		want = Alive // no boot id (Wine has none): a running pid is alive, the safe mistake
	}
	if got := Check(reused); got != want {
		t.Fatalf("a reused pid is %v, want %v", got, want)
	}
}
