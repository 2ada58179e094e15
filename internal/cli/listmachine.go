package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/git-wt/git-wt/internal/async"
	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/inspect"
	"github.com/git-wt/git-wt/internal/machine"
	"github.com/git-wt/git-wt/internal/madeby"
	"github.com/git-wt/git-wt/internal/settings"
	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/text"
)

// listMachine is list --machine (SPEC §20): every repository git-wt has
// run in on this machine and every one found under the agent runners'
// worktree roots, with their worktrees, sizes and verdicts, largest
// first. It needs no repository of its own, and reads, never writes, the
// repositories it lists.
func (e *env) listMachine(c *cli.Context) error {
	for _, other := range []string{"remote", "all", "no-status"} {
		if c.Bool(other) {
			return exitcode.Usagef("git wt list --machine cannot be used with --%s", other)
		}
	}
	if c.NArg() > 0 {
		return noArgs(c)
	}
	var registered []string
	if path, ok := machine.RegistryPath(os.Getenv); ok {
		var err error
		if registered, err = machine.ReadRegistry(path); err != nil {
			e.warnf("cannot read the registry of repositories %s: %v", path, err)
		}
	}
	version, err := (&git.Runner{}).AskVersion(c.Context)
	if err != nil {
		return err
	}
	roots := madeby.Roots(madeby.EnvFrom(os.Getenv, false)) // folding moves no root
	repos, skipped := machine.Collect(registered, machine.Discover(roots))
	report := machine.Survey(c.Context, repos, skipped, repoSurveyor{trace: e.git.Trace, version: version}, c.Bool("size"))
	if c.Bool("json") {
		return writeJSON(e.stdout, report)
	}
	for _, s := range report.Skipped {
		e.infof("skipped %s: %s", s.Path, text.OneLine(s.Reason)) // a git error may span lines
	}
	return e.machineTable(report)
}

// repoSurveyor surveys another repository of the machine as list --all
// surveys this one (inspect.Survey: who made each worktree, what it
// holds, its verdict), made unable to write there: its git runs with
// git.ReadOnly (objects aside, no optional locks), its settings are read
// from git without the config cache, its records without the record
// cache, and no command-wide work (the registry, reports of failed
// deletions) runs for it. A bare repository has no main worktree for
// the survey to stand on: its worktrees are listed (machine.Lister),
// not judged.
type repoSurveyor struct {
	trace   io.Writer
	version git.Version // git's, asked once for every repository
}

func (s repoSurveyor) Survey(ctx context.Context, commonDir string, size bool) (string, []machine.Worktree, error) {
	// What git-wt checks before it runs git in any repository (SPEC §19),
	// and that its own config runs no program (another repository's).
	if err := git.CheckReadOnlyRepo(commonDir); err != nil {
		return "", nil, err
	}
	scratch, err := os.MkdirTemp("", "git-wt-survey-")
	if err != nil {
		return "", nil, err
	}
	defer os.RemoveAll(scratch)
	g := &git.Runner{Trace: s.trace}
	g.SetVersion(s.version)
	g.ReadOnly(commonDir, scratch)
	main, err := mainWorktreeOf(ctx, g, commonDir)
	if err != nil {
		return "", nil, err
	}
	if main == "" {
		return machine.Lister{Git: g}.Survey(ctx, commonDir, size)
	}
	repo := &git.Repo{Toplevel: main, GitDir: commonDir, CommonDir: commonDir, MainDir: main,
		HooksDir: filepath.Join(commonDir, "hooks"), Version: s.version}
	g.SetRepository(commonDir, main)
	st, err := settings.Start(ctx, g, main, nil).Finish(main)
	if err != nil {
		return "", nil, err
	}
	m := task.New(g, repo, st, "list")
	m.Store.Cache = "" // that repository's record cache is its own git-wt's to write
	in := inspect.New(m, nil)
	facts, err := in.Survey(ctx, inspect.SurveyOptions{Size: size, Env: madeby.EnvFrom(os.Getenv, st.IgnoreCase)})
	if err != nil {
		return "", nil, err
	}
	var out []machine.Worktree
	for i := range facts {
		if !facts[i].Missing { // git's entry of a folder that is gone: nothing on disk
			out = append(out, machineWorktree(&facts[i]))
		}
	}
	if size {
		withBuildOutput(ctx, in, out)
	}
	return main, out, nil
}

