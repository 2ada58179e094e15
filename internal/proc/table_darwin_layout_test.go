// These tests protect how the macOS backend reads what the kernel and
// libproc answer. They run on every platform: the fixtures are bytes laid
// out by hand from Apple's headers (<sys/sysctl.h>, <sys/proc.h>,
// <sys/proc_info.h>) for a 64-bit little-endian Mac, with the offsets
// written out here rather than taken from the code under test.
package proc

import (
	"encoding/binary"
	"errors"
	"slices"
	"testing"
)

// fixture is a zeroed structure of size bytes with fields put in place.
type fixture []byte

func newFixture(size int) fixture { return make(fixture, size) }

func (f fixture) u32(off int, v uint32) fixture {
	binary.LittleEndian.PutUint32(f[off:], v)
	return f
}

func (f fixture) u64(off int, v uint64) fixture {
	binary.LittleEndian.PutUint64(f[off:], v)
	return f
}

func (f fixture) str(off int, s string) fixture {
	copy(f[off:], s)
	return f
}

// kinfoProc is a struct kinfo_proc (648 bytes): kp_proc.p_starttime
// {tv_sec at 0, tv_usec at 8}, p_stat at 36, p_pid at 40, p_comm at 243;
// kp_eproc (at 296) e_ppid at 560, e_pgid at 564.
func kinfoProc(pid, ppid, pgid uint32, state byte, sec uint64, usec uint32, comm string) fixture {
	f := newFixture(648).u64(0, sec).u32(8, usec).u32(40, pid).u32(560, ppid).u32(564, pgid).str(243, comm)
	f[36] = state
	// Bytes around the fields read are not zero in a real answer.
	f[35], f[37], f[242] = 0xff, 0xff, 0xff
	return f
}

func TestParseKinfoProc(t *testing.T) {
	tests := []struct {
		name    string
		b       []byte
		wantPID int
		want    stat
	}{
		{"a sleeping shell", kinfoProc(4242, 1, 4242, 3, 1_700_000_000, 123_456, "zsh"), 4242,
			stat{ppid: 1, pgid: 4242, name: "zsh", start: "1700000000.123456", startUnix: 1_700_000_000.123456}},
		{"a zombie", kinfoProc(77, 4242, 4242, 5, 1_700_000_100, 7, "git"), 77,
			stat{ppid: 4242, pgid: 4242, name: "git", exited: true, start: "1700000100.000007", startUnix: 1_700_000_100.000007}},
		{"a name of the whole 16 bytes", kinfoProc(9, 8, 9, 2, 5, 0, "git-wt-exec-long"), 9,
			stat{ppid: 8, pgid: 9, name: "git-wt-exec-long", start: "5.000000", startUnix: 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pid, got, err := parseKinfoProc(tt.b)
			if err != nil {
				t.Fatal(err)
			}
			if pid != tt.wantPID || got != tt.want {
				t.Fatalf("got %d %+v, want %d %+v", pid, got, tt.wantPID, tt.want)
			}
		})
	}
	if _, _, err := parseKinfoProc(make([]byte, 600)); !errors.Is(err, errShort) {
		t.Fatalf("a short kinfo_proc: %v, want errShort", err)
	}
}

func TestParseKinfoProcs(t *testing.T) {
	all := slices.Concat(kinfoProc(1, 0, 1, 3, 1, 0, "launchd"), kinfoProc(300, 1, 300, 2, 2, 0, "git"))
	pids, err := parseKinfoProcs(all)
	if err != nil || !slices.Equal(pids, []int{1, 300}) {
		t.Fatalf("got %v %v, want [1 300]", pids, err)
	}
	if pids, err := parseKinfoProcs(nil); err != nil || len(pids) != 0 {
		t.Fatalf("no processes: got %v %v", pids, err)
	}
	if _, err := parseKinfoProcs(all[:700]); err == nil {
		t.Fatal("a list cut in a kinfo_proc was read")
	}
}

