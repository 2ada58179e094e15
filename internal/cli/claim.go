package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/git-wt/git-wt/internal/child"
	"github.com/git-wt/git-wt/internal/claim"
	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/gh"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/removal"
	"github.com/git-wt/git-wt/internal/slug"
	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/text"
	"github.com/urfave/cli/v2"
)

// claims is the claim remote of SPEC §18, or nil when wt.claimRemote is
// unset (claims are local only, as before); remote overrides it.
func claims(m *task.Manager, remote string) (*claim.Remote, error) {
	s := m.Settings
	if remote == "" {
		remote = s.ClaimRemote
	}
	if remote == "" {
		return nil, nil
	}
	id, err := claim.MachineID(m.Repo.CommonDir, s.MachineID, m.Warn)
	if err != nil {
		return nil, exitcode.Failedf("cannot read or make this clone's machine id: %v", err)
	}
	key, err := claim.Key(m.Repo.CommonDir)
	if err != nil {
		return nil, exitcode.Failedf("cannot read or make this clone's claim key: %v", err)
	}
	host, _ := os.Hostname()
	folder := s.ClaimRef
	if folder == "" {
		folder = "refs/git-wt/claims/"
	}
	return &claim.Remote{Git: m.Git, Dir: m.Repo.MainDir, CommonDir: m.Repo.CommonDir, Name: remote, Folder: folder,
		Machine: id, Key: key, Host: host, TTL: s.ClaimTTL, Now: time.Now,
		Log: func(task, slug, outcome, reason string) {
			m.LogEvent(&record.Record{Task: task, Slug: slug}, outcome, reason)
		}}, nil
}

// claimOf is the claim this machine makes for task id: its record's slug
// and branch when it has one, else those new would give it. The claim's
// own slug, its ref on the remote, is the claim package's to choose.
func claimOf(m *task.Manager, rec *record.Record, id, branch string) claim.Claim {
	if rec != nil {
		return claim.Claim{Task: rec.Task, Slug: rec.Slug, Branch: rec.Branch}
	}
	s := slug.Make(id)
	if branch == "" {
		branch = m.Settings.BranchPrefix + s
	}
	return claim.Claim{Task: id, Slug: s, Branch: branch}
}

// localRecord is the record of task id here, nil when there is none.
func localRecord(ctx context.Context, m *task.Manager, id string) *record.Record {
	if ent, err := m.Find(ctx, id); err == nil && ent.Record != nil {
		return ent.Record
	}
	return nil
}

// openPRCheck says whether a takeover may go on: no open pull request
// for the branch, asked of gh; without gh only when forced (a refusal,
// exit 3: nothing was typed wrong, the other machine's work is kept).
func openPRCheck(ctx context.Context, dir string, force bool) func(string) error {
	return func(branch string) error {
		if force {
			return nil
		}
		if err := gh.Installed(); err != nil {
			return exitcode.RefusedAs(exitcode.KindClaimed, "cannot ask whether a pull request is open for %s: %v; use --force to take the task over anyway", branch, err)
		}
		n, err := gh.Runner{Dir: dir}.OpenFor(ctx, branch)
		if err != nil {
			return exitcode.Failedf("cannot ask gh whether a pull request is open for %s: %v", branch, err)
		}
		if n > 0 {
			return &exitcode.Error{Code: exitcode.Limit, Kind: exitcode.KindClaimed, Err: fmt.Errorf(
				"a pull request is open for %s: its task is not taken over (close it first)", branch)}
		}
		return nil
	}
}

// releaseClaimOf is what removal tells of each task it took away: with
// claims across machines, this machine's claim of it is released; a
// failure is a warning, as the task is gone here.
func releaseClaimOf(m *task.Manager) func(context.Context, *removal.Removal) {
	if m.Settings.ClaimRemote == "" {
		return nil
	}
	return func(ctx context.Context, r *removal.Removal) {
		c, err := claims(m, "")
		if c == nil || err != nil {
			return
		}
		if _, err := c.Release(ctx, r.Task); err != nil {
			m.Warn("the claim of %q stays on %s: %v (git wt claim %s --release)", r.Task, c.Name, err, r.Task)
		}
	}
}

// releaseOrphanClaims is gc's part in claims: the claims that
// claim.GCView.Release says go (this clone's, of tasks gone here;
// any whose recorded branch tip is merged and that went stale).
func (e *env) releaseOrphanClaims(ctx context.Context, m *task.Manager, dryRun bool) {
	r, err := claims(m, "")
	if r == nil || err != nil {
		return
	}
	held, err := r.List(ctx)
	if err != nil {
		e.warnf("claims not checked: %v", err)
		return
	}
	view := claim.GCView{Remote: r.Name, Now: r.Now(), Grace: m.Settings.OrphanGrace, Took: r.Took,
		TaskHere: func(task string) bool { return localRecord(ctx, m, task) != nil },
		Merged:   func(commit string) bool { return mergedOnRemote(ctx, m, r.Name, commit) },
		Stale:    func(h *claim.Held) bool { stale, _ := r.Stale(h); return stale }}
	for _, h := range held {
		why := view.Release(h)
		if why == "" {
			continue
		}
		if dryRun {
			e.infof("would release the claim of %q on %s: %s", h.Task, r.Name, why)
			continue
		}
		if err := r.ReleaseHeld(ctx, h); err != nil {
			e.warnf("the claim of %q stays on %s: %v", h.Task, r.Name, err)
		} else {
			e.infof("released the claim of %q on %s: %s", h.Task, r.Name, why)
		}
	}
}

