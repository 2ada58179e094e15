// These tests protect what list --machine adds up (SPEC §20): each
// repository once, largest first, and reclaimable only what a safe
// worktree (or, later, build output) gives back.
package machine

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/testutil/githome"
	"github.com/git-wt/git-wt/internal/testutil/platform"
)

func TestCollectMergesRegisteredAndFoundOnceAndSkipsTheGone(t *testing.T) {
	h := githome.New(t)
	a := repoWithWorktree(t, filepath.Join(h, "a"), filepath.Join(h, ".codex", "worktrees", "1", "a"))
	b := repoWithWorktree(t, filepath.Join(h, "b"), filepath.Join(h, "b-wt"))
	registered := []string{b}
	if platform.Symlinks(t) { // a link to b is b (Wine makes no links)
		link := filepath.Join(h, "link-to-b")
		os.Symlink(b, link)
		registered = append(registered, link)
	}
	notRepo := filepath.Join(h, "plain")
	os.MkdirAll(notRepo, 0o755)
	linkedGitDir := filepath.Join(b, "worktrees", "b-wt") // a worktree's git dir, not a common dir
	repos, skipped := Collect(
		append(registered, filepath.Join(h, "gone", ".git"), notRepo, linkedGitDir),
		[]Found{{CommonDir: a, Runner: "codex"}, {CommonDir: b, Runner: "cursor"}, {CommonDir: a, Runner: "codex"}})
	want := []Repo{{CommonDir: b, Registered: true, FoundUnder: []string{"cursor"}}, {CommonDir: a, FoundUnder: []string{"codex"}}}
	if !slices.EqualFunc(repos, want, func(x, y Repo) bool {
		return x.CommonDir == y.CommonDir && x.Registered == y.Registered && slices.Equal(x.FoundUnder, y.FoundUnder)
	}) {
		t.Errorf("repos %+v, want %+v", repos, want)
	}
	wantSkipped := []Skipped{{filepath.Join(h, "gone", ".git"), ReasonMissing}, {notRepo, ReasonNotRepository}, {linkedGitDir, ReasonNotRepository}}
	if !slices.Equal(skipped, wantSkipped) {
		t.Errorf("skipped %+v, want %+v", skipped, wantSkipped)
	}
}

// fakeSurveyor answers from a table, by common dir.
type fakeSurveyor map[string][]Worktree

func (f fakeSurveyor) Survey(_ context.Context, commonDir string, size bool) (string, []Worktree, error) {
	wts, ok := f[commonDir]
	if !ok {
		return "", nil, errors.New("cannot read it")
	}
	if !size {
		wts = slices.Clone(wts)
		for i := range wts {
			wts[i].SizeBytes = nil
		}
	}
	return wts[0].Path, slices.Clone(wts), nil
}

func n(v int64) *int64 { return &v }

func TestSurveyOrdersLargestFirstAndAddsUpTheSafe(t *testing.T) {
	s := fakeSurveyor{
		"/small/.git": {
			{Path: "/small", Main: true, SizeBytes: n(10), Verdict: "main worktree"},
			{Path: "/small-wt", SizeBytes: n(5), Verdict: VerdictSafe},
		},
		"/big/.git": {
			{Path: "/big", Main: true, SizeBytes: n(100)},
			{Path: "/big-wt/a", SizeBytes: n(300), Verdict: "dirty 3", BuildBytes: n(250)},
			{Path: "/big-wt/b", SizeBytes: n(200), Verdict: VerdictSafe},
			{Path: "/big-wt/locked", SizeBytes: n(1), Verdict: "locked"},
		},
	}
	repos := []Repo{{CommonDir: "/small/.git"}, {CommonDir: "/big/.git"}, {CommonDir: "/broken/.git"}}
	r := Survey(context.Background(), repos, []Skipped{{"/gone/.git", ReasonMissing}}, s, true)
	if len(r.Repositories) != 2 || r.Repositories[0].CommonDir != "/big/.git" {
		t.Fatalf("repositories %+v: want /big first", r.Repositories)
	}
	big := r.Repositories[0]
	var order []string
	for _, w := range big.Worktrees {
		order = append(order, w.Path)
	}
	if !slices.Equal(order, []string{"/big-wt/a", "/big-wt/b", "/big", "/big-wt/locked"}) {
		t.Errorf("worktrees in order %q, want largest first", order)
	}
	// Reclaimable: the safe worktree whole, the dirty one's build output.
	if big.WorktreeCount != 4 || big.SafeCount != 1 || *big.SizeBytes != 601 || *big.ReclaimableBytes != 450 {
		t.Errorf("big sums %+v", big.Sums)
	}
	if r.Total.WorktreeCount != 6 || r.Total.SafeCount != 2 || *r.Total.SizeBytes != 616 || *r.Total.ReclaimableBytes != 455 {
		t.Errorf("total %+v", r.Total)
	}
	if !slices.Equal(r.Skipped, []Skipped{{"/broken/.git", "cannot read it"}, {"/gone/.git", ReasonMissing}}) {
		t.Errorf("skipped %+v", r.Skipped)
	}
}

