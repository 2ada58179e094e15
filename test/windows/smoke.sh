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

# exec runs the program in the task's folder and ends with its status:
# Windows has no execve, so git-wt waits for it as a child.
run 0 "$exe" exec T -- git.exe rev-parse --abbrev-ref HEAD
expect '^wt/T$'
run 1 "$exe" exec T -- git.exe rev-parse -q --verify refs/heads/nope

run 0 "$exe" doctor
grep -q 'all is well' "$work/err" || { fail "doctor: not all well in:"; sed 's/^/    /' "$work/err"; }

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

# list --all: every worktree with who made it and its verdict (SPEC §20).
run 0 "$exe" list --all
expect '^  *main  *unmanaged .* git  .* main  '
expect '^T  *wt/T  *active .* git-wt  .* active '

# rm --force of a task with changes saves them (SPEC §20): trash lists the
# saved state and restore brings the task back with its files.
echo change >"$work/repo-worktrees/_CON/new.txt"
run 0 "$exe" rm --force CON
[ ! -e "$work/repo-worktrees/_CON" ] || fail "rm --force CON: repo-worktrees/_CON is still there"
run 0 "$exe" trash
expect '^_CON/[0-9TZ]*  *CON .* rm --force'
run 0 "$exe" restore CON
[ "$(cat "$work/repo-worktrees/_CON/new.txt" 2>/dev/null)" = change ] || fail "restore CON: new.txt did not come back"
run 0 "$exe" rm --force CON

run 0 "$exe" gc --reclaim --dry-run

# list --machine: the registry (%LocalAppData%\git-wt\repos) names this
# repository, which every command above registered.
run 0 "$exe" list --machine --json
want=$(printf '"common_dir": "%s\\.git"' "$(win "$work/repo")" | sed 's/\\/\\\\/g')
grep -qF -- "$want" "$work/out" || { fail "list --machine: want $want in:"; sed 's/^/    /' "$work/out"; }

# rm asks the process table (SPEC §15) whether a process works in the
# folder, and Wine answers as Windows does: while a ping runs in T, rm
# refuses (exit 3) and names it; once it has ended, rm removes T.
# cmd writes the file "started" first: ping's own output comes only at
# its end.
(cd "$work/repo-worktrees/T" && exec wine cmd.exe /c "echo started>$(win "$work/started")& ping.exe -n 4 127.0.0.1" >"$work/ping" 2>&1) &
pinger=$!
tries=0
until [ -s "$work/started" ] || [ "$tries" -ge 300 ]; do
	tries=$((tries + 1))
	sleep 0.1
done
run 3 "$exe" rm T
grep -q 'in use by process' "$work/err" || { fail "rm T: no process named in:"; sed 's/^/    /' "$work/err"; }
wait "$pinger"
run 0 "$exe" rm T
[ ! -e "$work/repo-worktrees/T" ] || fail "rm T: repo-worktrees/T is still there"
run 0 "$exe" list --json
grep -q '"task": "T"' "$work/out" && fail "rm T: T is still listed"

run 0 "$exe" gc
run 0 "$exe" rm a:b 'x. '
run 0 "$exe" list --json
expect '^\[\]$'

[ "$failed" = 0 ] && echo "ok  	git-wt.exe smoke under Wine"
exit "$failed"
