// Package hooks holds the git hooks git-wt installs (SPEC §5) and puts them
// in place. The shim in this folder is embedded in the binary; `git wt
// install` writes it, once per hook name, into the hooks dir git really
// uses. A hook that was there before is moved aside and run by the shim,
// and `git wt uninstall` moves it back: rename keeps it byte for byte, with
// its mode.
package hooks

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/git-wt/git-wt/internal/exitcode"
)

//go:embed shim.sh
var shim string

// Names are the hooks git-wt installs.
var Names = []string{"post-checkout", "post-merge"}

// ChainedSuffix names the file that keeps a hook git-wt's hook replaced;
// git runs hooks by exact name only, so it never runs that file itself.
const ChainedSuffix = ".git-wt-chained"

// marker starts the second line of every git-wt hook, of any version.
const marker = "\n# git-wt-hook "

// Script is the hook script git-wt installs as name.
func Script(name string) []byte {
	return []byte(strings.ReplaceAll(shim, "@NAME@", name))
}

// Line is the one line of sh that runs git-wt's part of hook name from a
// hook that someone else manages (husky, lefthook). It never fails, so it
// does not change that hook's exit status.
func Line(name string) string {
	return `command -v git-wt >/dev/null 2>&1 && git-wt hook ` + name + ` "$@" || :`
}

// Change is what Install or Uninstall did to one hook.
type Change struct {
	Name   string
	Path   string
	Action string
}

// The actions of a Change.
const (
	Installed = "installed"  // written where there was no hook
	Chained   = "chained"    // written; the hook that was there runs after it
	Updated   = "updated"    // an older git-wt hook replaced
	Unchanged = "unchanged"  // already installed
	Removed   = "removed"    // git-wt's hook deleted
	Restored  = "restored"   // git-wt's hook deleted, the chained hook back in place
	Absent    = "absent"     // nothing to uninstall
	Foreign   = "not-git-wt" // someone else's hook: left alone
)

// Install writes git-wt's hooks into dir. A hook of someone else's there
// is moved aside to run after git-wt's part; a current git-wt hook is left
// as it is, so installing twice changes nothing.
func Install(dir string) ([]Change, error) {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, fmt.Errorf("cannot create the hooks dir %s: %w", dir, err)
	}
	var changes []Change
	for _, name := range Names {
		c, err := install(dir, name)
		if err != nil {
			return changes, err
		}
		changes = append(changes, c)
	}
	return changes, nil
}

func install(dir, name string) (Change, error) {
	path := filepath.Join(dir, name)
	c := Change{Name: name, Path: path, Action: Installed}
	want := Script(name)
	ours, exists, err := inspect(path)
	switch {
	case err != nil:
		return c, err
	case ours:
		if have, err := os.ReadFile(path); err == nil && bytes.Equal(have, want) {
			c.Action = Unchanged
			return c, nil
		}
		c.Action = Updated
	case exists:
		if _, err := os.Lstat(path + ChainedSuffix); err == nil {
			return c, exitcode.Refusedf("%s is not git-wt's hook and %s (kept by an earlier git wt install) exists too: move one of them away, then run git wt install again", path, path+ChainedSuffix)
		}
		c.Action = Chained
	}
	tmp, err := writeTemp(dir, name, want)
	if err != nil {
		return c, err
	}
	if c.Action == Chained {
		if err := os.Rename(path, path+ChainedSuffix); err != nil {
			os.Remove(tmp)
			return c, fmt.Errorf("cannot move %s aside: %w", path, err)
		}
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return c, fmt.Errorf("cannot install %s: %w", path, err)
	}
	return c, nil
}

// writeTemp writes an executable file beside its final place, so that the
// hook appears whole or not at all.
func writeTemp(dir, name string, data []byte) (string, error) {
	tmp := filepath.Join(dir, "."+name+".git-wt-"+strconv.Itoa(os.Getpid()))
	err := os.WriteFile(tmp, data, 0o755)
	if err == nil {
		err = os.Chmod(tmp, 0o755) // whatever the umask says: git runs only executable hooks
	}
	if err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("cannot write a hook in %s: %w", dir, err)
	}
	return tmp, nil
}

// Uninstall removes git-wt's hooks from dir and puts back the hooks they
// had chained. Someone else's hook is left alone.
func Uninstall(dir string) ([]Change, error) {
	var changes []Change
	for _, name := range Names {
		path := filepath.Join(dir, name)
		c := Change{Name: name, Path: path, Action: Absent}
		ours, exists, err := inspect(path)
		if err != nil {
			return changes, err
		}
		_, chainedErr := os.Lstat(path + ChainedSuffix)
		chained := chainedErr == nil
		switch {
		case (ours || !exists) && chained:
			// One rename replaces git-wt's hook with the original.
			if err := os.Rename(path+ChainedSuffix, path); err != nil {
				return changes, fmt.Errorf("cannot restore %s: %w", path, err)
			}
			c.Action = Restored
		case ours:
			if err := os.Remove(path); err != nil {
				return changes, fmt.Errorf("cannot remove %s: %w", path, err)
			}
			c.Action = Removed
		case exists:
			c.Action = Foreign
		}
		changes = append(changes, c)
	}
	return changes, nil
}

// RunsUnderGitWt reports whether the hook at path does anything when
// git-wt itself runs it (GIT_WT_INTERNAL=1): someone else's hook does, and
// git-wt's own does only when it chains one.
func RunsUnderGitWt(path string) bool {
	ours, exists, err := inspect(path)
	if err != nil || !exists {
		return err != nil
	}
	if !ours {
		return true
	}
	_, err = os.Lstat(path + ChainedSuffix)
	return err == nil
}

// inspect says whether a hook file exists and whether it is git-wt's. A
// symlink is never git-wt's: git-wt writes plain files.
func inspect(path string) (ours, exists bool, err error) {
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, false, nil
	}
	if err != nil {
		return false, false, err
	}
	if !st.Mode().IsRegular() {
		return false, true, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return false, true, err
	}
	defer f.Close()
	head := make([]byte, 256)
	n, _ := f.Read(head)
	return bytes.Contains(head[:n], []byte(marker)), true, nil
}
