package inspect

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-wt/git-wt/internal/async"
	"github.com/git-wt/git-wt/internal/fsutil"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/madeby"
	"github.com/git-wt/git-wt/internal/proc"
	"github.com/git-wt/git-wt/internal/record"
)

// SurveyOptions say what Survey reads beyond the facts every worktree
// gets.
type SurveyOptions struct {
	Size bool // disk use: a walk of each worktree
	// Main also reads what the main worktree holds, its changes and its
	// commits on no remote, which its verdict (main) never needs: a git
	// status and often a rev-list of their own. list --all shows them.
	Main bool
	// Env is what madeby needs of the user's environment (madeby.EnvFrom).
	Env madeby.Env
	Now time.Time // when the verdicts' idle time is measured; zero: now
}

// now is when the verdicts' idle time is measured.
func (o SurveyOptions) now() time.Time {
	if o.Now.IsZero() {
		return time.Now()
	}
	return o.Now
}

// Survey is every worktree of the repository, whoever made it, with what
// it holds and its verdict (SPEC §20), in git's order (the main worktree
// first; a bare entry left out). It only reads: git status runs without
// the index lock (git.ReadOnly), nothing is written in any worktree, and
// it may be called for any repository git-wt can open (list --all here,
// list --machine for each repository of the machine).
func (m *Inspector) Survey(ctx context.Context, o SurveyOptions) ([]Facts, error) {
	lives, wts, err := m.Inspect(ctx, LiveOptions{Status: true, Size: o.Size, Worktrees: true})
	if err != nil {
		return nil, err
	}
	return m.FactsOf(ctx, lives, wts, o), nil
}

// FactsOf is Survey's work on a listing Inspect already made, with the
// statuses (and, with o.Size, the sizes): a task's are used as read, so
// list --all runs no second status in a task.
func (m *Inspector) FactsOf(ctx context.Context, lives []Live, wts []git.Worktree, o SurveyOptions) []Facts {
	return m.factsOf(ctx, lives, wts, o, func(string) bool { return true })
}

// FactsOfOne reads again the facts and verdict of the one worktree at
// path (as git lists it), for gc --foreign just before it removes it: the
// records and git's list anew, then that worktree's status, commits,
// files and processes. ok is false when git no longer lists it.
func (m *Inspector) FactsOfOne(ctx context.Context, path string, o SurveyOptions) (f Facts, ok bool, err error) {
	lives, wts, err := m.Inspect(ctx, LiveOptions{Worktrees: true}) // no status yet: one worktree's is enough
	if err != nil {
		return Facts{}, false, err
	}
	for i := range lives {
		if l := &lives[i]; l.Worktree != nil && fsutil.SamePath(l.Worktree.Path, path) {
			m.fill(ctx, l, LiveOptions{Status: true, Size: o.Size})
			m.markMerged(ctx, lives[i:i+1])
		}
	}
	facts := m.factsOf(ctx, lives, wts, o, func(p string) bool { return fsutil.SamePath(p, path) })
	if len(facts) == 0 {
		return Facts{}, false, nil
	}
	f = facts[0]
	if f.Verdict == Safe {
		// What git status does not look at, and git worktree remove
		// would delete: asked only of a worktree about to go, and not
		// of one a mount keeps (git would walk the mounted files).
		if mp, err := fsutil.MountInside(path); err != nil || mp != "" {
			f.Mount = cmp.Or(mp, "?")
		} else {
			f.Dirty = m.workGitStatusMisses(ctx, path)
		}
		f.Verdict = Judge(f, o.now(), m.Settings.IdleAfter)
	}
	return f, true, nil
}

// workGitStatusMisses counts, in the worktree at path, the work git
// status does not show and git worktree remove deletes: local edits to
// files marked hidden (HiddenChanges) and files only a pattern file other
// worktrees' agents can write ignores (excludedWork); -1 when git could
// not tell.
func (m *Inspector) workGitStatusMisses(ctx context.Context, path string) int {
	hidden, err := m.HiddenChanges(ctx, path)
	if err != nil {
		return -1
	}
	excluded, err := m.excludedWork(ctx, path)
	if err != nil {
		return -1
	}
	return hidden + excluded
}

