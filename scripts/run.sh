#!/bin/sh
# run.sh: serve burnlink from this tree on 127.0.0.1:$PORT in the foreground
# (`make run`, `make run SERVER=apache`). Ctrl-C stops it.
#
# Environment: PORT (8080), SERVER (lighttpd | apache | nginx), BACKEND (sqlite |
# postgres: a throwaway local PostgreSQL cluster in var/pg, stopped and removed
# on exit, unless BURNLINK_DB names a database), and for the programs
# BURNLINK_DB (default var/burnlink.db; a postgresql:// or postgres: conninfo
# serves that database with the programs of `make pg`, build/pg/),
# BURNLINK_SECRET_FILE (default beside the SQLite database, var/secret.key with
# PostgreSQL), BURNLINK_SITE_URL, BURNLINK_TRUSTED_PROXIES, BURNLINK_SIGNUP, BURNLINK_CONFIG
# (default burnlink.conf beside the database), BURNLINK_NOTIFY_ALLOW (passed to
# the programs when set; cron/notify, which runs beside the server, reads it
# with BURNLINK_SENDMAIL, BURNLINK_MAIL_FROM and BURNLINK_NOTIFY_CA from this
# environment: docs/NOTIFY.md, "Trying it locally"); BURNLINK_BIN runs
# other builds of the programs (build/asan). Configuration, logs and the pid
# file go to var/run/ and var/log/. Run as root, the server runs as www-data
# (or $BURNLINK_RUN_USER), which is given var/. The cron jobs run beside it
# (cron/cleanup hourly, cron/notify every minute; var/log/cron.log).
set -eu

PORT=${PORT:-8080}
SERVER=${SERVER:-lighttpd}
BACKEND=${BACKEND:-sqlite}
# A BURNLINK_DB given says which database it is.
case "${BURNLINK_DB:-}" in "") ;; postgresql://* | postgres:*) BACKEND=postgres ;; *) BACKEND=sqlite ;; esac
case "$BACKEND" in sqlite | postgres) ;; *) echo "run.sh: BACKEND must be sqlite or postgres (got '$BACKEND')" >&2; exit 2 ;; esac
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

case "$PORT" in
'' | *[!0-9]*) echo "run.sh: PORT must be a number (got '$PORT')" >&2; exit 2 ;;
esac

bin=${BURNLINK_BIN:-$top/cgi-bin}
# The default programs have no PostgreSQL store (a conninfo would be taken for
# a file name): the build of `make pg` serves PostgreSQL, unless cgi-bin/ is a
# `make PG=1` build (linked with libpq).
if [ "$BACKEND" = postgres ] && [ -z "${BURNLINK_BIN:-}" ] && ! grep -q libpq "$bin/create" 2>/dev/null; then
	bin=$top/build/pg/cgi-bin
