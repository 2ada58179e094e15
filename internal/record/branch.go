package record

// CreatedBranch says whether git-wt created the task's branch, so that a
// removal may delete it (SPEC §4 "Branch ownership"). A record written
// before branch_created existed does not say: its branch counts as
// git-wt's when it has the name git-wt gives a task's branch
// (wt.branchPrefix and the slug), and as the user's otherwise (a
// --branch or an adopted worktree's branch), which is then kept.
func (r *Record) CreatedBranch(prefix string) bool {
	if r.BranchCreated != nil {
		return *r.BranchCreated
	}
	return r.Branch == prefix+r.Slug
}

// SetBranchCreated records whether git-wt created the task's branch.
func (r *Record) SetBranchCreated(created bool) { r.BranchCreated = &created }
