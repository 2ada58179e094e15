#!/bin/sh
# Build git-wt and install it; `./install.sh --uninstall` removes exactly
# what it installs. Idempotent: running it again installs the same files.
#
#   ./install.sh [--prefix DIR] [--bindir DIR] [--mandir DIR] [--destdir DIR] [--uninstall]
#
# PREFIX defaults to ~/.local (or /usr/local as root); PREFIX, BINDIR,
# MANDIR and DESTDIR may also come from the environment.
set -eu

if [ "$(id -u)" = 0 ]; then default_prefix=/usr/local; else default_prefix="$HOME/.local"; fi
prefix=${PREFIX:-$default_prefix}
bindir=${BINDIR:-}
mandir=${MANDIR:-}
destdir=${DESTDIR:-}
action=install

while [ $# -gt 0 ]; do
	case $1 in
	--prefix) prefix=$2; shift 2 ;;
	--prefix=*) prefix=${1#*=}; shift ;;
	--bindir) bindir=$2; shift 2 ;;
	--bindir=*) bindir=${1#*=}; shift ;;
	--mandir) mandir=$2; shift 2 ;;
	--mandir=*) mandir=${1#*=}; shift ;;
	--destdir) destdir=$2; shift 2 ;;
	--destdir=*) destdir=${1#*=}; shift ;;
	--uninstall) action=uninstall; shift ;;
	-h|--help) sed -n '2,9s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "install.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
	esac
done
[ -n "$bindir" ] || bindir=$prefix/bin
[ -n "$mandir" ] || mandir=$prefix/share/man

cd "$(dirname "$0")"
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT

# The files installed, one "source destination" pair a line.
manifest() {
	echo "$build/git-wt $bindir/git-wt"
}

if [ "$action" = uninstall ]; then
	manifest | while read -r _ dest; do
		if [ -e "$destdir$dest" ] || [ -L "$destdir$dest" ]; then
			rm -f "$destdir$dest" && echo "removed $destdir$dest"
		fi
	done
	exit 0
fi

command -v go >/dev/null 2>&1 || { echo "install.sh: Go is needed to build git-wt (https://go.dev/dl/)" >&2; exit 1; }
version=$(git describe --tags --always --dirty 2>/dev/null || echo dev)
go build -trimpath -ldflags "-s -w -X github.com/git-wt/git-wt/internal/cli.Version=$version" -o "$build/git-wt" ./cmd/git-wt

manifest | while read -r src dest; do
	mkdir -p "$(dirname "$destdir$dest")"
	mode=0644
	[ -x "$src" ] && mode=0755
	install -m "$mode" "$src" "$destdir$dest"
	echo "installed $destdir$dest"
done

case ":$PATH:" in
*":$bindir:"*) ;;
*) printf '\n%s is not on your PATH; add this line to your shell profile:\n  export PATH="%s:$PATH"\n' "$bindir" "$bindir" ;;
esac
