// These tests protect how the Windows backend reads and judges what
// Windows answers. They run on every platform: the memory of a process is
// laid out by hand from winternl.h and <RestartManager.h> for a 64-bit
// process, with the offsets written out here rather than taken from the
// code under test, and the verdicts are given the errors and codes
// Windows gives.
package proc

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"syscall"
	"testing"
	"unicode/utf16"
)

// A process that exits with the code 259 reads as STILL_ACTIVE: only the
// wait tells it from a running one. Only proof gives exited.
func TestExitVerdict(t *testing.T) {
	accessDenied := syscall.Errno(5)
	tests := []struct {
		name       string
		codeErr    error
		code       uint32
		wait       waitResult
		wantExited bool
		wantErr    bool
	}{
		{"runs: STILL_ACTIVE, and the wait times out", nil, 259, waitTimedOut, false, false},
		{"exited with 0", nil, 0, waitNotTried, true, false},
		{"killed: TerminateProcess's code 1", nil, 1, waitNotTried, true, false},
		{"exited with the code 259: the wait is signalled", nil, 259, waitSignalled, true, false},
		{"STILL_ACTIVE and no right to wait: running", nil, 259, waitNotTried, false, false},
		{"STILL_ACTIVE and a failed wait: running", nil, 259, waitFailed, false, false},
		{"the exit code cannot be read: unknown", accessDenied, 0, waitNotTried, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exited, err := exitVerdict(tt.codeErr, tt.code, tt.wait)
			if exited != tt.wantExited || (err != nil) != tt.wantErr {
				t.Fatalf("got exited=%v err=%v, want exited=%v err=%v", exited, err, tt.wantExited, tt.wantErr)
			}
		})
	}
}

func TestWaitVerdict(t *testing.T) {
	tests := []struct {
		event uint32
		err   error
		want  waitResult
	}{
		{0, nil, waitSignalled},                    // WAIT_OBJECT_0
		{258, nil, waitTimedOut},                   // WAIT_TIMEOUT
		{0x80, nil, waitFailed},                    // WAIT_ABANDONED: a mutex's answer, not a process's
		{0xffffffff, syscall.Errno(6), waitFailed}, // WAIT_FAILED, ERROR_INVALID_HANDLE
	}
	for _, tt := range tests {
		if got := waitVerdict(tt.event, tt.err); got != tt.want {
			t.Errorf("waitVerdict(%#x, %v) = %v, want %v", tt.event, tt.err, got, tt.want)
		}
	}
}

// Only "no such process" is absent; access denied (an elevated process,
// another user's) is unknown, never absent.
func TestOpenVerdict(t *testing.T) {
	tests := []struct {
		name         string
		err          error
		opened       uint32
		wantNotExist bool
		wantErr      bool
	}{
		{"opened", nil, 4240, false, false},
		{"no such process: ERROR_INVALID_PARAMETER", syscall.Errno(87), 0, true, true},
		{"access denied: unknown", syscall.Errno(5), 0, false, true},
		{"another error: unknown", syscall.Errno(1450), 0, false, true},
		{"OpenProcess dropped the pid's low bits: another process", nil, 4244, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pid := 4240
			if tt.opened == 4244 {
				pid = 4245
			}
			err := openVerdict(pid, tt.err, tt.opened)
			if (err != nil) != tt.wantErr || errors.Is(err, fs.ErrNotExist) != tt.wantNotExist {
				t.Fatalf("got %v, want an error %v, absent %v", err, tt.wantErr, tt.wantNotExist)
			}
			if tt.err != nil && !tt.wantNotExist && !errors.Is(err, tt.err) {
				t.Fatalf("got %v, which does not wrap %v", err, tt.err)
			}
		})
	}
}

