#!/bin/sh
# dist.sh: a tarball for shared hosting (`make dist`): dist/burnlink-VERSION.tar.gz
# holds burnlink-VERSION/ laid out as `make install` lays out a tree:
#   htdocs/   upload into the document root (with its .htaccess)
#   cgi-bin/  upload into the host's cgi-bin (with its .htaccess)
#   var/      the data directory: upload next to them, outside the document root
#   bin/      cleanup, for the hourly cron job
#   etc/      server configuration examples (/path/to/burnlink stands for the
#             directory you uploaded to), the cron line
#   INSTALL
# The programs are statically linked (x86-64 Linux, like most hosts).
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
echo "$version" >"$stage/$name/VERSION"
[ -f README.md ] && cp README.md "$stage/$name/README.md"
[ -f LICENSE ] && cp LICENSE "$stage/$name/LICENSE"
for f in "$stage/$name"/cgi-bin/create "$stage/$name"/bin/cleanup; do
	[ -f "$f" ] || continue
	if file "$f" 2>/dev/null | grep -q 'dynamically linked'; then
		echo "dist.sh: warning: $f is dynamically linked; the host needs the same libraries" >&2
	fi
done

out=${BURNLINK_DIST_DIR:-dist}
mkdir -p "$out"
# Owner-neutral archive; modes as installed (0755 programs, 0644 files, 0700 var/).
tar -C "$stage" --owner=0 --group=0 --numeric-owner --sort=name \
	-czf "$out/$name.tar.gz" "$name"
echo "dist.sh: $out/$name.tar.gz"
[ -n "${BURNLINK_QUIET:-}" ] || tar -tzvf "$out/$name.tar.gz" | awk '{print "  " $1 " " $6}'
