//go:build unix

// These tests protect installing: install.sh and make install build git-wt
// with its version, put the binary, the man page and the completion files
// under a prefix (or DESTDIR), say what they did and the PATH line to add,
// change nothing when run again, and --uninstall removes exactly what they
// installed, folders included. The installed files are what answers
// `git help wt` and each shell's completion.
package e2e

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// installed are the files an install puts under its prefix.
var installed = []string{
	"bin/git-wt",
	"bin/git-wt-mcp",
	"share/man/man1/git-wt.1",
	"share/bash-completion/completions/git-wt",
	"share/zsh/site-functions/_git-wt",
	"share/fish/vendor_completions.d/git-wt.fish",
	"share/fish/vendor_conf.d/git-wt.fish",
}

// buildEnv is the sandbox's environment plus Go's caches, so that the
// build in install.sh reuses them under the sandbox's HOME.
func buildEnv(t *testing.T, s *testutil.Sandbox) []string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		t.Fatal(err)
	}
	v := strings.Split(strings.TrimSpace(string(out)), "\n")
	return append(append([]string(nil), s.Env...), "GOCACHE="+v[0], "GOMODCACHE="+v[1], "GOPATH="+v[2], "GOFLAGS=-mod=readonly")
}

// runIn runs name with args in the source tree and fails the test unless
// it exits 0.
func runIn(t *testing.T, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = testutil.Root()
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %q: %v\n%s", name, args, err, out)
	}
	return string(out)
}

// tree lists what is under dir, relative to it ("" when dir is gone).
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var got []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		got = append(got, rel)
		return nil
	})
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestInstallShIntoAPrefixAndUninstall(t *testing.T) {
	t.Parallel() // mostly waiting on shells and builds
	s := completionSandbox(t)
	env := buildEnv(t, s)
	prefix := filepath.Join(filepath.Dir(s.Repo), "prefix")
	// A page the user had: uninstall must leave it and its folders.
	theirs := filepath.Join(prefix, "share", "man", "man1", "theirs.1")
	s.Write(theirs, ".TH THEIRS 1\n")
	before := tree(t, prefix)

	out := runIn(t, env, "./install.sh", "--prefix", prefix)
	for _, f := range installed {
		if !strings.Contains(out, "installed "+filepath.Join(prefix, f)+"\n") {
			t.Errorf("install.sh does not say it installed %s:\n%s", f, out)
		}
	}
	if !strings.Contains(out, `export PATH="`+prefix+`/bin:$PATH"`) {
		t.Errorf("install.sh does not give the PATH line:\n%s", out)
	}
	if st, err := os.Stat(filepath.Join(prefix, "bin", "git-wt")); err != nil || st.Mode().Perm() != 0o755 {
		t.Fatalf("binary: %v %v", st, err)
	}
	describe := strings.TrimSpace(runIn(t, env, "git", "describe", "--tags", "--always", "--dirty"))
	if v := runIn(t, env, filepath.Join(prefix, "bin", "git-wt"), "--version"); v != "git-wt version "+describe+" (github.com/git-wt/git-wt)\n" {
		t.Errorf("version not stamped: %q, want %q", v, describe)
	}

	// Again: the same files, nothing changed.
	files := tree(t, prefix)
	again := runIn(t, env, "./install.sh", "--prefix", prefix)
	if strings.Count(again, "unchanged ") != len(installed) || strings.Contains(again, "installed ") {
		t.Errorf("a second install changed files:\n%s", again)
	}
	if got := tree(t, prefix); !slices.Equal(got, files) {
		t.Errorf("a second install changed the tree:\n%q\nvs\n%q", got, files)
	}

	// The installed files answer.
	bin := "PATH=" + filepath.Join(prefix, "bin") + ":" + os.Getenv("PATH")
	checkInstalledPageAndCompletions(t, s, prefix, bin)

	out = runIn(t, env, "./install.sh", "--uninstall", "--prefix", prefix)
	if !strings.Contains(out, "removed "+filepath.Join(prefix, "bin", "git-wt")) {
		t.Errorf("uninstall does not say what it removed:\n%s", out)
	}
	// The folders it made go, but for PREFIX/bin: a standard folder,
	// where other software goes too (and which a login puts on PATH).
	want := append(slices.Clone(before), "bin")
	slices.Sort(want)
	if got := tree(t, prefix); !slices.Equal(got, want) {
		t.Fatalf("uninstall left or took too much:\n%q\nwant\n%q", got, want)
	}
}

