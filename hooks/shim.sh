#!/bin/sh
# git-wt-hook @NAME@ v1
# Installed by `git wt install`: runs git-wt's part of the @NAME@ hook, then
# the hook that was here before (kept beside this file as
# @NAME@.git-wt-chained), whose exit status becomes this hook's.
# `git wt uninstall` removes this file and puts that hook back as it was.
# GIT_WT_HOOKS=0 turns git-wt's part off; without git-wt on PATH it does
# nothing; under a git that git-wt started (GIT_WT_INTERNAL=1) git-wt does
# that work itself.
if [ "${GIT_WT_HOOKS-}" != 0 ] && [ "${GIT_WT_INTERNAL-}" != 1 ] && command -v git-wt >/dev/null 2>&1; then
	git-wt hook @NAME@ "$@"
fi
if [ -x "$0.git-wt-chained" ]; then
	exec "$0.git-wt-chained" "$@"
fi