// excludedWork counts the untracked files of the worktree at path that
// git ignores only by a pattern file the worktree does not own: the
// common dir's info/exclude, which every worktree shares and any agent
// can write (SPEC §19: everything in .git but config and hooks). A `*`
// there makes every untracked file of every worktree ignored, and git
// worktree remove deletes ignored files. Claude Code's `.claude/` line
// there makes a worktree holding such files work too: kept, the safe
// side.
func (m *Inspector) excludedWork(ctx context.Context, path string) (int, error) {
	files, err := m.Git.Index().IgnoredFiles(ctx, path)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, f := range files {
		if !ownIgnoreSource(f.Source, path, m.Repo.CommonDir) {
			n++
		}
	}
	return n, nil
}

// ownIgnoreSource says whether source, the pattern file git check-ignore
// named (run at the top of the worktree at dir), is one only the
// worktree's own users or the user can write: a .gitignore in the
// worktree (a path relative to it), or a file outside both the worktree
// and the repository's common dir (the user's core.excludesFile). A file
// git named none for is not.
func ownIgnoreSource(source, dir, commonDir string) bool {
	if source == "" {
		return false
	}
	if !filepath.IsAbs(source) {
		local := filepath.Clean(filepath.FromSlash(source))
		return filepath.Base(local) == ".gitignore" && filepath.IsLocal(local)
	}
	return !withinEither(commonDir, source) && !withinEither(dir, source)
}

// withinEither says whether path lies in dir, as written or with the
// links of both resolved: git may name the common dir either way, and a
// miss here would trust info/exclude.
func withinEither(dir, path string) bool {
	if fsutil.Within(filepath.Clean(dir), filepath.Clean(path)) {
		return true
	}
	realDir, err1 := filepath.EvalSymlinks(dir)
	realPath, err2 := filepath.EvalSymlinks(path)
	return err1 == nil && err2 == nil && fsutil.Within(realDir, realPath)
}

// HiddenChanges counts the files of the worktree at path that differ from
// its index where git status does not look (git.Index.HiddenEntries: a
// local edit to a file marked assume-unchanged or skip-worktree): work
// that git worktree remove deletes unasked. A marked file that is not on
// disk (a sparse checkout's) holds nothing to lose. An error means git
// could not tell.
func (m *Inspector) HiddenChanges(ctx context.Context, path string) (int, error) {
	hidden, err := m.Git.Index().HiddenEntries(ctx, path)
	if err != nil || len(hidden) == 0 {
		return 0, err
	}
	var present []string
	for p := range hidden {
		if _, err := os.Lstat(filepath.Join(path, filepath.FromSlash(p))); err == nil {
			present = append(present, p)
		}
	}
	ids, err := m.Git.Index().HashFiles(ctx, path, present)
	if err != nil {
		return 0, err
	}
	if len(ids) != len(present) {
		return 0, fmt.Errorf("git hashed %d of the %d files git status does not look at", len(ids), len(present))
	}
	n := 0
	for _, p := range present {
		if ids[p] != hidden[p] {
			n++
		}
	}
	return n, nil
}

// factsOf reads the facts and verdicts of the worktrees of wts that want
// picks.
func (m *Inspector) factsOf(ctx context.Context, lives []Live, wts []git.Worktree, o SurveyOptions, want func(path string) bool) []Facts {
	tasks := map[string]*Live{}
	for i := range lives {
		if l := &lives[i]; l.Entry.Record != nil && l.Worktree != nil {
			tasks[l.Worktree.Path] = l
		}
	}
	base := repositoryBase(wts)
	var facts []Facts
	var listed []git.Worktree
	for _, wt := range wts {
		if !wt.Bare && want(wt.Path) {
			facts = append(facts, m.cheapFacts(wt, tasks[wt.Path], o.Env))
			listed = append(listed, wt)
		}
	}
	async.Each(len(facts), 0, func(i int) { m.readFacts(ctx, &facts[i], listed[i], tasks[listed[i].Path], o) })
	markHolding(facts, wts)
	markInUse(facts)
	m.countUnpushed(ctx, facts, tasks, base, o.Main)
	m.forgiveMerged(ctx, facts, base)
	now := o.now()
	for i := range facts {
		facts[i].Verdict = Judge(facts[i], now, m.Settings.IdleAfter)
	}
	return facts
}

