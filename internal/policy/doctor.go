package policy

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/leftover"
	"github.com/git-wt/git-wt/internal/place"
	"github.com/git-wt/git-wt/internal/proc"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/text"
)

// Diagnose finds every disagreement between records, worktrees, branches
// and git's admin entries.
func (m *Doctor) Diagnose(ctx context.Context) (*task.Diagnosis, error) {
	// An admin entry git cannot read stops every git worktree command:
	// until RepairAdminEntries fixes it, it is all there is to report.
	if broken := m.BrokenAdminEntries(); len(broken) > 0 {
		return &task.Diagnosis{Problems: broken}, nil
	}
	// Branches and worktrees are read before the records: new writes a
	// record before (or with) its branch and worktree, so a branch or a
	// worktree seen here has its record in the later read, and a creation
	// under way is never taken for debris.
	branches, err := m.taskBranches(ctx)
	if err != nil {
		return nil, err
	}
	wts, err := m.Git.Worktrees(ctx, m.Repo.MainDir)
	if err != nil {
		return nil, err
	}
	task.Checkpoint(ctx, "doctor:worktrees")
	// Doctor reads every record blob from git, not the cache: a record
	// whose blob git has lost must show up here.
	store := *m.Store
	store.Cache = ""
	entries, err := store.All(ctx)
	if err != nil {
		return nil, err
	}
	task.Checkpoint(ctx, "doctor:records")
	var problems []*task.Problem
	byPath := map[string]bool{}
	trashDirs := map[string]bool{m.Settings.BaseDir: true}
	removing := map[string]bool{} // trash folders of stuck removals
	for i := range entries {
		e := &entries[i]
		if e.Record != nil {
			byPath[fsutil.PathKey(e.Record.Path)] = true
			trashDirs[filepath.Dir(e.Record.Path)] = true
			m.RemovalTrash(e.Record, removing)
		}
		if p := m.diagnoseRecord(ctx, e, wts); p != nil {
			problems = append(problems, p)
		}
	}
	known := len(byPath)
	pooled := m.pool.Owns(ctx)
	for i, wt := range wts {
		if i == 0 || wt.Bare || byPath[fsutil.PathKey(wt.Path)] {
			continue
		}
		known++ // pool entries too: they count toward the prune guard
		if m.Place.InPool(wt.Path) || pooled(wt.Path) {
			continue // the pool diagnoses its own, in an earlier base dir's pool folder too
		}
		if p := m.diagnoseUnrecorded(wt); p != nil {
			problems = append(problems, p)
		}
	}
	problems = append(problems, m.orphanStamps(wts)...)
	problems = append(problems, m.pool.Diagnose(ctx, wts)...)
	problems = append(problems, m.LegacyProblems(entries, store.LegacyRefs())...)
	problems = append(problems, m.GitLeftovers(entries, wts)...)
	problems = append(problems, m.UnlistedAdminEntries(func() []string { return m.folders(ctx, entries) })...)
	problems = append(problems, m.StaleRefLocks()...)
	problems = append(problems, m.StaleGCLocks()...)
	problems = append(problems, m.leftoverBranches(ctx, branches, entries)...)
	problems = append(problems, m.leftoverTrash(ctx, &store, trashDirs, removing)...)
	return &task.Diagnosis{Problems: problems, Worktrees: known}, nil
}

// folders are the folders of the tasks and the pool entries: each may
// name an admin entry that git no longer lists.
func (m *Doctor) folders(ctx context.Context, entries []record.Entry) []string {
	var out []string
	for _, e := range entries {
		if e.Record != nil {
			out = append(out, e.Record.Path)
		}
	}
	items, _ := m.Store.Pool(ctx, m.Repo.CommonDir)
	for _, it := range items {
		if it.Entry != nil {
			out = append(out, it.Entry.Path)
		}
	}
	return out
}

