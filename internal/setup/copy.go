package setup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/settings"
	"github.com/git-wt/git-wt/internal/text"
)

// IncludeFile is the committed file whose gitignore-style patterns add to
// wt.copy.
const IncludeFile = ".worktreeinclude"

// hasCopyPatterns reports whether wt.copy or a .worktreeinclude asks for
// files to be copied.
func (m *Handler) hasCopyPatterns() bool {
	if len(m.Settings.Copy) > 0 {
		return true
	}
	_, err := os.Stat(filepath.Join(m.Repo.MainDir, IncludeFile))
	return err == nil
}

// copyPlan lists, relative to the main worktree, the untracked files and
// folders there that the copy patterns match (git does the matching, so
// the patterns mean what they mean in a .gitignore), split into those git
// ignores, which are copied, and the others, which are not: a copy must
// never make the new worktree dirty.
func (m *Handler) copyPlan(ctx context.Context) (copy, skip []string, err error) {
	main := m.Repo.MainDir
	include := filepath.Join(main, IncludeFile)
	if _, err := os.Stat(include); err != nil {
		include = ""
	}
	listed, err := m.Git.Index().IgnoredMatching(ctx, main, include, m.Settings.Copy)
	if err != nil || len(listed) == 0 {
		return nil, nil, err
	}
	matched := outermost(listed)
	ignored, err := m.Git.Index().CheckIgnore(ctx, m.Repo.MainDir, matched)
	if err != nil {
		return nil, nil, err
	}
	var partial []string // folders git does not ignore as a whole
	for _, p := range matched {
		switch {
		case ignored[strings.TrimSuffix(p, "/")]:
			copy = append(copy, p)
		case strings.HasSuffix(p, "/"):
			partial = append(partial, p)
		default:
			skip = append(skip, p)
		}
	}
	if len(partial) == 0 {
		return copy, skip, nil
	}
	// In those, copy what git ignores and skip the rest.
	inner, err := m.Git.Index().Untracked(ctx, main, true, partial)
	if err != nil {
		return nil, nil, err
	}
	rest, err := m.Git.Index().Untracked(ctx, main, false, partial)
	if err != nil {
		return nil, nil, err
	}
	return append(copy, inner...), append(skip, rest...), nil
}

// outermost drops the paths that lie in a folder also listed: with
// --directory, git lists a matched folder and, at times, its files too.
func outermost(paths []string) []string {
	sorted := slices.Clone(paths)
	slices.Sort(sorted)
	var out []string
	for _, p := range sorted {
		if n := len(out); n > 0 && strings.HasSuffix(out[n-1], "/") && strings.HasPrefix(p, out[n-1]) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// copyFiles copies the wt.copy and .worktreeinclude files from the main
// worktree into the worktree at dir, keeping whatever is there already,
// and writing nothing outside dir: a file whose folder in dir is a
// symlink (the task's branch can commit one to anywhere) is not copied,
// with a warning. Progress shows on a terminal; what was skipped or
// failed is warned about and written to log.
func (m *Handler) copyFiles(ctx context.Context, dir string, log io.Writer) error {
	paths, skipped, err := m.copyPlan(ctx)
	if err != nil {
		return fmt.Errorf("cannot list the files to copy from %s: %w", m.Repo.MainDir, err)
	}
	if len(skipped) > 0 {
		msg := fmt.Sprintf("not copied (git does not ignore %s, so %s would make %s dirty): %s",
			text.Plural(len(skipped), "it", "them"), text.Plural(len(skipped), "it", "they"), dir, text.ListSome(skipped, 5))
		m.Warn("%s", msg)
		fmt.Fprintf(log, "git-wt: %s\n", msg)
	}
	if len(paths) == 0 {
		return nil
	}
	root, err := fsutil.OpenRootDir(dir)
	if err != nil {
		return fmt.Errorf("cannot copy into %s: %w", dir, err)
	}
	defer root.Close()
	c := &fsutil.Copier{}
	stop := m.meterBytes("copying from "+m.Repo.MainDir, func() int64 { return c.Stats().Bytes })
	for _, p := range paths {
		if ctx.Err() != nil {
			break
		}
		rel := filepath.FromSlash(strings.TrimSuffix(p, "/"))
		ok, err := m.folderFor(root, rel, "copied", log)
		if err != nil {
			stop()
			return fmt.Errorf("cannot copy %s into %s: %w", rel, dir, err)
		}
		if !ok {
			continue
		}
		c.Copy(filepath.Join(m.Repo.MainDir, rel), root, rel)
	}
	stop()
	st := c.Stats()
	fmt.Fprintf(log, "git-wt: copied %d files (%s, %d cloned) from %s; kept %d that were there\n",
		st.Files, settings.FormatSize(st.Bytes), st.Cloned, m.Repo.MainDir, st.Kept)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errs := c.Errors(); len(errs) > 0 {
		for _, e := range errs {
			fmt.Fprintf(log, "git-wt: copy: %v\n", e)
		}
		return fmt.Errorf("could not copy %d %s from %s (first: %v)", len(errs), text.Plural(len(errs), "file", "files"), m.Repo.MainDir, errs[0])
	}
	return nil
}

// folderFor makes the folder under root (a worktree) that rel, a file or
// folder to write there, lies in, and says whether rel may be written: not
// when a folder on the way is a symlink (the task's branch can commit one
// to anywhere, and one inside the worktree is no folder of the main
// worktree's either), which is warned about, naming it, and logged; the
// setup goes on. done is what is then not done to rel ("copied").
func (m *Handler) folderFor(root *os.Root, rel, done string, log io.Writer) (bool, error) {
	err := fsutil.MkdirNoLinks(root, filepath.Dir(rel))
	var link *fsutil.SymlinkOnPath
	if !errors.As(err, &link) {
		return err == nil, err
	}
	msg := fmt.Sprintf("%s not %s: %s is a symlink in %s, and git-wt writes through none",
		text.Terminal(filepath.ToSlash(rel)), done, text.Terminal(filepath.ToSlash(link.Path)), text.Terminal(root.Name()))
	m.Warn("%s", msg)
	fmt.Fprintf(log, "git-wt: %s\n", msg)
	return false, nil
}

// progressInterval is how often the copy's meter reads the copier's count.
const progressInterval = 200 * time.Millisecond

// meterBytes feeds a meter the bytes that count() says are done, until
// the returned stop is called. Without a Progress (not a terminal) it does
// nothing.
func (m *Handler) meterBytes(title string, count func() int64) (stop func()) {
	if m.Progress == nil {
		return func() {}
	}
	meter := m.Progress.Start(title, 0, true)
	done := make(chan struct{})
	finished := make(chan struct{})
	var last int64
	feed := func() {
		n := count()
		meter.Add(n - last)
		last = n
	}
	go func() {
		defer close(finished)
		t := time.NewTicker(progressInterval)
		defer t.Stop()
		for {
			select {
			case <-done:
				feed()
				meter.Done()
				return
			case <-t.C:
				feed()
			}
		}
	}()
	return func() { close(done); <-finished }
}
