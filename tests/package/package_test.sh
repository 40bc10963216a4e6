#!/usr/bin/env bash
# The Debian package as a user gets it: cpack on the built tree (no rebuild), the package
# installed into a scratch root with an empty dpkg database of its own (this machine's packages
# are never touched; --force-depends, since that database has none of them), and then:
# its Depends name the shared libraries the binary links, each of them installed on this machine
# (as apt-get would have installed them), and the installed binary answers --version.
# Usage: package_test.sh BUILD_DIR VERSION
set -euo pipefail
build=$1
version=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "package_test: $*" >&2; exit 1; }

(cd "$build" && cpack -G DEB -B "$work/out" >"$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log" >&2; fail "cpack failed"; }
debs=("$work"/out/proofload_"$version"_*.deb)
[ -f "${debs[0]}" ] || fail "no proofload_${version}_*.deb in $(ls "$work/out")"
deb=${debs[0]}

[ "$(dpkg-deb -f "$deb" Package)" = proofload ] || fail "Package is not proofload"
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || fail "Version is not $version"
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
# What the binary links dynamically (dpkg-shlibdeps' answer, by package name).
for needed in libc6 'libstdc\+\+6' libssl3 libnghttp2-14 'libyaml-cpp[0-9.]*' 'libre2-[0-9]*' zlib1g; do
  grep -Eq "(^|, )$needed( |,|$)" <<<"$depends" || fail "Depends lacks $needed: $depends"
done
# Every dependency is one this machine has installed (so the package installs from Debian).
while read -r name; do
  dpkg-query -W -f='${Status}' "$name" 2>/dev/null | grep -q "install ok installed" ||
    fail "Depends names $name, which is not installed here"
done < <(tr ',' '\n' <<<"$depends" | sed -E 's/^ *//; s/[ (|].*//' | grep -v '^$')

root="$work/root"
mkdir -p "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/info"
: >"$root/var/lib/dpkg/status"
dpkg --root="$root" --admindir="$root/var/lib/dpkg" --log=/dev/null --force-depends \
  --force-not-root --force-script-chrootless -i "$deb" >"$work/dpkg.log" 2>&1 ||
  { cat "$work/dpkg.log" >&2; fail "dpkg -i failed"; }
[ -x "$root/usr/bin/proofload" ] || fail "no /usr/bin/proofload in the installed root"
dpkg --root="$root" --admindir="$root/var/lib/dpkg" -L proofload | grep -qx /usr/bin/proofload ||
  fail "dpkg does not list /usr/bin/proofload as the package's"
answer=$("$root/usr/bin/proofload" --version)
[ "$answer" = "proofload $version" ] || fail "--version said '$answer', not 'proofload $version'"
echo "package_test: $(basename "$deb") installs /usr/bin/proofload ($answer)"