// diagnoseRecord checks one record against its worktree.
func (m *Doctor) diagnoseRecord(ctx context.Context, e *record.Entry, wts []git.Worktree) *task.Problem {
	if e.Err != nil {
		return m.CorruptRecordProblem(e)
	}
	rec := e.Record
	p := &task.Problem{Task: rec.Task, Path: rec.Path, Branch: rec.Branch, Entry: e, Age: time.Since(rec.CreatedAt)}
	alive := proc.Alive
	if rec.State.InFlight() {
		var err error
		if alive, err = m.JudgeOwner(ctx, e); errors.Is(err, task.ErrMovedOn) {
			return nil // read while its process still worked: that one finished
		}
	}
	switch rec.State {
	case record.Creating, record.Initializing:
		if alive == proc.Alive {
			return nil // being created right now
		}
		p.Age = ownerAge(rec, alive)
		p.Kind, p.Fix = task.StuckCreation, "roll the creation back, or mark it failed if its worktree holds files the checkout did not write"
		p.Detail = fmt.Sprintf("creation by process %d on %s %s in state %s", rec.CreatorPID, rec.CreatorHost, m.Stopped(rec, alive), rec.State)
		if rec.Init.Rerun {
			p.Kind, p.Fix = task.InterruptedInit, "mark the task failed (git wt init runs its setup again)"
			p.Detail = fmt.Sprintf("git wt init by process %d on %s %s", rec.CreatorPID, rec.CreatorHost, m.Stopped(rec, alive))
		}
		p.FixWith = func(ctx context.Context, _ bool) error { return m.RepairStuckCreation(ctx, e) }
		p.FixDirty = true
		return p
	case record.Removing:
		return m.DiagnoseRemoval(e, p, alive)
	case record.Merging:
		return m.interrupted(p, alive, task.InterruptedMerge, "a merge", "finish its cleanup if the merge landed, else set the task back to active",
			func(ctx context.Context) error { return m.RepairMerge(ctx, e, wts) })
	case record.Syncing:
		return m.interrupted(p, alive, task.InterruptedSync, "a sync", "bring the files to the branch if it moved, else set the task back as it was",
			func(ctx context.Context) error { return m.RepairSync(ctx, e) })
	}
	st, err := os.Lstat(rec.Path)
	if err != nil {
		// An orphan like any other (acode FR-040: cleanup respects the age
		// threshold): the folder may be away for a moment (a mount, a move
		// and back), so the record goes once wt.orphanGrace has passed
		// since it last changed.
		p.Kind, p.Fix, p.Missing, p.Age = task.MissingWorktree, "drop the record and git's admin entry; delete the branch if that loses no commits", true, task.SinceLastChange(rec)
		p.Detail = "the worktree folder is gone"
		p.FixWith = func(ctx context.Context, f bool) error { return m.RemoveOrphan(ctx, e, false) }
		return p
	}
	if st.IsDir() && task.FindWorktree(wts, rec.Path) == nil {
		p.Kind, p.Fix, p.FixDirty, p.Age = task.UnregisteredFolder, "delete the folder and the record; keep the branch if it has unique commits", true, -1
		p.Detail = "git has no admin entry for this worktree any more (pruned?)"
		p.FixWith = func(ctx context.Context, f bool) error { return m.RemoveOrphan(ctx, e, f) }
		return p
	}
	if _, err := git.ProveLinked(m.Repo.CommonDir, rec.Path, rec.Path); err != nil && st.IsDir() {
		// Written by something in the task (SPEC §19): git-wt runs no
		// git there until a person puts the files back.
		p.Kind, p.Age = task.ChangedGitFiles, -1
		p.Detail = fmt.Sprintf("%v: git-wt runs no git there (its status counts as dirty) until they are put back: git worktree repair %s for the .git file, ../.. in the entry's commondir", err, text.ShellQuote(rec.Path))
		return p
	}
	if lp := m.DiagnoseLock(e, task.FindWorktree(wts, rec.Path), p); lp != nil {
		return lp
	}
	return diagnoseOperation(rec, p)
}

// interrupted is the problem of a task left mid-operation (what) by a
// process that died, fixed by repair; none while its owner lives, and
// one that waits out wt.orphanGrace while its owner cannot be seen.
func (m *Doctor) interrupted(p *task.Problem, alive proc.Liveness, kind task.Kind, what, fix string, repair func(context.Context) error) *task.Problem {
	if alive == proc.Alive {
		return nil
	}
	rec := p.Entry.Record
	p.Kind, p.Age, p.Fix = kind, ownerAge(rec, alive), fix
	p.Detail = fmt.Sprintf("%s by process %d on %s %s", what, rec.CreatorPID, rec.CreatorHost, m.Stopped(rec, alive))
	p.FixWith = func(ctx context.Context, _ bool) error { return repair(ctx) }
	return p
}

