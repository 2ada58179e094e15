package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/pool"
	"github.com/git-wt/git-wt/internal/text"
)

func poolCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "pool",
		Usage: "the warm pool: spare checkouts, set up ahead of time, that make new instant",
		Description: "With wt.pool N, git-wt keeps N spare checkouts of the main worktree's branch in " +
			"<base dir>/.pool, each with the wt.copy files copied and wt.poolInit run (installing " +
			"dependencies, say). git wt new claims one instead of checking out: a rename, a branch, and a " +
			"two-tree read-tree that writes only the files that changed since the entry was made; then the " +
			"task's own wt.init runs, and a fill in the background tops the pool up. A sparse new, or one " +
			"with --no-copy, never claims an entry. --status (the default) shows the entries; --fill makes " +
			"the missing ones now (one fill runs at a time: another exits 0 at once; none that would reach " +
			"wt.maxTotalSize); --drain removes them all, keeping a dirty or locked one unless --force, which " +
			"also removes the dirty ones an earlier drain kept (gc drains those older than wt.poolMaxAge or " +
			"more than wt.poolMaxBehind commits behind). Entries left in the pool folder of an earlier " +
			"wt.baseDir are shown elsewhere, never handed out, and drained like the others.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "status", Usage: "show the entries (the default)"},
			&cli.BoolFlag{Name: "fill", Usage: "make the missing entries now"},
			&cli.BoolFlag{Name: "drain", Usage: "remove every entry"},
			&cli.BoolFlag{Name: "force", Aliases: []string{"f"}, Usage: "with --drain: remove dirty or locked entries too"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return noArgs(c)
			}
			n := 0
			for _, f := range []string{"status", "fill", "drain"} {
				if c.Bool(f) {
					n++
				}
			}
			if n > 1 {
				return exitcode.Usagef("give one of --status, --fill and --drain")
			}
			if c.Bool("force") && !c.Bool("drain") {
				return exitcode.Usagef("--force goes with --drain")
			}
			m, err := e.manager(c.Context, "pool")
			if err != nil {
				return err
			}
			p := e.handlers(m).pool
			switch {
			case c.Bool("fill"):
				return e.fillPool(c.Context, p, c.Bool("json"))
			case c.Bool("drain"):
				return e.drainPool(c.Context, p, c.Bool("force"), c.Bool("json"))
			}
			r, err := p.Status(c.Context)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return writeJSON(e.stdout, r)
			}
			return e.poolTable(r)
		},
	}
}

// fillPool makes the missing entries and says what it did.
func (e *env) fillPool(ctx context.Context, p *pool.Pool, asJSON bool) error {
	if !p.Enabled() {
		e.infof("wt.pool is 0 (or set only in an untrusted .gitwt): no pool to fill (git config wt.pool 4)")
	}
	f, err := p.Fill(ctx)
	if err != nil {
		return err
	}
	if asJSON {
		if err := writeJSON(e.stdout, f); err != nil {
			return err
		}
	}
	switch {
	case f.Busy:
		e.infof("another git wt pool --fill is running: it tops the pool up")
	case f.Failed != "":
		e.errorf("%s (see %s)", f.Failed, p.LogPath())
		return &silentError{code: exitcode.Failed}
	case f.Skipped != "":
		e.warnf("%s: made %d of the %d missing entries", f.Skipped, len(f.Made), f.Wanted-f.Ready+len(f.Made))
	default:
		e.infof("pool: %d of %d entries ready (made %d)", f.Ready, f.Wanted, len(f.Made))
	}
	return nil
}

// poolDrainView is one entry in pool --drain --json.
type poolDrainView struct {
	ID      string     `json:"id"`
	Path    string     `json:"path"`
	Outcome string     `json:"outcome"`
	Reason  string     `json:"reason,omitempty"`
	Error   *errorBody `json:"error,omitempty"`
}

// poolDrainViews are the JSON views of drained entries.
func poolDrainViews(ctx context.Context, drained []pool.Drained) []poolDrainView {
	views := make([]poolDrainView, 0, len(drained))
	for _, d := range drained {
		v := poolDrainView{ID: d.ID, Path: d.Path, Outcome: d.Outcome, Reason: d.Reason}
		if d.Err != nil {
			body := errorDocument(ctx, d.Err, exitcode.Of(d.Err)).Error
			v.Error = &body
		}
		views = append(views, v)
	}
	return views
}

// drainPool removes every entry; a kept one makes the exit code 3.
func (e *env) drainPool(ctx context.Context, p *pool.Pool, force, asJSON bool) error {
	drained, err := p.Drain(ctx, pool.DrainOptions{Force: force})
	if err != nil {
		return err
	}
	views := poolDrainViews(ctx, drained)
	code := exitcode.OK
	for _, d := range drained {
		if d.Err != nil {
			code = exitcode.Refused
			e.errorf("%v", d.Err)
		}
	}
	if asJSON {
		if err := writeJSON(e.stdout, struct {
			Entries []poolDrainView `json:"entries"`
		}{views}); err != nil {
			return err
		}
	} else {
		n := countOutcome(drained, "removed")
		e.infof("pool: removed %d %s", n, text.Plural(n, "entry", "entries"))
	}
	if code != exitcode.OK {
		return &silentError{code: code}
	}
	return nil
}

func countOutcome(drained []pool.Drained, outcome string) int {
	n := 0
	for _, d := range drained {
		if d.Outcome == outcome {
			n++
		}
	}
	return n
}

// poolTable prints the entries, one line each, and what the pool wants.
func (e *env) poolTable(r *pool.Report) error {
	state := ""
	if r.Filling {
		state = ", filling now"
	}
	// terminal: state is git-wt's own words
	fmt.Fprintf(e.stdout, "pool: %d of %d ready%s (%s; log %s)\n", r.Ready, r.Wanted, state, text.Terminal(r.Folder), text.Terminal(r.Log))
	if len(r.Entries) == 0 {
		return nil
	}
	t := &table{header: []string{"ID", "STATE", "COMMIT", "BEHIND", "AGE", "PATH"}, cut: map[string]bool{"PATH": true}}
	now := time.Now()
	for _, en := range r.Entries {
		st := "ready"
		switch {
		case en.Elsewhere:
			st = "elsewhere" // an earlier wt.baseDir's: drained, never handed out
		case !en.Ready:
			st = "filling"
		}
		behind := "?"
		if en.Behind >= 0 {
			behind = fmt.Sprint(en.Behind)
		}
		t.add(cell{text: en.ID}, cell{text: st}, cell{text: text.ShortID(en.Commit)},
			cell{text: behind + " (" + strings.TrimPrefix(en.Base, "refs/heads/") + ")"}, cell{text: age(now, en.CreatedAt)}, cell{text: en.Path})
	}
	t.fit(e.termWidth())
	return t.write(e.stdout, e.out)
}
