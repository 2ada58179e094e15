#!/bin/sh
# Release archives of git-wt (make dist, SPEC §15 "Getting it", §21
# "Release"):
#
#   release/dist.sh VERSION OUT [OS/ARCH...]
#
# For each platform (default: linux and darwin × amd64 and arm64, freebsd
# amd64, windows amd64 and arm64), OUT/git-wt-VERSION-OS-ARCH.tar.gz
# (.zip for windows) holds one folder with the binaries (git-wt and
# git-wt-mcp, git wt mcp's server; .exe on windows), the completion
# scripts and the README, and (but for windows) the man page and
# install.sh (which installs the binaries it finds beside it instead of
# building them); then OUT/SHA256SUMS, and OUT/git-wt.rb, a Homebrew
# formula for the archives built, which it expects at DIST_URL (default:
# the GitHub release of VERSION); with windows archives, OUT/git-wt.json,
# a Scoop manifest, and OUT/winget/, a winget manifest (version,
# installer and defaultLocale files). The binaries are built without cgo: git-wt needs
# none on any platform (macOS's libproc is called through purego). The
# archives are the same bytes every time from one commit (release/pack):
# their times are SOURCE_DATE_EPOCH, by default the commit's.
set -eu

[ $# -ge 2 ] || { echo "usage: release/dist.sh VERSION OUT [OS/ARCH...]" >&2; exit 2; }
version=$1
out=$2
shift 2
[ $# -gt 0 ] || set -- linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 freebsd/amd64 windows/amd64 windows/arm64
go=${GO:-go}
url=${DIST_URL:-https://github.com/git-wt/git-wt/releases/download/$version}
homepage=https://github.com/git-wt/git-wt
description="One git worktree per task, for many coding agents on one repository"
# The repository names no license yet: the manifests say so.
license=Unknown

cd "$(dirname "$0")/.."
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out"/git-wt-*.tar.gz "$out"/git-wt-*.zip "$out/SHA256SUMS" "$out/git-wt.rb" "$out/git-wt.json" "$out/winget"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
	SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null) || SOURCE_DATE_EPOCH=0
fi
export SOURCE_DATE_EPOCH

ldflags="-s -w -X github.com/git-wt/git-wt/internal/cli.Version=$version"
# The man page is the same on every platform: made once, by a build for
# this machine, as is the archiver.
"$go" build -trimpath -ldflags "$ldflags" -o "$tmp/git-wt-man" ./cmd/git-wt-man
"$tmp/git-wt-man" >"$tmp/git-wt.1"
"$go" build -trimpath -o "$tmp/pack" ./release/pack

for platform; do
	os=${platform%/*}
	arch=${platform#*/}
	name=git-wt-$version-$os-$arch
	dir=$tmp/$name
	mkdir -p "$dir/completions"
	echo "building $name"
	CGO_ENABLED=0 GOOS=$os GOARCH=$arch "$go" build -trimpath -tags urfave_cli_no_docs \
		-ldflags "$ldflags" -o "$dir/" ./cmd/git-wt ./cmd/git-wt-mcp
	# Every shell's completion, PowerShell's too where there is one.
	cp completions/git-wt.* "$dir/completions/"
	cp README.md "$dir/"
	archive=$name.tar.gz
	if [ "$os" = windows ]; then
		# No man page (git help opens HTML there) and no install.sh:
		# Scoop, winget or the zip's git-wt.exe on PATH install it.
		archive=$name.zip
	else
		cp "$tmp/git-wt.1" install.sh "$dir/"
	fi
	"$tmp/pack" "$out/$archive" "$dir"
	echo "$archive" >>"$tmp/archives"
done

# sha256sum on Linux, shasum on macOS and the BSDs: the same lines.
sums() {
	if command -v sha256sum >/dev/null 2>&1; then sha256sum "$@"; else shasum -a 256 "$@"; fi
}
# The list is split on blanks: archive names have none.
(cd "$out" && sums $(LC_ALL=C sort "$tmp/archives") >SHA256SUMS)

# checksum FILE prints the sha256 SHA256SUMS has for FILE, or nothing if
# it was not built.
checksum() {
	awk -v f="$1" '$2 == f { print $1 }' "$out/SHA256SUMS"
}

# formula_block OS ARCH prints the url and sha256 of one archive, in the
# Homebrew blocks of its system and processor, if it was built.
formula_block() {
	file=git-wt-$version-$1-$2.tar.gz
	sum=$(checksum "$file")
	[ -n "$sum" ] || return 0
	case $2 in amd64) cpu=on_intel ;; arm64) cpu=on_arm ;; esac
	printf '    %s do\n      url "%s/%s"\n      sha256 "%s"\n    end\n' "$cpu" "$url" "$file" "$sum"
}
{
	cat <<EOF
# Homebrew formula for git-wt $version, made by release/dist.sh from the
# release archives and their SHA256SUMS.
class GitWt < Formula
  desc "$description"
  homepage "$homepage"
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

# The Windows manifests, for the zips built: Scoop's (64bit, arm64) and
# winget's (x64, arm64). Both put git-wt.exe and git-wt-mcp.exe on PATH
# (git wt mcp finds its server there) and leave git to Git for Windows.
windows_zip() { echo "git-wt-$version-windows-$1.zip"; }
nl='
'

# scoop_template TEXT is TEXT with VERSION written as Scoop's $version
# (which has no leading v), for the manifest's autoupdate.
scoop_template() {
	text=$1 done=
	case $version in v*) as='v$version' ;; *) as='$version' ;; esac
	while :; do
		case $text in *"$version"*) ;; *) break ;; esac
		done=$done${text%%"$version"*}$as
		text=${text#*"$version"}
	done
	printf '%s' "$done$text"
}