// ownerAge is the age a problem of a task whose owner is not alive is
// repaired at: any (-1) when the owner is proven dead; else (SPEC §15:
// unknown is never dead) the time since the owner last signed the
// record, which must pass wt.orphanGrace.
func ownerAge(rec *record.Record, alive proc.Liveness) time.Duration {
	if alive == proc.Dead {
		return -1
	}
	return task.Silence(rec.Owner(), rec.CreatedAt)
}

// diagnoseOperation reports a task whose worktree git stopped in the
// middle of a merge or a rebase: a person's, or one a killed command left.
// Only a person can say whether to finish it or abort it.
func diagnoseOperation(rec *record.Record, p *task.Problem) *task.Problem {
	_, gitDir, err := git.AdminDir(rec.Path)
	if err != nil {
		return nil
	}
	op := git.InProgressIn(gitDir)
	if op == "" {
		return nil
	}
	p.Kind, p.Age = task.OperationStopped, -1
	p.Detail = fmt.Sprintf("git stopped in the middle of %s here: finish it or abort it (see git -C %s status); sync and merge skip the task until then", op, text.ShellQuote(rec.Path))
	return p
}

// diagnoseUnrecorded reports a worktree that has no record.
func (m *Doctor) diagnoseUnrecorded(wt git.Worktree) *task.Problem {
	if pid, ok := m.mergeWorktreePID(wt.Path); ok {
		age, alive := pidNamedAge(pid, wt.Path, place.StampOf(wt.Path))
		if alive {
			return nil // a merge is using it right now
		}
		return &task.Problem{Kind: task.LeftoverMerge, Path: wt.Path, Branch: strings.TrimPrefix(wt.Branch, "refs/heads/"), Age: age,
			Detail: "git wt merge was stopped while it used this temporary worktree; the branch it merged into is unchanged",
			Fix:    "remove the temporary worktree",
			FixWith: func(ctx context.Context, _ bool) error {
				err := m.DropWorktree(ctx, wt.Path)
				if err == nil {
					os.Remove(place.StampOf(wt.Path))
				}
				os.Remove(filepath.Dir(wt.Path)) // the folder of temporary worktrees, only if empty
				return err
			}}
	}
	if _, err := os.Lstat(wt.Path); wt.Prunable || err != nil {
		p := &task.Problem{Kind: task.PrunableEntry, Path: wt.Path, Branch: strings.TrimPrefix(wt.Branch, "refs/heads/"), Age: -1, Missing: true,
			Detail: "git's admin entry points at a folder that is gone", Fix: "prune the admin entry"}
		if wt.Locked {
			p.Fix, p.Detail = "", p.Detail+"; it is locked ("+wt.LockReason+"): git worktree unlock it first"
			return p
		}
		p.FixWith = func(ctx context.Context, _ bool) error { return m.PruneEntry(ctx, wt.Path) }
		return p
	}
	p := &task.Problem{Kind: task.ForeignWorktree, Path: wt.Path, Branch: strings.TrimPrefix(wt.Branch, "refs/heads/"), Age: -1,
		Detail: "made by plain git or another tool (no record)", Fix: "adopt it: write a record (state adopted)",
		FixWith: func(ctx context.Context, _ bool) error {
			_, err := m.Adopt(ctx, wt, "", "found by doctor")
			return err
		}}
	if wt.Branch == "" {
		p.Detail += "; its HEAD is detached, and git-wt adopts worktrees on a branch only"
		p.Fix, p.FixWith = "", nil
	}
	return p
}

// mergeWorktreePID tells a merge's temporary worktree by its path,
// <base dir>/<merge folder>/merge-<pid> (this repository's folder, or an
// earlier git-wt's plain one: doctor asks it of this repository's
// worktrees only), and returns the pid.
func (m *Doctor) mergeWorktreePID(path string) (int, bool) {
	if !slices.Contains(m.mergeTmpDirs(), filepath.Dir(path)) {
		return 0, false
	}
	// merge-<pid>-<random>, or an earlier git-wt's merge-<pid>
	name, _, _ := strings.Cut(strings.TrimPrefix(filepath.Base(path), "merge-"), "-")
	pid, err := strconv.Atoi(name)
	return pid, err == nil
}

