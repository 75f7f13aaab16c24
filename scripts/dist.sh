#!/bin/sh
# dist.sh: a tarball for shared hosting (`make dist`): dist/burnlink-VERSION.tar.gz
# (VERSION from the file VERSION, with -g<commit> after it unless the commit
# is tagged vVERSION) holds burnlink-VERSION/ laid out as `make install` lays
# out a tree:
#   htdocs/   upload into the document root (with its .htaccess)
#   cgi-bin/  upload into the host's cgi-bin (with its .htaccess)
#   var/      the data directory: upload next to them, outside the document root
#   bin/      cleanup (hourly) and notify (every minute) for cron, burnlink-admin
#             (and burnlink-programs, which holds every program: see below)
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

# On x86-64 (make dist builds them), one binary holds every program,
# bin/burnlink-programs, and each program's file is a stub that executes it
# under its own name (scripts/multicall.c, scripts/stub.c): one copy of
# OpenSSL, SQLite and json-c instead of one per program (95 MB -> 8.5 MB
# unpacked, a 3.4 MB tarball instead of 45 MB). The stub's exec costs about
# 0.2 ms of CPU per request (INSTALL section 6); BURNLINK_DIST_SEPARATE=1
# ships the separate programs instead. BURNLINK_BIN (another build's
# programs) ships them as they are.
multi=build/dist
if [ -z "${BURNLINK_BIN:-}" ] && [ -z "${BURNLINK_DIST_SEPARATE:-}" ] &&
    [ -x "$multi/burnlink-programs" ] && [ -x "$multi/stub" ]; then
	cp "$multi/burnlink-programs" "$stage/$name/bin/burnlink-programs"
	for f in "$stage/$name"/cgi-bin/* "$stage/$name"/bin/*; do
		[ -f "$f" ] && [ -x "$f" ] && [ "${f##*/}" != burnlink-programs ] || continue
		cp "$multi/stub" "$f"
		chmod 755 "$f"
	done
	chmod 755 "$stage/$name/bin/burnlink-programs"
fi

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
