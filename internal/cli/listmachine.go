package cli

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/machine"
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
	repos, skipped := machine.Collect(registered, machine.Discover(machine.Roots(os.Getenv)))
	report := machine.Survey(c.Context, repos, skipped, e.surveyor(), c.Bool("size"))
	if c.Bool("json") {
		return writeJSON(e.stdout, report)
	}
	for _, s := range report.Skipped {
		e.infof("skipped %s: %s", s.Path, s.Reason)
	}
	return e.machineTable(report, c.Bool("size"))
}

// surveyor is what judges another repository's worktrees for list
// --machine.
func (e *env) surveyor() machine.Surveyor {
	// A runner of its own: e.git, once it located a repository, runs
	// git in that one's worktrees only.
	return machine.Lister{Git: &git.Runner{Trace: e.git.Trace}}
}

// machineTable prints one line per repository, then the total.
func (e *env) machineTable(r machine.Report, size bool) error {
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
	t.add(cell{fmt.Sprintf("total (%d repositories)", len(r.Repositories)), nil}, cell{fmt.Sprint(r.Total.WorktreeCount), nil},
		cell{fmt.Sprint(r.Total.SafeCount), e.out.green}, cell{sizeText(r.Total.SizeBytes), nil}, cell{sizeText(r.Total.ReclaimableBytes), e.out.green})
	t.fit(e.termWidth())
	return t.write(e.stdout, e.out)
}
