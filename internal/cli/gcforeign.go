package cli

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/policy"
	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/text"
)

// gcForeign is gc --foreign (SPEC §20): it removes the worktrees git-wt
// did not make whose verdict is safe, and only those; the orphans and the
// retention of plain gc are not part of it. It exits 1 when git refused a
// removal it tried.
func (e *env) gcForeign(c *cli.Context, m *task.Manager) error {
	out, err := e.handlers(m).foreign.RemoveForeign(c.Context, surveyOptions(m, false), c.Bool("dry-run"))
	if err != nil {
		return err
	}
	if c.Bool("json") {
		if err := writeJSON(e.stdout, struct {
			Foreign []policy.ForeignOutcome `json:"foreign"`
		}{nonNil(out)}); err != nil {
			return err
		}
		return foreignFailed(out)
	}
	if len(out) == 0 {
		e.infof("no worktree that git-wt did not make")
	}
	for _, r := range out {
		paint := e.out.faint
		if r.Outcome != policy.ForeignKept {
			paint = e.out.yellow
		}
		// terminal: the outcome and the maker are git-wt's own words
		fmt.Fprintf(e.stdout, "%s: %s (%s, %s)\n", paint(r.Outcome), text.Terminal(r.Path), r.MadeBy, text.TerminalLine(r.Verdict))
		if r.Error != "" {
			e.warnf("could not remove %s: %s", r.Path, r.Error)
		}
	}
	return foreignFailed(out)
}

// foreignFailed is exit 1 when a removal git refused, else nil.
func foreignFailed(out []policy.ForeignOutcome) error {
	for _, r := range out {
		if r.Outcome == policy.ForeignFailed {
			return &silentError{code: exitcode.Failed}
		}
	}
	return nil
}