// vnodeInfoPath is a struct vnode_info_path (1176 bytes) at off in f:
// vinfo_stat.vst_dev at 0, vst_ino at 8, vip_path at 152.
func (f fixture) vnodeInfoPath(off int, dev uint32, ino uint64, path string) fixture {
	return f.u32(off, dev).u64(off+8, ino).str(off+152, path)
}

func TestParseCwd(t *testing.T) {
	// struct proc_vnodepathinfo: pvi_cdir, then pvi_rdir (2352 bytes).
	b := newFixture(2352).vnodeInfoPath(0, 0x1000012, 0x2a, "/Users/me/src/repo/.git-wt/fix").vnodeInfoPath(1176, 0x1000012, 2, "/")
	path, id, err := parseCwd(b)
	if err != nil || path != "/Users/me/src/repo/.git-wt/fix" || id != (fileID{dev: 0x1000012, ino: 0x2a}) {
		t.Fatalf("got %q %+v %v", path, id, err)
	}
	// dev_t is signed on macOS: os.Stat's Dev of the same directory is a
	// negative int32, which must compare equal.
	_, id, _ = parseCwd(newFixture(2352).vnodeInfoPath(0, 0xfffffffe, 3, "/x"))
	if want := int32(-2); id.dev != uint64(want) {
		t.Fatalf("dev %#x, want %#x", id.dev, uint64(want))
	}
	if _, _, err := parseCwd(newFixture(2352)); err == nil {
		t.Fatal("a process without a working directory was read")
	}
	if _, _, err := parseCwd(b[:1000]); !errors.Is(err, errShort) {
		t.Fatalf("a short answer: %v, want errShort", err)
	}
}

func TestParseVnodeFDs(t *testing.T) {
	// struct proc_fdinfo {int32 proc_fd; uint32 proc_fdtype}: 1 a vnode,
	// 2 a socket, 6 a pipe.
	b := newFixture(4*8).u32(0, 0).u32(4, 1).u32(8, 3).u32(12, 2).u32(16, 5).u32(20, 1).u32(24, 7).u32(28, 6)
	if got := parseVnodeFDs(b); !slices.Equal(got, []int{0, 5}) {
		t.Fatalf("got %v, want [0 5]", got)
	}
	if got := parseVnodeFDs(b[:12]); !slices.Equal(got, []int{0}) {
		t.Fatalf("a list cut in an entry: got %v, want [0]", got)
	}
}

func TestParseFDPath(t *testing.T) {
	// struct vnode_fdinfowithpath: struct proc_fileinfo (24 bytes), then
	// the vnode_info_path (1200 bytes in all).
	b := newFixture(1200).u32(0, 0x601).vnodeInfoPath(24, 1, 99, "/Users/me/src/repo/.git/index.lock")
	if got, err := parseFDPath(b); err != nil || got != "/Users/me/src/repo/.git/index.lock" {
		t.Fatalf("got %q %v", got, err)
	}
	if _, err := parseFDPath(b[:1199]); !errors.Is(err, errShort) {
		t.Fatalf("a short answer: %v, want errShort", err)
	}
}

func TestParseProcArgs2(t *testing.T) {
	b := binary.LittleEndian.AppendUint32(nil, 3)
	b = append(b, "/usr/local/bin/git-wt\x00\x00\x00\x00git-wt\x00__supervise\x0042\x00HOME=/Users/a\x00"...)
	args, env, err := parseProcArgs2(b)
	if want := []string{"git-wt", "__supervise", "42"}; err != nil || !slices.Equal(args, want) || !slices.Equal(env, []string{"HOME=/Users/a"}) {
		t.Fatalf("parseProcArgs2 = %q, %q, %v; want %q and HOME", args, env, err, want)
	}
	if _, _, err := parseProcArgs2(b[:20]); !errors.Is(err, errShort) {
		t.Fatalf("a cut answer: %v, want errShort", err)
	}
}
