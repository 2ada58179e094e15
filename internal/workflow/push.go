package workflow

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
)

// Pushed says where `git wt push` pushed a task's branch.
type Pushed struct {
	Remote   string `json:"remote"`   // the remote's name
	Branch   string `json:"branch"`   // the branch, the same name on both sides
	Upstream string `json:"upstream"` // remote/branch, as git shows an upstream
}

// ClaimPush sends a task's branch together with its claim's refresh in
// one atomic push, with a lease on the claim (SPEC §18): a machine whose
// task was taken over cannot push over the new holder's branch.
type ClaimPush interface {
	// Remote is the claim remote; branches pushed elsewhere go alone.
	Remote() string
	PushBranch(ctx context.Context, rec *record.Record, ref string) error
}

// upstreamRetry bounds how long push keeps trying to write the upstream
// setting while another git process holds the config lock.
const upstreamRetry = time.Second

// Push pushes the task's branch to remote (default: the one git would push
// it to) under the same name, and sets it as the branch's upstream. `git
// push -u` exits 0 without setting the upstream when .git/config is locked
// by another process, so the setting is checked and, if missing, written
// again until the lock is free. git's progress goes to progress (nil:
// quiet).
func (m *Flow) Push(ctx context.Context, rec *record.Record, remote string, progress io.Writer, claims ClaimPush) (*Pushed, error) {
	bs, err := m.InspectBranch(ctx, rec.Branch)
	if err != nil {
		return nil, err
	}
	if !bs.Exists {
		return nil, exitcode.Failedf("branch %s of task %q no longer exists: nothing to push", rec.Branch, rec.Task)
	}
	if remote, err = m.pushRemote(ctx, rec.Branch, remote); err != nil {
		return nil, err
	}
	if claims != nil && claims.Remote() == remote {
		if err := claims.PushBranch(ctx, rec, task.BranchRef(rec.Branch)); err != nil {
			m.LogEvent(rec, "push-failed", err.Error())
			return nil, err
		}
	} else if err := m.Git.Push(ctx, m.Repo.MainDir, remote, task.BranchRef(rec.Branch), progress); err != nil {
		m.LogEvent(rec, "push-failed", err.Error())
		return nil, exitcode.Failedf("cannot push %s to %s: %v", rec.Branch, remote, err)
	}
	p := &Pushed{Remote: remote, Branch: rec.Branch, Upstream: remote + "/" + rec.Branch}
	if err := m.ensureUpstream(ctx, rec.Branch, remote); err != nil {
		m.LogEvent(rec, "pushed", "to "+remote+"; upstream not set: "+err.Error())
		return nil, exitcode.Failedf("pushed %s to %s, but could not set its upstream (%v): run git branch --set-upstream-to=%s %s", rec.Branch, remote, err, p.Upstream, rec.Branch)
	}
	m.LogEvent(rec, "pushed", "to "+remote+", upstream "+p.Upstream)
	return p, nil
}

// pushRemote picks the remote to push branch to: the one asked for, else
// the one git would use (branch.<b>.pushRemote, remote.pushDefault,
// branch.<b>.remote), else the only remote, else origin. What a .gitwt
// set of those was ignored, and is said.
func (m *Flow) pushRemote(ctx context.Context, branch, asked string) (string, error) {
	m.Settings.SayWarnings(m.Warn)
	remotes, err := m.Git.Config().Remotes(ctx, m.Repo.MainDir)
	if err != nil {
		return "", err
	}
	if asked != "" {
		if !slices.Contains(remotes, asked) {
			return "", exitcode.Usagef("no remote named %q in %s (see git remote -v)", asked, m.Repo.MainDir)
		}
		return asked, nil
	}
	for _, key := range []string{"branch." + branch + ".pushRemote", "remote.pushDefault", "branch." + branch + ".remote"} {
		if v, ok := m.Settings.Get(key); ok && slices.Contains(remotes, v.Value) {
			return v.Value, nil
		}
	}
	switch {
	case len(remotes) == 1:
		return remotes[0], nil
	case slices.Contains(remotes, "origin"):
		return "origin", nil
	case len(remotes) == 0:
		return "", exitcode.Failedf("%s has no remote to push to: add one (git remote add origin URL)", m.Repo.MainDir)
	}
	return "", exitcode.Usagef("%s has several remotes (%s) and none is the default: choose one with --remote", m.Repo.MainDir, strings.Join(remotes, ", "))
}

// ensureUpstream makes remote's branch of the same name the upstream of
// branch, writing the setting while it is not there, for as long as
// upstreamRetry allows.
func (m *Flow) ensureUpstream(ctx context.Context, branch, remote string) error {
	delay := 10 * time.Millisecond
	deadline := time.Now().Add(upstreamRetry)
	err := errors.New("another setting overrides it")
	for {
		if r, merge := m.upstream(ctx, branch); r == remote && merge == task.BranchRef(branch) {
			return nil
		}
		if time.Now().After(deadline) {
			return err
		}
		if werr := m.Git.Config().Set(ctx, m.Repo.MainDir, "branch."+branch+".remote", remote); werr != nil {
			err = werr
		} else if werr := m.Git.Config().Set(ctx, m.Repo.MainDir, "branch."+branch+".merge", task.BranchRef(branch)); werr != nil {
			err = werr
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
		delay = min(2*delay, 200*time.Millisecond)
	}
}

// upstream is the remote and the remote branch ref that branch tracks,
// "" when it tracks none.
func (m *Flow) upstream(ctx context.Context, branch string) (remote, merge string) {
	return m.Git.Config().Get(ctx, m.Repo.MainDir, "branch."+branch+".remote"), m.Git.Config().Get(ctx, m.Repo.MainDir, "branch."+branch+".merge")
}