// mergeTmpDirs are the folders where this repository's merges make their
// temporary worktrees: its own, and an earlier git-wt's plain one, under
// the base dir as configured and as resolved (it may be a symlink).
func (m *Doctor) mergeTmpDirs() []string {
	baseDir := m.Settings.BaseDir
	bases := []string{baseDir}
	if real, err := filepath.EvalSymlinks(baseDir); err == nil && real != baseDir {
		bases = append(bases, real)
	}
	var dirs []string
	for _, b := range bases {
		dirs = append(dirs, m.Place.OwnFolder(b, place.MergeTmpDir), m.Place.PlainFolder(b, place.MergeTmpDir))
	}
	return dirs
}

// orphanStamps finds the stamps of merges that died before git listed
// their temporary worktree: debris once their merge is not alive. The
// merge was stopped before it made the worktree (no folder at the stamp's
// path), or while git made it (a folder, and git's admin entry of it
// locked "initializing" without its gitdir file): git lists neither, and
// its prune keeps such an entry for its lock.
func (m *Doctor) orphanStamps(wts []git.Worktree) []*task.Problem {
	var problems []*task.Problem
	for _, dir := range m.mergeTmpDirs() {
		stamps, _ := filepath.Glob(filepath.Join(dir, "merge-*"+place.StampSuffix))
		for _, stamp := range stamps {
			path := strings.TrimSuffix(stamp, place.StampSuffix)
			pid, ok := m.mergeWorktreePID(path)
			if !ok || task.FindWorktree(wts, path) != nil {
				continue // its worktree is git's: judged with it
			}
			age, alive := pidNamedAge(pid, stamp, stamp)
			if alive {
				continue // being made
			}
			p := &task.Problem{Kind: task.LeftoverMerge, Path: stamp, Age: age,
				Detail: "git wt merge was stopped before it made its temporary worktree, and left this note of who it was",
				Fix:    "delete the note",
				FixWith: func(ctx context.Context, _ bool) error {
					return m.dropUnmadeMergeWorktree(ctx, path, stamp)
				}}
			if _, err := os.Lstat(path); err == nil {
				p.Path = path
				p.Detail = "git wt merge was stopped while git made its temporary worktree, which git does not list"
				p.Fix = "delete the folder, git's unfinished admin entry of it, and the note of who made it"
			}
			problems = append(problems, p)
		}
	}
	return problems
}

// dropUnmadeMergeWorktree deletes what a merge stopped before git listed
// its temporary worktree at path left: the folder, git's unfinished admin
// entry of it, the stamp, and the folder of temporary worktrees once
// empty. Under the repository lock, under which git-wt adds worktrees,
// and only while git still lists no worktree at path and no git may still
// be adding it (the stamp stays until then: it is how the entry is found
// again).
func (m *Doctor) dropUnmadeMergeWorktree(ctx context.Context, path, stamp string) error {
	l, err := m.Lock(ctx)
	if err != nil {
		return err
	}
	defer l.Release()
	wts, err := m.Git.Worktrees(ctx, m.Repo.MainDir)
	if err != nil {
		return err
	}
	if task.FindWorktree(wts, path) != nil {
		return task.ErrMovedOn
	}
	if admin, settled := git.KilledAddEntryOf(m.Repo.CommonDir, path); admin != "" {
		if !settled {
			return task.ErrMovedOn // its git may still be adding it: looked at again next time
		}
		if err := git.DropAdminEntry(m.Repo.CommonDir, admin); err != nil {
			return err
		}
	}
	if err := fsutil.RemoveAll(path); err != nil {
		return err
	}
	os.Remove(stamp)
	os.Remove(filepath.Dir(path)) // only if empty
	return nil
}

