package workflow

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/git-wt/git-wt/internal/exitcode"
	"github.com/git-wt/git-wt/internal/gh"
	"github.com/git-wt/git-wt/internal/record"
	"github.com/git-wt/git-wt/internal/task"
	"github.com/git-wt/git-wt/internal/text"
)

// PRInfo is what `git wt pr --set-url/--number/--title/--state/--created-at`
// records by hand (any forge); empty fields leave what is recorded as it
// is.
type PRInfo struct {
	URL    string
	Number int
	Title  string
	State  string // stored in upper case, as gh prints it: OPEN, CLOSED, MERGED
	// CreatedAt is when the pull request was opened, RFC 3339 (gh's
	// createdAt, which Automaker reads); SetCreatedAt says it was given,
	// so that an empty one is refused rather than ignored.
	CreatedAt    string
	SetCreatedAt bool
}

var (
	prState  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_]+$`) })
	prNumber = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`/(?:pull|pulls|merge_requests|pull-requests)/([0-9]+)/?$`)
	})
)

// SetPR records pull-request info for the task. A URL that ends in a pull
// request's number (…/pull/12) gives the number when none is given. A
// state given records the branch's tip as the pull request's head: the
// commits made after it are not in a PR said by hand to be MERGED.
func (m *Flow) SetPR(ctx context.Context, e *record.Entry, in PRInfo) (*record.PR, error) {
	if in.URL != "" {
		u, err := url.Parse(in.URL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return nil, exitcode.Usagef("--set-url %q is not an http(s) URL", in.URL)
		}
		if sub := prNumber().FindStringSubmatch(u.Path); sub != nil && in.Number == 0 {
			in.Number, _ = strconv.Atoi(sub[1])
		}
	}
	if in.Number < 0 {
		return nil, exitcode.Usagef("--number %d is not a pull request number", in.Number)
	}
	if in.State != "" && !prState().MatchString(in.State) {
		return nil, exitcode.Usagef("--state %q is not a state (OPEN, CLOSED, MERGED)", in.State)
	}
	var created *time.Time
	if in.SetCreatedAt {
		t, err := time.Parse(time.RFC3339, in.CreatedAt)
		if err != nil {
			return nil, exitcode.Usagef("--created-at %q is not a time in RFC 3339 (2026-03-01T08:30:00Z)", in.CreatedAt)
		}
		t = t.UTC()
		created = &t
	}
	var head string
	if in.State != "" {
		tips, err := m.Git.ObjectIDs(ctx, m.Repo.MainDir, task.BranchRef(e.Record.Branch)+"^{commit}")
		if err != nil {
			return nil, err
		}
		head = tips[0]
	}
	return m.storePR(ctx, e, func(pr *record.PR) {
		pr.URL = cmp.Or(in.URL, pr.URL)
		pr.Title = cmp.Or(in.Title, pr.Title)
		pr.State = cmp.Or(strings.ToUpper(in.State), pr.State)
		if in.Number > 0 {
			pr.Number = in.Number
		}
		if created != nil {
			pr.CreatedAt = created
		}
		if in.State != "" {
			pr.HeadOID = head
		}
	})
}

// RefreshPR asks gh for the task's pull request (the one recorded, else
// the one of its branch) and records what gh says.
func (m *Flow) RefreshPR(ctx context.Context, e *record.Entry, progress io.Writer) (*record.PR, error) {
	rec := e.Record
	switch {
	case rec.PR != nil && rec.PR.URL != "":
		return m.viewPR(ctx, e, rec.PR.URL, progress)
	case rec.PR != nil && rec.PR.Number > 0:
		return m.viewPR(ctx, e, strconv.Itoa(rec.PR.Number), progress)
	}
	return m.viewBranchPR(ctx, e, progress)
}

// viewBranchPR records the pull request gh finds for the task's branch
// when it is the task's as gc --merged counts it (prOf, SPEC §19): gh's
// may be an earlier task's of the same branch name, and recorded MERGED
// it would make rm delete this task's commits with the branch.
func (m *Flow) viewBranchPR(ctx context.Context, e *record.Entry, progress io.Writer) (*record.PR, error) {
	rec := e.Record
	got, err := m.gh(rec, progress).View(ctx, rec.Branch)
	if err != nil {
		return nil, m.ghError(rec, err)
	}
	// gh chose it by its head branch: the task's.
	if m.prOf(ctx, rec, []gh.Listed{{PR: *got, HeadBranch: rec.Branch}}) == nil {
		return nil, exitcode.Failedf("pull request #%d of branch %s is not this task's: it was opened before the task was made (an earlier task's of the same name?) or its head commit is not on the branch; nothing was recorded", got.Number, rec.Branch)
	}
	return m.storePR(ctx, e, func(pr *record.PR) { *pr = *got })
}

// CreatePR opens a pull request for the task's pushed branch with `gh pr
// create --fill` (title and body from its commits; title if given; extra
// arguments passed on to gh) into its base branch, then records it.
func (m *Flow) CreatePR(ctx context.Context, e *record.Entry, title string, extra []string, progress io.Writer) (*record.PR, error) {
	rec := e.Record
	if err := gh.Installed(); err != nil {
		return nil, m.ghError(rec, err)
	}
	if remote, _ := m.upstream(ctx, rec.Branch); remote == "" {
		return nil, exitcode.Failedf("branch %s is not pushed, so there is nothing to open a pull request for: run git wt push %s first", rec.Branch, text.ShellQuote(rec.Task))
	}
	args := []string{"--head", rec.Branch, "--fill"}
	if b := baseBranchName(rec.Base); b != "" {
		args = append(args, "--base", b)
	}
	if title != "" {
		args = append(args, "--title", title)
	}
	u, err := m.gh(rec, progress).Create(ctx, append(args, extra...)...)
	if err != nil {
		return nil, m.ghError(rec, err)
	}
	return m.viewPR(ctx, e, u, progress)
}