# scoop_arch SCOOP-ARCH GOARCH [template] prints one entry of the
# manifest's architecture object (with template: of its autoupdate's), if
# the zip was built.
scoop_arch() {
	file=$(windows_zip "$2")
	sum=$(checksum "$file")
	[ -n "$sum" ] || return 0
	if [ "${3:-}" = template ]; then
		printf '            "%s": {\n                "url": "%s",\n                "extract_dir": "%s"\n            }' \
			"$1" "$(scoop_template "$url/$file")" "$(scoop_template "${file%.zip}")"
	else
		printf '        "%s": {\n            "url": "%s/%s",\n            "hash": "%s",\n            "extract_dir": "%s"\n        }' \
			"$1" "$url" "$file" "$sum" "${file%.zip}"
	fi
}

# scoop_archs [template] joins the entries with commas.
scoop_archs() {
	sep=
	for a in 64bit/amd64 arm64/arm64; do
		entry=$(scoop_arch "${a%/*}" "${a#*/}" "$@")
		[ -n "$entry" ] || continue
		printf '%s%s' "$sep" "$entry"
		sep=",$nl"
	done
}

scoop_manifest() {
	cat <<EOF
{
    "version": "${version#v}",
    "description": "$description",
    "homepage": "$homepage",
    "license": "$license",
    "notes": "git wt runs with Git for Windows; git wt --version names github.com/git-wt/git-wt",
    "architecture": {
$(scoop_archs)
    },
    "bin": [
        "git-wt.exe",
        "git-wt-mcp.exe"
    ],
    "checkver": {
        "github": "$homepage"
    },
    "autoupdate": {
        "architecture": {
$(scoop_archs template)
        },
        "hash": {
            "url": "\$baseurl/SHA256SUMS"
        }
    }
}
EOF
}

# winget_installer WINGET-ARCH GOARCH prints one entry of the installer
# file's Installers, if the zip was built.
winget_installer() {
	file=$(windows_zip "$2")
	sum=$(checksum "$file")
	[ -n "$sum" ] || return 0
	cat <<EOF
  - Architecture: $1
    InstallerUrl: $url/$file
    InstallerSha256: $(echo "$sum" | tr 'a-f' 'A-F')
    NestedInstallerFiles:
      - RelativeFilePath: ${file%.zip}\\git-wt.exe
        PortableCommandAlias: git-wt
      - RelativeFilePath: ${file%.zip}\\git-wt-mcp.exe
        PortableCommandAlias: git-wt-mcp
EOF
}

# winget_manifest DIR writes winget's manifest in the three files that
# winget-pkgs holds (manifests/g/git-wt/git-wt/VERSION/); winget install
# --manifest DIR installs from them.
winget_manifest() {
	id=git-wt.git-wt
	schema='# yaml-language-server: $schema=https://aka.ms/winget-manifest'
	mkdir -p "$1"
	cat >"$1/$id.yaml" <<EOF
$schema.version.1.6.0.schema.json
PackageIdentifier: $id
PackageVersion: ${version#v}
DefaultLocale: en-US
ManifestType: version
ManifestVersion: 1.6.0
EOF
	cat >"$1/$id.installer.yaml" <<EOF
$schema.installer.1.6.0.schema.json
PackageIdentifier: $id
PackageVersion: ${version#v}
InstallerType: zip
NestedInstallerType: portable
Commands:
  - git-wt
Dependencies:
  PackageDependencies:
    - PackageIdentifier: Git.Git
Installers:
$(winget_installer x64 amd64; winget_installer arm64 arm64)
ManifestType: installer
ManifestVersion: 1.6.0
EOF
	cat >"$1/$id.locale.en-US.yaml" <<EOF
$schema.defaultLocale.1.6.0.schema.json
PackageIdentifier: $id
PackageVersion: ${version#v}
PackageLocale: en-US
Publisher: git-wt
PublisherUrl: $homepage
PackageName: git-wt
PackageUrl: $homepage
License: $license
ShortDescription: $description
Description: A git extension, git wt, that gives each task its own git worktree. Not worktrunk, whose package installs a git-wt.exe too; git wt --version names github.com/git-wt/git-wt.
Moniker: git-wt
Tags:
  - git
  - worktree
  - agents
ManifestType: defaultLocale
ManifestVersion: 1.6.0
EOF
}

if [ -n "$(checksum "$(windows_zip amd64)")$(checksum "$(windows_zip arm64)")" ]; then
	scoop_manifest >"$out/git-wt.json"
	winget_manifest "$out/winget"
fi
echo "wrote $out: $(cd "$out" && ls | tr '\n' ' ')"