// withBuildOutput measures the build output gc --reclaim would delete in
// each git-wt task that is not safe to remove whole (a safe one counts
// whole), as list --size does: reclaim acts on tasks only, which
// git wt init sets up again.
func withBuildOutput(ctx context.Context, in *inspect.Inspector, wts []machine.Worktree) {
	async.Each(len(wts), 0, func(i int) {
		if w := &wts[i]; w.Task != "" && !w.Safe() {
			n := in.BuildOutputSize(ctx, w.Path)
			w.BuildBytes = &n
		}
	})
}

// mainWorktreeOf is the main worktree of the repository at commonDir, ""
// for a bare one: the folder holding it when it is a .git there (no
// process), else as git lists it; either way only where its own .git is
// that common dir (machine.Belongs).
func mainWorktreeOf(ctx context.Context, g *git.Runner, commonDir string) (string, error) {
	if filepath.Base(commonDir) == ".git" && machine.Belongs(commonDir, filepath.Dir(commonDir), true) {
		return filepath.Dir(commonDir), nil
	}
	wts, err := g.WorktreesOf(ctx, commonDir)
	if err != nil || len(wts) == 0 || wts[0].Bare || !machine.Belongs(commonDir, wts[0].Path, true) {
		return "", err
	}
	return wts[0].Path, nil
}

// machineWorktree is a worktree's facts as list --machine shows them:
// the main worktree without its changes and unpushed commits, which the
// survey did not read (never reclaimable, its verdict is main whatever
// they are).
func machineWorktree(f *inspect.Facts) machine.Worktree {
	dirty, unpushed, last := f.Dirty, f.Unpushed, f.LastActivity
	w := machine.Worktree{Path: f.Path, Branch: f.Branch, Main: f.Main, MadeBy: string(f.MadeBy), Verdict: f.Verdict,
		InUse: string(f.InUse), Locked: f.Locked}
	if !f.Main {
		w.Dirty, w.Unpushed = &dirty, &unpushed
	}
	if !last.IsZero() {
		w.LastActivity = &last
	}
	if f.Task != nil {
		w.Task = f.Task.Task
	}
	if f.Size >= 0 {
		size := f.Size
		w.SizeBytes = &size
	}
	return w
}

// machineTable prints one line per repository, then the total.
func (e *env) machineTable(r machine.Report) error {
	if len(r.Repositories) == 0 {
		e.infof("no repositories: git-wt has run in none on this machine, and no agent runner's worktree folder holds one")
		return nil
	}
	t := &table{
		header: []string{"REPO", "WORKTREES", "SAFE", "SIZE", "RECLAIMABLE"},
		cut:    map[string]bool{"REPO": true},
	}
	for _, repo := range r.Repositories {
		name := repo.MainWorktree
		if name == "" {
			name = repo.CommonDir
		}
		t.add(cell{name, nil}, cell{fmt.Sprint(repo.WorktreeCount), nil}, cell{fmt.Sprint(repo.SafeCount), e.out.green},
			cell{sizeText(repo.SizeBytes), nil}, cell{sizeText(repo.ReclaimableBytes), e.out.green})
	}
	t.add(cell{fmt.Sprintf("total (%d %s)", len(r.Repositories), text.Plural(len(r.Repositories), "repository", "repositories")), nil}, cell{fmt.Sprint(r.Total.WorktreeCount), nil},
		cell{fmt.Sprint(r.Total.SafeCount), e.out.green}, cell{sizeText(r.Total.SizeBytes), nil}, cell{sizeText(r.Total.ReclaimableBytes), e.out.green})
	t.fit(e.termWidth())
	return t.write(e.stdout, e.out)
}
