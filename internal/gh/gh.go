// Package gh runs the GitHub CLI (gh) for `git wt pr` and reads what it
// prints. gh is not git, so it has its own runner; like git's, it names its
// directory, drops the variables that would point git elsewhere, and
// returns typed errors.
package gh

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/git-wt/git-wt/internal/child"
	"github.com/git-wt/git-wt/internal/git"
	"github.com/git-wt/git-wt/internal/record"
)

// ErrNotInstalled means there is no gh on PATH.
var ErrNotInstalled = errors.New("gh (the GitHub CLI) is not installed or not on PATH")

// Runner runs gh in one directory (a worktree of the repository).
type Runner struct {
	Dir string
	// Progress, when set, receives gh's stderr as it comes.
	Progress io.Writer
}

// viewFields are the fields of `gh pr view --json` that a record keeps.
const viewFields = "number,url,title,state,createdAt,headRefOid"

// view is `gh pr view --json number,url,title,state,createdAt,headRefOid`.
type view struct {
	Number     int        `json:"number"`
	URL        string     `json:"url"`
	Title      string     `json:"title"`
	State      string     `json:"state"` // OPEN, CLOSED or MERGED
	CreatedAt  *time.Time `json:"createdAt"`
	HeadRefOid string     `json:"headRefOid"`
}

