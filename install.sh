#!/bin/sh
# Build git-wt and install it: the binary, the man page (git help wt) and the
# completion files for bash, zsh and fish. Idempotent: running it again
# installs the same files. `./install.sh --uninstall` removes exactly what
# it installed, and the folders it made for them.
#
#   ./install.sh [--prefix DIR] [--bindir DIR] [--mandir DIR] [--destdir DIR] [--uninstall]
#
# PREFIX defaults to ~/.local (or /usr/local as root); PREFIX, BINDIR,
# MANDIR, DESTDIR and VERSION may also come from the environment.
set -eu

if [ "$(id -u)" = 0 ]; then default_prefix=/usr/local; else default_prefix="$HOME/.local"; fi
prefix=${PREFIX:-$default_prefix}
bindir=${BINDIR:-}
mandir=${MANDIR:-}
destdir=${DESTDIR:-}
action=install

while [ $# -gt 0 ]; do
	case $1 in
	--prefix|--bindir|--mandir|--destdir)
		[ $# -ge 2 ] || { echo "install.sh: $1 needs a value (see --help)" >&2; exit 2; }
		opt=${1#--}; eval "$opt=\$2"; shift 2 ;;
	--prefix=*) prefix=${1#*=}; shift ;;
	--bindir=*) bindir=${1#*=}; shift ;;
	--mandir=*) mandir=${1#*=}; shift ;;
	--destdir=*) destdir=${1#*=}; shift ;;
	--uninstall) action=uninstall; shift ;;
	-h|--help) sed -n '2,10s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "install.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
	esac
done
# Without trailing slashes, so that paths compare as written.
while [ "$prefix" != "${prefix%/}" ]; do prefix=${prefix%/}; done
[ -n "$bindir" ] || bindir=$prefix/bin
[ -n "$mandir" ] || mandir=$prefix/share/man
datadir=$prefix/share
# What was installed (files, and the folders made for them), so that
# --uninstall removes exactly that.
manifest=$datadir/git-wt/manifest
nl='
'

