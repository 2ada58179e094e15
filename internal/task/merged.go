package task

import (
	"context"
	"strconv"
	"strings"

	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/record"
)

// Merged is the one definition of "merged" (SPEC §7) that rm, gc and the
// post-merge hook share: the task's branch is an ancestor of its base, or
// its recorded pull request is MERGED.
func (m *Manager) Merged(ctx context.Context, rec *record.Record) (bool, error) {
	if rec.PR != nil && strings.EqualFold(rec.PR.State, "MERGED") {
		return true, nil
	}
	_, err := m.Git.Run(ctx, m.Repo.Toplevel, "merge-base", "--is-ancestor", branchRef(rec.Branch), baseRev(rec))
	switch git.ExitCode(err) {
	case 0:
		return err == nil, err
	case 1:
		return false, nil
	}
	return false, err
}

// UnmergedCommits counts the commits of the task's branch that are in no
// other branch, no remote-tracking branch (its upstream among them) and not
// in its base: the commits that deleting the branch would lose.
func (m *Manager) UnmergedCommits(ctx context.Context, rec *record.Record) (int, error) {
	args := []string{"rev-list", "--count", "--ignore-missing", branchRef(rec.Branch),
		"--not", "--exclude=" + rec.Branch, "--branches", "--remotes"}
	if base := baseRev(rec); base != "" {
		args = append(args, base) // a tag or commit base is in no branch
	}
	out, err := m.Git.Run(ctx, m.Repo.Toplevel, append(args, "--")...)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(out))
}

// baseRev is the revision a task's base names now: its ref when it has
// one, else the commit it started from.
func baseRev(rec *record.Record) string {
	if strings.HasPrefix(rec.Base, "refs/") {
		return rec.Base
	}
	return rec.BaseSHA
}