func TestSurveyWithoutSizesOrdersByWorktreesAndLeavesSizesOut(t *testing.T) {
	s := fakeSurveyor{
		"/one/.git": {{Path: "/one", Main: true}},
		"/two/.git": {{Path: "/two", Main: true}, {Path: "/two-wt", Verdict: VerdictSafe}},
	}
	r := Survey(context.Background(), []Repo{{CommonDir: "/one/.git"}, {CommonDir: "/two/.git"}}, nil, s, false)
	if r.Repositories[0].CommonDir != "/two/.git" || r.Total.SizeBytes != nil || r.Total.ReclaimableBytes != nil || r.Total.SafeCount != 1 {
		t.Errorf("report %+v", r)
	}
	if r.Skipped == nil {
		t.Errorf("skipped is nil: --json must print [], not null")
	}
}

func TestTheMainWorktreeIsNeverSafe(t *testing.T) {
	if (Worktree{Main: true, Verdict: VerdictSafe}).Safe() {
		t.Error("a main worktree counted safe: list --machine would count it reclaimable")
	}
}

func TestListerListsTheRepositorysOwnWorktreesWithSizes(t *testing.T) {
	h := githome.New(t)
	common := repoWithWorktree(t, filepath.Join(h, "r"), filepath.Join(h, "r-wt"))
	// A second entry whose folder was replaced by a copy that is no
	// worktree of r: its size would be another folder's.
	githome.Git(t, filepath.Join(h, "r"), "worktree", "add", "-q", "-b", "moved", filepath.Join(h, "moved"))
	os.WriteFile(filepath.Join(h, "moved", ".git"), []byte("gitdir: /elsewhere/.git/worktrees/x\n"), 0o644)
	main, wts, err := Lister{Git: &git.Runner{}}.Survey(context.Background(), common, true)
	if err != nil {
		t.Fatal(err)
	}
	if main != filepath.Join(h, "r") || len(wts) != 2 || !wts[0].Main || wts[1].Path != filepath.Join(h, "r-wt") || wts[1].Branch != "r-wt" {
		t.Fatalf("main %q, worktrees %+v", main, wts)
	}
	if wts[1].SizeBytes == nil || *wts[1].SizeBytes <= 0 {
		t.Errorf("no size for %+v", wts[1])
	}
}

func TestAWorktreeInsideAnotherIsCountedOnce(t *testing.T) {
	s := fakeSurveyor{"/r/.git": {
		{Path: "/r/.claude/worktrees/a", SizeBytes: n(300), Verdict: VerdictSafe}, // inner ones first: the order must not matter
		{Path: "/r/.claude/worktrees/a/inner", SizeBytes: n(100)},
		{Path: "/r", Main: true, SizeBytes: n(1000)}, // its walk counted the two below and the one in them
		{Path: "/r/.claude/worktrees/b", SizeBytes: n(200)},
		{Path: "/r-other", SizeBytes: n(50)}, // beside, not inside
	}}
	r := Survey(context.Background(), []Repo{{CommonDir: "/r/.git"}}, nil, s, true)
	sizes := map[string]int64{}
	for _, w := range r.Repositories[0].Worktrees {
		sizes[w.Path] = *w.SizeBytes
	}
	want := map[string]int64{"/r": 500, "/r/.claude/worktrees/a": 200, "/r/.claude/worktrees/a/inner": 100, "/r/.claude/worktrees/b": 200, "/r-other": 50}
	if !maps.Equal(sizes, want) {
		t.Errorf("sizes %v, want %v", sizes, want)
	}
	if *r.Total.SizeBytes != 1050 || *r.Total.ReclaimableBytes != 200 {
		t.Errorf("total %d, reclaimable %d: want 1050 (each byte once) and 200", *r.Total.SizeBytes, *r.Total.ReclaimableBytes)
	}
}
