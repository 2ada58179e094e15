#!/bin/sh
# git-wt-hook @NAME@ v2
# Installed by `git wt install`: runs git-wt's part of the @NAME@ hook, then
# the hook that was here before (kept beside this file as
# @NAME@.git-wt-chained), whose exit status becomes this hook's.
# `git wt uninstall` removes this file and puts that hook back as it was.
# git-wt's part is off with GIT_WT_HOOKS=0 and without git-wt on PATH; under
# a git that git-wt started (GIT_WT_INTERNAL=1), git-wt does the work itself.
run=1
[ "${GIT_WT_HOOKS-}" != 0 ] && [ "${GIT_WT_INTERNAL-}" != 1 ] || run=
if [ @NAME@ = post-checkout ]; then
	# Only a checkout that made a worktree (previous HEAD all zeros, flag 1)
	# can need git-wt: a branch switch costs no process.
	case "${1-}" in '' | *[!0]*) run= ;; esac
	[ "${3-}" = 1 ] || run=
	# A new worktree with a detached HEAD gets no record (a record names a
	# branch): nothing to do, so no git-wt process either.
	if [ -n "$run" ] && [ -f .git ] && ! git symbolic-ref -q HEAD >/dev/null 2>&1; then
		run=
		echo "git-wt: warning: $PWD has a detached HEAD: git-wt gives records to worktrees on a branch only, so it runs no init there (git wt new makes one)" >&2
	fi
fi
if [ -n "$run" ] && command -v git-wt >/dev/null 2>&1; then
	git-wt hook @NAME@ "$@"
fi
if [ -x "$0.git-wt-chained" ]; then
	exec "$0.git-wt-chained" "$@"
fi