// cheapFacts are what git's listing, the task's record and the paths say.
func (m *Inspector) cheapFacts(wt git.Worktree, task *Live, env madeby.Env) Facts {
	f := Facts{Path: wt.Path, Branch: strings.TrimPrefix(wt.Branch, "refs/heads/"), Head: wt.Head,
		Main: fsutil.SamePath(wt.Path, m.Repo.MainDir), Locked: wt.Locked, Size: -1}
	if task != nil {
		f.Task = task.Entry.Record
		f.Locked = f.Locked || f.Task.Locked
	}
	f.Pooled = f.Task == nil && !f.Main && m.Place.InPool(wt.Path)
	f.MadeBy = madeby.Of(madeby.Worktree{Path: wt.Path, Main: m.Repo.MainDir, Branch: f.Branch, Own: f.Task != nil || f.Pooled}, env)
	return f
}

// readFacts reads what the worktree holds: from its files and one git
// status (a task's, already read, is reused; the main worktree's only
// with o.Main).
func (m *Inspector) readFacts(ctx context.Context, f *Facts, wt git.Worktree, task *Live, o SurveyOptions) {
	if st, err := os.Stat(wt.Path); err != nil || !st.IsDir() {
		f.Missing = true
		return
	}
	if !f.Main || o.Main {
		f.Dirty = m.dirtyOf(ctx, wt.Path, task)
	}
	f.LastActivity = LastActivity(wt.Path, m.gitDirOf(wt.Path, f.Main))
	if o.Size {
		if task != nil && task.Exists {
			f.Size = task.Size
		} else {
			f.Size = fsutil.DiskUsage(wt.Path)
		}
	}
}

// dirtyOf counts the worktree's changes; -1 when git status failed.
func (m *Inspector) dirtyOf(ctx context.Context, path string, task *Live) int {
	if task != nil && task.Exists {
		return task.Dirty // Inspect's status: -1 when it failed
	}
	st, err := readStatus(ctx, m.Git, path, nil, false)
	if err != nil {
		return -1
	}
	return st.dirty
}

// countUnpushed counts, for each worktree, the commits of its HEAD on no
// remote and not in its base: a task's recorded base, else the
// repository's (the branch the main worktree has checked out). A task
// whose status found it merged (SPEC §7: a squash, a rebase too) or
// nothing ahead of its base has none, with no git at all; the others take
// one rev-list per base, whatever their number. -1 where git failed. The
// main worktree's are counted only when main says so.
func (m *Inspector) countUnpushed(ctx context.Context, facts []Facts, tasks map[string]*Live, base string, main bool) {
	byBase := map[string][]*Facts{}
	for i := range facts {
		f := &facts[i]
		if f.Missing || f.Head == "" { // an unborn branch has no commits
			continue
		}
		if f.Main && !main {
			continue
		}
		b := base
		if task := tasks[f.Path]; task != nil {
			if rec := task.Entry.Record; task.StatusErr == nil && f.Branch == rec.Branch && (task.Merged || task.Ahead == 0) {
				continue
			}
			b = baseRev(task.Entry.Record)
		}
		byBase[b] = append(byBase[b], f)
	}
	for b, group := range byBase {
		heads := make([]string, len(group))
		for i, f := range group {
			heads[i] = f.Head
		}
		var also []string
		if b != "" {
			also = append(also, b)
		}
		graph, err := m.Git.History().NotOnRemotes(ctx, m.Repo.MainDir, heads, also...)
		for _, f := range group {
			f.Unpushed = -1
			if err == nil {
				f.Unpushed = reachableIn(graph, f.Head)
			}
		}
	}
}

// reachableIn counts the commits of graph (a commit's parents by its id)
// that head reaches through it: head's own commits among them.
func reachableIn(graph map[string][]string, head string) int {
	seen := map[string]bool{}
	todo := []string{head}
	for len(todo) > 0 {
		c := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		parents, in := graph[c]
		if !in || seen[c] {
			continue
		}
		seen[c] = true
		todo = append(todo, parents...)
	}
	return len(seen)
}

