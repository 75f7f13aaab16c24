#!/bin/sh
# callgrind.sh: the instructions (callgrind's Ir) of one create and one view
# of a secret through the CGI programs of a tree, on a fresh database: a
# measure of a change's cost that a loaded, shared machine does not blur
# (docs/PERFORMANCE.md, "The audit trail's cost").
#
#   sh bench/callgrind.sh [TREE]     # TREE: a checkout with its programs built (default .)
#
# Each program runs once first on the database (the schema is made, the
# install secret written), then the measured create (server-side, 1 KiB of
# text, 2 views) and a view of it, each under valgrind --tool=callgrind.
# Prints "create IR" and "retrieve IR".
set -eu
tree=$(cd "${1:-.}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export BURNLINK_DB="$work/burnlink.db" BURNLINK_SELF_WORK=off
body='{"text":"'$(head -c 768 /dev/urandom | base64 -w0 | head -c 1024)'","maxViews":2}'
cgi() {	# PROGRAM METHOD PATH_INFO BODY [WRAP...]
	prog=$1 method=$2 pinfo=$3 data=$4
	shift 4
	printf '%s' "$data" | env REQUEST_METHOD="$method" PATH_INFO="$pinfo" \
	    CONTENT_TYPE=application/json CONTENT_LENGTH=${#data} REMOTE_ADDR=192.0.2.1 \
	    HTTP_HOST=localhost SERVER_NAME=localhost SERVER_PORT=80 GATEWAY_INTERFACE=CGI/1.1 \
	    "$@" "$tree/cgi-bin/$prog"
}
ir() {	# the total Ir of a callgrind output file
	awk '/^(summary|totals):/ { print $2; exit }' "$1"
}
cgi create POST "" "$body" >/dev/null
cg="valgrind --tool=callgrind --callgrind-out-file=$work/cg.%p -q"
out=$(cgi create POST "" "$body" $cg)
key=$(printf '%s' "$out" | sed -n 's/.*"secretKey": *"\([A-Za-z0-9_-]\{22\}\)".*/\1/p')
[ -n "$key" ] || { echo "callgrind.sh: create failed: $out" >&2; exit 1; }
echo "create $(ir "$(ls "$work"/cg.* | head -1)")"
rm -f "$work"/cg.*
cgi retrieve POST "/$key" "{}" $cg >/dev/null
echo "retrieve $(ir "$(ls "$work"/cg.* | head -1)")"
