//go:build unix

// These tests protect the release (SPEC §15 "Getting it", make dist): an
// archive holds the binary, the man page, the completions and install.sh;
// SHA256SUMS and the Homebrew formula name it with its checksum; and the
// install.sh in an unpacked archive installs the binary it ships, with
// its version, without Go. One archive, for this machine, keeps it cheap:
// make dist builds the others the same way.
package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

func TestDistArchiveInstallsWithoutGo(t *testing.T) {
	s := testutil.NewSandbox(t)
	out := t.TempDir()
	const version = "v9.8.7-test"
	platform := "linux/" + runtime.GOARCH
	cmd := exec.Command(filepath.Join(testutil.Root(), "release", "dist.sh"), version, out, platform)
	cmd.Env = append(buildEnv(t, s), "DIST_URL=https://example.com/r")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("dist.sh: %v\n%s", err, b)
	}
	name := "git-wt-" + version + "-linux-" + runtime.GOARCH
	archive := name + ".tar.gz"
	entries, _ := os.ReadDir(out)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if want := []string{"SHA256SUMS", archive, "git-wt.rb"}; !slices.Equal(got, want) {
		t.Fatalf("dist made %q, want %q", got, want)
	}
	check := exec.Command("sha256sum", "-c", "SHA256SUMS")
	check.Dir = out
	if b, err := check.CombinedOutput(); err != nil {
		t.Fatalf("SHA256SUMS: %v\n%s", err, b)
	}
	sums, _ := os.ReadFile(filepath.Join(out, "SHA256SUMS"))
	sum, _, _ := strings.Cut(string(sums), " ")
	formula, _ := os.ReadFile(filepath.Join(out, "git-wt.rb"))
	for _, want := range []string{`version "9.8.7-test"`, "on_linux do", `url "https://example.com/r/` + archive + `"`, `sha256 "` + sum + `"`, `bin.install "git-wt", "git-wt-mcp"`} {
		if !strings.Contains(string(formula), want) {
			t.Errorf("the formula lacks %s:\n%s", want, formula)
		}
	}

	unpack := t.TempDir()
	if b, err := exec.Command("tar", "-C", unpack, "-xzf", filepath.Join(out, archive)).CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, b)
	}
	for _, f := range []string{"git-wt", "git-wt-mcp", "git-wt.1", "install.sh", "README.md", "completions/git-wt.bash", "completions/git-wt.zsh", "completions/git-wt.fish"} {
		if !testutil.Exists(filepath.Join(unpack, name, f)) {
			t.Errorf("the archive lacks %s", f)
		}
	}
	prefix := filepath.Join(t.TempDir(), "prefix")
	install := exec.Command("sh", filepath.Join(unpack, name, "install.sh"), "--prefix", prefix)
	install.Env = replaceEnv(s.Env, "PATH", "/usr/bin:/bin") // no Go
	if b, err := install.CombinedOutput(); err != nil {
		t.Fatalf("install.sh from the archive: %v\n%s", err, b)
	}
	for _, f := range installed {
		if !testutil.Exists(filepath.Join(prefix, f)) {
			t.Errorf("install.sh from the archive did not install %s", f)
		}
	}
	v, err := exec.Command(filepath.Join(prefix, "bin", "git-wt"), "--version").Output()
	if err != nil || !strings.Contains(string(v), version) {
		t.Fatalf("git-wt --version = %q %v, want %s", v, err, version)
	}
}
