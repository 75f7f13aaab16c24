#!/bin/sh
# genconf.sh: fill in a server configuration template from conf/ (stdout).
# Usage: scripts/genconf.sh TEMPLATE
#
# Every @NAME@ in the template is replaced by the environment variable BL_NAME;
# a placeholder without a value is an error. Besides the BL_* values given,
# these are computed:
#   @ENV_LIGHTTPD@, @ENV_APACHE@, @ENV_NGINX@  the program environment, from the variables
#                                 named in BL_PASSENV (e.g. "BURNLINK_DB ...")
#   @USER_LIGHTTPD@, @USER_APACHE@, @USER_NGINX@  the run-as user lines, from BL_USER (and
#                                 BL_GROUP); empty when BL_USER is empty
#   @UPLOADDIR@                   where a server may keep a request body it
#                                 buffers (a tmpfs directory): BL_UPLOADDIR,
#                                 else /dev/shm
#   @OPENAPI@                     the file served at /api/openapi.yaml: BL_OPENAPI,
#                                 default this tree's docs/openapi.yaml
# A line that is only @ROUTES_NAME@ (e.g. @ROUTES_NGINX@) is replaced by the
# lines of the file NAME in BL_ROUTES_DIR (default this tree's build/routes,
# written by `make` from the route table, scripts/routes-gen.c), each indented
# as the placeholder was, with their own placeholders filled in.
# Used by scripts/run.sh, scripts/install.sh and tests/lib/server.mjs.
set -eu

[ $# -eq 1 ] || { echo "usage: genconf.sh TEMPLATE" >&2; exit 2; }
[ -r "$1" ] || { echo "genconf.sh: cannot read $1" >&2; exit 2; }

env_lighttpd=""
env_apache=""
env_nginx=""
nl='
'
for name in ${BL_PASSENV:-}; do
	case "$name" in
	*[!A-Za-z0-9_]* | [0-9]*) echo "genconf.sh: bad variable name $name" >&2; exit 2 ;;
	esac
	eval "set_=\${$name+x}"
	[ -n "$set_" ] || continue
	eval "val=\$$name"
	case "$val" in
	*"$nl"* | *'"'* | *'\'*)
		echo "genconf.sh: $name contains a newline, a quote or a backslash" >&2
		exit 2 ;;
	esac
	env_lighttpd="$env_lighttpd	\"$name\" => \"$val\",$nl"
	env_apache="${env_apache}SetEnv $name \"$val\"$nl"
	env_nginx="${env_nginx}fastcgi_param $name \"$val\";$nl"
done

user_lighttpd=""
user_apache=""
user_nginx=""
if [ -n "${BL_USER:-}" ]; then
	group=${BL_GROUP:-$BL_USER}
	user_lighttpd="server.username      = \"$BL_USER\"${nl}server.groupname     = \"$group\""
	user_apache="User $BL_USER${nl}Group $group"
	user_nginx="user $BL_USER $group;"
fi

top=$(cd "$(dirname "$0")/.." && pwd)
BL_UPLOADDIR=${BL_UPLOADDIR:-/dev/shm} \
BL_OPENAPI=${BL_OPENAPI:-$top/docs/openapi.yaml} \
BL_ROUTES_DIR=${BL_ROUTES_DIR:-$top/build/routes} \
BL_ENV_LIGHTTPD=${env_lighttpd%"$nl"} \
BL_ENV_APACHE=${env_apache%"$nl"} \
BL_ENV_NGINX=${env_nginx%"$nl"} \
BL_USER_LIGHTTPD=$user_lighttpd \
BL_USER_APACHE=$user_apache \
BL_USER_NGINX=$user_nginx \
	awk '
	function fill(line, where,    out, name) {
		out = ""
		while (match(line, /@[A-Z][A-Z0-9_]*@/)) {
			name = "BL_" substr(line, RSTART + 1, RLENGTH - 2)
			if (!(name in ENVIRON)) {
				printf "genconf.sh: %s: no value for %s\n", where, name > "/dev/stderr"
				bad = 1
			}
			out = out substr(line, 1, RSTART - 1) ENVIRON[name]
			line = substr(line, RSTART + RLENGTH)
		}
		return out line
	}
	/^[ \t]*@ROUTES_[A-Z0-9_]+@[ \t]*$/ {
		indent = $0
		sub(/@.*/, "", indent)
		file = $0
		sub(/^[ \t]*@/, "", file)
		sub(/@[ \t]*$/, "", file)
		file = ENVIRON["BL_ROUTES_DIR"] "/" file
		n = 0
		while ((rc = (getline l < file)) > 0) {
			print (l == "" ? "" : indent) fill(l, file)
			n++
		}
		close(file)
		if (rc < 0 || n == 0) {
			printf "genconf.sh: %s:%d: %s is missing or empty (run make)\n", FILENAME, FNR, file > "/dev/stderr"
			bad = 1
		}
		next
	}
	{ print fill($0, FILENAME ":" FNR) }
	END { exit bad }' "$1"
