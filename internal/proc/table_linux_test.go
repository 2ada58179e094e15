//go:build linux && !gitwt_noprocfs

// These tests protect how the Linux backend reads /proc: a command name
// with spaces and parentheses, a zombie, a killed or ending process, and a /proc that hides other
// users' processes (which must make the table blind, not empty).
package proc

import "testing"

func TestParseStat(t *testing.T) {
	tests := []struct {
		name, line string
		want       stat
		bad        bool
	}{
		{"plain", "42 (sleep) S 1 42 42 0 -1 4194304 100 0 0 0 0 0 0 0 20 0 1 0 12345 2000000 100 18446744073709551615",
			stat{ppid: 1, pgid: 42, name: "sleep", start: "12345"}, false},
		{"a name with spaces and parentheses", "7 (a (b) c) R 3 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 999 0 0",
			stat{ppid: 3, pgid: 7, name: "a (b) c", start: "999"}, false},
		{"a zombie", "9 (git) Z 2 9 9 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0",
			stat{ppid: 2, pgid: 9, name: "git", exited: true, start: "5"}, false},
		{"killed a moment ago: SIGKILL pending", "9 (git) R 2 9 9 0 -1 4194304 100 0 0 0 0 0 0 0 20 0 1 0 5 3133440 413 18446744073709551615 1 2 3 0 0 256 0 0 0 0 0 0 17 1 0 0 0 0 0",
			stat{ppid: 2, pgid: 9, name: "git", exited: true, start: "5"}, false},
		{"ending (PF_EXITING), its SIGKILL taken", "9 (git) D 2 9 9 0 -1 4227076 100 0 0 0 0 0 0 0 20 0 1 0 5 3133440 413 18446744073709551615 1 2 3 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0",
			stat{ppid: 2, pgid: 9, name: "git", exited: true, start: "5"}, false},
		{"another signal pending (SIGTERM, SIGCHLD)", "9 (git) S 2 9 9 0 -1 4194304 100 0 0 0 0 0 0 0 20 0 1 0 5 3133440 413 18446744073709551615 1 2 3 0 0 81920 0 0 0 0 0 0 17 1 0 0 0 0 0",
			stat{ppid: 2, pgid: 9, name: "git", start: "5"}, false},
		{"truncated", "9 (git) S 2 9", stat{}, true},
		{"no name", "9 git S 2 9 9 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0", stat{}, true},
		{"a start that is no number", "9 (git) S 2 9 9 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 x 0 0", stat{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseStat(tt.line)
			if tt.bad {
				if err == nil {
					t.Fatalf("parsed %+v, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got.startUnix = 0 // depends on this machine's boot time
			if got != tt.want {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestHidesOthers(t *testing.T) {
	const proc = "22 28 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc "
	tests := []struct {
		name, mountinfo string
		want            bool
	}{
		{"default", proc + "rw\n", false},
		{"hidepid=1 only hides contents", proc + "rw,hidepid=1\n", false},
		{"hidepid=2", proc + "rw,hidepid=2\n", true},
		{"hidepid=invisible", proc + "rw,hidepid=invisible\n", true},
		{"the last mount over /proc wins", proc + "rw,hidepid=2\n" + "40 22 0:50 / /proc rw - proc proc rw\n", false},
		{"another mount point", "30 28 0:21 / /mnt/proc rw - proc proc rw,hidepid=2\n", false},
		{"not proc", "30 28 0:21 / /proc rw - tmpfs none rw,hidepid=2\n", false},
		{"garbage", "nonsense\n\n- - -\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := hidesOthers(tt.mountinfo); got != tt.want {
				t.Fatalf("hidesOthers = %v, want %v", got, tt.want)
			}
		})
	}
}
