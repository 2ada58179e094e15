// These tests protect how git-wt finds the shell that setup commands run
// in on Windows: Git for Windows' sh.exe, from git's exec path, as git
// finds the shell for its hooks (SPEC §21). The rule is pure, so Linux
// tests it with Windows' paths.
package git

import (
	"slices"
	"strings"
	"testing"
)

func TestShellCandidatesFromGitsExecPath(t *testing.T) {
	for _, tc := range []struct {
		execPath string
		want     []string
	}{
		{"C:/Program Files/Git/mingw64/libexec/git-core", []string{"C:/Program Files/Git/bin/sh.exe", "C:/Program Files/Git/usr/bin/sh.exe"}},
		{`C:\Program Files\Git\mingw64\libexec\git-core`, []string{"C:/Program Files/Git/bin/sh.exe", "C:/Program Files/Git/usr/bin/sh.exe"}},
		{"C:/Program Files/Git/clangarm64/libexec/git-core/", []string{"C:/Program Files/Git/bin/sh.exe", "C:/Program Files/Git/usr/bin/sh.exe"}},
		{"C:/Program Files (x86)/Git/mingw32/libexec/git-core", []string{"C:/Program Files (x86)/Git/bin/sh.exe", "C:/Program Files (x86)/Git/usr/bin/sh.exe"}},
		{"C:/Users/me/scoop/apps/git/current/MINGW64/LIBEXEC/Git-Core", []string{"C:/Users/me/scoop/apps/git/current/bin/sh.exe", "C:/Users/me/scoop/apps/git/current/usr/bin/sh.exe"}},
		{"D:/tools/mingit/libexec/git-core", []string{"D:/tools/mingit/bin/sh.exe", "D:/tools/mingit/usr/bin/sh.exe"}},
		{`\\server\share\Git\mingw64\libexec\git-core`, []string{"//server/share/Git/bin/sh.exe", "//server/share/Git/usr/bin/sh.exe"}},
		{"C:/Git/mingw64/bin", nil},
		{"C:/Git/git-core", nil},
		{"/libexec/git-core", nil},
		{"", nil},
	} {
		if got := ShellCandidates(tc.execPath); !slices.Equal(got, tc.want) {
			t.Errorf("ShellCandidates(%q) = %q, want %q", tc.execPath, got, tc.want)
		}
	}
}

func TestShellBesideIsTheFirstThatExistsElseSaysWhereItLooked(t *testing.T) {
	const execPath = "C:/Program Files/Git/mingw64/libexec/git-core"
	onlyUsr := func(p string) bool { return p == "C:/Program Files/Git/usr/bin/sh.exe" }
	if got, err := shellBeside(execPath, onlyUsr); err != nil || got != "C:/Program Files/Git/usr/bin/sh.exe" {
		t.Errorf("with only usr/bin/sh.exe: %q, %v", got, err)
	}
	both := func(string) bool { return true }
	if got, _ := shellBeside(execPath, both); got != "C:/Program Files/Git/bin/sh.exe" {
		t.Errorf("with both: %q, want bin/sh.exe, which puts Git for Windows' tools on PATH", got)
	}
	_, err := shellBeside(execPath, func(string) bool { return false })
	if err == nil || strings.Contains(err.Error(), "\n") ||
		!strings.Contains(err.Error(), "C:/Program Files/Git/bin/sh.exe or C:/Program Files/Git/usr/bin/sh.exe") ||
		!strings.Contains(err.Error(), execPath) {
		t.Errorf("without sh.exe: %v, want one line naming both places and the exec path", err)
	}
	if _, err := shellBeside("C:/elsewhere", both); err == nil || !strings.Contains(err.Error(), "C:/elsewhere") {
		t.Errorf("an exec path of another layout: %v, want an error naming it", err)
	}
}
