//go:build unix

package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The 100,000-file repository of SPEC §9's big-repository rows. Making it
// takes seconds, so it is made once, with one git fast-import, into a
// cache on tmpfs that later runs reuse; each run clones the cache (its
// objects hardlinked, nothing recompressed) into a repository of its own,
// which the rows then change as they like.

var cacheDir = flag.String("cache", "/dev/shm/git-wt-bench-cache", "where the 100,000-file repository is made once and kept for later runs")

// The shape of the big repository: bigPkgs × bigMods × bigParts leaf
// folders (pkgNN/modNN/partN) of bigFiles small text files each, and
// nothing else. bigVersion names the shape in the cache: change it with
// the shape, or runs would reuse a repository of the old one.
const (
	bigPkgs, bigMods, bigParts, bigFiles = 10, 10, 5, 200
	bigFileCount                         = bigPkgs * bigMods * bigParts * bigFiles
	bigVersion                           = "repo100k-v1"
	// bigSparseDir is one leaf folder (200 files) three levels down: the
	// directory the sparse rows check out.
	bigSparseDir = "pkg03/mod07/part2"
)

// makeBigRepo makes, at path, a repository whose branch main (checked
// out) holds the 100,000 files of the cached big repository, made first
// if the cache lacks it; it returns main's commit. Each call gives a
// repository of its own, with no remote: what a row does there (tasks,
// worktrees, config) never reaches the cache or another row.
func makeBigRepo(env []string, path string) (commit string) {
	cache, commit := bigRepoCache(env)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		fail(err)
	}
	// A local clone hardlinks the cache's objects (copies them on another
	// file system) and checks main out.
	git(env, filepath.Dir(path), "clone", "-q", "--branch", "main", cache, path)
	git(env, path, "remote", "remove", "origin")
	return commit
}

// bigRepoCache returns the cached big repository (bare) and its main
// commit, making it if it is missing or not whole. It is made under a
// temporary name and renamed into place when complete, so a run killed
// meanwhile, or another making it at the same time, never leaves a half
// one that looks valid.
func bigRepoCache(env []string) (path, commit string) {
	path = filepath.Join(*cacheDir, bigVersion)
	if commit, ok := bigRepoValid(env, path); ok {
		return path, commit
	}
	fmt.Fprintf(os.Stderr, "bench: making the %d-file repository in %s (once)...\n", bigFileCount, path)
	if err := os.MkdirAll(*cacheDir, 0o755); err != nil {
		fail(err)
	}
	tmp, err := os.MkdirTemp(*cacheDir, bigVersion+".tmp-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o755); err != nil {
		fail(err)
	}
	git(env, tmp, "init", "-q", "--bare", "-b", "main")
	fastImport(env, tmp)
	if err := os.Rename(tmp, path); err != nil {
		// Another run's, renamed into place first, or an invalid one.
		if _, ok := bigRepoValid(env, path); !ok {
			os.RemoveAll(path)
			if err := os.Rename(tmp, path); err != nil {
				fail(err)
			}
		}
	}
	commit, ok := bigRepoValid(env, path)
	if !ok {
		fail(fmt.Errorf("the repository made in %s is not valid", path))
	}
	return path, commit
}

// bigRepoValid reports whether path is a whole big repository: its main
// commit's tree holds bigFileCount files (its commit message says how
// many it was made with, and fast-import writes the ref last).
func bigRepoValid(env []string, path string) (commit string, ok bool) {
	if _, err := os.Stat(filepath.Join(path, "HEAD")); err != nil {
		return "", false
	}
	cmd := exec.Command("git", "log", "-1", "--format=%H %s", "refs/heads/main")
	cmd.Dir, cmd.Env = path, env
	out, err := cmd.Output()
	if err != nil {
		return "", false
	}
	commit, subject, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	return commit, subject == bigSubject()
}

func bigSubject() string { return fmt.Sprintf("%s: %d files", bigVersion, bigFileCount) }

// fastImport writes the big repository's one commit into the bare
// repository at repo: every file inline, in one git fast-import.
func fastImport(env []string, repo string) {
	cmd := exec.Command("git", "fast-import", "--quiet", "--done")
	// glibc's malloc otherwise gives zlib's buffers back to the kernel
	// after every blob and asks for them again: 200,000 brk calls, and
	// more system time than the import itself.
	cmd.Dir, cmd.Env = repo, append(env, "MALLOC_TRIM_THRESHOLD_=268435456", "MALLOC_TOP_PAD_=67108864")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		fail(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	w := bufio.NewWriterSize(stdin, 1<<16)
	msg := bigSubject()
	fmt.Fprintf(w, "commit refs/heads/main\ncommitter bench <b@example.com> 1767225600 +0000\ndata %d\n%s\n", len(msg), msg)
	var body strings.Builder
	for p := 0; p < bigPkgs; p++ {
		for m := 0; m < bigMods; m++ {
			for s := 0; s < bigParts; s++ {
				dir := fmt.Sprintf("pkg%02d/mod%02d/part%d", p, m, s)
				for f := 0; f < bigFiles; f++ {
					body.Reset()
					name := fmt.Sprintf("%s/f%03d.txt", dir, f)
					// Small text files of a few sizes, each its own blob.
					for l := 0; l < 5+f%20; l++ {
						fmt.Fprintf(&body, "%s line %d\n", name, l)
					}
					fmt.Fprintf(w, "M 100644 inline %s\ndata %d\n%s\n", name, body.Len(), body.String())
				}
			}
		}
	}
	w.WriteString("\ndone\n")
	if err := w.Flush(); err != nil {
		fail(err)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		fail(fmt.Errorf("git fast-import: %v\n%s", err, stderr.String()))
	}
}
