#!/bin/sh
# Release archives of git-wt (make dist, SPEC §15 "Getting it"):
#
#   release/dist.sh VERSION OUT [OS/ARCH...]
#
# For each platform (default: linux and darwin × amd64 and arm64, freebsd
# amd64), OUT/git-wt-VERSION-OS-ARCH.tar.gz holds one folder with the
# binaries (git-wt and git-wt-mcp, git wt mcp's server), the man page, the
# completion scripts, install.sh (which installs the binaries it finds
# beside it instead of building them) and the README;
# then OUT/SHA256SUMS, and OUT/git-wt.rb, a Homebrew formula for the
# archives built, which it expects at DIST_URL (default: the GitHub
# release of VERSION). The binaries are built without cgo: git-wt needs
# none on any platform (macOS's libproc is called through purego).
set -eu

[ $# -ge 2 ] || { echo "usage: release/dist.sh VERSION OUT [OS/ARCH...]" >&2; exit 2; }
version=$1
out=$2
shift 2
[ $# -gt 0 ] || set -- linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 freebsd/amd64
go=${GO:-go}
url=${DIST_URL:-https://github.com/git-wt/git-wt/releases/download/$version}

cd "$(dirname "$0")/.."
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out"/git-wt-*.tar.gz "$out/SHA256SUMS" "$out/git-wt.rb"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ldflags="-s -w -X github.com/git-wt/git-wt/internal/cli.Version=$version"
# The man page is the same on every platform: made once, by a build for
# this machine.
"$go" build -trimpath -ldflags "$ldflags" -o "$tmp/git-wt-man" ./cmd/git-wt-man
"$tmp/git-wt-man" >"$tmp/git-wt.1"

for platform; do
	os=${platform%/*}
	arch=${platform#*/}
	name=git-wt-$version-$os-$arch
	dir=$tmp/$name
	mkdir -p "$dir/completions"
	echo "building $name"
	CGO_ENABLED=0 GOOS=$os GOARCH=$arch "$go" build -trimpath -tags urfave_cli_no_docs \
		-ldflags "$ldflags" -o "$dir/" ./cmd/git-wt ./cmd/git-wt-mcp
	cp "$tmp/git-wt.1" "$dir/git-wt.1"
	cp completions/git-wt.bash completions/git-wt.zsh completions/git-wt.fish "$dir/completions/"
	cp install.sh README.md "$dir/"
	tar -C "$tmp" -czf "$out/$name.tar.gz" "$name"
done

# sha256sum on Linux, shasum on macOS and the BSDs: the same lines.
sums() {
	if command -v sha256sum >/dev/null 2>&1; then sha256sum "$@"; else shasum -a 256 "$@"; fi
}
(cd "$out" && sums git-wt-*.tar.gz >SHA256SUMS)

# formula_block OS ARCH prints the url and sha256 of one archive, in the
# Homebrew blocks of its system and processor, if it was built.
formula_block() {
	file=git-wt-$version-$1-$2.tar.gz
	sum=$(awk -v f="$file" '$2 == f { print $1 }' "$out/SHA256SUMS")
	[ -n "$sum" ] || return 0
	case $2 in amd64) cpu=on_intel ;; arm64) cpu=on_arm ;; esac
	printf '    %s do\n      url "%s/%s"\n      sha256 "%s"\n    end\n' "$cpu" "$url" "$file" "$sum"
}
{
	cat <<EOF
# Homebrew formula for git-wt $version, made by release/dist.sh from the
# release archives and their SHA256SUMS.
class GitWt < Formula
  desc "One git worktree per task, for many coding agents on one repository"
  homepage "https://github.com/git-wt/git-wt"
  version "${version#v}"

EOF
	for os in darwin linux; do
		blocks=$(formula_block "$os" arm64; formula_block "$os" amd64)
		[ -n "$blocks" ] || continue
		case $os in darwin) printf '  on_macos do\n' ;; linux) printf '  on_linux do\n' ;; esac
		printf '%s\n  end\n\n' "$blocks"
	done
	cat <<'EOF'
  def install
    bin.install "git-wt", "git-wt-mcp"
    man1.install "git-wt.1"
    bash_completion.install "completions/git-wt.bash" => "git-wt"
    zsh_completion.install "completions/git-wt.zsh" => "_git-wt"
    fish_completion.install "completions/git-wt.fish"
  end

  test do
    assert_match version.to_s, shell_output("#{bin}/git-wt --version")
  end
end
EOF
} >"$out/git-wt.rb"
echo "wrote $out: $(cd "$out" && ls | tr '\n' ' ')"
