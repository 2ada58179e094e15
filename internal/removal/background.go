package removal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/git-wt/git-wt/internal/child"
	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/place"
	"github.com/git-wt/git-wt/internal/proc"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/text"
)

// Deleting a removed task's folder in the background (RemoveOptions.
// Background). Once a removal has checked the folder in the trash and
// deleted git's admin entry, the branch and the record, nothing of the
// task is left but files nobody will look at again, and on a big
// worktree their deletion is most of what rm would still wait for (on
// git/git, 4,800 files, about a tenth of rm). rm hands them to a detached
// git-wt and returns once it ends, or after wt.rmWait; a deleter that
// fails by then writes why beside its stamp (place.FailureOf), and rm
// fails with it (SPEC §19 "Removal that cannot delete"); one that fails
// later leaves the note for doctor, and its folder for gc.
//
// The folder is named after the process that deletes it, as the trash
// names every folder after its removal's process, and a stamp beside it
// (place.StampOf) proves whether that process still runs: rm starts the
// deleter, writes its stamp, renames the folder <slug>.<rm's pid> to
// <slug>.<deleter's pid>, and only then lets it go on (it reads its input
// to the end first). While it runs, doctor and gc leave the folder to it;
// a deleter that was killed leaves a folder whose stamp proves it dead,
// which doctor reports as leftover trash and gc deletes at once (SPEC §7's
// orphans). A folder rm could not hand over it deletes itself
// (deleteAside); the first process of a PID namespace does not hand over
// at all (mayHandOver).

// DeleteTrashCommand is the hidden first argument that makes git-wt the
// deleter of a removed task's folder: `git-wt __delete-trash TRASH/SLUG`
// deletes TRASH/SLUG.<its own pid> once its input ends.
const DeleteTrashCommand = "__delete-trash"

// DeleteTrash is the deleter's whole run. It deletes only a folder in a
// trash folder, named after itself: what rm handed it.
func DeleteTrash(args []string) int {
	if len(args) != 1 || !strings.HasPrefix(filepath.Base(filepath.Dir(args[0])), place.TrashDir) {
		fmt.Fprintf(os.Stderr, "git-wt: %s is for git-wt's own use\n", DeleteTrashCommand)
		return 2
	}
	io.Copy(io.Discard, os.Stdin) // until rm has named the folder after this process, or died
	task.Checkpoint(context.Background(), "trash:deleting")
	folder := args[0] + "." + strconv.Itoa(os.Getpid())
	if _, err := os.Lstat(folder); err == nil {
		if err := fsutil.RemoveAll(folder); err != nil {
			err = heldError(folder, err)
			// Left to doctor and gc, as a killed deleter's, with why:
			// rm, if it still waits, and doctor say it. A new file only:
			// never through a link someone put there first.
			if f, ferr := os.OpenFile(place.FailureOf(folder), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666); ferr == nil {
				f.WriteString(err.Error())
				f.Close()
			}
			return 1
		}
	} // else rm kept it: it deletes it itself, or doctor finds it
	os.Remove(place.StampOf(folder))
	os.Remove(filepath.Dir(folder)) // only if empty
	return 0
}

// mayHandOver says whether a removal may leave its files to a deleter: not
// in the first process of a PID namespace, whose end kills the deleter
// with every other process there. That one deletes them as a removal
// without Background does.
func mayHandOver() bool { return os.Getpid() != 1 }

// deleteAside deletes the folder a finished removal of rec left in the
// trash: in the background when it can be handed to a deleter, else
// here. The task is gone by now; it returns what waits for the deleter
// (waitDeleter), or the error of a deletion here.
func (m *Remover) deleteAside(rec *record.Record, trash string) func(wait bool) error {
	os.Remove(checkedMark(trash)) // the record that the mark was for is gone
	if d := m.handOver(rec, trash); d != nil {
		return func(wait bool) error { return m.waitDeleter(rec, d, wait) }
	}
	err := discardMoved(trash)
	return func(bool) error { return filesLeft(rec, trash, err) }
}