// forgiveMerged clears the unpushed commits of the worktrees, made by
// anyone but git-wt, whose branch SPEC §7 calls merged into the
// repository's base (a squash or a rebase merge leaves the branch's own
// commits on no remote): the same MergedSet as tasks, for a record made
// up of the branch, the base and their merge base.
func (m *Inspector) forgiveMerged(ctx context.Context, facts []Facts, base string) {
	if base == "" {
		return
	}
	byPath := map[string]*Facts{}
	var recs []*record.Record
	for i := range facts {
		f := &facts[i]
		if f.Task != nil || f.Main || f.Branch == "" || f.Unpushed <= 0 {
			continue
		}
		fork, err := m.Git.History().MergeBase(ctx, m.Repo.MainDir, f.Head, base)
		if err != nil || fork == "" {
			continue
		}
		byPath[f.Path] = f
		recs = append(recs, &record.Record{Slug: f.Path, Branch: f.Branch, Base: base, BaseSHA: fork})
	}
	if len(recs) == 0 {
		return
	}
	merged, err := m.MergedSet(ctx, recs, "")
	if err != nil {
		return
	}
	for path, f := range byPath {
		if merged[path] {
			f.Unpushed = 0
		}
	}
}

// repositoryBase is what a worktree git-wt did not make is merged into:
// the branch the main worktree (git's first) has checked out, else its
// commit.
func repositoryBase(wts []git.Worktree) string {
	if len(wts) == 0 || wts[0].Bare {
		return ""
	}
	if wts[0].Branch != "" {
		return wts[0].Branch
	}
	return wts[0].Head
}

// gitDirOf is the git dir of the worktree at path: the common dir for the
// main worktree, else its admin entry as git registered it (proven, SPEC
// §19; "" when the proof fails).
func (m *Inspector) gitDirOf(path string, main bool) string {
	if main {
		return m.Repo.CommonDir
	}
	admin, err := git.ProveLinked(m.Repo.CommonDir, path, path)
	if err != nil {
		return ""
	}
	return admin
}

// LastActivity is the newest of the worktree's index and HEAD's reflog
// (in gitDir, when known) and of the mtimes of its top-level entries (not
// followed through links); zero when none could be read.
func LastActivity(path, gitDir string) time.Time {
	var newest time.Time
	see := func(info os.FileInfo, err error) {
		if err == nil && info.ModTime().After(newest) {
			newest = info.ModTime()
		}
	}
	if gitDir != "" {
		see(os.Lstat(filepath.Join(gitDir, "index")))
		see(os.Lstat(filepath.Join(gitDir, "logs", "HEAD")))
	}
	entries, _ := os.ReadDir(path)
	for _, e := range entries {
		see(e.Info())
	}
	return newest
}

// markInUse asks the process table, once, whether a process works in
// each worktree whose folder is there.
// markHolding notes in each worktree's facts the first other worktree
// of wts (git's whole list, whichever facts are read) whose folder lies
// inside its own: git worktree remove, like any removal of the folder,
// deletes that one's files too. An entry whose folder is gone holds
// nothing; one git calls prunable whose folder is there (its .git file
// deleted) still holds its files.
func markHolding(facts []Facts, wts []git.Worktree) {
	for i := range facts {
		for _, wt := range wts {
			if wt.Path != facts[i].Path && !wt.Bare && fsutil.Within(facts[i].Path, wt.Path) && (!wt.Prunable || exists(wt.Path)) {
				facts[i].Holds = wt.Path
				break
			}
		}
	}
}

// exists says whether anything is at path.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func markInUse(facts []Facts) {
	var dirs []string
	var present []*Facts
	for i := range facts {
		if !facts[i].Missing {
			dirs = append(dirs, facts[i].Path)
			present = append(present, &facts[i])
		}
	}
	users, err := proc.UsersOfEach(dirs)
	for i, f := range present {
		switch {
		case err != nil:
			f.InUse = InUseUnknown
		case len(users[i]) > 0:
			f.InUse = InUseAlive
		default:
			f.InUse = InUseNone
		}
	}
}
