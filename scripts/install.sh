#!/bin/sh
# Installs a signpost release: downloads the archive for this machine's OS
# and architecture from the release, checks its SHA-256 against the
# release's checksums file, and puts the signpost binary into DIR. Nothing
# is installed unless the checksum matches.
#
# Usage: install.sh VERSION [DIR]
#
#   VERSION  the release, such as v0.1.0 (no "latest": a workflow installs
#            what it names)
#   DIR      where signpost goes; default $HOME/.local/bin
#
# SIGNPOST_DOWNLOAD_URL is the base URL of the release's files, default
# https://github.com/signpost-dev/signpost/releases/download/VERSION.
# The action in action.yml runs this script; so can anyone with a POSIX
# shell, tar (unzip on Windows), curl or wget, and sha256sum or shasum.
set -eu

fail() {
	echo "install.sh: $*" >&2
	exit 1
}

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	fail "usage: install.sh VERSION [DIR]"
fi
version=$1
dir=${2:-${HOME:?}/.local/bin}

case $version in
*[!0-9A-Za-z.+-]* | "") fail "version $version: not a release version such as v0.1.0" ;;
v[0-9]*.[0-9]*.[0-9]*) ;;
*) fail "version $version: not a release version such as v0.1.0" ;;
esac
number=${version#v}

case $(uname -s) in
Linux) os=linux ;;
Darwin) os=darwin ;;
MINGW* | MSYS* | CYGWIN* | Windows_NT) os=windows ;;
*) fail "no release for the OS $(uname -s)" ;;
esac
case $(uname -m) in
x86_64 | amd64) arch=amd64 ;;
aarch64 | arm64) arch=arm64 ;;
*) fail "no release for the architecture $(uname -m)" ;;
esac

ext=tar.gz
exe=signpost
if [ "$os" = windows ]; then
	ext=zip
	exe=signpost.exe
fi
archive=signpost_${number}_${os}_${arch}.${ext}
checksums=signpost_${number}_checksums.txt
base=${SIGNPOST_DOWNLOAD_URL:-https://github.com/signpost-dev/signpost/releases/download/$version}
base=${base%/}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

download() {
	if command -v curl >/dev/null 2>&1; then
		curl --fail --silent --show-error --location --retry 3 --max-time 300 --output "$2" "$1"
	elif command -v wget >/dev/null 2>&1; then
		wget --quiet --tries=3 --timeout=300 --output-document="$2" "$1"
	else
		fail "neither curl nor wget is installed"
	fi
}

sha256() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1" | cut -d ' ' -f 1
	elif command -v shasum >/dev/null 2>&1; then
		shasum -a 256 "$1" | cut -d ' ' -f 1
	else
		fail "neither sha256sum nor shasum is installed"
	fi
}

download "$base/$checksums" "$tmp/$checksums" || fail "cannot download $base/$checksums"
download "$base/$archive" "$tmp/$archive" || fail "cannot download $base/$archive"

want=$(awk -v name="$archive" '$2 == name { print $1 }' "$tmp/$checksums")
[ -n "$want" ] || fail "$checksums has no checksum of $archive"
got=$(sha256 "$tmp/$archive")
[ "$got" = "$want" ] || fail "$archive: SHA-256 $got, but $checksums says $want; nothing installed"

mkdir "$tmp/unpacked"
if [ "$ext" = zip ]; then
	unzip -q "$tmp/$archive" "$exe" -d "$tmp/unpacked" || fail "cannot unpack $archive"
else
	tar -xzf "$tmp/$archive" -C "$tmp/unpacked" "$exe" || fail "cannot unpack $archive"
fi
[ -f "$tmp/unpacked/$exe" ] || fail "$archive holds no $exe"

mkdir -p "$dir"
# Beside the destination first, then renamed: never a half-written binary.
cp "$tmp/unpacked/$exe" "$dir/.$exe.new"
chmod 755 "$dir/.$exe.new"
mv -f "$dir/.$exe.new" "$dir/$exe"
echo "installed signpost $version ($os/$arch) in $dir"
