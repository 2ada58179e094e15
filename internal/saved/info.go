package saved

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/git-wt/git-wt/internal/slug"
)

// Info is what a saved state's blob says of it: whose it was and why it
// went. It is read back from a ref that anyone who can push, or an agent
// that can write the git dir, may have written (SPEC §19): Parse checks
// it, and restore takes from it only the task id (whose slug must be the
// ref's), the branch name (checked as git checks one) and the base
// (resolved as new resolves --base); the path is shown (quoted), never
// written to, so a folder name git-wt itself accepted (any character)
// never makes its own save unrestorable.
type Info struct {
	Version int    `json:"version"`
	Task    string `json:"task"`
	Slug    string `json:"slug"`
	Branch  string `json:"branch"`
	Base    string `json:"base,omitempty"`
	Path    string `json:"path"`
	Why     string `json:"why"` // the command that removed it: "rm --force", "gc --force"
	By      By     `json:"by"`
	// Commits is the count of the branch's commits that were nowhere else.
	Commits int `json:"unmerged_commits"`
}

// By is who removed the task.
type By struct {
	User    string `json:"user"`
	Host    string `json:"host"`
	PID     int    `json:"pid"`
	Command string `json:"command"`
}

// infoVersion is the version Encode writes and Parse reads.
const infoVersion = 1

// MaxInfo bounds an info blob: a bigger one is corrupt, never read whole.
const MaxInfo = 64 << 10

// maxName bounds a branch or base name in an info blob.
const maxName = 4096

// Encode is the blob of info.
func (i Info) Encode() []byte {
	i.Version = infoVersion
	data, _ := json.Marshal(i) // strings and numbers: cannot fail
	return data
}

// ErrCorrupt is an info blob Parse refuses.
var ErrCorrupt = errors.New("corrupt saved state")

// Parse reads the info blob of the ref of the task refSlug, and refuses
// (ErrCorrupt) one that is too big, not this version, not of that slug,
// or whose task id, branch, base or path could not be what git-wt wrote.
func Parse(data []byte, refSlug string) (*Info, error) {
	if len(data) > MaxInfo {
		return nil, fmt.Errorf("%w: its info is %d bytes, more than %d", ErrCorrupt, len(data), MaxInfo)
	}
	var i Info
	if err := json.Unmarshal(data, &i); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if err := i.check(refSlug); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return &i, nil
}

// check holds the fields to what git-wt writes.
func (i *Info) check(refSlug string) error {
	switch {
	case i.Version != infoVersion:
		return fmt.Errorf("version %d, not %d", i.Version, infoVersion)
	case i.Slug != refSlug:
		return fmt.Errorf("it names the task %q but is kept under %q", i.Slug, refSlug)
	case i.Task == "" || !ofSlug(i.Task, refSlug):
		return fmt.Errorf("the task id %q does not have the slug %q", i.Task, refSlug)
	case !plainName(i.Branch):
		return fmt.Errorf("invalid branch name %q", i.Branch)
	case i.Base != "" && !plainName(i.Base):
		return fmt.Errorf("invalid base %q", i.Base)
	case i.Path != "" && (!filepath.IsAbs(i.Path) || filepath.Clean(i.Path) != i.Path):
		return fmt.Errorf("the path %q is not a clean absolute path", i.Path)
	case i.Commits < 0 || i.By.PID < 0:
		return errors.New("a negative count")
	}
	return nil // the texts: JSON's are UTF-8, and the blob's bound bounds them
}

// ofSlug says whether the task id task is kept under the slug s (its
// own, or the one with a hash a second task of the same slug gets).
func ofSlug(task, s string) bool {
	c := slug.Candidates(task)
	return slices.Contains(c[:], s)
}

// plainName is a name that can be a git ref's and an argument: not
// empty, not an option, no space or control character (git's own check
// of a branch name comes after, at restore).
func plainName(s string) bool {
	return s != "" && len(s) <= maxName && !strings.HasPrefix(s, "-") && utf8.ValidString(s) &&
		!strings.ContainsAny(s, " \t") && !hasControl(s)
}

// hasControl says whether s holds a C0 control character or DEL.
func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f })
}
