package machine

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/git-wt/git-wt/internal/async"
	"github.com/git-wt/git-wt/internal/fsutil"
)

// Repo is a repository to survey: its common dir, whether the registry
// lists it, and the runners under whose roots its worktrees were found.
type Repo struct {
	CommonDir  string
	Registered bool
	FoundUnder []string
}

// Skipped is a repository the survey did not list, and why: the registry
// names it but it is gone or no repository, or git-wt will not run git in
// it (SPEC §19).
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Why a repository is skipped.
const (
	ReasonMissing       = "missing"
	ReasonNotRepository = "not a repository"
)

// Collect is the repositories to survey: the registered common dirs and
// those found under the runners' roots, each once, by its common dir with
// every link resolved (and on Windows in any spelling: fsutil.PathKey). A registered path that is gone or no repository
// any more is skipped, with the reason.
func Collect(registered []string, found []Found) ([]Repo, []Skipped) {
	var repos []Repo
	var skipped []Skipped
	index := map[string]int{}
	add := func(common string) *Repo {
		key := fsutil.PathKey(common)
		if i, ok := index[key]; ok {
			return &repos[i]
		}
		index[key] = len(repos)
		repos = append(repos, Repo{CommonDir: common})
		return &repos[len(repos)-1]
	}
	for _, p := range registered {
		common, why := registeredRepo(p)
		if why != "" {
			skipped = append(skipped, Skipped{p, why})
			continue
		}
		add(common).Registered = true
	}
	for _, f := range found {
		r := add(f.CommonDir)
		if !slices.Contains(r.FoundUnder, f.Runner) {
			r.FoundUnder = append(r.FoundUnder, f.Runner)
		}
	}
	return repos, skipped
}

// registeredRepo is the registered path p as a common dir with its links
// resolved, or why it is none.
func registeredRepo(p string) (string, string) {
	real, err := filepath.EvalSymlinks(p)
	switch {
	case os.IsNotExist(err):
		return "", ReasonMissing
	case err != nil:
		return "", ReasonNotRepository
	}
	if !isCommonDir(real) {
		return "", ReasonNotRepository
	}
	return real, ""
}

// Worktree is one worktree of a surveyed repository, with what its
// surveyor found (JSON: list --machine's per-worktree detail).
type Worktree struct {
	Path   string `json:"path"`
	Branch string `json:"branch,omitempty"` // short name; empty when detached
	Main   bool   `json:"main"`             // the repository's main worktree: never reclaimable
	MadeBy string `json:"made_by,omitempty"`
	// SizeBytes is its disk use (--size); nil when not measured.
	SizeBytes *int64 `json:"size_bytes,omitempty"`
	// Verdict is "safe" or the first reason it is not (SPEC §20); empty
	// when the surveyor does not judge.
	Verdict string `json:"verdict,omitempty"`
	// What it holds (SPEC §20), where the surveyor reads it: the task
	// id of a git-wt task, its uncommitted changes and its commits on no
	// remote and merged nowhere (-1: git could not tell), when it was
	// last touched, whether a process works in it (alive, none,
	// unknown), and git's or the task's lock. The main worktree has no
	// dirty or unpushed: never reclaimable, it is not asked.
	Task         string     `json:"task,omitempty"`
	Dirty        *int       `json:"dirty,omitempty"`
	Unpushed     *int       `json:"unpushed,omitempty"`
	LastActivity *time.Time `json:"last_activity,omitempty"`
	InUse        string     `json:"in_use,omitempty"`
	Locked       bool       `json:"locked"`
	// BuildBytes is the build output `gc --reclaim` would delete in it
	// (SPEC §20): reclaimable even where the worktree is not safe to
	// remove. nil where the surveyor did not measure it (no --size, not
	// a git-wt task).
	BuildBytes *int64 `json:"reclaimable_build_bytes,omitempty"`
}

// Safe says whether the worktree's verdict lets it go.
func (w Worktree) Safe() bool { return w.Verdict == VerdictSafe && !w.Main }

// VerdictSafe is the verdict of a worktree that can go (SPEC §20).
const VerdictSafe = "safe"

// reclaimable is what removing or reclaiming w would give back: all of a
// safe worktree, else its build output.
func (w Worktree) reclaimable() int64 {
	switch {
	case w.Safe() && w.SizeBytes != nil:
		return *w.SizeBytes
	case w.BuildBytes != nil:
		return *w.BuildBytes
	}
	return 0
}

// Surveyor lists one repository's worktrees with their facts: it reads
// the repository and never writes it (no ref, no config, no index, no
// cache of git-wt's).
type Surveyor interface {
	Survey(ctx context.Context, commonDir string, size bool) (main string, wts []Worktree, err error)
}

// Surveyed is one repository in list --machine: its worktrees, largest
// first, and their sums.
type Surveyed struct {
	CommonDir    string     `json:"common_dir"`
	MainWorktree string     `json:"main_worktree,omitempty"`
	Registered   bool       `json:"registered"`
	FoundUnder   []string   `json:"found_under,omitempty"`
	Worktrees    []Worktree `json:"worktrees"`
	Sums
}

