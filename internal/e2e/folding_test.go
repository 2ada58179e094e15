//go:build unix

// These tests protect task ids on file systems that ignore case and
// Unicode form (SPEC §15 "macOS specifics": APFS's default): two ids whose
// slugs fold together are two tasks, the second with the hashed suffix,
// never a "corrupt record"; an id typed composed or decomposed is one task.
package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

// foldingCases are pairs of ids whose slugs fold together: another task.
var foldingCases = []struct{ name, first, second string }{
	{"case", "Fix", "fix"},
	{"case and Unicode form", "CAF\u00c9", "cafe\u0301"},
}

// checkFoldedIDsAreTwoTasks runs new of two ids whose slugs fold together
// in s and checks that they are two tasks, each found again by its id.
// showFold makes the repository look as a folding file system shows it
// after the first new (nil on a real one).
func checkFoldedIDsAreTwoTasks(t *testing.T, s *testutil.Sandbox, first, second string, showFold func(firstSlug string)) {
	t.Helper()
	p1 := s.MustWT("new", first).Out()
	if showFold != nil {
		showFold(filepath.Base(p1))
	}
	r := s.WT("new", second)
	if r.Code != 0 || strings.Contains(r.Stderr, "corrupt") {
		t.Fatalf("new %q after new %q: %s", second, first, r)
	}
	p2 := r.Out()
	if !regexp.MustCompile(`-[0-9a-f]{6}$`).MatchString(p2) || p2 == p1 {
		t.Fatalf("new %q: worktree %s, want the hashed suffix beside %s", second, p2, p1)
	}
	for id, want := range map[string]string{first: p1, second: p2} {
		if got := s.MustWT("path", id).Out(); got != want {
			t.Errorf("path %q = %s, want %s", id, got, want)
		}
		if got := s.MustWT("new", id).Out(); got != want {
			t.Errorf("new %q again = %s, want its task %s", id, got, want)
		}
	}
	if r := s.WT("list"); r.Code != 0 || strings.Contains(r.Stderr, "corrupt") {
		t.Fatalf("list: %s", r)
	}
}

// On any file system: what a folding one shows git is the first task's
// loose ref file under the second slug's name too. Without core.ignoreCase
// (git did not probe this file system) and with it (as on a Mac).
func TestFoldedSlugsAreTwoTasks(t *testing.T) {
	for _, c := range foldingCases {
		for _, ignoreCase := range []string{"false", "true"} {
			t.Run(c.name+"/core.ignoreCase="+ignoreCase, func(t *testing.T) {
				s := testutil.NewSandbox(t)
				s.Git(s.Repo, "config", "core.ignoreCase", ignoreCase)
				tasks := filepath.Join(s.Repo, ".git", "refs", "git-wt", "tasks")
				checkFoldedIDsAreTwoTasks(t, s, c.first, c.second, func(firstSlug string) {
					data, err := os.ReadFile(filepath.Join(tasks, firstSlug))
					if err != nil {
						t.Skipf("the record is no loose ref file here: %v", err)
					}
					s.Write(filepath.Join(tasks, strings.ToLower(firstSlug)), string(data))
				})
			})
		}
	}
}

// On a real folding file system: ext4 with casefold, where the kernel
// has it and this test runs as root.
func TestFoldedSlugsAreTwoTasksOnCasefoldExt4(t *testing.T) {
	checkFoldingIn(t, casefoldMount(t))
}

// checkFoldingIn runs each of foldingCases in a repository of its own in
// root, a folder of a folding file system.
func checkFoldingIn(t *testing.T, root string) {
	t.Helper()
	for _, c := range foldingCases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(root, strings.ReplaceAll(t.Name(), "/", "_"))
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			checkFoldedIDsAreTwoTasks(t, testutil.NewSandboxIn(t, dir), c.first, c.second, nil)
		})
	}
}

// casefoldMount mounts a fresh ext4 file system with casefold on a loop
// file and returns a folder in it that folds case and Unicode form, or
// skips the test saying why it cannot.
func casefoldMount(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat("/sys/fs/ext4/features/casefold"); err != nil {
		t.Skip("this kernel's ext4 has no casefold (/sys/fs/ext4/features/casefold): the folding is tested on foldfs (TestFoldedSlugsAreTwoTasksOnAFoldingFUSE) and by TestFoldedSlugsAreTwoTasks")
	}
	if os.Geteuid() != 0 {
		t.Skip("mounting an ext4 casefold file system needs root")
	}
	for _, tool := range []string{"mkfs.ext4", "mount", "umount", "chattr"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	tmp := t.TempDir()
	img, mnt := filepath.Join(tmp, "fs.img"), filepath.Join(tmp, "mnt")
	run := func(name string, args ...string) error {
		out, err := exec.Command(name, args...).CombinedOutput()
		if err != nil {
			t.Logf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return err
	}
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if run("truncate", "-s", "64M", img) != nil || run("mkfs.ext4", "-q", "-O", "casefold", "-E", "encoding=utf8", img) != nil {
		t.Skip("cannot make an ext4 casefold file system here")
	}
	if run("mount", "-o", "loop", img, mnt) != nil {
		t.Skip("cannot mount a loop file here (a container without loop devices?)")
	}
	t.Cleanup(func() { run("umount", mnt) })
	dir := filepath.Join(mnt, "folding")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// Casefold is a folder's attribute, set while it is empty and
	// inherited by what is made in it.
	if run("chattr", "+F", dir) != nil {
		t.Fatal("cannot set casefold on a folder of a casefold file system")
	}
	return dir
}

// An id typed composed (NFC) or decomposed (NFD, as macOS hands file
// names over) is one task: its second new finds the first's worktree.
func TestComposedAndDecomposedIDsAreOneTask(t *testing.T) {
	cases := []struct{ name, nfc, nfd string }{
		{"café", "caf\u00e9", "cafe\u0301"},
		{"Hangul", "\ud55c\uad6d\uc5b4", "\u1112\u1161\u11ab\u1100\u116e\u11a8\u110b\u1165"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := testutil.NewSandbox(t)
			p := s.MustWT("new", c.nfd).Out()
			if filepath.Base(p) != c.nfc {
				t.Fatalf("new of the decomposed id: worktree %s, want the composed slug %q", p, c.nfc)
			}
			if got := s.MustWT("new", c.nfc).Out(); got != p {
				t.Fatalf("new of the composed id = %s, want the same task %s", got, p)
			}
			if got := s.MustWT("path", c.nfd).Out(); got != p {
				t.Fatalf("path of the decomposed id = %s, want %s", got, p)
			}
			s.MustWT("rm", c.nfc)
			if testutil.Exists(p) {
				t.Fatalf("rm of the composed id left %s", p)
			}
		})
	}
}
