#!/usr/bin/env bash
# Burst: 30 `git wt new` one after another, then 30 at once, on the same
# repository (FILES files), interleaved ROUNDS times; prints the medians and
# the longest time a process waited for the repository lock (from the
# event log). Runs on tmpfs (/dev/shm) by default: disk noise on small
# machines swamps the differences. With POOL=N, a warm pool of N entries is
# filled before each burst, and the bursts claim from it (SPEC §11).
# Usage: [POOL=30] bench/burst.sh [GIT_WT_BINARY]
set -euo pipefail
bin=${1:-$(cd "$(dirname "$0")/.." && pwd)/bin/git-wt}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
N=${N:-30} FILES=${FILES:-1000} ROUNDS=${ROUNDS:-3} POOL=${POOL:-0}
root=$(mktemp -d "${BENCH_DIR:-/dev/shm}/git-wt-burst.XXXXXX")
trap 'rm -rf "$root"' EXIT
export GIT_CONFIG_NOSYSTEM=1 HOME=$root GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@b GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@b
PATH=$(dirname "$bin"):$PATH

git init -q -b main "$root/repo"
cd "$root/repo"
for ((d = 0; d < FILES / 25; d++)); do
	mkdir -p "d$d"
	for ((f = 0; f < 25; f++)); do echo "file $d/$f" >"d$d/f$f.txt"; done
done
git add . && git commit -qm files
git config wt.pool "$POOL"

now() { date +%s%N; }
ms() { echo $(( ($2 - $1) / 1000000 )); }
clean() { git wt rm --quiet --force $(seq -f 't%g' 1 "$N") >/dev/null; }
# fill waits for the background fills new started, then fills the pool.
fill() {
	[ "$POOL" -gt 0 ] || return 0
	while pgrep -f "git-wt pool --fill" >/dev/null; do sleep 0.05; done
	git wt pool --fill --quiet
}

seq_times=() par_times=() waits=()
for ((r = 0; r < ROUNDS; r++)); do
	fill
	t0=$(now)
	for i in $(seq 1 "$N"); do git wt new --quiet "t$i" >/dev/null; done
	seq_times+=($(ms "$t0" "$(now)"))
	clean
	fill
	: >"$(git rev-parse --git-common-dir)/wt/events.jsonl"
	t0=$(now)
	for i in $(seq 1 "$N"); do git wt new --quiet "t$i" >/dev/null & done
	wait
	par_times+=($(ms "$t0" "$(now)"))
	# A claim from the pool takes no lock: its events may name no wait.
	waits+=($({ grep -o '"lock_wait_ms":[0-9]*' "$(git rev-parse --git-common-dir)/wt/events.jsonl" || echo :0; } | cut -d: -f2 | sort -n | tail -1))
	[ "$(git wt count)" = "$N" ] || { echo "burst lost tasks" >&2; exit 1; }
	clean
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf '%-40s %8s\n' "operation ($N tasks, $FILES files, pool $POOL, median of $ROUNDS)" "ms"
printf '%-40s %8s\n' "$N x git wt new, one after another" "$(median "${seq_times[@]}")"
printf '%-40s %8s\n' "$N x git wt new, all at once" "$(median "${par_times[@]}")"
printf '%-40s %8s\n' "longest wait for the lock (at once)" "$(median "${waits[@]:-0}")"