// pidNamedAge judges a folder git-wt names after the process that made
// it (a merge's temporary worktree, a removal's folder in the trash): in
// use when the stamp file beside it (a merge's) says its maker lives; -1
// (any age) when it proves its maker dead; else the folder's age, or the
// stamp's when its maker renewed it later (its lease), for
// wt.orphanGrace — a pid in a name carries no host, boot or PID
// namespace, so it proves nothing either way (SPEC §15: the process 1 of
// a sandbox's namespace is this one's init).
func pidNamedAge(pid int, path, stamp string) (time.Duration, bool) {
	id, err := proc.ReadStamp(stamp)
	if err != nil || id.PID != pid {
		return folderAge(path), false
	}
	switch proc.Check(id) {
	case proc.Alive:
		return 0, true
	case proc.Dead:
		return -1, false
	}
	// Unseen: its owner renews the stamp while it works (a lease), or
	// the folder shows it was changed lately.
	return min(folderAge(path), folderAge(stamp)), false
}

// folderAge is how long ago the folder (or file) at path last changed.
func folderAge(path string) time.Duration {
	st, err := os.Lstat(path)
	if err != nil {
		return 0
	}
	return max(time.Since(st.ModTime()), 0) // a time ahead of the clock is no age
}

// taskBranches lists the branches whose names start with wt.branchPrefix
// ("wt/x", or "acode-task-x" for the prefix "acode-task-") with the
// worktree that has each checked out.
func (m *Doctor) taskBranches(ctx context.Context) ([]task.BranchState, error) {
	if m.Settings.BranchPrefix == "" {
		return nil, nil // every branch would match: task branches cannot be told apart
	}
	return m.Branches(ctx, task.BranchPattern(m.Settings.BranchPrefix))
}

// leftoverBranches finds task branches (under wt.branchPrefix) that no
// worktree has checked out, no record names, and whose commits all exist
// elsewhere: deleting them loses nothing.
func (m *Doctor) leftoverBranches(ctx context.Context, branches []task.BranchState, entries []record.Entry) []*task.Problem {
	named := map[string]bool{}
	for _, e := range entries {
		if e.Record != nil {
			named[e.Record.Branch] = true
		}
	}
	var problems []*task.Problem
	for _, b := range branches {
		branch, sha := b.Name, b.SHA
		if b.CheckedOut != "" || named[branch] {
			continue
		}
		rec := &record.Record{Branch: branch}
		if n, err := m.UnmergedCommits(ctx, rec); err != nil || n > 0 {
			continue // its commits exist nowhere else: a branch, not debris
		}
		problems = append(problems, &task.Problem{Kind: task.LeftoverBranch, Branch: branch, Age: m.branchAge(ctx, branch),
			Detail: "no worktree, no record, and all its commits are in other branches", Fix: "delete the branch",
			FixWith: func(ctx context.Context, _ bool) error { return m.deleteLeftoverBranch(ctx, branch, sha) }})
	}
	return problems
}

// deleteLeftoverBranch deletes a leftover branch if it still is one under
// the lock: since the diagnosis, a new may have made a task on it (its
// record names the branch before its worktree exists, and the worktree is
// added under the lock), whose worktree's HEAD would then name nothing.
func (m *Doctor) deleteLeftoverBranch(ctx context.Context, branch, sha string) error {
	l, err := m.Lock(ctx)
	if err != nil {
		return err
	}
	defer l.Release()
	entries, err := m.Store.All(ctx)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Record != nil && e.Record.Branch == branch {
			return task.ErrMovedOn
		}
	}
	b, err := m.InspectBranch(ctx, branch)
	if err != nil {
		return err
	}
	if !b.Exists || b.SHA != sha || b.CheckedOut != "" {
		return task.ErrMovedOn
	}
	return m.Git.DeleteRef(ctx, m.Repo.MainDir, task.BranchRef(branch), sha)
}

// branchAge is how long ago the branch last moved (its newest reflog
// entry), so that a branch someone just made is left alone for
// wt.orphanGrace.
func (m *Doctor) branchAge(ctx context.Context, branch string) time.Duration {
	if moved, ok := m.Git.History().LastMoved(ctx, m.Repo.MainDir, task.BranchRef(branch)); ok {
		return time.Since(moved)
	}
	return 0 // no reflog: say young, and leave it
}