func TestFiletimeStart(t *testing.T) {
	tests := []struct {
		ft        uint64
		wantStart string
		wantUnix  float64
	}{
		{116444736000000000 + 17_000_000_000_000_000 + 1_234_567, "133444736001234567", 1_700_000_000.1234567},
		{116444736000000000, "116444736000000000", 0},
		{0, "0", 0},
	}
	for _, tt := range tests {
		start, unix := filetimeStart(tt.ft)
		if start != tt.wantStart || unix != tt.wantUnix {
			t.Errorf("filetimeStart(%d) = %q %v, want %q %v", tt.ft, start, unix, tt.wantStart, tt.wantUnix)
		}
	}
}

// Windows does not give an orphan to another parent: the parent pid the
// snapshot names may be a younger process now.
func TestTrueParent(t *testing.T) {
	tests := []struct {
		name          string
		child, parent uint64
		parentErr     error
		want          int
	}{
		{"the parent started first", 200, 100, nil, 8},
		{"the same tick", 200, 200, nil, 8},
		{"a younger process has the parent's pid", 200, 300, nil, 0},
		{"the parent is gone", 200, 0, fmt.Errorf("process 8: %w", fs.ErrNotExist), 0},
		{"the parent cannot be read: kept", 200, 0, syscall.Errno(5), 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := trueParent(8, tt.child, tt.parent, tt.parentErr); got != tt.want {
				t.Fatalf("got %d, want %d", got, tt.want)
			}
		})
	}
}

func TestImageName(t *testing.T) {
	for exe, want := range map[string]string{
		"git.exe": "git", "git-wt.exe": "git-wt", "BASH.EXE": "BASH", "System": "System", ".exe": ".exe", "git.exe.bak": "git.exe.bak",
	} {
		if got := imageName(exe); got != want {
			t.Errorf("imageName(%q) = %q, want %q", exe, got, want)
		}
	}
}

func TestBootIDValue(t *testing.T) {
	if got := bootIDValue(42, nil); got != "42" {
		t.Errorf("BootId 42: %q", got)
	}
	if got := bootIDValue(0, nil); got != "" {
		t.Errorf("BootId 0: %q, want unknown", got)
	}
	if got := bootIDValue(0, syscall.Errno(2)); got != "" {
		t.Errorf("no BootId: %q, want unknown", got)
	}
}

// memory is another process's memory, laid out by hand: a read must fall
// inside one of its blocks.
type memory map[uint64][]byte

func (m memory) read(addr uint64, n int) ([]byte, error) {
	for base, b := range m {
		if addr >= base && addr+uint64(n) <= base+uint64(len(b)) {
			return b[addr-base : addr-base+uint64(n)], nil
		}
	}
	return nil, syscall.Errno(299) // ERROR_PARTIAL_COPY
}

// utf16le is s as a UNICODE_STRING's buffer holds it.
func utf16le(s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}

// processMemory lays out a 64-bit process whose working folder is dir:
// the PEB at 0x7ff000 with ProcessParameters (at 0x20) pointing at
// 0x20000, whose CurrentDirectory.DosPath (at 0x38: Length, MaximumLength,
// then at 0x40 Buffer) points at the path at 0x30000.
func processMemory(dir string, length int) memory {
	path := utf16le(dir)
	if length < 0 {
		length = len(path)
	}
	peb := newFixture(0x100).u64(0x20, 0x20000)
	params := newFixture(0x400)
	params[0x38], params[0x39] = byte(length), byte(length>>8)
	params[0x3a], params[0x3b] = 0x08, 0x02 // MaximumLength: 520
	params.u64(0x40, 0x30000)
	return memory{0x7ff000: peb, 0x20000: params, 0x30000: path}
}