// mergedOnRemote says whether commit (a claim's recorded branch tip) is
// merged into remote's default branch as this clone last fetched it: in
// that branch's history and not its tip (a branch merged by fast-forward
// counts once the default branch moved on). A commit this clone lacks is
// not in that history.
func mergedOnRemote(ctx context.Context, m *task.Manager, remote, commit string) bool {
	h := m.Git.History()
	head, _, err := h.ResolveCommit(ctx, m.Repo.MainDir, "refs/remotes/"+remote+"/HEAD")
	if err != nil || commit == head {
		return false
	}
	merged, err := h.IsAncestor(ctx, m.Repo.MainDir, commit, head)
	return err == nil && merged
}

// claimFirst is new's claim (SPEC §18): with wt.claimRemote the task is
// claimed on the remote before anything is made here (refused: exit 4,
// nothing made). giveBack releases a claim this call made, for a new that
// then fails; even when interrupted, as a claim left behind blocks every
// machine. branch is the task's branch when new is given one (--branch,
// or a pull request's).
func (e *env) claimFirst(c *cli.Context, m *task.Manager, id, branch string) (giveBack func(), err error) {
	if c.Bool("force") && !c.Bool("take-over") {
		return nil, exitcode.Usagef("--force goes with --take-over")
	}
	r, err := claims(m, "")
	if r == nil && err == nil && c.Bool("take-over") {
		err = exitcode.Usagef("--take-over takes a task claimed by another machine, and claims need a remote: git config wt.claimRemote origin")
	}
	if r == nil || err != nil {
		return func() {}, err
	}
	want := claimOf(m, nil, id, branch)
	var made bool
	if c.Bool("take-over") {
		_, made, err = r.TakeOver(c.Context, want, openPRCheck(c.Context, m.Repo.MainDir, c.Bool("force")))
	} else {
		_, made, err = r.Take(c.Context, want)
	}
	if err != nil || !made {
		return func() {}, err
	}
	return func() {
		if _, err := r.Release(context.WithoutCancel(c.Context), want.Task); err != nil {
			e.warnf("the claim of %q stays on %s: %v (git wt claim %s --release)", want.Task, r.Name, err, want.Task)
		}
	}, nil
}

// heartbeat starts a refresh of the task's claim in the background, at
// most every wt.claimHeartbeat: work done here (commit, sync, agent
// status) says the machine is alive, without waiting for the remote.
func heartbeat(m *task.Manager, rec *record.Record) {
	if m.Settings.ClaimRemote == "" || rec == nil {
		return
	}
	beats := claim.Beats{Dir: filepath.Join(m.Repo.CommonDir, "wt", "claims-beat")}
	if !beats.Due(rec.Slug, m.Settings.ClaimHeartbeat, time.Now()) {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	// A heartbeat that cannot start waits for the next command. The task
	// id goes after "--": one starting with "-" is no option.
	child.Cmd{Path: exe, Args: []string{"claim", "--refresh", "--quiet", "--", rec.Task}, Dir: m.Repo.MainDir}.Detach()
}

func claimCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "claim",
		Usage:     "claim a task on wt.claimRemote for this machine, refresh or release the claim",
		ArgsUsage: "[TASK]",
		Description: "TASK defaults to the task whose worktree this is. Claims live on the remote wt.claimRemote as refs under wt.claimRef, one per task, " +
			"each moved only by a push with a lease, so that two machines never hold one task. " +
			"Without a flag, claims TASK (exit 4, kind claimed, when another machine holds it).",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "refresh", Usage: "send a heartbeat: the claim shows this machine alive"},
			&cli.BoolFlag{Name: "release", Usage: "give the claim up"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			id := "." // the task whose worktree this is
			if c.NArg() > 0 {
				var err error
				if id, err = oneArg(c, "TASK"); err != nil {
					return err
				}
			}
			if c.Bool("refresh") && c.Bool("release") {
				return exitcode.Usagef("--refresh and --release exclude each other")
			}
			m, err := e.manager(c.Context, "claim")
			if err != nil {
				return err
			}
			r, err := claims(m, "")
			if err != nil {
				return err
			}
			if r == nil {
				return exitcode.Usagef("claims need a remote: git config wt.claimRemote origin")
			}
			rec := localRecord(c.Context, m, id)
			if rec == nil && c.NArg() == 0 {
				return exitcode.NotFoundf("this folder is not in a task's worktree: name the TASK (git wt claim TASK)")
			}
			want := claimOf(m, rec, id, "")
			if rec != nil {
				want.Tip = r.Tip(c.Context, rec)
			}
			switch {
			case c.Bool("release"):
				released, err := r.Release(c.Context, want.Task)
				if err != nil {
					return err
				}
				if released {
					e.infof("released the claim of %q on %s", want.Task, r.Name)
				}
				return e.printResult(c, map[string]any{"task": want.Task, "released": released}, "")
			case c.Bool("refresh"):
				if err := r.Refresh(c.Context, want); err != nil {
					return err
				}
				e.infof("refreshed the claim of %q on %s", want.Task, r.Name)
			default:
				if _, _, err := r.Take(c.Context, want); err != nil {
					return err
				}
				e.infof("claimed %q on %s for machine %s", want.Task, r.Name, text.Terminal(r.Machine))
			}
			h, err := r.Find(c.Context, want.Task)
			if err != nil || h == nil {
				return err
			}
			return e.printResult(c, h.Claim, h.Ref)
		},
	}
}
