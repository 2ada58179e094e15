package cli

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-wt/git-wt/internal/saved"
	"github.com/git-wt/git-wt/internal/settings"
	"github.com/git-wt/git-wt/internal/text"
)

// trashCommand lists the states that removals saved (SPEC §20).
func trashCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "trash",
		Usage: "list what removals saved before discarding it (git wt restore brings it back), newest first",
		Description: "Before rm --force (or gc, doctor --fix, a rollback with --force) discards uncommitted changes, untracked " +
			"files git does not ignore, or commits found nowhere else, git-wt saves the worktree's whole state as one " +
			"commit under refs/git-wt/trash/<slug>/<stamp>. Ignored files are not saved. SIZE is the files that differ " +
			"from the branch's tip and the bytes of those files as saved. gc deletes states older than wt.trashKeep.",
		Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return noArgs(c)
			}
			repo, err := e.locate(c.Context)
			if err != nil {
				return err
			}
			store := saved.Of(e.git, repo)
			entries, err := store.List(c.Context)
			if err != nil {
				return err
			}
			if err := store.Sizes(c.Context, entries); err != nil {
				return err
			}
			views := make([]trashView, 0, len(entries))
			for _, en := range entries {
				views = append(views, newTrashView(en))
			}
			if c.Bool("json") {
				return writeJSON(e.stdout, views)
			}
			return e.printTrash(views)
		},
	}
}

// trashView is one saved state in git wt trash --json.
type trashView struct {
	ID       string    `json:"id"`
	Task     string    `json:"task,omitempty"`
	Branch   string    `json:"branch,omitempty"`
	Path     string    `json:"path,omitempty"` // where it was; restore makes it at the task's usual place
	SavedAt  time.Time `json:"saved_at"`
	Why      string    `json:"why,omitempty"`
	By       string    `json:"by,omitempty"`
	Commit   string    `json:"commit,omitempty"`
	Tip      string    `json:"tip,omitempty"`
	Files    int       `json:"files"`
	Bytes    int64     `json:"bytes"`
	Commits  int       `json:"unmerged_commits"`
	Corrupt  string    `json:"corrupt,omitempty"` // why it cannot be restored
	Restores string    `json:"restore"`           // the command that brings it back
}

func newTrashView(en saved.Entry) trashView {
	v := trashView{ID: en.ID, SavedAt: en.At, Commit: en.Commit, Tip: en.Tip, Files: en.Files, Bytes: en.Bytes, Restores: "git wt restore " + en.ID}
	if en.Err != nil {
		v.Corrupt = en.Err.Error()
	}
	if i := en.Info; i != nil {
		v.Task, v.Branch, v.Path, v.Why, v.Commits = i.Task, i.Branch, i.Path, i.Why, i.Commits
		v.By = i.By.User + "@" + i.By.Host
	}
	return v
}

// printTrash prints the saved states as a table.
func (e *env) printTrash(views []trashView) error {
	if len(views) == 0 {
		e.infof("nothing saved: removals that discarded nothing in no commit saved nothing")
		return nil
	}
	t := &table{header: []string{"ID", "TASK", "SAVED", "WHY", "SIZE", "BY"}, drop: []string{"BY", "WHY"}}
	now := time.Now()
	for _, v := range views {
		size := fmt.Sprintf("%s in %d %s", settings.FormatSize(v.Bytes), v.Files, text.Plural(v.Files, "file", "files"))
		if v.Commits > 0 {
			size += fmt.Sprintf(", %d %s", v.Commits, text.Plural(v.Commits, "commit", "commits"))
		}
		task, why := v.Task, v.Why
		if v.Corrupt != "" {
			task, why = "?", v.Corrupt
		}
		t.add(cell{text: v.ID}, cell{text: task}, cell{text: age(now, v.SavedAt) + " ago"}, cell{text: why}, cell{text: size}, cell{text: v.By})
	}
	t.fit(e.termWidth())
	return t.write(e.stdout, e.out)
}
