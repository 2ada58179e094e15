package git

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// gitAt runs git in dir with no config of the user's.
func gitAt(t testing.TB, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// gitlinkRepo makes a repository whose index holds files and the
// gitlinks links, in the form the setup commands make.
func gitlinkRepo(t testing.TB, initArgs []string, links []string, setup ...[]string) string {
	t.Helper()
	dir := t.TempDir()
	gitAt(t, dir, append([]string{"init", "-q"}, initArgs...)...)
	oid := strings.Repeat("1", 40)
	if slices.Contains(initArgs, "--object-format=sha256") {
		oid = strings.Repeat("1", 64)
	}
	for _, f := range []string{"a", "dir/b", "dir/c/d", "z"} {
		path := filepath.Join(dir, f)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitAt(t, dir, "add", "a", "dir")
	gitAt(t, dir, "add", "-N", "z") // an intent to add: extended flags (version 3)
	for _, l := range links {
		gitAt(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+oid+","+l)
	}
	for _, args := range setup {
		gitAt(t, dir, args...)
	}
	return dir
}

func TestIndexGitlinks(t *testing.T) {
	links := []string{"dir/c/sub", "dir/sub with space", "sub"}
	for _, tc := range []struct {
		name  string
		init  []string
		setup [][]string
	}{
		{name: "version 3"},
		{name: "version 2", setup: [][]string{{"rm", "-q", "--cached", "z"}, {"update-index", "--index-version", "2"}}},
		{name: "version 4", setup: [][]string{{"update-index", "--index-version", "4"}}},
		{name: "split index", setup: [][]string{{"update-index", "--split-index"}, {"update-index", "--add", "--cacheinfo", "160000," + strings.Repeat("2", 40) + ",zz"}}},
		{name: "sha256", init: []string{"--object-format=sha256"}},
		{name: "sha256 version 4", init: []string{"--object-format=sha256"}, setup: [][]string{{"update-index", "--index-version", "4"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := gitlinkRepo(t, tc.init, links, tc.setup...)
			got, err := indexGitlinks(filepath.Join(dir, ".git", "index"), filepath.Join(dir, ".git"))
			if err != nil {
				t.Fatal(err)
			}
			want := links
			if strings.HasPrefix(tc.name, "split") {
				want = append(slices.Clone(links), "zz")
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("gitlinks = %q, want %q", got, want)
			}
		})
	}
	if got, err := indexGitlinks(filepath.Join(t.TempDir(), "index"), ""); got != nil || err != nil {
		t.Errorf("no index: %q, %v", got, err)
	}
	for _, bad := range []string{"", "DIRC", "DIRC\x00\x00\x00\x05\x00\x00\x00\x00" + strings.Repeat("\x00", 20),
		"DIRC\x00\x00\x00\x02\x00\x00\x00\x01" + strings.Repeat("\x00", 20)} {
		if _, err := scanIndex(strings.NewReader(bad), int64(len(bad))); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func FuzzParseIndexGitlinks(f *testing.F) {
	for _, setup := range [][]string{{"update-index", "--index-version", "2"}, {"update-index", "--index-version", "4"}, {"update-index", "--split-index"}} {
		dir := gitlinkRepo(f, nil, []string{"x/sub"}, setup)
		data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		scan, err := scanIndex(bytes.NewReader(data), int64(len(data)))
		if err != nil && (scan.links != nil || scan.assumed || scan.skipped) {
			t.Errorf("%+v with an error", scan)
		}
	})
}

func TestCheckNestedRepos(t *testing.T) {
	const bad = "[filter \"x\"]\n\tclean = touch x\n"
	const usual = "[core]\n\trepositoryformatversion = 0\n\tbare = false\n"
	for _, tc := range []struct {
		name  string
		files map[string]string // under the worktree
		links []string          // of the worktree's index
		inner []string          // of sub's index
		bad   string            // the file refused, "" when none is
	}{
		{name: "no gitlink"},
		{name: "a gitlink not checked out", links: []string{"sub"}},
		{name: "a nested repository's usual config", links: []string{"sub"}, files: map[string]string{"sub/.git/config": usual}},
		{name: "a filter in a nested repository", links: []string{"sub"},
			files: map[string]string{"sub/.git/config": bad}, bad: "sub/.git/config"},
		{name: "a filter in the git dir a gitfile names", links: []string{"sub"},
			files: map[string]string{"sub/.git": "gitdir: ../elsewhere\n", "elsewhere/config": bad}, bad: "elsewhere/config"},
		{name: "a repository nested in a nested one", links: []string{"sub"}, inner: []string{"in"},
			files: map[string]string{"sub/.git/config": usual, "sub/in/.git/config": "[core]\n\tfsmonitor = x\n"}, bad: "sub/in/.git/config"},
		{name: "a gitfile's git dir naming its folder as its worktree", links: []string{"sub"}, files: map[string]string{
			"sub/.git": "gitdir: ../modules/sub\n", "modules/sub/config": "[core]\n\tworktree = ../../sub\n"}},
		{name: "a nested repository naming its folder as its worktree, quoted", links: []string{"sub"}, files: map[string]string{
			"sub/.git/config": "[core]\n\tworktree = \"../../sub\"\n"}},
		{name: "a nested repository naming another worktree", links: []string{"sub"}, files: map[string]string{
			"sub/.git/config": "[core]\n\tworktree = ../../other\n"}, bad: "sub/.git/config"},
		{name: "a worktree git-wt cannot read", links: []string{"sub"}, files: map[string]string{
			"sub/.git/config": "[core]\n\tWorkTree = \"a\\\"b\"\n"}, bad: "sub/.git/config"},
		{name: "a nested repository's config not in the index", files: map[string]string{"sub/.git/config": bad}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := gitlinkRepo(t, nil, tc.links)
			for name, content := range tc.files {
				path := filepath.Join(dir, name)
				os.MkdirAll(filepath.Dir(path), 0o755)
				if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tc.inner != nil {
				index := gitlinkRepo(t, nil, tc.inner)
				if err := os.Rename(filepath.Join(index, ".git", "index"), filepath.Join(dir, "sub", ".git", "index")); err != nil {
					t.Fatal(err)
				}
			}
			err := CheckNestedRepos(dir, filepath.Join(dir, ".git", "index"), filepath.Join(dir, ".git"))
			var unsafe *UnsafeGitDirError
			switch {
			case tc.bad == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.bad != "" && (!errors.As(err, &unsafe) || unsafe.Path != filepath.Join(dir, tc.bad)):
				t.Errorf("want %s refused: %v", tc.bad, err)
			}
		})
	}
}

// The scan finds an entry marked assume-unchanged or skip-worktree (what
// git status does not look at) in every index format, and no other.
func TestScanIndexFindsHiddenEntries(t *testing.T) {
	for _, format := range []struct {
		name  string
		init  []string
		setup [][]string
	}{
		{name: "version 3"},
		{name: "version 2", setup: [][]string{{"rm", "-q", "--cached", "z"}, {"update-index", "--index-version", "2"}}},
		{name: "version 4", setup: [][]string{{"update-index", "--index-version", "4"}}},
		{name: "split index", setup: [][]string{{"update-index", "--split-index"}}},
		{name: "sha256", init: []string{"--object-format=sha256"}},
	} {
		for _, mark := range []struct {
			flag             string
			assumed, skipped bool
		}{
			{"", false, false}, // z's intent-to-add is an extended flag too
			{"--assume-unchanged", true, false},
			{"--skip-worktree", false, true},
		} {
			t.Run(format.name+" "+mark.flag, func(t *testing.T) {
				setup := format.setup
				if mark.flag != "" {
					setup = append(slices.Clone(setup), []string{"update-index", mark.flag, "dir/c/d"})
				}
				dir := gitlinkRepo(t, format.init, []string{"sub"}, setup...)
				scan, err := scanIndexFiles(filepath.Join(dir, ".git", "index"), filepath.Join(dir, ".git"))
				if err != nil {
					t.Fatal(err)
				}
				if scan.assumed != mark.assumed || scan.skipped != mark.skipped || !slices.Equal(scan.links, []string{"sub"}) {
					t.Errorf("scan = %+v, want %+v and the gitlink sub", scan, mark)
				}
			})
		}
	}
}

// BenchmarkScanIndex is the cost of the read every plain rm makes of its
// worktree's index (Index.HiddenEntries' first look), at the sizes of
// SPEC §9's worktrees.
func BenchmarkScanIndex(b *testing.B) {
	for _, n := range []int{5000, 100000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			dir := b.TempDir()
			gitAt(b, dir, "init", "-q")
			var info strings.Builder
			for i := range n {
				fmt.Fprintf(&info, "100644 %s\tdir%d/file%d.txt\n", strings.Repeat("1", 40), i%100, i)
			}
			cmd := exec.Command("git", "update-index", "--add", "--index-info")
			cmd.Dir, cmd.Stdin = dir, strings.NewReader(info.String())
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%v: %s", err, out)
			}
			index, gitDir := filepath.Join(dir, ".git", "index"), filepath.Join(dir, ".git")
			b.ResetTimer()
			for b.Loop() {
				if scan, err := scanIndexFiles(index, gitDir); err != nil || scan.assumed || scan.skipped {
					b.Fatalf("%+v, %v", scan, err)
				}
			}
		})
	}
}
