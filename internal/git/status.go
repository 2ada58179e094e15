package git

import (
	"context"
	"strconv"
	"strings"
)

// ReadOnly is the environment for git commands that only look: git must
// not take the index lock to refresh stat data behind the user's back.
var ReadOnly = []string{"GIT_OPTIONAL_LOCKS=0"}

// StatusOptions choose what `git status` looks at. They are explicit, so
// that the user's status.* settings (which can hide untracked files, say)
// change nothing.
type StatusOptions struct {
	// Untracked is --untracked-files: "normal" when empty, or "all".
	Untracked string
	// IgnoreSubmodules is --ignore-submodules: "none" (look into them)
	// when empty (a read-only runner's: "dirty"), or "dirty" or "all".
	IgnoreSubmodules string
	// Branch asks what is checked out (--branch): Status.OID and
	// Status.Branch.
	Branch bool
	// With Branch, CountBranch and CountBase count the commits of the
	// local branch CountBranch ahead of and behind the ref CountBase, in
	// the same process: the base is passed as the branch's upstream for
	// this command alone (branch.B.remote=. and branch.B.merge=BASE, in
	// Cmd.Config: a branch name may hold "=", where -c would split it),
	// which writes no config. Without them git counts nothing
	// (--no-ahead-behind), not even against the branch's own upstream.
	CountBranch, CountBase string
	// Env adds variables to git's environment (GIT_INDEX_FILE, say).
	Env []string
	// Refresh lets git write back the stat data it refreshed (git's
	// optional index lock: taken only when free, never waited for), as a
	// plain `git status` does. Files written in the second their index was
	// written are read again by every status until someone does: only for
	// a worktree no process works in, where the lock disturbs nobody.
	Refresh bool
}

// Status is what `git status --porcelain=v2` says of a worktree.
type Status struct {
	Entries []StatusEntry
	// With StatusOptions.Branch: the commit checked out as git prints it
	// ("(initial)" on an unborn branch), and the branch checked out ("" when
	// HEAD is detached).
	OID, Branch string
	// With CountBranch and CountBase, when that branch is checked out.
	HasAheadBehind bool
	Ahead, Behind  int
}

// StatusEntry is one changed, unmerged or untracked path.
type StatusEntry struct {
	// Kind is the entry's first field: '1' (changed), '2' (renamed or
	// copied), 'u' (unmerged), '?' (untracked) or '!' (ignored).
	Kind byte
	// XY is the staged and unstaged status ("M.", ".D", "UU"...); empty
	// for untracked and ignored paths.
	XY string
	// Submodule is "N..." for a path that is not a submodule, else
	// "S<c><m><u>"; empty for untracked and ignored paths.
	Submodule string
	Path      string
	OrigPath  string // for Kind '2': the path it was renamed or copied from
}

// Status runs git status in the worktree at dir (see Cmd.InWorktree),
// without taking the index lock unless o.Refresh.
//
// A read-only runner (Runner.ReadOnly: another repository) looks into
// submodules only for their commit (--ignore-submodules=dirty unless told
// otherwise): to see a submodule's own changes, git runs git in it, with
// that repository's config — one nested in a worktree is whoever made it's,
// and its filter drivers would run.
func (r *Runner) Status(ctx context.Context, dir string, o StatusOptions) (Status, error) {
	if r.readOnly != nil && o.IgnoreSubmodules == "" {
		o.IgnoreSubmodules = "dirty"
	}
	env := append(append([]string(nil), ReadOnly...), o.Env...)
	if o.Refresh {
		env = env[len(ReadOnly):]
	}
	out, err := r.Exec(ctx, Cmd{Dir: dir, InWorktree: true, Env: env, Config: o.upstream(), Args: statusArgs(o),
		entersNested: o.IgnoreSubmodules == "" || o.IgnoreSubmodules == "none"})
	if err != nil {
		return Status{}, err
	}
	return parseStatus(string(out), o), nil
}