fi
case "$bin" in /*) ;; *) bin=$top/$bin ;; esac
[ -x "$bin/cgi-bin/create" ] && bin=$bin/cgi-bin
for p in create metadata retrieve delete; do
	[ -x "$bin/$p" ] || { echo "run.sh: $bin/$p is missing; run make first$([ "$BACKEND" = sqlite ] || echo " (make pg)")" >&2; exit 1; }
done

var=$top/var
run=$var/run/$SERVER
log=$var/log
mkdir -p "$var" "$run" "$log"
chmod 700 "$var"
chmod 755 "$var/run" "$run" "$log" 2>/dev/null || true

pgdir=""
if [ "$BACKEND" = postgres ]; then
	# A database, not a file: the install secret stays in var/. Without
	# BURNLINK_DB, a cluster of our own is started below, once the user is known.
	[ -n "${BURNLINK_DB:-}" ] || pgdir=$var/pg
	BURNLINK_DB=${BURNLINK_DB:-}
	datadir=$var ours=1
else
	BURNLINK_DB=${BURNLINK_DB:-$var/burnlink.db}
	case "$BURNLINK_DB" in /*) ;; *) BURNLINK_DB=$top/$BURNLINK_DB ;; esac
	datadir=$(dirname "$BURNLINK_DB")
	# Only a data directory of our own (var/, or one created now) is given to the
	# server's user; another one (BURNLINK_DB=/elsewhere/x.db) is left as it is.
	ours=""
	case "$datadir/" in "$var"/*) ours=1 ;; esac
	[ -d "$datadir" ] || { mkdir -p "$datadir"; ours=1; }
fi
BURNLINK_SECRET_FILE=${BURNLINK_SECRET_FILE:-$datadir/secret.key}
export BURNLINK_DB BURNLINK_SECRET_FILE
passenv="BURNLINK_DB BURNLINK_SECRET_FILE"
for v in BURNLINK_SITE_URL BURNLINK_TRUSTED_PROXIES BURNLINK_SIGNUP BURNLINK_CONFIG \
    BURNLINK_NOTIFY_ALLOW ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS; do
	eval "isset=\${$v+x}"
	[ -n "$isset" ] && passenv="$passenv $v"
done
# `run.sh --passenv`: the variables the programs would get, and nothing served.
if [ "${1:-}" = --passenv ]; then
	echo "$passenv"
	exit 0
fi

# Who the server (and so the programs) run as.
user=""
if [ "$(id -u)" = 0 ]; then
	user=${BURNLINK_RUN_USER:-www-data}
	id -u "$user" >/dev/null 2>&1 || { echo "run.sh: user $user does not exist (set BURNLINK_RUN_USER)" >&2; exit 1; }
	group=$(id -gn "$user")
	# The programs write the database directory (SQLite WAL needs it writable)
	# and lighttpd writes its logs after dropping privileges.
	chown "$user:$group" "$var" "$log"
	for f in "$log"/*.log; do
		[ -e "$f" ] && chown "$user:$group" "$f"
	done
	if [ -n "$ours" ]; then
		chown "$user:$group" "$datadir"
		chmod 700 "$datadir"
		for f in "$datadir"/*.db "$datadir"/*.db-wal "$datadir"/*.db-shm "$BURNLINK_SECRET_FILE"; do
			[ -e "$f" ] && chown "$user:$group" "$f"
		done
	fi
	if ! su -s /bin/sh "$user" -c "test -x '$bin/create' && test -r '$top/www/index.html' && test -w '$datadir'" 2>/dev/null; then
		echo "run.sh: $user cannot reach $bin, $top/www or $datadir;" >&2
		echo "run.sh: make the checkout readable (chmod o+x on its parents) or set BURNLINK_RUN_USER" >&2
		exit 1
	fi
fi

# Where the server may keep a request body it buffers (lighttpd: over 64 KiB):
# a 0700 directory of its user on a tmpfs, removed at exit, so that no
# plaintext of a server-side create is ever written to persistent disk.
if [ -d /dev/shm ]; then
	upload=$(mktemp -d /dev/shm/burnlink-upload.XXXXXX)
else
	echo "run.sh: warning: no /dev/shm; request bodies over 64 KiB may be buffered on disk in $run/upload" >&2
	upload=$run/upload
	mkdir -p "$upload"
fi
chmod 700 "$upload"
[ -n "$user" ] && chown "$user:$group" "$upload"
if [ -n "$pgdir" ]; then
	# The throwaway cluster runs as the programs' user (initdb refuses root),
	# which owns var/; it is stopped and removed when this script exits.
	echo "burnlink: starting a throwaway PostgreSQL cluster in $pgdir" >&2
	BURNLINK_DB=$(PGCLUSTER_HOLDER=$$ sh scripts/pgcluster.sh start "$pgdir" "$user")
fi
# The cron jobs of an installation (INSTALL 10), while the server runs:
# cron/cleanup at start and hourly, cron/notify every minute, their lines in
# var/log/cron.log. Run as root, each becomes the data directory's owner.
crondir=$(dirname "$bin")/cron
cronpid=""
cron_jobs() {
	nap=""
	trap 'kill "$nap" 2>/dev/null; exit 0' TERM
	n=0
	while :; do
		[ $((n % 60)) != 0 ] || "$crondir/cleanup" >>"$log/cron.log" 2>&1 || true
		[ ! -x "$crondir/notify" ] || "$crondir/notify" >>"$log/cron.log" 2>&1 || true
		n=$((n + 1))
		sleep 60 &
		nap=$!
		wait "$nap" || true
	done
}
# At exit: the cron jobs stop, the upload directory goes, and the throwaway
# cluster if one was started.
cleanup() {
	[ -z "$cronpid" ] || kill "$cronpid" 2>/dev/null || true
	rm -rf "$upload"
	[ -z "$pgdir" ] || sh "$top/scripts/pgcluster.sh" stop "$pgdir"
}
trap cleanup EXIT

export BL_PASSENV="$passenv" BL_HOST=127.0.0.1 BL_PORT="$PORT" BL_VHOST="127.0.0.1:$PORT"
export BL_SERVERNAME=127.0.0.1 BL_DOCROOT="$top/www" BL_CGIBIN="$bin" BL_DATADIR="$datadir"
export BL_LOGDIR="$log" BL_RUNDIR="$run" BL_USER="$user" BL_UPLOADDIR="$upload"
export BL_ACCESSLOG="|exec cat >> $log/access.log"

case "$SERVER" in
lighttpd)
	conf=$run/lighttpd.conf
	sh scripts/genconf.sh conf/lighttpd.conf.in >"$conf"
	server=$(command -v lighttpd || echo /usr/sbin/lighttpd)
	[ -x "$server" ] || { echo "run.sh: lighttpd is not installed (sh scripts/deps.sh run)" >&2; exit 1; }
	"$server" -tt -f "$conf" || { echo "run.sh: bad configuration $conf" >&2; exit 1; }
	set -- "$server" -D -f "$conf"
	;;
apache)
	moddir=""
	for d in /usr/lib/apache2/modules /usr/lib64/httpd/modules /usr/lib/httpd/modules; do
		[ -f "$d/mod_rewrite.so" ] && { moddir=$d; break; }
	done
	server=$(command -v apache2 || command -v httpd || echo /usr/sbin/apache2)
	[ -x "$server" ] && [ -n "$moddir" ] ||
		{ echo "run.sh: Apache is not installed (sh scripts/deps.sh apache)" >&2; exit 1; }
	sh scripts/genconf.sh conf/apache-vhost.conf.in >"$run/site.conf"
	if [ "${BURNLINK_APACHE_CGI:-cgi}" = cgid ]; then mpm=event cgi=cgid; else mpm=prefork cgi=cgi; fi
	BL_SITE_CONF=$run/site.conf BL_APACHE_MODDIR=$moddir BL_APACHE_MPM=$mpm BL_APACHE_CGI=$cgi \
		sh scripts/genconf.sh conf/apache-httpd.conf.in >"$run/httpd.conf"
	"$server" -d "$run" -f "$run/httpd.conf" -t 2>&1 | grep -v 'Syntax OK' >&2 || true
	"$server" -d "$run" -f "$run/httpd.conf" -t >/dev/null 2>&1 ||
		{ echo "run.sh: bad configuration $run/httpd.conf" >&2; exit 1; }
	set -- "$server" -d "$run" -f "$run/httpd.conf" -DFOREGROUND
	;;
nginx)
	# nginx with fcgiwrap (as the programs' user) beside it.
	for b in nginx fcgiwrap; do
		command -v $b >/dev/null 2>&1 || [ -x /usr/sbin/$b ] ||
			{ echo "run.sh: $b is not installed (apt-get install nginx fcgiwrap)" >&2; exit 1; }
	done
	mkdir -p "$run/fcgi"
	[ -n "$user" ] && chown "$user:$group" "$run/fcgi"
	sock=$run/fcgi/fcgiwrap.sock
	rm -f "$sock"
	BL_NGINX_HTTP_HOST='$host:$server_port' \
		sh scripts/genconf.sh conf/nginx-fastcgi-params.in >"$run/fastcgi-params"
	BL_NGINX_LISTEN=127.0.0.1:$PORT BL_FCGIWRAP_SOCKET=$sock BL_NGINX_PARAMS=$run/fastcgi-params \
		sh scripts/genconf.sh conf/nginx.conf.in >"$run/site.conf"
	BL_SITE_CONF=$run/site.conf sh scripts/genconf.sh conf/nginx-main.conf.in >"$run/nginx.conf"
	nginx=$(command -v nginx || echo /usr/sbin/nginx)
	fcgiwrap=$(command -v fcgiwrap || echo /usr/sbin/fcgiwrap)
	"$nginx" -t -q -e "$log/error.log" -p "$run" -c "$run/nginx.conf" ||
		{ echo "run.sh: bad configuration $run/nginx.conf" >&2; exit 1; }
	drop=""
	[ -n "$user" ] && drop="setpriv --reuid=$user --regid=$user --init-groups"
	set -- sh -c "$drop $fcgiwrap -c 4 -s unix:$sock & exec $nginx -e $log/error.log -p $run -c $run/nginx.conf"
	;;
*)
	echo "run.sh: SERVER must be lighttpd, apache or nginx (got '$SERVER')" >&2
	exit 2
	;;
esac

if [ -x "$crondir/cleanup" ]; then
	cron_jobs &
	cronpid=$!
else
	echo "run.sh: warning: no $crondir/cleanup: expired secrets stay in the database until it runs" >&2
fi
echo "burnlink: serving http://127.0.0.1:$PORT/ with $SERVER${user:+ as $user} (Ctrl-C stops)"
echo "burnlink: database $(if [ -n "$pgdir" ]; then echo "$BURNLINK_DB (removed on exit)"; elif [ "$BACKEND" = postgres ]; then echo "PostgreSQL (BURNLINK_DB)"; else echo "$BURNLINK_DB"; fi); logs $log/error.log, $log/access.log"
# Ctrl-C reaches the server too (same process group); wait for it to finish.
stopping=""
trap 'stopping=1; echo "burnlink: stopping" >&2' INT TERM
rc=0
"$@" || rc=$?
[ -n "$stopping" ] && exit 0
if [ "$rc" != 0 ]; then
	echo "run.sh: $SERVER exited with status $rc; the end of $log/error.log:" >&2
	tail -n 15 "$log/error.log" >&2 2>/dev/null || true
fi
exit "$rc"
