#!/bin/sh
# dist.sh: a tarball for shared hosting (`make dist`): dist/burnlink-VERSION.tar.gz
# (VERSION from the file VERSION, with -g<commit> after it unless the commit
# is tagged vVERSION) holds burnlink-VERSION/ laid out as `make install` lays
# out a tree:
#   htdocs/   upload into the document root (with its .htaccess)
#   cgi-bin/  upload into the host's cgi-bin (with its .htaccess)
#   var/      the data directory: upload next to them, outside the document root
#   bin/      cleanup (hourly) and notify (every minute) for cron, burnlink-admin
#   etc/      server configuration examples (/path/to/burnlink stands for the
#             directory you uploaded to), the cron lines, burnlink.conf.example
#   INSTALL, README.md, LICENSE, SHA256SUMS (of every file of the tree)
# and dist/burnlink-VERSION.tar.gz.sha256 beside it. Every program is
# statically linked (x86-64 Linux, like most hosts: nothing to install on the
# host) and stripped; dist.sh fails on a program that is not static.
# BURNLINK_DIST_DIR puts the tarball elsewhere than dist/.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
version=$(sh scripts/version.sh)
name=burnlink-$version
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT INT TERM

BURNLINK_USER="" BURNLINK_CONF_PREFIX=/path/to/burnlink BURNLINK_QUIET=1 \
	sh scripts/install.sh "" "$stage/$name"
rm -rf "$stage/$name/etc/.installed"
cp INSTALL "$stage/$name/INSTALL"
cp conf/burnlink.conf.example "$stage/$name/etc/burnlink.conf.example"
echo "$version" >"$stage/$name/VERSION"
[ -f README.md ] && cp README.md "$stage/$name/README.md"
[ -f LICENSE ] && cp LICENSE "$stage/$name/LICENSE"

# Every program static and stripped: a host has none of the libraries.
bad=0
for f in "$stage/$name"/cgi-bin/* "$stage/$name"/bin/*; do
	[ -f "$f" ] && [ -x "$f" ] || continue
	if readelf -l "$f" 2>/dev/null | grep -q 'INTERP\|Requesting program interpreter' ||
	    readelf -d "$f" 2>/dev/null | grep -q '(NEEDED)'; then
		echo "dist.sh: ${f#"$stage/"} is dynamically linked: a host does not have its libraries (build with make, LDSTATIC=-static)" >&2
		bad=1
	fi
	strip --strip-all "$f"
done
for p in cgi-bin/create bin/cleanup bin/notify bin/burnlink-admin; do
	[ -x "$stage/$name/$p" ] || { echo "dist.sh: $p is missing (run make)" >&2; bad=1; }
done
[ "$bad" -eq 0 ] || exit 1

(cd "$stage/$name" && find . -type f ! -name SHA256SUMS | LC_ALL=C sort | sed 's|^\./||' |
	xargs sha256sum >SHA256SUMS)

out=${BURNLINK_DIST_DIR:-dist}
mkdir -p "$out"
# Owner-neutral archive; modes as installed (0755 programs, 0644 files, 0700 var/).
tar -C "$stage" --owner=0 --group=0 --numeric-owner --sort=name \
	-czf "$out/$name.tar.gz" "$name"
(cd "$out" && sha256sum "$name.tar.gz" >"$name.tar.gz.sha256")
echo "dist.sh: $out/$name.tar.gz ($(du -h "$out/$name.tar.gz" | cut -f1)), $out/$name.tar.gz.sha256"
[ -n "${BURNLINK_QUIET:-}" ] || tar -tzvf "$out/$name.tar.gz" | awk '{print "  " $1 " " $6}'
