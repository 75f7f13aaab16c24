#!/bin/sh
# version.sh: prints the build's version: the first line of VERSION when the
# tree has one (a source tarball or a package writes it), else `git describe
# --tags --always --dirty`, else "unknown". The Makefile compiles it in
# ($(BUILD)/version.h: /api/health's "version"); scripts/dist.sh names the
# tarball after it.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
if [ -f "$top/VERSION" ]; then
	v=$(sed -n '1p' "$top/VERSION")
else
	v=$(git -C "$top" describe --tags --always --dirty 2>/dev/null || true)
fi
[ -n "$v" ] || v=unknown
case "$v" in
*[!A-Za-z0-9._+~-]*) echo "version.sh: \"$v\" is not a version (A-Z a-z 0-9 . _ + ~ -)" >&2; exit 1 ;;
esac
echo "$v"
