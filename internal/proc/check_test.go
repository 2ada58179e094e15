// These tests protect SPEC §15's rule that only proof gives dead: an owner
// stamped on another host, boot or PID namespace, or without those stamps,
// is never judged dead, however absent its pid is here.
package proc

import (
	"os"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil/platform"
)

func TestCheckNeedsProofOfDeath(t *testing.T) {
	gone := platform.ExitedPID(t)
	if err := namespaceSight(); err != nil {
		t.Skipf("this test needs this namespace's process table: %v", err)
	}
	if Self().Boot == "" {
		t.Skip("this test needs the boot id of the host (Wine has no BootId)")
	}
	me := Self()
	dead := me
	dead.PID, dead.Start = gone, "1"
	tests := []struct {
		name   string
		change func(*ID)
		want   Liveness
	}{
		{"this host, boot and namespace: proven", func(*ID) {}, Dead},
		{"another host", func(id *ID) { id.Host = "elsewhere" }, Unknown},
		{"another boot", func(id *ID) { id.Boot = "another-boot" }, Unknown},
		{"another PID namespace", func(id *ID) { id.PIDNS = "1" }, Unknown},
		{"no namespace stamp (an older git-wt)", func(id *ID) { id.PIDNS = "" }, Unknown},
		{"no boot stamp", func(id *ID) { id.Boot = "" }, Unknown},
		{"no pid", func(id *ID) { id.PID = 0 }, Unknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := dead
			tt.change(&id)
			if got := Check(id); got != tt.want {
				t.Fatalf("Check = %v, want %v", got, tt.want)
			}
		})
	}
	// Without the stamps, a pid that runs here is still alive.
	alive := ID{PID: me.PID, Host: me.Host}
	if got := Check(alive); got != Alive {
		t.Fatalf("a running pid without stamps is %v, want alive", got)
	}
}

// needSight skips a test that reads the process table where this build
// or this place cannot (the fallback; a sandbox).
func needSight(t *testing.T) {
	t.Helper()
	if err := Sight(); err != nil {
		t.Skipf("this test needs a readable process table: %v", err)
	}
}

// TestBlindMeansUnknown holds wherever the table cannot be read (run by
// make test with -tags gitwt_noprocfs): liveness is alive or unknown,
// never dead; the users of a folder and the holder of a lock are unknown.
func TestBlindMeansUnknown(t *testing.T) {
	if Sight() == nil {
		t.Skip("the process table is readable here: see TestCheckNeedsProofOfDeath")
	}
	gone := platform.ExitedPID(t)
	id := Self()
	id.PID = gone
	if got := Check(id); got == Dead && namespaceSight() != nil {
		t.Fatal("a process was judged dead by a table that cannot be read")
	}
	if got := Check(Self()); got != Alive {
		t.Fatalf("this process is %v, want alive (kill(pid, 0))", got)
	}
	dir := t.TempDir()
	if users, err := UsersOf(dir); err == nil {
		t.Fatalf("UsersOf answered %v with no error: unknown must not read as nobody", users)
	}
	lock := dir + "/index.lock"
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	seen, _ := os.Lstat(lock)
	if got := LockHolder(lock, seen, dir); got != Unknown {
		t.Fatalf("a lock's holder is %v, want unknown", got)
	}
	if err := RemoveStaleLock(dir+"/x.lock", false, dir); err != nil {
		t.Fatalf("a missing lock file: %v", err)
	}
}
