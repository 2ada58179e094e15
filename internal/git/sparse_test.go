package git

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The patterns git 2.39's `sparse-checkout set --cone --stdin` writes for
// the same directories, byte for byte.
func TestConePatternsAreGits(t *testing.T) {
	got := ConePatterns([]string{"c*d", "a/b", "x/y z", "a/b/deeper"})
	want := "/*\n!/*/\n/a/\n!/a/*/\n/x/\n!/x/*/\n/a/b/\n/c\\*d/\n/x/y z/\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := ConePatterns([]string{"d007"}); got != "/*\n!/*/\n/d007/\n" {
		t.Errorf("one folder: %q", got)
	}
}

// SparseTreeFiles counts exactly the files git's own cone-mode checkout
// of the same directories writes.
func TestSparseTreeFilesAreTheFilesGitChecksOut(t *testing.T) {
	dir := t.TempDir()
	if err := exec.Command("git", "init", "-q", dir).Run(); err != nil {
		t.Skip("no git")
	}
	for _, f := range []string{"README", "a/top.txt", "a/b/in.txt", "a/b/deep/in.txt", "a/sib/out.txt", "c d/e/in.txt", "c d/beside.txt", "z/out.txt", "a/b.txt"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755)
		os.WriteFile(filepath.Join(dir, f), []byte(f), 0o644)
	}
	ctx := context.Background()
	r := &Runner{}
	for _, args := range [][]string{{"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "files"}} {
		if _, err := r.Run(ctx, dir, args...); err != nil {
			t.Fatal(err)
		}
	}
	dirs := []string{"a/b", "c d/e"}
	got, err := r.History().SparseTreeFiles(ctx, dir, "HEAD", dirs)
	if err != nil {
		t.Fatal(err)
	}
	wt := filepath.Join(t.TempDir(), "wt")
	if _, err := r.Run(ctx, dir, "worktree", "add", "-q", "--no-checkout", "--detach", wt); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Exec(ctx, Cmd{Dir: wt, Args: []string{"sparse-checkout", "set", "--cone", "--stdin"}, Stdin: strings.NewReader(strings.Join(dirs, "\n") + "\n")}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(ctx, wt, "read-tree", "-mu", "HEAD"); err != nil {
		t.Fatal(err)
	}
	var written []string
	filepath.WalkDir(wt, func(p string, d os.DirEntry, err error) error {
		if !d.IsDir() && d.Name() != ".git" { // a linked worktree's .git is a file
			written = append(written, p)
		}
		return nil
	})
	// README, a/top.txt, a/b.txt, a/b/in.txt, a/b/deep/in.txt,
	// c d/beside.txt, c d/e/in.txt
	if len(got) != len(written) || len(written) != 7 {
		t.Errorf("SparseTreeFiles has %d files (%v), git wrote %d: %v", len(got), got, len(written), written)
	}
}