// Sums are the counts and sizes of a repository's worktrees, or of every
// repository's.
type Sums struct {
	WorktreeCount int `json:"worktree_count"`
	SafeCount     int `json:"safe_count"`
	// SizeBytes and ReclaimableBytes are measured with --size only.
	SizeBytes        *int64 `json:"size_bytes,omitempty"`
	ReclaimableBytes *int64 `json:"reclaimable_bytes,omitempty"`
}

// Report is list --machine's document.
type Report struct {
	Repositories []Surveyed `json:"repositories"`
	Skipped      []Skipped  `json:"skipped"`
	Total        Sums       `json:"total"`
}

// Survey surveys every repository in repos with s, at most as many at once
// as there are cores (each runs git and walks folders), and returns them
// largest first. A repository s cannot read is skipped with its error.
func Survey(ctx context.Context, repos []Repo, skipped []Skipped, s Surveyor, size bool) Report {
	surveyed := make([]*Surveyed, len(repos))
	var mu sync.Mutex
	limit := async.NewLimit(0)
	var wg sync.WaitGroup
	for i, r := range repos {
		wg.Add(1)
		go limit.Do(func() {
			defer wg.Done()
			main, wts, err := s.Survey(ctx, r.CommonDir, size)
			if err != nil {
				mu.Lock()
				skipped = append(skipped, Skipped{r.CommonDir, err.Error()})
				mu.Unlock()
				return
			}
			surveyed[i] = &Surveyed{CommonDir: r.CommonDir, MainWorktree: main, Registered: r.Registered, FoundUnder: r.FoundUnder, Worktrees: wts}
		})
	}
	wg.Wait()
	report := Report{Repositories: []Surveyed{}, Skipped: skipped}
	if report.Skipped == nil {
		report.Skipped = []Skipped{}
	}
	for _, sv := range surveyed {
		if sv != nil {
			sv.sum(size)
			report.Repositories = append(report.Repositories, *sv)
		}
	}
	slices.SortStableFunc(report.Repositories, func(a, b Surveyed) int {
		return cmp.Or(cmp.Compare(size0(b.SizeBytes), size0(a.SizeBytes)), cmp.Compare(b.WorktreeCount, a.WorktreeCount), cmp.Compare(a.CommonDir, b.CommonDir))
	})
	slices.SortStableFunc(report.Skipped, func(a, b Skipped) int { return cmp.Compare(a.Path, b.Path) })
	report.Total = total(report.Repositories, size)
	return report
}

// sum orders the repository's worktrees largest first (the main one first
// among equals) and adds them up, each byte once.
func (sv *Surveyed) sum(size bool) {
	if sv.Worktrees == nil {
		sv.Worktrees = []Worktree{}
	}
	withoutNested(sv.Worktrees)
	slices.SortStableFunc(sv.Worktrees, func(a, b Worktree) int {
		return cmp.Or(cmp.Compare(size0(b.SizeBytes), size0(a.SizeBytes)), boolOrder(b.Main, a.Main), cmp.Compare(a.Path, b.Path))
	})
	var bytes, reclaimable int64
	for _, w := range sv.Worktrees {
		sv.WorktreeCount++
		if w.Safe() {
			sv.SafeCount++
		}
		bytes += size0(w.SizeBytes)
		reclaimable += w.reclaimable()
	}
	if size {
		sv.SizeBytes, sv.ReclaimableBytes = &bytes, &reclaimable
	}
}

// withoutNested takes out of each worktree's size the worktrees that lie
// inside it and are listed on their own (Claude Code's
// .claude/worktrees/<name> in the main worktree, a base dir inside the
// repository): the walk that measured it counted them too.
func withoutNested(wts []Worktree) {
	walked := make([]*int64, len(wts)) // as measured, before any is changed
	for i := range wts {
		walked[i] = wts[i].SizeBytes
	}
	for i := range wts {
		if walked[i] == nil {
			continue
		}
		own := *walked[i]
		for j := range wts {
			if i != j && walked[j] != nil && inside(wts[i].Path, wts[j].Path) && !nestedDeeper(wts, i, j) {
				own -= *walked[j]
			}
		}
		own = max(own, 0)
		wts[i].SizeBytes = &own
	}
}

// nestedDeeper says whether the worktree j lies inside another worktree
// that itself lies inside i: its size was taken out of that one's already.
func nestedDeeper(wts []Worktree, i, j int) bool {
	for k := range wts {
		if k != i && k != j && inside(wts[i].Path, wts[k].Path) && inside(wts[k].Path, wts[j].Path) {
			return true
		}
	}
	return false
}

// inside says whether path lies strictly inside the folder dir.
func inside(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// total adds up every repository's sums.
func total(repos []Surveyed, size bool) Sums {
	var t Sums
	var bytes, reclaimable int64
	for _, r := range repos {
		t.WorktreeCount += r.WorktreeCount
		t.SafeCount += r.SafeCount
		bytes += size0(r.SizeBytes)
		reclaimable += size0(r.ReclaimableBytes)
	}
	if size {
		t.SizeBytes, t.ReclaimableBytes = &bytes, &reclaimable
	}
	return t
}

func size0(n *int64) int64 {
	if n == nil {
		return 0
	}
	return *n
}

func boolOrder(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}
