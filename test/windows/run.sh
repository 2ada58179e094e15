#!/bin/sh
# make test-windows (SPEC §21): the packages' tests built for Windows and run
# as Windows programs under Wine, then the smoke of git-wt.exe driving
# git.exe (smoke.sh). Everything runs in a fresh Wine prefix, removed after.
#
#   test/windows/run.sh [GO]
#
# Without Wine it says so in one line and succeeds: CI installs Wine in make
# test-deps; elsewhere, install it (README.md here) to run these tests.
set -u
GO=${1:-go}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tags=urfave_cli_no_docs

if ! command -v wine >/dev/null 2>&1 || ! command -v wineboot >/dev/null 2>&1; then
	echo "note: wine is not installed: the Windows tests under Wine are skipped (make test-deps installs it as root)"
	exit 0
fi

# The packages whose tests cannot run as a Windows program under Wine, and
# why. Every other package runs; a test that needs what Wine lacks skips
# itself with the reason (internal/testutil/platform).
not_run='
./cmd/git-wt        its testscript stories build git-wt with the Go toolchain and run Linux programs; smoke.sh drives git-wt.exe instead
./internal/e2e      built on unix only: drives the Linux binary with sh, bash, zsh, fish and /proc
./internal/stress   built on unix only: SIGKILLs, PID namespaces and the Linux binary
./internal/testutil no tests: the helpers of e2e and stress
./bench/...         benchmarks, not tests
'

work=$(mktemp -d)
export WINEPREFIX="$work/prefix" WINEDEBUG=-all
cleanup() {
	wineserver -k >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT

# win PATH: the Windows name Wine gives a Linux path (drive Z: is /).
win() { printf 'Z:%s' "$1" | tr / '\\'; }

echo "making a Wine prefix"
wineboot -i >/dev/null 2>&1 || { echo "wineboot failed"; exit 1; }
# Every Go 1.22+ Windows program loads bcryptprimitives.dll at start;
# Wine 8 has none (README.md: the forwarder and how it was made).
cp "$here/bcryptprimitives.dll" "$WINEPREFIX/drive_c/windows/system32/" || exit 1
# git.exe is found on the Windows PATH.
export WINEPATH="$(win "$here")"

# Go 1.26's os.RemoveAll asks NtSetInformationFile for POSIX-semantics
# deletion and falls back to the classic way only on the answers Windows
# gives; Wine 8 answers STATUS_NOT_IMPLEMENTED, so every test's TempDir
# cleanup, and git-wt's removal of a worktree with folders in it, would
# fail. The test binaries and the smoke's git-wt.exe get Go's file with
# that answer added to the fallback's (go build -overlay): Wine's gap, not
# Windows' (which has answered since Windows 10 1607).
at="$($GO env GOROOT)/src/internal/syscall/windows/at_windows.go"
sed 's/^\(\t\tSTATUS_NOT_SUPPORTED\):/\1, NTStatus(0xC0000002):/' "$at" >"$work/at_windows.go"
if cmp -s "$at" "$work/at_windows.go"; then
	echo "test/windows/run.sh: $at no longer has the line the overlay patches: update run.sh"
	exit 1
fi
printf '{"Replace":{"%s":"%s"}}\n' "$at" "$work/at_windows.go" >"$work/overlay.json"

echo "not run under Wine:"
printf '%s' "$not_run" | sed '/^$/d; s/^/  /'
skip=$(printf '%s' "$not_run" | awk 'NF {print $1}' | sed 's|^\./||; s|/\.\.\.$||')
pkgs=$(cd "$root" && GOOS=windows $GO list -tags $tags ./... | while read -r p; do
	rel=${p#github.com/git-wt/git-wt/}
	keep=1
	for s in $skip; do
		case $rel in "$s" | "$s"/*) keep= ;; esac
	done
	[ -n "$keep" ] && echo "./$rel"
done)

# wintest runs the tests of the packages given under Wine, its output
# also in $work/tests.log: one package at a time (-p 1), as Wine fails to
# start a process more often with two test programs starting gits at once.
wintest() {
	(cd "$root" && GOOS=windows GOARCH=amd64 $GO test -p 1 -tags $tags -count=1 -timeout 10m \
		-overlay "$work/overlay.json" -exec wine "$@") >"$work/tests.log" 2>&1
	rc=$?
	cat "$work/tests.log"
	return $rc
}

# wineOnly prints the packages of $work/tests.log whose failures are all
# Wine failing to start a process ("fork/exec ...: Internal error."),
# which says nothing of git-wt, and REAL when any other failure is there.
wineOnly() {
	awk '
		/^(ok|FAIL|\?)[ \t]+github\.com\// {
			if ($1 == "FAIL") { if (wine && !other) print $2; else real = 1 }
			wine = 0; other = 0; next
		}
		/fork\/exec .*: Internal error\./ { wine = 1; next }
		/^[ \t]*[A-Za-z0-9_]+_test\.go:[0-9]+:/ { other = 1 }
		END { if (real) print "REAL" }' "$work/tests.log"
}

# A package that failed only as Wine failed to start a process runs
# again, twice at most; any other failure stands.
status=0
run=$pkgs
for try in 1 2 3; do
	wintest $run && break
	again=$(wineOnly)
	case $again in
	"" | *REAL*) status=1; break ;;
	esac
	if [ $try = 3 ]; then
		status=1
		break
	fi
	echo "test/windows/run.sh: Wine could not start a process in $(echo $again): running those packages again"
	run=$(echo "$again" | sed 's|^github.com/git-wt/git-wt/|./|')
done

echo "building git-wt.exe for the smoke"
(cd "$root" && GOOS=windows GOARCH=amd64 $GO build -tags $tags -overlay "$work/overlay.json" -o "$work/git-wt.exe" ./cmd/git-wt) || exit 1
"$here/smoke.sh" "$work/git-wt.exe" || status=1
exit $status
