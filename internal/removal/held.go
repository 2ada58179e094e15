package removal

import (
	"fmt"
	"strings"

	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/proc"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/text"
)

// holdersIn is proc.HoldersIn; the tests put a fake in its place.
var holdersIn = proc.HoldersIn

// whoHolds names the processes that have a file in the folder at dir open
// (SPEC §21: a removal Windows refuses says which program, where the
// system can tell): "process 1234 (code.exe) holds a file in it open";
// "" where the system cannot tell, or names nobody.
func whoHolds(dir string) string {
	users, err := holdersIn(dir)
	if err != nil || len(users) == 0 {
		return ""
	}
	const named = 2 // a message names a few, not a list
	var names []string
	for _, u := range users[:min(len(users), named)] {
		names = append(names, fmt.Sprintf("%d (%s)", u.PID, u.Name))
	}
	switch {
	case len(users) == 1:
		return "process " + names[0] + " holds a file in it open"
	case len(users) > named:
		return fmt.Sprintf("processes %s and %d more hold files in it open", strings.Join(names, ", "), len(users)-named)
	}
	return "processes " + strings.Join(names, " and ") + " hold files in it open"
}

// heldRefusal says why rm kept rec: Windows refused to move its folder
// (err), as a program holds a file in it open; which one, where the
// system can tell.
func heldRefusal(rec *record.Record, err error) string {
	who := whoHolds(rec.Path)
	if who == "" {
		who = "a program holds a file in it open"
	}
	return fmt.Sprintf("%s is in use: %s (%v), so nothing was changed: close it (an editor, a shell, a dev server), then run git wt rm %s again", rec.Path, who, err, text.ShellQuote(rec.Task))
}

// heldError is err, a rename or delete of the folder at dir (or of a
// file in it), with the processes that made Windows refuse it named when
// that is why it failed (fsutil.Held) and the system can tell.
func heldError(dir string, err error) error {
	if err == nil || !fsutil.Held(err) {
		return err
	}
	if who := whoHolds(dir); who != "" {
		return fmt.Errorf("%w: %s", err, who)
	}
	return err
}
