#!/bin/sh
# The end-to-end smoke of SPEC §21: git-wt.exe driving a Windows git.exe
# under Wine, in a fresh repository git.exe made. Each step checks what a
# user sees: the exit code, and a line of the output or the folder on disk.
#
#   test/windows/smoke.sh GIT-WT.EXE
#
# run.sh calls it with WINEPREFIX, WINEDEBUG and WINEPATH (git.exe's folder)
# set. Wine passes no HOME: git gets its global config from
# GIT_CONFIG_GLOBAL. There is no sh.exe, so no init commands or hooks.
set -u
exe=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0

# win PATH: the Windows name Wine gives a Linux path (drive Z: is /).
win() { printf 'Z:%s' "$1" | tr / '\\'; }

printf '[user]\n\tname = Smoke\n\temail = smoke@example.com\n[init]\n\tdefaultBranch = main\n' >"$work/gitconfig"
GIT_CONFIG_GLOBAL=$(win "$work/gitconfig")
GIT_CONFIG_NOSYSTEM=1
export GIT_CONFIG_GLOBAL GIT_CONFIG_NOSYSTEM

# run WANT-RC PROGRAM ARGS...: runs a Windows program in the repository.
# Its output goes to files, never to a pipe of ours: a Windows git whose
# stdout is a Linux pipe crashes in its terminal detection.
run() {
	want=$1
	shift
	(cd "$work/repo" && wine "$@" >"$work/out" 2>"$work/err")
	rc=$?
	if [ "$rc" != "$want" ]; then
		fail "$*: exit $rc, want $want"
		sed 's/^/    /' "$work/out" "$work/err"
	fi
}

fail() {
	echo "FAIL: $*"
	failed=1
}

# expect PATTERN: the last command's stdout has a line matching PATTERN.
expect() {
	grep -q -- "$1" "$work/out" || { fail "want a line matching '$1' in:"; sed 's/^/    /' "$work/out"; }
}

mkdir "$work/repo"
echo hello >"$work/repo/README"
# A file 170 characters deep: a worktree of it passes the 200 characters
# new warns about (SPEC §21).
deep=$(printf '%040d/%040d/%040d/%040d/deep.txt' 1 2 3 4)
mkdir -p "$work/repo/$(dirname "$deep")"
echo deep >"$work/repo/$deep"
run 0 git.exe init -q
run 0 git.exe add .
run 0 git.exe commit -q -m init

wts=$(win "$work/repo-worktrees")

run 0 "$exe" new T
expect "^$(printf '%s' "$wts" | sed 's/\\/\\\\/g')\\\\T\$"
[ -f "$work/repo-worktrees/T/README" ] || fail "new T: no checkout in repo-worktrees/T"
[ -f "$work/repo-worktrees/T/$deep" ] || fail "new T: no checkout of the deep file"
grep -q 'reach [0-9]* characters, over 200' "$work/err" || { fail "new T: no warning of paths over 200 characters in:"; sed 's/^/    /' "$work/err"; }

run 0 "$exe" list
expect '^T  *wt/T  *active'

run 0 "$exe" list --json
expect '"task": "T"'
expect '"exists": true'

# path finds a task by the path in any spelling Windows allows: git's
# C:/ form, Go's C:\ form, another case.
for p in "$wts\\T" "$(printf '%s' "$wts" | tr '\\' /)/T" "$(printf '%s' "$wts" | tr 'A-Z' 'a-z')\\t"; do
	run 0 "$exe" path "$p"
	expect 'repo-worktrees\\T$'
done

run 0 "$exe" show T
expect '^branch: *wt/T$'

run 5 "$exe" show nope
run 5 "$exe" show --json nope
expect '"code": 5'

# Reserved names, ':' and a trailing dot or space make a folder Windows
# can use.
run 0 "$exe" new CON
expect '\\_CON$'
run 0 "$exe" new 'a:b'
expect '\\a-b$'
run 0 "$exe" new 'x. '
expect '\\x\._$'
for d in _CON a-b x._; do
	run 0 git.exe -C "$wts\\$d" status --short
	[ -f "$work/repo-worktrees/$d/README" ] || fail "no checkout in repo-worktrees/$d"
done

# rm --ignore-in-use: whether a process works in the folder is the process
# table's question (SPEC §15), which Wine answers only in part.
run 0 "$exe" rm --ignore-in-use T
[ ! -e "$work/repo-worktrees/T" ] || fail "rm T: repo-worktrees/T is still there"
run 0 "$exe" list --json
grep -q '"task": "T"' "$work/out" && fail "rm T: T is still listed"

run 0 "$exe" gc
run 0 "$exe" rm --ignore-in-use CON a:b 'x. '
run 0 "$exe" list --json
expect '^\[\]$'

[ "$failed" = 0 ] && echo "ok  	git-wt.exe smoke under Wine"
exit "$failed"
