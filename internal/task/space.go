package task

import (
	"context"
	"strconv"
	"strings"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/settings"
)

// blockSize is what a file takes at least on disk: checkouts of many small
// files need far more than the sum of their sizes.
const blockSize = 4096

// checkoutSize estimates the disk a checkout of commit needs from its
// tree's blob sizes, each rounded up to a block.
func (m *Manager) checkoutSize(ctx context.Context, commit string) (int64, error) {
	out, err := m.Git.Run(ctx, m.Repo.MainDir, "ls-tree", "-r", "-l", "-z", "--full-tree", commit)
	if err != nil {
		return 0, err
	}
	var total int64
	for _, entry := range strings.Split(out, "\x00") {
		// "<mode> <type> <oid> <size>\t<path>"; submodules have size "-".
		meta, _, ok := strings.Cut(entry, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 4 {
			continue
		}
		if n, err := strconv.ParseInt(f[3], 10, 64); err == nil {
			total += (n + blockSize - 1) / blockSize * blockSize
		}
	}
	return total + blockSize, nil // and the folder itself
}

// ensureSpace checks that dir's file system has room for need bytes; when
// it has not, it applies the retention policy (if one is set) and looks
// again. Out of room, it is a failure that says how much is needed and
// free.
func (m *Manager) ensureSpace(ctx context.Context, dir string, need int64) error {
	free, err := fsutil.FreeSpace(dir)
	if err != nil || free >= need {
		return nil // cannot tell: let the checkout itself find out
	}
	if p := m.policy(GCOptions{}); !p.none() {
		m.Warn("%s has %s free and the checkout needs %s: applying the retention policy", dir, settings.FormatSize(free), settings.FormatSize(need))
		if _, err := m.retain(ctx, p, false); err == nil {
			if free, err = fsutil.FreeSpace(dir); err == nil && free >= need {
				return nil
			}
		}
	}
	return exitcode.Failedf("not enough disk space in %s: the checkout needs %s and %s is free (remove worktrees with git wt rm or git wt gc, or set wt.maxTotalSize)",
		dir, settings.FormatSize(need), settings.FormatSize(free))
}