# owned DIR says whether the folder DIR, if this install made it, is
# git-wt's to remove again (when empty) on --uninstall, and so goes on the
# manifest. Never the prefix or a folder above it, nor the standard
# folders under it (bin, share, the man pages'): other software puts its
# files there, and a staged install that finds them missing (DESTDIR
# starts empty) must not claim /usr/bin. A staged install claims only
# git-wt's own folder: the staging folder says nothing about which
# folders the target system has (there /usr/share/zsh is zsh's).
owned() {
	[ "$1" = "$datadir/git-wt" ] && return 0
	[ -z "$destdir" ] || return 1
	case $1 in
	"$bindir" | "$mandir" | "$mandir/man1" | "$datadir") return 1 ;;
	"$prefix"/*) return 0 ;;
	esac
	return 1
}

# claimed prints the manifest lines among $1 that stand: every file, and
# the folders owned says are git-wt's. A manifest written by an older
# install.sh may claim folders that are not (/usr/bin): they are dropped
# here, both when the manifest is written again and on --uninstall.
claimed() {
	printf '%s\n' "$1" | while IFS= read -r line; do
		case $line in
		"") continue ;;
		"d "*) owned "${line#d }" || continue ;;
		esac
		printf '%s\n' "$line"
	done
}

# each_file calls "$1 NAME DEST MODE" for every file installed: its name in
# the build folder, where it goes, and its mode.
each_file() {
	"$1" git-wt "$bindir/git-wt" 755
	"$1" git-wt-mcp "$bindir/git-wt-mcp" 755
	"$1" git-wt.1 "$mandir/man1/git-wt.1" 644
	"$1" git-wt.bash "$datadir/bash-completion/completions/git-wt" 644
	"$1" _git-wt "$datadir/zsh/site-functions/_git-wt" 644
	"$1" git-wt.fish "$datadir/fish/vendor_completions.d/git-wt.fish" 644
	"$1" git-wt.conf.fish "$datadir/fish/vendor_conf.d/git-wt.fish" 644
}

# manifest_lines prints the manifest's lines ("f PATH" or "d PATH"), if any.
manifest_lines() {
	if [ -f "$destdir$manifest" ]; then cat "$destdir$manifest"; fi
}

if [ "$action" = uninstall ]; then
	entries=$(claimed "$(manifest_lines)")
	if [ -z "$entries" ]; then
		# Installed by an older install.sh, or not at all: the files only.
		list_file() { entries="$entries${nl}f $2"; }
		each_file list_file
	fi
	# Files first, then folders, the innermost first.
	printf '%s\n' "$entries" | while IFS= read -r line; do
		case $line in "f "*)
			f=$destdir${line#f }
			if [ -e "$f" ] || [ -L "$f" ]; then rm -f "$f" && echo "removed $f"; fi
		esac
	done
	printf '%s\n' "$entries" | sed -n 's/^d //p' | sort -r | while IFS= read -r d; do
		if [ -d "$destdir$d" ] && rmdir "$destdir$d" 2>/dev/null; then echo "removed $destdir$d/"; fi
	done
	exit 0
fi

cd "$(dirname "$0")"
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
if [ ! -f go.mod ] && [ -f git-wt ] && [ -f git-wt.1 ]; then
	# A release archive (make dist): the binaries and the man page are built.
	cp git-wt git-wt-mcp git-wt.1 "$build/"
else
	command -v go >/dev/null 2>&1 || { echo "install.sh: Go is needed to build git-wt (https://go.dev/dl/)" >&2; exit 1; }
	version=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
	ldflags="-s -w -X github.com/git-wt/git-wt/internal/cli.Version=$version"
	# urfave_cli_no_docs: the man page writer is not linked into git-wt (it
	# would slow every start); cmd/git-wt-man, built beside it, prints the page.
	# git-wt-mcp is git wt mcp's server, apart for the same reason.
	go build -trimpath -tags urfave_cli_no_docs -ldflags "$ldflags" -o "$build/" ./cmd/git-wt ./cmd/git-wt-mcp
	go build -trimpath -ldflags "$ldflags" -o "$build/git-wt-man" ./cmd/git-wt-man
	"$build/git-wt-man" >"$build/git-wt.1"
fi
# The completion scripts as they are in completions/ (the binary embeds the
# same files: `git wt completion SHELL` prints them).
cp completions/git-wt.bash "$build/git-wt.bash"
cp completions/git-wt.zsh "$build/_git-wt"
cp completions/git-wt.fish "$build/git-wt.fish"
cat >"$build/git-wt.conf.fish" <<'EOF'
# git-wt: `git wt <TAB>` in fish. fish's git completion hands `git wt` to
# git-wt's own only from fish 3.7 on: load it now, beside this folder.
source (status dirname)/../vendor_completions.d/git-wt.fish
EOF

entries=$(manifest_lines)
# makedirs is mkdir -p that notes each folder it makes for the manifest
# (where claimed keeps those that are git-wt's).
makedirs() {
	[ -d "$destdir$1" ] && return 0
	case $1 in
	/ | .) # the top: a DESTDIR that does not exist yet
		mkdir -p "$destdir$1"
		return 0 ;;
	esac
	makedirs "$(dirname "$1")"
	mkdir "$destdir$1"
	entries="$entries${nl}d $1"
}
put() {
	makedirs "$(dirname "$2")"
	if cmp -s "$build/$1" "$destdir$2"; then
		echo "unchanged $destdir$2"
	else
		install -m "$3" "$build/$1" "$destdir$2"
		echo "installed $destdir$2"
	fi
	entries="$entries${nl}f $2"
}
each_file put
makedirs "$(dirname "$manifest")"
claimed "$entries${nl}f $manifest" | awk '!seen[$0]++' >"$destdir$manifest"

# Say what is left to do: only for a real install, not a staged one.
[ -z "$destdir" ] || exit 0
case ":$PATH:" in
*":$bindir:"*)
	found=$(command -v git-wt || true)
	if [ "$found" != "$bindir/git-wt" ]; then
		printf '\nwarning: %s comes first on your PATH and answers to git wt instead\n' "$found"
	fi ;;
*) # git finds git-wt on PATH only: until then `git wt` is "not a git command".
	printf '\n%s is not on your PATH, so git wt is not found yet; run this line now,\nand add it to your shell profile (~/.profile, ~/.zshrc) for the shells to come:\n  export PATH="%s:$PATH"\n' "$bindir" "$bindir" ;;
esac
if command -v zsh >/dev/null 2>&1 && ! zsh -fc 'print -l -- $fpath' | grep -qxF "$datadir/zsh/site-functions"; then
	printf '\nzsh completion: add this line to ~/.zshrc, before compinit:\n  fpath=(%s $fpath)\n' "$datadir/zsh/site-functions"
fi
# fish reads vendor_completions.d and vendor_conf.d in its user data
# folder and in each folder of XDG_DATA_DIRS, by default its own data
# folder, which its pkg-config file names (the fish found on PATH may be a
# link: /bin/fish on a merged /usr is /usr's). Asking fish itself would
# make folders in the user's home. git-wt's files stay under the prefix,
# which --uninstall cleans (a staged package cannot ask the target's fish
# anyway): when fish does not read them, say the one line to add.
if fish=$(command -v fish); then
	fishdata=$(pkg-config --variable datadir fish 2>/dev/null) || fishdata=
	[ -n "$fishdata" ] || fishdata=${fish%/bin/fish}/share
	case ":${XDG_DATA_HOME:-$HOME/.local/share}:${XDG_DATA_DIRS:-$fishdata}:" in
	*":$datadir:"*) ;;
	*) printf '\nfish completion: fish does not read %s; add this line to ~/.config/fish/config.fish\n(or, for every user, put it in /etc/fish/conf.d/git-wt.fish):\n  source %s\n' "$datadir/fish" "$datadir/fish/vendor_completions.d/git-wt.fish" ;;
	esac
fi