// deleter is a detached deleter of a removed task's folder: done reaches
// its end when the deleter ends.
type deleter struct {
	folder string
	done   *os.File
}

// waitDeleter waits for the deleter d until it ends, or (unless wait)
// until wt.rmWait has passed, and returns why it could not delete the
// folder, if it said so by then (SPEC §19 "Removal that cannot delete").
// A deleter still deleting then is left to it: doctor reports a failure
// it has later.
func (m *Remover) waitDeleter(rec *record.Record, d *deleter, wait bool) error {
	defer d.done.Close()
	if !wait {
		d.done.SetReadDeadline(time.Now().Add(m.Settings.RmWait))
	}
	if _, err := d.done.Read(make([]byte, 1)); err != io.EOF {
		return nil // still deleting
	}
	reason, err := place.ReadNote(place.FailureOf(d.folder))
	if err != nil {
		return nil // deleted
	}
	os.Rename(place.FailureOf(d.folder), place.FailureOf(d.folder)+place.ReportedSuffix) // said here: the next command does not
	return filesLeft(rec, d.folder, errors.New(text.Terminal(reason)))
}

// ReportFailedDeletions says, once, what a deleter that failed after its
// rm had returned could not delete (SPEC §19): the next command in the
// repository finds its note in the base dir's trash, says it, and marks
// it said (of two commands at once, the one whose rename wins). doctor
// goes on reporting the folder, and gc deleting it, as leftover trash.
func ReportFailedDeletions(m *task.Manager) {
	trash := m.Place.OwnFolder(m.Settings.BaseDir, place.TrashDir)
	entries, _ := os.ReadDir(trash)
	for _, entry := range entries {
		if !strings.HasSuffix(entry.Name(), place.FailedSuffix) {
			continue
		}
		note := filepath.Join(trash, entry.Name())
		reason, err := place.ReadNote(note)
		if err != nil || os.Rename(note, note+place.ReportedSuffix) != nil {
			continue
		}
		m.Warn("an earlier git wt rm could not delete %s: %s; git wt gc deletes it once it can be",
			strings.TrimSuffix(note, place.FailedSuffix), text.Terminal(reason))
	}
}

// filesLeft is the error of a removal of rec whose files, moved to
// folder, could not be deleted (err): exit 1, of kind io.
func filesLeft(rec *record.Record, folder string, err error) error {
	if err == nil {
		return nil
	}
	return &exitcode.Error{Code: exitcode.Failed, Kind: exitcode.KindIO, Task: rec.Task, Path: folder,
		Err: fmt.Errorf("removed %s, but could not delete its files, left in %s: %v; git wt gc deletes them once they can be", rec.Path, folder, err)}
}

// handOver starts the deleter of the folder at trash, stamps it, and
// renames the folder after it; it returns the deleter, nil when it could
// not hand the folder over. The deleter works from / and holds nothing
// outside the trash: a removal's files are never what keeps a mount busy.
func (m *Remover) handOver(rec *record.Record, trash string) *deleter {
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil
	}
	defer w.Close() // lets the deleter go on, whatever happened here
	done, ended, err := os.Pipe()
	if err != nil {
		r.Close()
		return nil
	}
	prefix := filepath.Join(filepath.Dir(trash), rec.Slug)
	pid, err := child.Cmd{Path: exe, Args: []string{DeleteTrashCommand, prefix}, Dir: "/", Stdin: r, Stdout: ended}.Detach()
	r.Close()
	ended.Close() // the deleter's own copy is the last: done reads its end
	d := &deleter{folder: prefix + "." + strconv.Itoa(pid), done: done}
	switch {
	case err != nil:
	case proc.WriteChildStamp(place.StampOf(d.folder), pid) != nil:
		// the deleter finds nothing to delete, and ends
	case fsutil.Rename(trash, d.folder) != nil:
		os.Remove(place.StampOf(d.folder))
	default:
		return d
	}
	done.Close()
	return nil
}
