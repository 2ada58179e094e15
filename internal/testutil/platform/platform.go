// Package platform lets a test say what it needs of the system it runs on
// and skip, with the reason, where that is missing: Windows (SPEC §21) has
// no unix permission bits and no sh, and Wine, where make test-windows runs
// the tests, pretends to make symbolic links. A skip names what is missing,
// so that a test that cannot run is never silently taken for one that
// passed.
package platform

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// RequireSymlinks skips t where os.Symlink makes no link that Lstat sees:
// Wine 8 answers success and makes nothing; Windows makes one only in
// developer mode or for an administrator.
func RequireSymlinks(t testing.TB) {
	t.Helper()
	if !Symlinks(t) {
		t.Skip("this system makes no symbolic links (Wine answers success and makes none; Windows needs developer mode)")
	}
}

// Symlinks says whether os.Symlink makes a link that Lstat sees here, for
// a test that runs its other cases without links.
func Symlinks(t testing.TB) bool {
	t.Helper()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(".", link); err != nil {
		return false
	}
	fi, err := os.Lstat(link)
	return err == nil && fi.Mode()&os.ModeSymlink != 0
}

// RequireUnixModes skips t on Windows, whose files have no permission bits
// (Go shows read-only or not, and no executable bit).
func RequireUnixModes(t testing.TB) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("Windows files have no unix permission bits")
	}
}

// RequireProgram skips t where program is not on PATH (Windows, and Wine
// above all, has no sh and no true).
func RequireProgram(t testing.TB, program string) {
	t.Helper()
	if _, err := exec.LookPath(program); err != nil {
		t.Skipf("no %s on this system: %v", program, err)
	}
}

// RequireScripts skips t on Windows, which runs no #! script as a program.
func RequireScripts(t testing.TB) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("Windows runs no #! script as a program")
	}
}

// ExitedPID is the pid of a process that ran and ended: the test binary
// itself, run to do nothing, which every system can start.
func ExitedPID(t testing.TB) int {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	gone := exec.Command(self, "-test.run=^$")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	return gone.Process.Pid
}

// Abs is the absolute path of this system that the unix path p (/a/b)
// stands for in a table of test data: p itself, on Windows C:\a\b (an
// absolute path there has a volume; \a\b is only rooted). A relative p is
// only made the system's.
func Abs(p string) string {
	if runtime.GOOS == "windows" && strings.HasPrefix(p, "/") {
		p = "C:" + p
	}
	return filepath.FromSlash(p)
}
