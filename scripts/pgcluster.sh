#!/bin/sh
# pgcluster.sh: a throwaway local PostgreSQL cluster, for `make run
# BACKEND=postgres` (scripts/run.sh) and `make bench BACKEND=postgres`
# (bench/run.sh). Not for production: trust authentication on a unix socket.
#
#   pgcluster.sh start DIR [OWNER]   initdb in DIR/data, start it listening only
#                                    on a unix socket, create the role and the
#                                    database "burnlink"; prints BURNLINK_DB
#   pgcluster.sh stop DIR            stop it (if running) and remove DIR
#   pgcluster.sh restart DIR         stop and start again (after ALTER SYSTEM)
#   pgcluster.sh psql DIR ARG...     psql as the superuser "postgres"
#   pgcluster.sh socket DIR          the socket directory
#
# initdb refuses to run as root: run as root, the cluster runs as OWNER
# (default postgres; run.sh passes the web server's user). DIR must be
# reachable by OWNER. The socket lives in DIR/sock, or in a directory under
# /tmp when that path is too long for a unix socket (107 bytes). Extra
# postgresql.conf lines may be given in PGCLUSTER_CONF (newline-separated).
# PGCLUSTER_HOLDER names the process the cluster belongs to: while it lives,
# another start in DIR is refused; once it is gone (a killed `make run`), the
# next start stops and replaces what it left.
# The cluster is started in a session of its own, so a Ctrl-C meant for the
# web server does not reach it; the caller stops it.
set -eu

die() { echo "pgcluster.sh: $*" >&2; exit 1; }

bindir() {
	d=$(pg_config --bindir 2>/dev/null || true)
	if [ -n "$d" ] && [ -x "$d/initdb" ]; then echo "$d"; return; fi
	d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
	[ -n "$d" ] && [ -x "$d/initdb" ] || die "initdb not found (sh scripts/deps.sh pg)"
	echo "$d"
}

# as_owner CMD...: CMD as the cluster's owner (the current user unless root).
as_owner() {
	if [ -n "$owner" ]; then runuser -u "$owner" -- "$@"; else "$@"; fi
}

sockdir() { cat "$1/sockdir"; }

# URI-encodes a path for the host= parameter of a postgresql:// URI.
uri_path() { printf '%s' "$1" | sed 's/%/%25/g; s/ /%20/g; s/&/%26/g; s/#/%23/g; s/?/%3F/g; s/+/%2B/g'; }

[ $# -ge 2 ] || die "usage: pgcluster.sh start DIR [OWNER] | stop DIR | restart DIR | psql DIR ARG... | socket DIR"
cmd=$1 dir=$2
shift 2
case "$dir" in /*) ;; *) dir=$(pwd)/$dir ;; esac
bin=$(bindir)
owner=""
if [ "$(id -u)" = 0 ]; then
	if [ -d "$dir/data" ]; then owner=$(stat -c %U "$dir/data"); else owner=${1:-postgres}; fi
	[ "$owner" = root ] && die "the cluster cannot run as root; give another OWNER"
	id -u "$owner" >/dev/null 2>&1 || die "user $owner does not exist"
fi

pg_stop() {
	[ -f "$dir/data/postmaster.pid" ] || return 0
	as_owner "$bin/pg_ctl" -D "$dir/data" -w -t 60 -m fast -s stop >/dev/null 2>&1 ||
		as_owner "$bin/pg_ctl" -D "$dir/data" -w -t 10 -m immediate -s stop >/dev/null 2>&1 || true
}

pg_start() {
	# setsid: out of the caller's process group (Ctrl-C), in a session of its own.
	if ! as_owner setsid "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 -s start >/dev/null; then
		echo "pgcluster.sh: the cluster did not start; the end of $dir/server.log:" >&2
		tail -n 20 "$dir/server.log" >&2 2>/dev/null || true
		exit 1
	fi
}

case "$cmd" in
start)
	if [ -d "$dir/data" ]; then
		holder=$(cat "$dir/holder" 2>/dev/null || true)
		if [ -n "$holder" ] && kill -0 "$holder" 2>/dev/null; then
			die "$dir is in use by process $holder (another make run?); stop that first"
		fi
		# What a run that was killed left behind: a throwaway cluster starts afresh.
		pg_stop
		[ -f "$dir/sockdir" ] && case "$(sockdir "$dir")" in /tmp/burnlink-pgsock.*) rm -rf "$(sockdir "$dir")" ;; esac
		rm -rf "$dir"
	fi
	mkdir -p "$dir"
	sock=$dir/sock
	if [ ${#sock} -gt 90 ]; then
		sock=$(mktemp -d /tmp/burnlink-pgsock.XXXXXX)
	else
		mkdir -p "$sock"
	fi
	echo "$sock" >"$dir/sockdir"
	[ -z "${PGCLUSTER_HOLDER:-}" ] || echo "$PGCLUSTER_HOLDER" >"$dir/holder"
	chmod 755 "$dir" "$sock"
	[ -z "$owner" ] || chown "$owner:" "$dir" "$sock"
	as_owner "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C \
		--no-sync --no-instructions >"$dir/initdb.log" 2>&1 ||
		{ cat "$dir/initdb.log" >&2; die "initdb failed"; }
	{
		echo "# pgcluster.sh"
		echo "listen_addresses = ''"
		echo "unix_socket_directories = '$sock'"
		echo "max_connections = 200"
		echo "synchronous_commit = on"
		echo "log_min_messages = warning"
		printf '%s\n' "${PGCLUSTER_CONF:-}"
	} >>"$dir/data/postgresql.conf"
	pg_start
	"$bin/psql" -X -q -h "$sock" -U postgres -d postgres -v ON_ERROR_STOP=1 \
		-c "CREATE ROLE burnlink LOGIN" -c "CREATE DATABASE burnlink OWNER burnlink" >/dev/null
	echo "postgresql://burnlink@/burnlink?host=$(uri_path "$sock")"
	;;
stop)
	[ -d "$dir" ] || exit 0
	pg_stop
	[ -f "$dir/sockdir" ] && case "$(sockdir "$dir")" in /tmp/burnlink-pgsock.*) rm -rf "$(sockdir "$dir")" ;; esac
	rm -rf "$dir"
	;;
restart)
	pg_stop
	pg_start
	;;
psql)
	exec "$bin/psql" -X -q -h "$(sockdir "$dir")" -U postgres -v ON_ERROR_STOP=1 "$@"
	;;
socket)
	sockdir "$dir"
	;;
*)
	die "unknown command $cmd"
	;;
esac
