#!/bin/sh
# deb.sh: builds the Debian packages (`make deb`; docs/ADMIN.md, "The Debian
# package") from a copy of the tree's files, so that the tree stays clean and
# a build sees only what git tracks (plus the page's QR-code library, which
# `make` fetched from npm): dpkg-buildpackage -b with debhelper, on every
# core (-Jauto: debian/rules reads parallel=N), then lintian.
# Usage: scripts/deb.sh [OUTDIR]   (default build/deb-out; the .deb files and
# lintian.txt land there). SOURCE_DATE_EPOCH comes from debian/changelog, so
# two builds of one commit give the same bytes (tests/deb checks it).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build/deb-out}
case "$out" in /*) ;; *) out=$top/$out ;; esac
version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
work=$out/src
src=$work/burnlink-$version

rm -rf "$work"
mkdir -p "$src"
(cd "$top" && git ls-files -z --cached --others --exclude-standard) |
	(cd "$top" && xargs -0 cp --parents -t "$src" 2>/dev/null || true)
# tracked files deleted in the tree are not copied: keep what exists
if [ -f "$top/www/assets/vendor/qrcode.js" ]; then
	mkdir -p "$src/www/assets/vendor"
	cp "$top/www/assets/vendor/qrcode.js" "$src/www/assets/vendor/"
fi
# The same file times in every copy (a file's mtime is not its content).
find "$src" -exec touch -h -d "@$(dpkg-parsechangelog -l "$top/debian/changelog" -S Timestamp)" {} +

(cd "$src" && dpkg-buildpackage -b -uc -us -Jauto) >"$out/build.log" 2>&1 || {
	tail -n 40 "$out/build.log" >&2
	echo "deb.sh: dpkg-buildpackage failed (all of it in $out/build.log)" >&2
	exit 1
}
# lintian: every error and warning (overrides carry their reasons in debian/).
# tests/deb runs it on the packages itself (BURNLINK_DEB_LINT=0 here).
[ "${BURNLINK_DEB_LINT:-1}" = 0 ] || lintian --fail-on error,warning "$work"/*.changes >"$out/lintian.txt" 2>&1 || {
	cat "$out/lintian.txt" >&2
	echo "deb.sh: lintian reports errors or warnings" >&2
	exit 1
}
rm -f "$out"/*.deb
mv "$work"/*.deb "$out/"
rm -rf "$work"
ls "$out"/*.deb
