package task

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/proc"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/text"
)

// OwnEnv is what git-wt adds to a task's environment: the WT_ variables
// and its ports (git wt env prints it).
func (m *Manager) OwnEnv(rec *record.Record) []string {
	env := []string{
		"WT_TASK=" + rec.Task,
		"WT_SLUG=" + rec.Slug,
		"WT_BRANCH=" + rec.Branch,
		"WT_PATH=" + rec.Path,
		"WT_MAIN=" + m.Repo.MainDir,
		"WT_BASE=" + rec.Base,
	}
	if m.Settings == nil || m.Settings.ComposeProject {
		env = append(env, "COMPOSE_PROJECT_NAME="+ComposeProject(m.Repo.CommonDir, filepath.Base(m.Repo.MainDir), rec.Slug))
	}
	return append(env, PortEnv(rec)...)
}

// ComposeProject is a task's Docker Compose project name (SPEC §17,
// §19): <repo>-<slug> reduced to what Compose allows — lower case
// letters, digits, _ and -, starting with a letter or digit, any other
// character made - — then 8 hex digits of the SHA-256 of the repository's
// common dir and the slug. The common dir makes one task of two clones
// two projects (Compose's containers are the machine's, not a clone's);
// the slug keeps two slugs that reduce alike (Foo and foo, a.b and a-b)
// apart.
func ComposeProject(commonDir, repo, slug string) string {
	var b strings.Builder
	for _, r := range repo + "-" + slug {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		case r >= 'A' && r <= 'Z':
			b.WriteRune(r - 'A' + 'a')
		default:
			b.WriteByte('-')
		}
	}
	sum := sha256.Sum256([]byte(commonDir + "\x00" + slug))
	name := strings.TrimRight(b.String(), "_-") + "-" + hex.EncodeToString(sum[:4])
	return strings.TrimLeft(name, "_-")
}

// RequireWorktree fails (exit 1) when the task's worktree folder is gone.
func RequireWorktree(rec *record.Record) error {
	if st, err := os.Stat(rec.Path); err == nil && st.IsDir() {
		return nil
	}
	return exitcode.Failedf("the worktree %s of task %q is missing: run git wt new %s to make it again", rec.Path, rec.Task, text.ShellQuote(rec.Task))
}

// WorktreeThere is RequireWorktree for a command that read the task's
// record before it looked for the folder: a folder gone meanwhile is
// said as the record tells now. A task removed since is not found (exit
// 5). One being removed is busy (exit 3: rm moves the folder aside while
// it looks at it, and puts it back if it finds work), and so is one being
// made again (removed and made anew since, its worktree not added yet),
// unless the process doing it has died: then the message says what
// finishes its work (exit 1). Only a folder gone while the record still
// wants it is missing (exit 1).
func (m *Manager) WorktreeThere(ctx context.Context, rec *record.Record) error {
	missing := RequireWorktree(rec)
	if missing == nil {
		return nil
	}
	fresh, err := m.Store.Get(ctx, rec.Slug)
	switch {
	case err != nil:
		return missing
	case len(fresh) == 0 || fresh[0].Record == nil || fresh[0].Record.Path != rec.Path:
		return exitcode.NotFoundf("task %q was removed meanwhile", rec.Task)
	}
	now := fresh[0].Record
	if now.State != record.Removing && now.State != record.Creating {
		return missing
	}
	o := Owner(now)
	dead := proc.Check(o) == proc.Dead
	switch {
	case now.State == record.Removing && dead:
		return exitcode.Failedf("task %q was being removed by process %d, which stopped half way: run git wt rm %s (or git wt doctor --fix) to finish removing it", rec.Task, o.PID, text.ShellQuote(rec.Task))
	case now.State == record.Removing:
		return exitcode.RefusedAs(exitcode.KindBusy, "task %q is being removed by process %d: its worktree is moved aside while rm looks at it (git wt list shows whether it stays)", rec.Task, o.PID)
	case dead:
		return exitcode.Failedf("task %q was being made by process %d, which stopped before its worktree was there: run git wt new %s to finish making it", rec.Task, o.PID, text.ShellQuote(rec.Task))
	}
	return exitcode.RefusedAs(exitcode.KindBusy, "task %q is being made by process %d, and its worktree is not there yet: try again when that git wt new is done", rec.Task, o.PID)
}

// Dotenv writes env (KEY=VALUE) as dotenv lines: a value of plain
// characters as it is, any other in double quotes with \, ", $ and line
// breaks escaped (task ids hold spaces and #).
func Dotenv(env []string) string {
	var b strings.Builder
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		b.WriteString(name + "=" + dotenvValue(value) + "\n")
	}
	return b.String()
}

func dotenvValue(v string) string {
	plain := v != ""
	for _, r := range v {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_./:-,@+%", r)) {
			plain = false
			break
		}
	}
	if plain {
		return v
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, `$`, `\$`, "\n", `\n`, "\r", `\r`)
	return `"` + r.Replace(v) + `"`
}
