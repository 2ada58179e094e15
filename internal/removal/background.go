package removal

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/git-wt/git-wt/internal/child"
	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/place"
	"github.com/git-wt/git-wt/internal/proc"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
)

// Deleting a removed task's folder in the background (RemoveOptions.
// Background). Once a removal has checked the folder in the trash and
// deleted git's admin entry, the branch and the record, nothing of the
// task is left but files nobody will look at again, and on a big
// worktree their deletion is most of what rm would still wait for (on
// git/git, 4,800 files, about a tenth of rm). rm hands them to a detached
// git-wt and returns.
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
			return 1 // left to doctor and gc, as a killed deleter's
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
// here. The task is gone by now; what cannot be deleted is leftover
// trash, said and left to gc.
func (m *Remover) deleteAside(rec *record.Record, trash string) {
	os.Remove(checkedMark(trash)) // the record that the mark was for is gone
	if m.handOver(rec, trash) {
		return
	}
	if err := discardMoved(trash); err != nil {
		m.Warn("removed %s, but could not delete its files, moved to %s (%v): git wt gc deletes them", rec.Path, trash, err)
	}
}

// handOver starts the deleter of the folder at trash, stamps it, and
// renames the folder after it; it reports whether the deleter has it.
func (m *Remover) handOver(rec *record.Record, trash string) bool {
	exe, err := os.Executable()
	if err != nil {
		return false
	}
	r, w, err := os.Pipe()
	if err != nil {
		return false
	}
	defer w.Close() // lets the deleter go on, whatever happened here
	prefix := filepath.Join(filepath.Dir(trash), rec.Slug)
	pid, err := child.Cmd{Path: exe, Args: []string{DeleteTrashCommand, prefix}, Dir: m.Repo.MainDir, Stdin: r}.Detach()
	r.Close()
	if err != nil {
		return false
	}
	named := prefix + "." + strconv.Itoa(pid)
	if proc.WriteChildStamp(place.StampOf(named), pid) != nil {
		return false // the deleter finds nothing to delete, and ends
	}
	if os.Rename(trash, named) != nil {
		os.Remove(place.StampOf(named))
		return false
	}
	return true
}