// leftoverTrash finds what interrupted removals left in the trash folders
// beside worktrees, but for the folders of removals whose record is still
// there (stuck-removal repairs those). The records were read before the
// trash was listed, and an rm that began since (its record to removing,
// then its folder into the trash) and was killed at once left a folder
// that this read cannot tell from debris, holding files its second check
// never saw: so when the trash holds anything, the records are read
// again, after the listing, and the folders of the stuck removals in that
// read are left to them too.
func (m *Doctor) leftoverTrash(ctx context.Context, store *record.Store, dirs, removing map[string]bool) []*task.Problem {
	var found []string
	ages := map[string]time.Duration{}
	for dir := range dirs {
		for _, path := range m.ownTrash(dir) {
			if removing[path] {
				continue // a stuck removal's folder: its record says what to do
			}
			folder := trashFolderOf(path)
			pid, _ := strconv.Atoi(strings.TrimPrefix(filepath.Ext(folder), "."))
			age, alive := pidNamedAge(pid, path, place.StampOf(folder))
			if alive {
				continue // rm handed it to a deleter, which works on it right now
			}
			found, ages[path] = append(found, path), age
		}
	}
	if len(found) == 0 {
		return nil
	}
	entries, err := store.All(ctx)
	if err != nil {
		return nil // cannot tell whose they are: left alone
	}
	removing = map[string]bool{}
	for _, e := range entries {
		if e.Record != nil {
			m.RemovalTrash(e.Record, removing)
		}
	}
	var problems []*task.Problem
	for _, path := range found {
		if removing[path] {
			continue // a removal that began after the first read
		}
		if p := trashProblem(path, ages[path]); p != nil {
			problems = append(problems, p)
		}
	}
	return problems
}

// trashProblem is the problem of one entry of a trash folder: a folder
// its deleter could not delete is reported with why, and its deleter's
// stamp and note of why go with it (no problems of their own while the
// folder is there: the dead deleter's stamp lets gc delete it at once);
// anything else there was left by an rm or a deleter that was stopped.
func trashProblem(path string, age time.Duration) *task.Problem {
	folder := trashFolderOf(path)
	reason, failed := failureOf(folder)
	if _, err := os.Lstat(folder); err == nil && failed && path != folder {
		return nil // the folder's problem says it, and its fix deletes it
	}
	p := &task.Problem{Kind: task.LeftoverTrash, Path: path, Age: age,
		Detail: "an interrupted git wt rm left this behind", Fix: "delete it",
		FixWith: func(context.Context, bool) error { return fsutil.RemoveAll(path) }}
	if failed && path == folder {
		p.Detail = "git wt rm could not delete this: " + text.Terminal(reason)
		p.FixWith = func(context.Context, bool) error {
			if err := fsutil.RemoveAll(path); err != nil {
				return err
			}
			os.Remove(place.StampOf(path))
			os.Remove(place.FailureOf(path) + place.ReportedSuffix)
			if err := os.Remove(place.FailureOf(path)); !os.IsNotExist(err) {
				return err
			}
			return nil
		}
	}
	return p
}

// failureOf is why the deleter of folder could not delete it, from its
// note, said already or not; failed is false when there is no note.
func failureOf(folder string) (reason string, failed bool) {
	for _, note := range []string{place.FailureOf(folder), place.FailureOf(folder) + place.ReportedSuffix} {
		if reason, err := place.ReadNote(note); err == nil {
			return reason, true
		}
	}
	return "", false
}

// trashFolderOf is the folder an entry of a trash folder is about: itself,
// or the folder beside which it is a removal's mark or a deleter's stamp.
func trashFolderOf(path string) string {
	for _, suffix := range []string{place.ReportedSuffix, place.CheckedSuffix, place.StampSuffix, place.FailedSuffix} {
		path = strings.TrimSuffix(path, suffix)
	}
	return path
}

// ownTrash lists what this repository's trash folder in dir holds, and
// what of an earlier git-wt's plain trash in a shared dir is this
// repository's: a folder whose .git file points into its common dir, and
// the checked mark beside such a folder. Nothing else there is listed:
// another repository's removals are not this one's to judge.
func (m *Doctor) ownTrash(dir string) []string {
	var paths []string
	own, plain := m.Place.OwnFolder(dir, place.TrashDir), m.Place.PlainFolder(dir, place.TrashDir)
	for _, trash := range []string{own, plain} {
		if trash == "" {
			continue
		}
		entries, _ := os.ReadDir(trash)
		for _, e := range entries {
			path := filepath.Join(trash, e.Name())
			if trash == own || git.BelongsTo(trashFolderOf(path), m.Repo.CommonDir) {
				paths = append(paths, path)
			}
		}
	}
	return paths
}

