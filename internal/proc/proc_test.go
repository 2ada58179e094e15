// These tests protect how a process is judged alive or dead: a zombie (a
// child that exited and was not reaped) is dead, so a creation it left
// behind is repaired rather than waited for.
package proc

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

func TestZombieIsDead(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	id := ID{PID: cmd.Process.Pid, Host: Self().Host}
	id.Start, _ = StartTime(id.PID)
	if got := Check(id); got != Alive {
		t.Fatalf("a running child is %v, want Alive", got)
	}
	// Killed and not waited for, the child stays a zombie.
	cmd.Process.Kill()
	deadline := time.Now().Add(time.Minute)
	for {
		fields, err := statFields(id.PID)
		if err != nil {
			t.Fatal(err)
		}
		if fields[0] == "Z" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the child did not become a zombie: state %s", fields[0])
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
	if got := Check(Self()); got != Alive {
		t.Fatalf("this process is %v", got)
	}
	if got := Check(ID{PID: os.Getpid(), Host: Self().Host, Start: "2000-01-01T00:00:00Z"}); got != Dead {
		t.Fatalf("a reused pid is %v, want Dead", got)
	}
}