// manifestDirs are the folders a manifest claims, and whether it lists
// every installed file under prefix.
func manifestDirs(t *testing.T, manifest, prefix string) []string {
	t.Helper()
	data, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if d, ok := strings.CutPrefix(l, "d "); ok {
			dirs = append(dirs, d)
		}
	}
	for _, f := range installed {
		if strings.HasPrefix(f, "bin/") {
			continue // the binaries may be elsewhere (bindir)
		}
		if !strings.Contains(string(data), "f "+filepath.Join(prefix, f)+"\n") {
			t.Errorf("the manifest lacks %s:\n%s", f, data)
		}
	}
	return dirs
}

// checkInstalledPageAndCompletions checks that the man page and the
// completion files installed under prefix are found where git and the
// shells look, with the binary found through bin (a PATH=... entry).
func checkInstalledPageAndCompletions(t *testing.T, s *testutil.Sandbox, prefix, bin string) {
	t.Helper()
	if _, err := exec.LookPath("man"); err == nil {
		// man finds the page beside the bin folder on PATH.
		for _, args := range [][]string{{"help", "wt"}, {"wt", "--help"}} {
			cmd := exec.Command("git", args...)
			cmd.Dir = s.Repo
			cmd.Env = append(append([]string(nil), s.Env...), bin, "MANPAGER=cat", "PAGER=cat", "MANWIDTH=80")
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "EXIT STATUS") || !strings.Contains(string(out), "GIT-WT(1)") {
				t.Errorf("git %q: %v\n%s", args, err, out)
			}
		}
	}
	cases := []completionCase{
		{"git wt sh", []string{"shell-init", "show"}, false},
		{"git wt rm ", []string{"T-1", "fix-_bug_-1"}, false},
		{"git-wt show ", []string{"T-1", "fix-_bug_-1"}, false},
	}
	share := filepath.Join(prefix, "share")
	if _, err := os.Stat("/usr/share/bash-completion/bash_completion"); err == nil {
		checkCompletions(t, "bash (installed)", completeBash(t, s, "installed", cases, bin, "XDG_DATA_DIRS="+share), cases)
	}
	if _, err := exec.LookPath("zsh"); err == nil {
		checkCompletions(t, "zsh (installed)", completeZsh(t, s, filepath.Join(share, "zsh", "site-functions"), cases, bin), cases)
	}
	if _, err := exec.LookPath("fish"); err == nil {
		checkCompletions(t, "fish (installed)", completeFish(t, s, "true", cases, bin, "XDG_DATA_DIRS="+share+":/usr/share"), cases)
	}
}

func TestInstallIntoDestdirWithMake(t *testing.T) {
	t.Parallel() // mostly waiting on shells and builds
	needCommands(t, "make")
	s := testutil.NewSandbox(t)
	env := buildEnv(t, s)
	// DESTDIR need not exist yet (the README's example).
	dest := filepath.Join(filepath.Dir(s.Repo), "stage", "dest")
	vars := []string{"prefix=/opt/wt", "bindir=/opt/wt/libexec", "DESTDIR=" + dest}
	out := runIn(t, env, "make", append([]string{"install"}, vars...)...)
	for _, f := range []string{"libexec/git-wt", "libexec/git-wt-mcp", "share/man/man1/git-wt.1", "share/zsh/site-functions/_git-wt"} {
		if !testutil.Exists(filepath.Join(dest, "opt", "wt", f)) {
			t.Errorf("make install did not put %s under DESTDIR:\n%s", f, out)
		}
	}
	if strings.Contains(out, "PATH") {
		t.Errorf("a staged install has nothing to say about PATH:\n%s", out)
	}
	// Staged, only git-wt's own folder is claimed: the staging folder
	// says nothing about which folders the target system has.
	if dirs := manifestDirs(t, filepath.Join(dest, "opt", "wt", "share", "git-wt", "manifest"), "/opt/wt"); !slices.Equal(dirs, []string{"/opt/wt/share/git-wt"}) {
		t.Errorf("a staged install claims the folders %q", dirs)
	}
	runIn(t, env, "make", append([]string{"uninstall"}, vars...)...)
	for _, p := range tree(t, dest) {
		if st, err := os.Stat(filepath.Join(dest, p)); err != nil || !st.IsDir() {
			t.Errorf("make uninstall left %s", p)
		}
	}
	if testutil.Exists(filepath.Join(dest, "opt", "wt", "share", "git-wt")) {
		t.Errorf("make uninstall left git-wt's folder: %q", tree(t, dest))
	}
}