// Repair fixes what Diagnose found, within the rules of SPEC §7: orphans
// younger than wt.orphanGrace are left alone, dirty ones need Force, and
// nothing is pruned when most worktrees look missing at once unless Force.
// It sets each problem's Outcome and reports whether all were fixed.
func (m *Doctor) Repair(ctx context.Context, d *task.Diagnosis, o task.RepairOptions) bool {
	massMissing := mostLookMissing(d)
	ok := true
	for _, p := range lockFilesFirst(d.Problems) {
		switch {
		case p.FixWith == nil:
			p.Outcome = task.LeftManual
		case p.Age >= 0 && p.Age < m.Settings.OrphanGrace:
			p.Outcome = task.LeftYoung
		case p.Missing && massMissing && !o.Force:
			p.Outcome = task.LeftMissing
		case o.DryRun:
			p.Outcome = task.WouldFix
		default:
			p.Outcome = m.applyFix(ctx, p, o.Force)
		}
		if p.Outcome != task.Fixed && p.Outcome != task.WouldFix && p.Outcome != task.LeftMovedOn {
			ok = false
		}
	}
	return ok
}

// lockFileKinds are the lock files killed gits leave. git refuses to
// write a ref, the index or HEAD while its lock file is there, and most
// other repairs write one of them (a task's record, its branch).
var lockFileKinds = map[task.Kind]bool{
	leftover.StaleRefLock: true, leftover.StaleIndexLock: true, leftover.StaleHeadLock: true, leftover.StaleGCLock: true, leftover.InitializingLock: true,
}

// lockFilesFirst is the order repairs run in: the lock files first, then
// the rest as listed.
func lockFilesFirst(problems []*task.Problem) []*task.Problem {
	ordered := make([]*task.Problem, 0, len(problems))
	for _, first := range []bool{true, false} {
		for _, p := range problems {
			if lockFileKinds[p.Kind] == first {
				ordered = append(ordered, p)
			}
		}
	}
	return ordered
}

func (m *Doctor) applyFix(ctx context.Context, p *task.Problem, force bool) string {
	task.Checkpoint(ctx, "repair:examined")
	err := p.FixWith(ctx, force)
	rec := &record.Record{Path: p.Path, Branch: p.Branch}
	if p.Entry != nil {
		rec = p.Entry.Record
	}
	if err == nil {
		// The detail names the process judged stopped: the log must
		// say whose work a repair undid.
		m.LogEvent(rec, "repaired", string(p.Kind)+": "+p.Detail+"; "+p.Fix)
		return task.Fixed
	}
	if errors.Is(err, task.ErrMovedOn) {
		return task.LeftMovedOn
	}
	if errors.Is(err, task.ErrNeedsPerson) {
		return err.Error() + "; finish or abort it there (git merge --abort), then run git wt merge or git wt rm again"
	}
	if p.FixDirty && exitcode.Of(err) == exitcode.Refused {
		return "kept: " + err.Error()
	}
	if errors.Is(err, proc.ErrLockHeld) {
		return "kept: " + err.Error() + " (use --force once no git works here)"
	}
	return task.RepairFailed + ": " + err.Error()
}

// mostLookMissing is the guard of SPEC §7: when more than half of the
// worktrees (and at least two) look missing at once, the likelier story is
// a partial view of the disk (a container), not deleted worktrees.
func mostLookMissing(d *task.Diagnosis) bool {
	missing := 0
	for _, p := range d.Problems {
		if p.Missing {
			missing++
		}
	}
	return missing >= 2 && missing*2 > d.Worktrees
}

// RepairAdminEntries repairs the admin entries git cannot read, before
// anything else is diagnosed (doctor --fix, gc): every other look at the
// worktrees needs git worktree list. It returns them with their outcome.
func (m *Doctor) RepairAdminEntries(ctx context.Context) []*task.Problem {
	broken := m.BrokenAdminEntries()
	for _, p := range broken {
		p.Outcome = m.applyFix(ctx, p, false)
	}
	return broken
}