// Create runs `gh pr create` with args and returns the new pull request's
// URL: the last line gh prints on stdout.
func (r Runner) Create(ctx context.Context, args ...string) (string, error) {
	out, err := r.run(ctx, append([]string{"pr", "create"}, args...)...)
	if err != nil {
		return "", err
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return strings.TrimSpace(lines[len(lines)-1]), nil
}

// View reads the pull request that selector names (a number, a URL or a
// branch).
func (r Runner) View(ctx context.Context, selector string) (*record.PR, error) {
	out, err := r.run(ctx, "pr", "view", selector, "--json", viewFields)
	if err != nil {
		return nil, err
	}
	var v view
	if err := json.Unmarshal(out, &v); err != nil {
		return nil, fmt.Errorf("cannot read what gh pr view printed: %v", err)
	}
	pr := v.record()
	return &pr, nil
}

// OpenFor is how many open pull requests have branch as their head:
// `gh pr list --head B --state open`, whose JSON is a list, empty when
// there is none (`gh pr view` fails alike for no PR and for a failure).
func (r Runner) OpenFor(ctx context.Context, branch string) (int, error) {
	out, err := r.run(ctx, "pr", "list", "--head", branch, "--state", "open", "--json", "number")
	if err != nil {
		return 0, err
	}
	var prs []struct {
		Number int `json:"number"`
	}
	if err := json.Unmarshal(out, &prs); err != nil {
		return 0, fmt.Errorf("cannot read what gh pr list printed: %v", err)
	}
	return len(prs), nil
}

// StatesByHead is the state (OPEN, CLOSED, MERGED) of the newest pull
// request of each head branch among the repository's latest limit: one
// `gh pr list`, for a listing of many branches.
func (r Runner) StatesByHead(ctx context.Context, limit int) (map[string]string, error) {
	out, err := r.run(ctx, "pr", "list", "--state", "all", "--limit", fmt.Sprint(limit), "--json", "headRefName,state")
	if err != nil {
		return nil, err
	}
	var prs []struct {
		Head  string `json:"headRefName"`
		State string `json:"state"`
	}
	if err := json.Unmarshal(out, &prs); err != nil {
		return nil, fmt.Errorf("cannot read what gh pr list printed: %v", err)
	}
	states := map[string]string{}
	for _, pr := range prs { // newest first: the first of a branch wins
		if _, ok := states[pr.Head]; !ok {
			states[pr.Head] = strings.ToUpper(pr.State)
		}
	}
	return states, nil
}

// Installed reports ErrNotInstalled when there is no gh on PATH.
func Installed() error {
	if _, err := exec.LookPath("gh"); err != nil {
		return ErrNotInstalled
	}
	return nil
}

func (r Runner) run(ctx context.Context, args ...string) ([]byte, error) {
	path, err := exec.LookPath("gh")
	if err != nil {
		return nil, ErrNotInstalled
	}
	var stdout bytes.Buffer
	err = child.Cmd{Path: path, Args: args, Dir: r.Dir, Stdout: &stdout, Stderr: r.Progress}.Run(ctx)
	var failed *child.Error
	if errors.As(err, &failed) {
		return nil, fmt.Errorf("gh %s failed (%v): %s", strings.Join(args[:2], " "), failed.Err, failed.Stderr)
	}
	return stdout.Bytes(), err
}

// headFields are the fields of `gh pr view --json` that `new --pr` reads.
const headFields = viewFields + ",headRefName,baseRefName,isCrossRepository"

// Head is a pull request as `new --pr` needs it (SPEC §17): what a record
// keeps, and where its commits are.
type Head struct {
	PR         record.PR
	HeadBranch string // the branch the PR proposes, in the repository it comes from
	BaseBranch string // the branch it targets
	Fork       bool   // its head is in another repository: fetched as refs/pull/N/head
}

// PRHead reads pull request n with its branches.
func (r Runner) PRHead(ctx context.Context, n int) (*Head, error) {
	out, err := r.run(ctx, "pr", "view", strconv.Itoa(n), "--json", headFields)
	if err != nil {
		return nil, err
	}
	var v struct {
		view
		HeadRefName       string `json:"headRefName"`
		BaseRefName       string `json:"baseRefName"`
		IsCrossRepository bool   `json:"isCrossRepository"`
	}
	if err := json.Unmarshal(out, &v); err != nil || v.HeadRefName == "" {
		return nil, fmt.Errorf("cannot read what gh pr view printed: %v", err)
	}
	return &Head{PR: v.view.record(), HeadBranch: v.HeadRefName, BaseBranch: v.BaseRefName, Fork: v.IsCrossRepository}, nil
}

// Issue reads issue n: its number, URL and title.
func (r Runner) Issue(ctx context.Context, n int) (*record.Issue, error) {
	out, err := r.run(ctx, "issue", "view", strconv.Itoa(n), "--json", "number,url,title")
	if err != nil {
		return nil, err
	}
	var is record.Issue
	if err := json.Unmarshal(out, &is); err != nil || is.Number == 0 {
		return nil, fmt.Errorf("cannot read what gh issue view printed: %v", err)
	}
	return &is, nil
}

// Listed is a pull request as `gh pr list` says it, with its head branch.
type Listed struct {
	PR         record.PR
	HeadBranch string
}

// AllPRs lists the repository's pull requests in every state, newest
// first, with one gh call (gc --merged asks once, SPEC §17).
func (r Runner) AllPRs(ctx context.Context) ([]Listed, error) {
	out, err := r.run(ctx, "pr", "list", "--state", "all", "--limit", "1000", "--json", viewFields+",headRefName")
	if err != nil {
		return nil, err
	}
	var vs []struct {
		view
		HeadRefName string `json:"headRefName"`
	}
	if err := json.Unmarshal(out, &vs); err != nil {
		return nil, fmt.Errorf("cannot read what gh pr list printed: %v", err)
	}
	list := make([]Listed, len(vs))
	for i, v := range vs {
		list[i] = Listed{PR: v.view.record(), HeadBranch: v.HeadRefName}
	}
	return list, nil
}

// commitID is s when it is a full commit id (git.IsObjectID), else "":
// it goes to git's command line.
func commitID(s string) string {
	if !git.IsObjectID(s) {
		return ""
	}
	return s
}

// record is what a task's record keeps of v: its state upper case, its
// time in UTC, its head commit only when a full commit id.
func (v view) record() record.PR {
	pr := record.PR{Number: v.Number, URL: v.URL, Title: v.Title, State: strings.ToUpper(v.State), HeadOID: commitID(v.HeadRefOid)}
	if v.CreatedAt != nil {
		utc := v.CreatedAt.UTC()
		pr.CreatedAt = &utc
	}
	return pr
}