func statusArgs(o StatusOptions) []string {
	untracked, subs := o.Untracked, o.IgnoreSubmodules
	if untracked == "" {
		untracked = "normal"
	}
	if subs == "" {
		subs = "none"
	}
	args := []string{"status", "--porcelain=v2", "-z", "--no-renames", "--untracked-files=" + untracked, "--ignore-submodules=" + subs}
	if o.Branch {
		args = append(args, "--branch")
		if o.counts() {
			args = append(args, "--ahead-behind")
		} else {
			args = append(args, "--no-ahead-behind")
		}
	}
	return args
}

// counts says whether the status counts CountBranch against CountBase.
func (o StatusOptions) counts() bool {
	return o.Branch && o.CountBranch != "" && o.CountBase != ""
}

// upstream is the setting that makes CountBase the upstream of
// CountBranch, when the status counts.
func (o StatusOptions) upstream() []ConfigPair {
	if !o.counts() {
		return nil
	}
	return []ConfigPair{{"branch." + o.CountBranch + ".remote", "."}, {"branch." + o.CountBranch + ".merge", o.CountBase}}
}

// parseStatus reads the NUL-terminated entries of `git status
// --porcelain=v2 -z`. A path is the entry's last field and may hold
// spaces and newlines; a rename's original path is the next entry.
func parseStatus(out string, o StatusOptions) Status {
	var st Status
	fields := strings.Split(out, "\x00")
	for i := 0; i < len(fields); i++ {
		entry := fields[i]
		switch {
		case entry == "":
		case strings.HasPrefix(entry, "# branch.oid "):
			st.OID = strings.TrimPrefix(entry, "# branch.oid ")
		case strings.HasPrefix(entry, "# branch.head "):
			if head := strings.TrimPrefix(entry, "# branch.head "); head != "(detached)" {
				st.Branch = head
			}
		case strings.HasPrefix(entry, "# branch.ab "):
			// "+A -B", for the branch checked out: only the one
			// counted against CountBase is wanted.
			f := strings.Fields(strings.TrimPrefix(entry, "# branch.ab "))
			if len(f) == 2 && o.CountBranch != "" && st.Branch == o.CountBranch {
				st.Ahead, _ = strconv.Atoi(strings.TrimPrefix(f[0], "+"))
				st.Behind, _ = strconv.Atoi(strings.TrimPrefix(f[1], "-"))
				st.HasAheadBehind = true
			}
		case strings.HasPrefix(entry, "# "):
		default:
			e := parseEntry(entry)
			if e.Kind == '2' && i+1 < len(fields) {
				i++
				e.OrigPath = fields[i]
			}
			st.Entries = append(st.Entries, e)
		}
	}
	return st
}

// parseEntry reads one entry: its kind, and for changed, renamed and
// unmerged paths the fields before the path, whose count is fixed.
func parseEntry(entry string) StatusEntry {
	e := StatusEntry{Kind: entry[0]}
	before := 0 // fields between the kind and the path
	switch e.Kind {
	case '1':
		before = 7 // XY sub mH mI mW hH hI
	case '2':
		before = 8 // ... and Xscore
	case 'u':
		before = 9 // XY sub m1 m2 m3 mW h1 h2 h3
	default: // '?', '!'
		e.Path = strings.TrimPrefix(entry[1:], " ")
		return e
	}
	f := strings.SplitN(entry, " ", before+2)
	if len(f) < before+2 {
		e.Path = entry // not as documented: keep it, it still counts
		return e
	}
	e.XY, e.Submodule, e.Path = f[1], f[2], f[before+1]
	return e
}

// AheadBehind counts, in the repository at dir, the commits of head that
// base lacks (ahead) and those of base that head lacks (behind).
func (r *Runner) AheadBehind(ctx context.Context, dir, base, head string) (ahead, behind int, err error) {
	out, err := r.Exec(ctx, Cmd{Dir: dir, Env: ReadOnly, Args: []string{
		"rev-list", "--left-right", "--count", base + "..." + head, "--",
	}})
	if err != nil {
		return 0, 0, err
	}
	f := strings.Fields(string(out))
	if len(f) != 2 {
		return 0, 0, nil
	}
	behind, _ = strconv.Atoi(f[0])
	ahead, _ = strconv.Atoi(f[1])
	return ahead, behind, nil
}