// TestStagedInstallNeverClaimsSystemFolders: a package build stages
// prefix=/usr in an empty DESTDIR, where /usr, /usr/bin and /usr/share
// are made by the install; its manifest, shipped in the package, is what
// --uninstall removes on the target system. It must never name those,
// and an uninstall must never remove them, even when a manifest written
// by an older install.sh does name them.
func TestStagedInstallNeverClaimsSystemFolders(t *testing.T) {
	t.Parallel() // mostly waiting on builds
	needCommands(t, "make")
	s := testutil.NewSandbox(t)
	env := buildEnv(t, s)
	dest := filepath.Join(filepath.Dir(s.Repo), "pkg")
	vars := []string{"prefix=/usr", "DESTDIR=" + dest}
	runIn(t, env, "make", append([]string{"install"}, vars...)...)
	manifest := filepath.Join(dest, "usr", "share", "git-wt", "manifest")
	if dirs := manifestDirs(t, manifest, "/usr"); !slices.Equal(dirs, []string{"/usr/share/git-wt"}) {
		t.Errorf("the manifest claims the folders %q, want only /usr/share/git-wt", dirs)
	}
	// An older install.sh's manifest claims them all.
	f, err := os.OpenFile(manifest, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("d /usr\nd /usr/bin\nd /usr/share\nd /usr/share/man\n")
	f.Close()
	out := runIn(t, env, "make", append([]string{"uninstall"}, vars...)...)
	for _, d := range []string{"usr", "usr/bin", "usr/share", "usr/share/man"} {
		if !testutil.Exists(filepath.Join(dest, d)) {
			t.Errorf("uninstall removed /%s:\n%s", d, out)
		}
	}
	if testutil.Exists(filepath.Join(dest, "usr", "bin", "git-wt")) || testutil.Exists(filepath.Join(dest, "usr", "share", "git-wt")) {
		t.Errorf("uninstall left git-wt's files:\n%s", out)
	}
}

// TestInstallShSaysHowFishFindsTheCompletion: fish reads completions from
// its own data folder (Debian's fish: /usr/share, not /usr/local/share),
// whichever link it is started through; install.sh asks fish's pkg-config
// where that is, says the one line to add when fish does not read the
// prefix, and with that line fish completes git wt.
func TestInstallShSaysHowFishFindsTheCompletion(t *testing.T) {
	t.Parallel() // mostly waiting on shells and builds
	needCommands(t, "fish", "pkg-config")
	if _, err := exec.Command("pkg-config", "--exists", "fish").Output(); err != nil {
		t.Skip("fish's pkg-config file is not installed")
	}
	s := completionSandbox(t)
	prefix := filepath.Join(filepath.Dir(s.Repo), "prefix")
	real, err := exec.LookPath("fish")
	if err != nil {
		t.Fatal(err)
	}
	// fish through a link in the prefix: its data folder is not
	// PREFIX/share for all that.
	if err := os.MkdirAll(filepath.Join(prefix, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(prefix, "bin", "fish")); err != nil {
		t.Fatal(err)
	}
	bin := "PATH=" + filepath.Join(prefix, "bin") + ":" + os.Getenv("PATH")
	env := append(buildEnv(t, s), bin)
	out := runIn(t, env, "./install.sh", "--prefix", prefix)
	line := "source " + filepath.Join(prefix, "share", "fish", "vendor_completions.d", "git-wt.fish")
	if !strings.Contains(out, "\n  "+line+"\n") {
		t.Fatalf("install.sh does not give fish's line %q:\n%s", line, out)
	}
	s.Write(filepath.Join(s.Home, ".config", "fish", "config.fish"), line+"\n")
	cases := []completionCase{
		{"git wt sh", []string{"shell-init", "show"}, false},
		{"git-wt show ", []string{"T-1", "fix-_bug_-1"}, false},
	}
	checkCompletions(t, "fish (the line added)", completeFish(t, s, "true", cases, bin), cases)
}
