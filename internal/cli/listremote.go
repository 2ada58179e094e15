package cli

import (
	"cmp"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/gh"
	"github.com/git-wt/git-wt/internal/settings"
	"github.com/git-wt/git-wt/internal/task"
)

// claimView is one claim in list --remote --json.
type claimView struct {
	Task        string    `json:"task"`
	Slug        string    `json:"slug"`
	Branch      string    `json:"branch"`
	Machine     string    `json:"machine"`
	Host        string    `json:"host"`
	Mine        bool      `json:"mine"` // held by this clone
	CreatedAt   time.Time `json:"created_at"`
	HeartbeatAt time.Time `json:"heartbeat_at"`
	// SeenFor is how long this machine has seen the claim unchanged, by
	// its own clock: what staleness is judged by.
	SeenForSeconds int64  `json:"seen_for_seconds"`
	Stale          bool   `json:"stale"`
	Ref            string `json:"ref"`
	Commit         string `json:"commit"`
	PR             string `json:"pr_state,omitempty"` // asked of gh, else from this clone's record of the task
	// Corrupt says why the ref holds no claim git-wt can use: anyone who
	// can push writes claims; such a one is shown, never acted on.
	Corrupt string `json:"corrupt,omitempty"`
}

// listRemote is list --remote [REMOTE]: every claim, from one fetch of the
// claim refs.
func (e *env) listRemote(c *cli.Context, m *task.Manager) error {
	r, err := claims(m, c.Args().First())
	if err != nil {
		return err
	}
	if r == nil {
		return exitcode.Usagef("no claim remote: git config wt.claimRemote origin, or git wt list --remote REMOTE")
	}
	held, err := r.List(c.Context)
	if err != nil {
		return err
	}
	prs := e.prStates(c, m)
	views := []claimView{}
	for _, h := range held {
		if h.Corrupt != "" {
			views = append(views, claimView{Slug: h.Name, Ref: h.Ref, Commit: h.OID, Corrupt: h.Corrupt})
			continue
		}
		if h.Released {
			continue
		}
		stale, seen := r.Stale(h)
		v := claimView{Task: h.Task, Slug: h.Slug, Branch: h.Branch, Machine: h.Machine, Host: h.Host, Mine: r.Mine(h),
			CreatedAt: h.CreatedAt, HeartbeatAt: h.HeartbeatAt, SeenForSeconds: int64(seen / time.Second), Stale: stale && !r.Mine(h),
			Ref: h.Ref, Commit: h.OID}
		v.PR = prs[h.Branch]
		if rec := localRecord(c.Context, m, h.Task); v.PR == "" && rec != nil && rec.PR != nil {
			v.PR = rec.PR.State
		}
		views = append(views, v)
	}
	if c.Bool("json") {
		return writeJSON(e.stdout, views)
	}
	if len(views) == 0 {
		e.infof("no claims on %s", r.Name)
		return nil
	}
	t := &table{header: []string{"TASK", "MACHINE", "HEARTBEAT", "SEEN", "BRANCH", "PR"}, cut: map[string]bool{"TASK": false, "BRANCH": false}}
	now := time.Now()
	for _, v := range views {
		if v.Corrupt != "" {
			t.add(cell{v.Slug, nil}, cell{"corrupt: " + v.Corrupt, e.out.red}, cell{"-", nil}, cell{"-", nil}, cell{"-", nil}, cell{"-", nil})
			continue
		}
		machine := v.Machine
		if v.Mine {
			machine += " (this)"
		} else if v.Stale {
			machine += " (stale)"
		}
		t.add(cell{v.Task, nil}, cell{machine, nil}, cell{age(now, v.HeartbeatAt), nil},
			cell{settings.FormatDuration(time.Duration(v.SeenForSeconds) * time.Second), nil}, cell{v.Branch, e.out.cyan}, cell{cmp.Or(v.PR, "-"), nil})
	}
	t.fit(e.termWidth())
	return t.write(e.stdout, e.out)
}

// prStates are the pull requests' states by head branch, from one gh
// call; without gh (or when it fails, said once) the column comes from
// this clone's records alone.
func (e *env) prStates(c *cli.Context, m *task.Manager) map[string]string {
	if gh.Installed() != nil {
		return nil
	}
	states, err := gh.Runner{Dir: m.Repo.MainDir}.StatesByHead(c.Context, 500)
	if err != nil {
		e.warnf("pull requests not shown: %v", err)
	}
	return states
}
