package removal

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/settings"
)

// blockSize is what a file takes at least on disk: checkouts of many small
// files need far more than the sum of their sizes.
const blockSize = 4096

// CheckoutSize estimates the disk a checkout of commit needs from its
// tree's blob sizes, each rounded up to a block: of every file, or of
// those a cone-mode sparse checkout of the directories sparse writes.
// Reading every blob's size costs tens of milliseconds in a large tree
// (hundreds in one of 100,000 files, where a sparse checkout reads only
// its own), and a checkout's size never changes: the answer is kept in
// <common dir>/wt/checkout-sizes, so that a burst of new tasks from one
// base reads it once. The cache is only a hint (SPEC §19: anything that
// can write the git dir can forge it): a size from it that could refuse a
// checkout is computed again (usableCachedSize).
func (m *Remover) CheckoutSize(ctx context.Context, commit string, sparse []string) (int64, error) {
	cache, key := m.StateDir("checkout-sizes"), sizeKey(commit, sparse)
	if n, ok := cachedSize(cache, key); ok {
		if free, err := fsutil.FreeSpace(m.Repo.MainDir); err == nil && usableCachedSize(n, free) {
			return n, nil
		}
	}
	n, err := m.treeSize(ctx, commit, sparse)
	if err == nil {
		rememberSize(cache, key, n)
	}
	return n, err
}

// sizeKey names a checkout in the size cache: its commit, and for a
// sparse one a hash of its directories (which may hold spaces).
func sizeKey(commit string, sparse []string) string {
	if len(sparse) == 0 {
		return commit
	}
	sorted := slices.Clone(sparse)
	slices.Sort(sorted)
	sum := sha1.Sum([]byte(strings.Join(sorted, "\x00")))
	return commit + ":sparse:" + hex.EncodeToString(sum[:])
}

// sizeCacheLines bounds the size cache; past twice that, it keeps the
// newest half.
const sizeCacheLines = 64

func cachedSize(cache, key string) (int64, bool) {
	data, _ := os.ReadFile(cache)
	for _, line := range strings.Split(string(data), "\n") {
		if c, n, ok := strings.Cut(line, " "); ok && c == key {
			size, err := strconv.ParseInt(n, 10, 64)
			return size, err == nil
		}
	}
	return 0, false
}

// usableCachedSize reports whether a checkout size read from the cache
// may be used as it is, free being what the disk of the main worktree has
// free: a size that could make git-wt refuse a checkout for want of disk
// (more than half of free: a pool entry keeps as much again for a task)
// is no cache's to say, as a forged one would refuse every new.
func usableCachedSize(n, free int64) bool {
	return n >= 0 && n <= free/2
}

// rememberSize appends to the cache (one small O_APPEND write, safe beside
// other writers), trimming it now and then, never through a link planted
// in git-wt's folder. Best effort.
func rememberSize(cache, key string, n int64) {
	write := func(flag int, content string) {
		if f, err := fsutil.OpenUnder(filepath.Dir(cache), cache, os.O_WRONLY|os.O_CREATE|flag, 0o666); err == nil {
			f.WriteString(content)
			f.Close()
		}
	}
	if data, err := os.ReadFile(cache); err == nil {
		if lines := strings.Split(strings.TrimSpace(string(data)), "\n"); len(lines) > 2*sizeCacheLines {
			write(os.O_TRUNC, strings.Join(lines[len(lines)-sizeCacheLines:], "\n")+"\n")
		}
	}
	write(os.O_APPEND, fmt.Sprintf("%s %d\n", key, n))
}

// treeSize sums the blob sizes of the commit's checkout (sparse when
// sparse names directories), rounded up to blocks.
func (m *Remover) treeSize(ctx context.Context, commit string, sparse []string) (int64, error) {
	var sizes []int64
	var err error
	if len(sparse) > 0 {
		sizes, err = m.Git.History().SparseTreeFiles(ctx, m.Repo.MainDir, commit, sparse)
	} else {
		sizes, err = m.Git.History().TreeFiles(ctx, m.Repo.MainDir, commit)
	}
	if err != nil {
		return 0, err
	}
	var total int64
	for _, n := range sizes {
		total += (n + blockSize - 1) / blockSize * blockSize
	}
	return total + blockSize, nil // and the folder itself
}

// EnsureSpace checks that dir's file system has room for need bytes; when
// it has not, it applies the retention policy (if one is set) and looks
// again. Out of room, it is a failure that says how much is needed and
// free.
func (m *Remover) EnsureSpace(ctx context.Context, dir string, need int64) error {
	free, err := fsutil.FreeSpace(dir)
	if err != nil || free >= need {
		return nil // cannot tell: let the checkout itself find out
	}
	if m.Pool != nil && m.Pool.MakeRoom(ctx, dir, need) {
		if free, err = fsutil.FreeSpace(dir); err == nil && free >= need {
			return nil
		}
	}
	if p := m.RetentionPolicy(nil, nil); !p.none() {
		m.Warn("%s has %s free and the checkout needs %s: applying the retention policy", dir, settings.FormatSize(free), settings.FormatSize(need))
		if _, err := m.Retain(ctx, p, false); err == nil {
			if free, err = fsutil.FreeSpace(dir); err == nil && free >= need {
				return nil
			}
		}
	}
	return exitcode.Failedf("not enough disk space in %s: the checkout needs %s and %s is free (remove worktrees with git wt rm or git wt gc, or set wt.maxTotalSize)",
		dir, settings.FormatSize(need), settings.FormatSize(free))
}
