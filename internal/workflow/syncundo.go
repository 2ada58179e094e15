package workflow

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/text"
)

// filesPutBack is what putBackFiles did: how many files it gave their
// old content again, and which it left as they are.
type filesPutBack struct {
	restored int
	left     []string
}

// wrote reports whether the failed read-tree wrote anything at all.
func (p filesPutBack) wrote() bool { return p.restored > 0 || len(p.left) > 0 }

// say is the end of the error message: what became of the files.
func (p filesPutBack) say(rec *record.Record) string {
	msg := "its files were put back"
	if len(p.left) > 0 {
		msg = "these files hold neither their old content nor the new and were left as they are: " + text.ListSome(p.left, 10) +
			" (git -C " + text.ShellQuote(rec.Path) + " checkout -- FILE gives one its old content back)"
	}
	return msg
}

// putBackFiles takes back what a two-tree `read-tree -m -u from to` that
// failed while writing (a full disk) wrote into the worktree at dir. git
// checks every path before it writes any and never writes the index of
// a failed read-tree (it still holds from), so a file that holds from's
// content is untouched, and one that is missing or holds the start of
// to's content (a truncated write) is git's: it gets from's content
// again, or goes when from lacks it. A file holding anything else was
// changed by someone else meanwhile: it is left as it is, and named.
func (m *Flow) putBackFiles(ctx context.Context, dir, from, to string) (filesPutBack, error) {
	var done filesPutBack
	changes, err := m.Git.History().ChangedFiles(ctx, m.Repo.MainDir, from, to)
	if err != nil {
		return done, err
	}
	blobs, err := m.readBlobs(ctx, changes)
	if err != nil {
		return done, err
	}
	var checkout []string
	for _, c := range changes {
		path := filepath.Join(dir, filepath.FromSlash(c.Path))
		now, err := fileContent(path)
		exists := !errors.Is(err, fs.ErrNotExist)
		switch {
		case err != nil && exists:
			done.left = append(done.left, c.Path) // a folder, or unreadable
		case c.Before == "" && !exists, c.Before != "" && exists && bytes.Equal(now, blobs[c.Before]):
			// as it was
		case exists && (c.After == "" || !bytes.HasPrefix(blobs[c.After], now)):
			done.left = append(done.left, c.Path)
		case c.Before != "":
			checkout = append(checkout, c.Path)
		case os.Remove(path) != nil:
			done.left = append(done.left, c.Path)
		default:
			removeEmptyParents(dir, filepath.Dir(path))
			done.restored++
		}
	}
	if err := m.Git.Index().CheckoutFiles(ctx, dir, checkout); err != nil {
		done.left = append(done.left, checkout...)
		return done, err
	}
	done.restored += len(checkout)
	return done, nil
}

// readBlobs reads the blobs of both sides of changes, by id.
func (m *Flow) readBlobs(ctx context.Context, changes []git.FileChange) (map[string][]byte, error) {
	var ids []string
	for _, c := range changes {
		for _, id := range []string{c.Before, c.After} {
			if id != "" {
				ids = append(ids, id)
			}
		}
	}
	objs, err := m.Git.ReadObjects(ctx, m.Repo.MainDir, ids...)
	if err != nil {
		return nil, err
	}
	blobs := make(map[string][]byte, len(objs))
	for _, o := range objs {
		blobs[o.Name] = o.Data
	}
	return blobs, nil
}

// fileContent is what git would store for the file at path: its bytes,
// or a symbolic link's target.
func fileContent(path string) ([]byte, error) {
	fi, err := os.Lstat(path)
	switch {
	case err != nil:
		return nil, err
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(path)
		return []byte(target), err
	case !fi.Mode().IsRegular():
		return nil, fs.ErrInvalid
	}
	return os.ReadFile(path)
}

// removeEmptyParents removes folder and its parents up to root while
// they are empty: the folders git made for a file that was put back.
func removeEmptyParents(root, folder string) {
	for folder != root && len(folder) > len(root) && os.Remove(folder) == nil {
		folder = filepath.Dir(folder)
	}
}