// viewPR records what `gh pr view selector` says.
func (m *Flow) viewPR(ctx context.Context, e *record.Entry, selector string, progress io.Writer) (*record.PR, error) {
	got, err := m.gh(e.Record, progress).View(ctx, selector)
	if err != nil {
		return nil, m.ghError(e.Record, err)
	}
	return m.storePR(ctx, e, func(pr *record.PR) { *pr = *got })
}

// storePR applies change to the task's PR info and records it.
func (m *Flow) storePR(ctx context.Context, e *record.Entry, change func(*record.PR)) (*record.PR, error) {
	err := m.Update(ctx, e, func(r *record.Record) error {
		pr := &record.PR{}
		if r.PR != nil {
			*pr = *r.PR
		}
		change(pr)
		r.PR = pr
		return nil
	})
	if err != nil {
		return nil, err
	}
	pr := e.Record.PR
	m.LogEvent(e.Record, "pr-recorded", fmt.Sprintf("#%d %s %s", pr.Number, pr.State, pr.URL))
	return pr, nil
}

// gh runs gh in the task's worktree, or in the main worktree when it is
// gone: gh finds the repository and its remotes from there.
func (m *Flow) gh(rec *record.Record, progress io.Writer) gh.Runner {
	dir := rec.Path
	if task.RequireWorktree(rec) != nil {
		dir = m.Repo.MainDir
	}
	return gh.Runner{Dir: dir, Progress: progress}
}

func (m *Flow) ghError(rec *record.Record, err error) error {
	if errors.Is(err, gh.ErrNotInstalled) {
		return exitcode.Failedf("%v: install it (https://cli.github.com), or record the pull request by hand with git wt pr %s --set-url URL", err, text.ShellQuote(rec.Task))
	}
	return exitcode.Failedf("%v", err)
}

// baseBranchName is the branch a pull request for a task should target:
// the branch its base names (refs/heads/main or refs/remotes/origin/main:
// main), or "" to let gh choose the repository's default.
func baseBranchName(base string) string {
	if b, ok := strings.CutPrefix(base, "refs/heads/"); ok {
		return b
	}
	if rest, ok := strings.CutPrefix(base, "refs/remotes/"); ok {
		if _, b, ok := strings.Cut(rest, "/"); ok {
			return b
		}
	}
	return ""
}