func TestReadCurrentDirectory(t *testing.T) {
	tests := []struct {
		name    string
		mem     memory
		peb     uint64
		want    string
		wantErr bool
	}{
		{"a folder", processMemory(`C:\Users\ann\src\wt\task\`, -1), 0x7ff000, `C:\Users\ann\src\wt\task`, false},
		{"a drive's root keeps its backslash", processMemory(`D:\`, -1), 0x7ff000, `D:\`, false},
		{"a share", processMemory(`\\server\share\repo\`, -1), 0x7ff000, `\\server\share\repo`, false},
		{"a name beyond ASCII", processMemory(`C:\Users\Zoë\日本\`, -1), 0x7ff000, `C:\Users\Zoë\日本`, false},
		{"no PEB", processMemory(`C:\x\`, -1), 0, "", true},
		{"a PEB that cannot be read", processMemory(`C:\x\`, -1), 0x500000, "", true},
		{"parameters not set up yet", memory{0x7ff000: newFixture(0x100)}, 0x7ff000, "", true},
		{"an odd length", processMemory(`C:\x\`, 7), 0x7ff000, "", true},
		{"an empty path", processMemory(`C:\x\`, 0), 0x7ff000, "", true},
		{"a length beyond the buffer", processMemory(`C:\x\`, 600), 0x7ff000, "", true},
		{"no backslash: no path", processMemory(`garbage`, -1), 0x7ff000, "", true},
		{"a relative path: no current directory", processMemory(`src\wt\`, -1), 0x7ff000, "", true},
		{"a drive without its backslash", processMemory(`C:`, -1), 0x7ff000, "", true},
		{"a NUL inside: no path", processMemory("C:\\a\x00b\\", -1), 0x7ff000, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readCurrentDirectory(tt.mem.read, tt.peb)
			if got != tt.want || (err != nil) != tt.wantErr {
				t.Fatalf("got %q %v, want %q (error %v)", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// rmProcessInfo is an RM_PROCESS_INFO (668 bytes): dwProcessId at 0,
// ProcessStartTime (low, high) at 4 and 8, strAppName at 12,
// strServiceShortName at 524, ApplicationType at 652.
func rmProcessInfo(pid uint32, start uint64, app string) fixture {
	f := newFixture(668).u32(0, pid).u32(4, uint32(start)).u32(8, uint32(start>>32)).str(12, string(utf16le(app)))
	f.u32(652, 1) // RmMainWindow
	return f
}

func TestParseRMProcessInfo(t *testing.T) {
	list := slices.Concat(rmProcessInfo(4242, 133444736001234567, "Visual Studio Code"), rmProcessInfo(77, 0x1_0000_0002, "git"), newFixture(668))
	got, err := parseRMProcessInfo(list, 2)
	want := []rmHolder{{pid: 4242, start: "133444736001234567"}, {pid: 77, start: "4294967298"}}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("got %+v %v, want %+v", got, err, want)
	}
	if got, err := parseRMProcessInfo(nil, 0); err != nil || len(got) != 0 {
		t.Fatalf("no holders: got %+v %v", got, err)
	}
	if _, err := parseRMProcessInfo(list[:1000], 2); !errors.Is(err, errShort) {
		t.Fatalf("a short list: %v, want errShort", err)
	}
}

// Another process's memory is what that process wrote: whatever its
// current directory holds, what is read is a path or an error.
func FuzzReadCurrentDirectory(f *testing.F) {
	f.Add(utf16le(`C:\Users\ann\src\wt\task\`), 0)
	f.Add(utf16le(`\\?\C:\x\`), 0)
	f.Add([]byte{0x00, 0xd8, 0x5c, 0x00}, 0) // a lone surrogate, then a backslash
	f.Add([]byte{}, 3)
	f.Fuzz(func(t *testing.T, path []byte, lengthDelta int) {
		length := len(path) + lengthDelta%8
		if length < 0 || length > 0xffff {
			return
		}
		mem := processMemory("", length)
		mem[0x30000] = path
		dir, err := readCurrentDirectory(mem.read, 0x7ff000)
		if err != nil {
			return
		}
		if dir == "" || strings.IndexByte(dir, 0) >= 0 || !strings.ContainsRune(dir, '\\') {
			t.Fatalf("%q read as the path %q", path, dir)
		}
	})
}
