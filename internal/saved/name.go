// Package saved keeps what a removal would otherwise lose (SPEC §20,
// "Every removal can be undone"): before git-wt discards uncommitted
// changes, untracked files or commits found nowhere else, it saves the
// worktree's whole state as one commit under refs/git-wt/trash/, with a
// blob beside it that says whose it was and why it went. The user calls
// these "the trash" (git wt trash, git wt restore); they have nothing to
// do with the folders a removed worktree's files wait in for deletion
// (removal's .git-wt-trash, place.TrashDir).
package saved

import (
	"strconv"
	"strings"
	"time"
)

// Prefix is where saved states live: refs/git-wt/trash/<slug>/<stamp>
// is the saved commit, refs/git-wt/trash/<slug>/<stamp>.json its info
// blob. Under refs/git-wt/, so that no short branch name resolves to them.
const Prefix = "refs/git-wt/trash/"

// infoSuffix ends the name of the ref of a saved state's info blob.
const infoSuffix = ".json"

// stampLayout is a saved state's time in its ref name: UTC, to the
// second, without the ':' a ref name may not hold.
const stampLayout = "20060102T150405Z"

// Stamp is the ref name part of a state saved at t; n > 1 is the n-th
// state of one task saved in the same second (a suffix "-n").
func Stamp(t time.Time, n int) string {
	s := t.UTC().Format(stampLayout)
	if n > 1 {
		s += "-" + strconv.Itoa(n)
	}
	return s
}

// ParseStamp reads a stamp: the time and the same-second number (1 when
// there is no suffix). Only the form Stamp writes is a stamp.
func ParseStamp(s string) (time.Time, int, bool) {
	base, suffix, hasSuffix := strings.Cut(s, "-")
	if len(base) != len(stampLayout) {
		return time.Time{}, 0, false
	}
	t, err := time.Parse(stampLayout, base)
	if err != nil || t.Format(stampLayout) != base {
		return time.Time{}, 0, false
	}
	n := 1
	if hasSuffix {
		n, err = strconv.Atoi(suffix)
		if err != nil || n < 2 || strconv.Itoa(n) != suffix {
			return time.Time{}, 0, false
		}
	}
	return t, n, true
}

// CommitRef is the ref of the state of the task slug saved at stamp.
func CommitRef(slug, stamp string) string { return Prefix + slug + "/" + stamp }

// InfoRef is the ref of its info blob.
func InfoRef(slug, stamp string) string { return CommitRef(slug, stamp) + infoSuffix }

// ParseRef reads a ref under Prefix: the task's slug, the stamp, and
// whether it is the info blob's ref. Any other name under Prefix is not
// git-wt's (ok false) and is left alone.
func ParseRef(name string) (slug, stamp string, info, ok bool) {
	rest, found := strings.CutPrefix(name, Prefix)
	if !found {
		return "", "", false, false
	}
	slug, stamp, found = strings.Cut(rest, "/")
	if !found || slug == "" || strings.Contains(stamp, "/") {
		return "", "", false, false
	}
	stamp, info = strings.CutSuffix(stamp, infoSuffix)
	if _, _, valid := ParseStamp(stamp); !valid {
		return "", "", false, false
	}
	return slug, stamp, info, true
}
