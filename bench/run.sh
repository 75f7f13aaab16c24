#!/bin/sh
# run.sh: the benchmark (`make bench`). Each case gets a fresh web server on a
# free loopback port and a fresh copy of a seeded database; wrk drives it at 1
# and 8 connections, DURATION seconds per run after a WARMUP, RUNS runs; the
# table gives the median req/s, p50 and p99, and each case's ratio to the CGI
# floor (a static program that prints a fixed JSON body) measured the same way
# in the same session. PrivateBin, the PHP pastebin most self-hosters would run
# instead, is measured beside burnlink in the same session (pb-create, pb-read)
# when its release tarball is found. It is printed and written as Markdown to
# bench/results/.
#
# Environment:
#   SERVER    lighttpd (default) | apache (PrivateBin runs under lighttpd only)
#   MODE      cgi (default) | fastcgi (the programs as FastCGI responders, and
#             PrivateBin's php-cgi under mod_fastcgi; the floor stays the CGI floor)
#   BACKEND   sqlite (default) | postgres: the cases on a throwaway PostgreSQL
#             cluster (scripts/pgcluster.sh; fsync and synchronous_commit on)
#             beside SQLite, with the programs of `make pg` (build/pg/)
#   DBS       the databases of the cases: sqlite | pg (a direct connection on
#             the cluster's unix socket) | pgbouncer (PgBouncer, transaction
#             pooling, on a unix socket); BACKEND=postgres: "sqlite pg pgbouncer"
#             in CGI mode, "sqlite pg" in FastCGI mode (a responder keeps its
#             connection)
#   DURATION  seconds per run (10); WARMUP seconds before the runs (2); RUNS (3)
#   CONNS     connection counts ("1 8")
#   CASES     which cases ("floor create-cs create-ss metadata retrieve
#             retrieve-spread retrieve-once burn pb-create pb-read pb-read-once
#             sizes"; MODE=fastcgi also floor-fcgi, the FastCGI floor: a
#             responder that answers a fixed body, reading nothing);
#             BACKEND=postgres: without pb-* and sizes); the floor always runs
#             when a ratio needs it. retrieve views one unlimited secret on
#             every request (all views wait for one row); retrieve-spread
#             views one of POOL (256) unlimited secrets drawn at random
#   SIZES     plaintext sizes of the size curve ("1024 65536 524288 2097152")
#   PG_FCGI_PROCS  lighttpd's FastCGI processes per program on PostgreSQL (4:
#               each waits on the database for every statement; INSTALL)
#   FCGI_PROCS  FastCGI processes per program (2 with lighttpd; 16 with Apache,
#               whose mod_fcgid gives each process one request at a time: INSTALL 15)
#   PRIVATEBIN_TARBALL  PrivateBin's release tarball (default: the newest
#             privatebin-*.tar.gz in ../shared/peers/ beside the checkout);
#             without one the PrivateBin cases are skipped, and the report says so
#   BURNLINK_BIN  the programs (default cgi-bin/); BURNLINK_PG_BIN (build/pg/cgi-bin)
#   OUT: the Markdown file; KEEP=1 keeps the work tree
# Every request carries an X-Forwarded-For from a pool (bench/wrk.lua) and the programs trust
# 127.0.0.1 as a proxy: the rate limiter counts every request, as deployed,
# without refusing the benchmark once one address has used its 1000 a day.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

SERVER=${SERVER:-lighttpd}
MODE=${MODE:-cgi}
BACKEND=${BACKEND:-sqlite}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-2}
RUNS=${RUNS:-3}
CONNS=${CONNS:-"1 8"}
if [ "$BACKEND" = postgres ]; then
	CASES=${CASES:-"floor create-cs create-ss metadata retrieve retrieve-spread retrieve-once burn"}
	if [ "$MODE" = cgi ]; then DBS=${DBS:-"sqlite pg pgbouncer"}; else DBS=${DBS:-"sqlite pg"}; fi
else
	CASES=${CASES:-"floor $([ "$MODE" = fastcgi ] && echo floor-fcgi) create-cs create-ss metadata retrieve retrieve-spread retrieve-once burn pb-create pb-read pb-read-once sizes"}
	DBS=${DBS:-sqlite}
fi
SIZES=${SIZES:-"1024 65536 524288 2097152"}
if [ "$SERVER" = apache ]; then FCGI_PROCS=${FCGI_PROCS:-16}; else FCGI_PROCS=${FCGI_PROCS:-2}; fi
PG_FCGI_PROCS=${PG_FCGI_PROCS:-$([ "$SERVER" = apache ] && echo "$FCGI_PROCS" || echo 4)}
SEED=${SEED:-60000}
POOL=${POOL:-256}
# burn-after-reading pastes made for each run of pb-read-once (a fifth of them for the warm-up)
PB_BURN=${PB_BURN:-$SEED}

case "$SERVER" in lighttpd | apache) ;; *) echo "bench: SERVER must be lighttpd or apache" >&2; exit 2 ;; esac
case "$MODE" in cgi | fastcgi) ;; *) echo "bench: MODE must be cgi or fastcgi" >&2; exit 2 ;; esac
case "$BACKEND" in sqlite | postgres) ;; *) echo "bench: BACKEND must be sqlite or postgres" >&2; exit 2 ;; esac
usepg=""
for db in $DBS; do
	case "$db" in
	sqlite) ;;
	pg | pgbouncer) usepg=1 ;;
	*) echo "bench: DBS takes sqlite, pg and pgbouncer (got '$db')" >&2; exit 2 ;;
	esac
done

want() { case " $CASES " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

bin=${BURNLINK_BIN:-$top/cgi-bin}
for p in create metadata retrieve delete; do
	[ -x "$bin/$p" ] || { echo "bench: $bin/$p is missing; run make" >&2; exit 1; }
done
helpers=${BENCH_HELPERS:-build/bench}
case "$helpers" in /*) ;; *) helpers=$top/$helpers ;; esac
for p in null seed drive $(want floor-fcgi && echo null-fcgi); do
	[ -x "$helpers/$p" ] || { echo "bench: $helpers/$p is missing; run make bench" >&2; exit 1; }
done
if [ -n "$usepg" ]; then
	pgbin=${BURNLINK_PG_BIN:-$top/build/pg/cgi-bin}
	pgseed=${BENCH_PG_SEED:-$top/build/pg-obj/bench/seed}
	for p in "$pgbin/create" "$pgbin/metadata" "$pgbin/retrieve" "$pgbin/delete" "$pgseed"; do
		[ -x "$p" ] || { echo "bench: $p is missing; run make bench BACKEND=postgres" >&2; exit 1; }
	done
	case " $DBS " in *" pgbouncer "*)
		command -v pgbouncer >/dev/null || [ -x /usr/sbin/pgbouncer ] ||
			{ echo "bench: pgbouncer is missing (sh scripts/deps.sh bench)" >&2; exit 1; } ;;
	esac
fi
command -v wrk >/dev/null || { echo "bench: wrk is missing (sh scripts/deps.sh bench)" >&2; exit 1; }

# PrivateBin: found, or skipped with the reason (printed and in the report).
pb_skip=""
if want pb-create || want pb-read || want pb-read-once; then
	pb_tar=${PRIVATEBIN_TARBALL:-$(ls "$top"/../shared/peers/privatebin-*.tar.gz 2>/dev/null | sort -V | tail -n 1)}
	phpcgi=$(command -v php-cgi || true)
	if [ -n "${PRIVATEBIN_TARBALL:-}" ] && [ ! -f "$PRIVATEBIN_TARBALL" ]; then
		pb_skip="PRIVATEBIN_TARBALL ($PRIVATEBIN_TARBALL) is not a file"
	elif [ -z "$pb_tar" ] || [ ! -f "$pb_tar" ]; then
		pb_skip="no PrivateBin tarball (privatebin-*.tar.gz in $(cd "$top/.." && pwd)/shared/peers/, or PRIVATEBIN_TARBALL)"
	elif [ -z "$phpcgi" ]; then
		pb_skip="php-cgi is not installed (sh scripts/deps.sh bench)"
	elif [ "$SERVER" != lighttpd ]; then
		pb_skip="PrivateBin runs under lighttpd only"
	elif ! command -v curl >/dev/null; then
		pb_skip="curl is missing (sh scripts/deps.sh bench)"
	fi
	if [ -n "$pb_skip" ]; then
		echo "bench: PrivateBin cases skipped: $pb_skip" >&2
		CASES=$(echo " $CASES " | sed 's/ pb-create / /; s/ pb-read / /; s/ pb-read-once / /')
	fi
fi

if [ "$SERVER" = apache ]; then
	httpd=$(command -v apache2 || command -v httpd || echo /usr/sbin/apache2)
	moddir=""
	for d in /usr/lib/apache2/modules /usr/lib64/httpd/modules /usr/lib/httpd/modules; do
		[ -f "$d/mod_rewrite.so" ] && { moddir=$d; break; }
	done
	[ -x "$httpd" ] && [ -n "$moddir" ] || { echo "bench: Apache is missing (sh scripts/deps.sh apache)" >&2; exit 1; }
	if [ "$MODE" = fastcgi ] && [ ! -f "$moddir/mod_fcgid.so" ]; then
		if [ "$(id -u)" = 0 ]; then
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libapache2-mod-fcgid >&2
		else
			echo "bench: mod_fcgid is missing: apt-get install libapache2-mod-fcgid" >&2
			exit 1
		fi
	fi
else
	lighttpd=$(command -v lighttpd || echo /usr/sbin/lighttpd)
	[ -x "$lighttpd" ] || { echo "bench: lighttpd is missing (sh scripts/deps.sh bench)" >&2; exit 1; }
fi

# The work tree: on disk (not tmpfs), so commits pay a real fdatasync (the
# PostgreSQL cluster's too).
work=$(mktemp -d "${BENCH_TMP:-/var/tmp}/burnlink-bench.XXXXXX")
server_pid=""
srv_pgdb=""
shmseed=""
pgdir=""
pgb=""
cleanup() {
	rc=$?
	stop_server
	[ -z "$pgb" ] || [ ! -f "$pgb/pgbouncer.pid" ] || kill "$(cat "$pgb/pgbouncer.pid")" 2>/dev/null || true
	[ -z "$pgdir" ] || sh "$top/scripts/pgcluster.sh" stop "$pgdir" || true
	[ -z "$shmseed" ] || rm -rf "$shmseed"
	if [ -n "${KEEP:-}" ]; then echo "bench: kept $work" >&2; else rm -rf "$work"; fi
	[ "$rc" = 0 ] || echo "bench: stopped with status $rc" >&2
}
trap cleanup EXIT
trap 'echo "bench: interrupted by a signal" >&2; exit 130' INT TERM HUP
chmod 755 "$work"

user=""
if [ "$(id -u)" = 0 ] && id -u www-data >/dev/null 2>&1; then
	user=www-data
fi
own() {
	[ -z "$user" ] || chown -R "$user:$(id -gn "$user")" "$@"
}

# Copies of the programs, so a rebuild during the benchmark changes nothing.
mkdir -p "$work/bin" "$work/null" "$work/nullfcgi" "$work/www" "$work/seed"
for p in create metadata retrieve delete; do
	cp "$bin/$p" "$work/bin/$p"
	cp "$helpers/null" "$work/null/$p"
	! want floor-fcgi || cp "$helpers/null-fcgi" "$work/nullfcgi/$p"
	if [ -n "$usepg" ]; then mkdir -p "$work/pgbin" && cp "$pgbin/$p" "$work/pgbin/$p"; fi
done
echo "ok" >"$work/www/robots.txt"
chmod -R a+rX "$work/bin" "$work/null" "$work/nullfcgi" "$work/www"
[ -z "$usepg" ] || chmod -R a+rX "$work/pgbin"
# The install secret (HMAC key of the rate-limit buckets), as on first use.
(umask 077 && head -c 32 /dev/urandom >"$work/seed/secret.key")

# --- PostgreSQL: a throwaway cluster, and PgBouncer in front of it ------------
pg_version="" pgb_version=""
if [ -n "$usepg" ]; then
	pgdir=$work/pg
	echo "bench: starting a throwaway PostgreSQL cluster in $pgdir" >&2
	# As deployed (INSTALL 14): fsync, synchronous_commit and full-page writes on.
	PGCLUSTER_CONF="fsync = on
full_page_writes = on
synchronous_commit = on
max_connections = 300" sh scripts/pgcluster.sh start "$pgdir" >/dev/null
	pgsock=$(sh scripts/pgcluster.sh socket "$pgdir")
	pg_version=$(sh scripts/pgcluster.sh psql "$pgdir" -d postgres -A -t -c "SHOW server_version" | cut -d' ' -f1)
	pgsql() { sh "$top/scripts/pgcluster.sh" psql "$pgdir" -d postgres -A -t -c "$1"; }
	case " $DBS " in *" pgbouncer "*)
		pgb=$work/pgbouncer
		mkdir -p "$pgb"
		pgbouncer=$(command -v pgbouncer || echo /usr/sbin/pgbouncer)
		pgb_version=$("$pgbouncer" --version 2>/dev/null | head -n 1 | sed 's/^[Pp]g[Bb]ouncer //; s/ .*//')
		# As a user would run it on each web server (INSTALL 14): a unix
		# socket, transaction pooling; trust only because the cluster trusts.
		cat >"$pgb/pgbouncer.ini" <<EOF
[databases]
* = host=$pgsock port=5432
[pgbouncer]
listen_addr =
listen_port = 6432
unix_socket_dir = $pgb
auth_type = trust
auth_file = $pgb/userlist.txt
pool_mode = transaction
max_client_conn = 500
default_pool_size = 20
logfile = $pgb/pgbouncer.log
pidfile = $pgb/pgbouncer.pid
EOF
		echo '"burnlink" ""' >"$pgb/userlist.txt"
		chmod 755 "$pgb"
		# PgBouncer refuses to run as root: as the cluster's owner.
		if [ "$(id -u)" = 0 ]; then
			chown -R postgres: "$pgb"
			runuser -u postgres -- "$pgbouncer" -d -q "$pgb/pgbouncer.ini"
		else
			"$pgbouncer" -d -q "$pgb/pgbouncer.ini"
		fi
		i=0
		until [ -S "$pgb/.s.PGSQL.6432" ]; do
			i=$((i + 1))
			[ $i -le 250 ] || { echo "bench: PgBouncer did not start:" >&2; cat "$pgb/pgbouncer.log" >&2; exit 1; }
			sleep 0.02
		done ;;
	esac
fi

# --- the seeded databases -----------------------------------------------------
# Per family (sqlite; pg, which PgBouncer shares): one unlimited-view 1 KiB
# secret (metadata, retrieve), POOL more (retrieve-spread), one unlimited
# secret per size of the curve, and
# SEED one-time secrets (retrieve-once, burn). SQLite is seeded on tmpfs when
# there is one (fast), then copied per run; PostgreSQL into the database
# "burnlink", copied per run (CREATE DATABASE ... TEMPLATE), seeded without
# waiting for each commit's flush (synchronous_commit off for the seeder only).
seed_family() {
	fam=$1
	sd=$work/seed/$fam
	mkdir -p "$sd"
	if [ "$fam" = sqlite ]; then
		dbdir=$sd
		if [ -d /dev/shm ] && [ -w /dev/shm ]; then shmseed=$(mktemp -d /dev/shm/burnlink-seed.XXXXXX); dbdir=$shmseed; fi
		sdb=$dbdir/burnlink.db seeder=$helpers/seed
	else
		sdb="postgresql://burnlink@/burnlink?host=$pgsock&options=-c%20synchronous_commit%3Doff"
		seeder=$pgseed
	fi
	seed() { BURNLINK_DB=$sdb BURNLINK_SECRET_FILE=$work/seed/secret.key "$seeder" "$@"; }
	echo "bench: seeding $SEED one-time secrets ($fam)" >&2
	seed 1 0 1024 | cut -d' ' -f1 >"$sd/ukey"
	seed "$POOL" 0 1024 >"$sd/upool"
	for s in $SIZES; do
		seed 1 0 "$s" | cut -d' ' -f1 >"$sd/size-$s"
	done
	seed "$SEED" 1 1024 >"$sd/keys.all"
	# The warm-ups take keys from the last quarter, the runs from the rest.
	nwarm=$((SEED / 4))
	head -n $((SEED - nwarm)) "$sd/keys.all" >"$sd/keys.run"
	tail -n "$nwarm" "$sd/keys.all" >"$sd/keys.warm"
	# the database and the keys its content is sealed under (lib/keyslots.c)
	# (none before schema 7: BURNLINK_BIN and BENCH_HELPERS of an older build)
	if [ -n "$shmseed" ]; then cp "$shmseed"/burnlink.db* "$sd/"; rm -rf "$shmseed"; shmseed=""; fi
	if [ "$fam" = pg ]; then pgsql "CHECKPOINT" >/dev/null; fi
}
fams=""
case " $DBS " in *" sqlite "*) fams=sqlite ;; esac
[ -z "$usepg" ] || fams=${fams:+$fams }pg
# The floor reads a key of any family: without SQLite in DBS, of PostgreSQL's.
for fam in $fams; do seed_family "$fam"; done
floorfam=${fams%% *}
floorfam=${floorfam:-sqlite}
[ -n "$fams" ] || seed_family sqlite

# --- request bodies -------------------------------------------------------
b64() { base64 -w0; }
# body_cs SIZE: a client-side create body of SIZE plaintext bytes.
body_cs() {
	printf '{"text":{"ciphertext":"%s","iv":"%s"},"ttl":86400,"maxViews":1}' \
		"$(head -c $(($1 + 16)) /dev/urandom | b64)" "$(head -c 12 /dev/urandom | b64)"
}
body_cs 1024 >"$work/cs-1024.json"
for s in $SIZES; do [ -f "$work/cs-$s.json" ] || body_cs "$s" >"$work/cs-$s.json"; done
# A server-side body: 1 KiB of text.
printf '{"text":"%s","ttl":86400,"maxViews":1}' "$(head -c 768 /dev/urandom | b64)" >"$work/ss-1024.json"
# A PrivateBin paste as its page sends it (format v2, lib/FormatV2.php checks
# it): 1 KiB of text, zlib-compressed (random text does not shrink) and
# encrypted with AES-256-GCM, a 128-bit tag; a 16-byte IV and 8-byte salt
# (base64), 100,000 PBKDF2 iterations; plain text, no discussion, no burning.
printf '{"v":2,"adata":[["%s","%s",100000,256,128,"aes","gcm","zlib"],"plaintext",0,0],"meta":{"expire":"1week"},"ct":"%s"}' \
	"$(head -c 16 /dev/urandom | b64)" "$(head -c 8 /dev/urandom | b64)" "$(head -c 1040 /dev/urandom | b64)" >"$work/pb-1024.json"
# The same with burn after reading (adata[3] = 1), for pb-read-once.
sed 's/"plaintext",0,0\]/"plaintext",0,1]/' "$work/pb-1024.json" >"$work/pb-burn-1024.json"
chmod a+r "$work"/*.json

# --- PrivateBin -----------------------------------------------------------------
pb_version="" php_version="" pb_opcache=""
if want pb-create || want pb-read || want pb-read-once; then
	mkdir -p "$work/pb"
	tar -xzf "$pb_tar" -C "$work/pb"
	pbroot=$(dirname "$(ls "$work"/pb/*/index.php "$work"/pb/index.php 2>/dev/null | head -n 1)")
	[ -f "$pbroot/cfg/conf.sample.php" ] || { echo "bench: $pb_tar holds no PrivateBin (cfg/conf.sample.php)" >&2; exit 1; }
	chmod -R a+rX "$work/pb"
	pb_version=$(sed -n "s/.*const VERSION = '\(.*\)';.*/\1/p" "$pbroot/lib/Controller.php" | head -n 1)
	php_version=$("$phpcgi" -v 2>/dev/null | head -n 1 | cut -d' ' -f1-2)
	printf '<?php echo ini_get("opcache.enable") ? "on" : "off", function_exists("opcache_get_status") ? "" : " (not loaded)";\n' >"$work/pb/probe.php"
	pb_opcache=$("$phpcgi" -q "$work/pb/probe.php" 2>/dev/null || echo "?")
	rm -f "$work/pb/probe.php"
fi

# pb_conf DIR: PrivateBin's configuration (cfg/conf.sample.php, with its
# traffic limiter off, which would refuse a benchmark, and the data in DIR).
pb_conf() {
	mkdir -p "$1/cfg" "$1/pbdata"
	awk -v dir="$1/pbdata" '
	/^\[/ { sec = $0 }
	sec == "[traffic]" && /^limit[ \t]*=/ { print "limit = 0"; t = 1; next }
	sec == "[model_options]" && /^dir[ \t]*=/ { print "dir = \"" dir "\""; m = 1; next }
	{ print }
	END { if (!t || !m) { print "bench: conf.sample.php has no [traffic] limit or [model_options] dir" > "/dev/stderr"; exit 1 } }
	' "$pbroot/cfg/conf.sample.php" >"$1/cfg/conf.php"
	chmod -R a+rX "$1/cfg"
	own "$1/pbdata"
}

# --- servers ----------------------------------------------------------------
free_port() {
	# A port nothing listens on (from /proc/net/tcp), in 20000-59999.
	while :; do
		p=$(( $(od -An -N2 -tu2 /dev/urandom) % 40000 + 20000 ))
		hex=$(printf '%04X' "$p")
		awk -v h=":$hex" '$2 ~ h"$" { f = 1 } END { exit f ? 0 : 1 }' /proc/net/tcp /proc/net/tcp6 2>/dev/null || { echo "$p"; return; }
	done
}

listening() {
	hex=$(printf '%04X' "$1")
	awk -v h=":$hex" '$2 ~ h"$" && $4 == "0A" { f = 1 } END { exit f ? 0 : 1 }' /proc/net/tcp
}

# lighttpd_conf DIR PROGDIR MODE
lighttpd_conf() {
	d=$1 progs=$2 mode=$3
	if [ "$mode" = fastcgi ]; then handler=mod_fastcgi; else handler=mod_cgi; fi
	if [ "$progs" = privatebin ]; then docroot=$pbroot; else docroot=$work/www; fi
	cat <<EOF
server.modules = ( "mod_access", "mod_alias", "mod_rewrite", "mod_setenv", "$handler", "mod_accesslog" )
server.bind = "127.0.0.1"
server.port = $port
server.document-root = "$docroot"
server.errorlog = "$d/log/error.log"
server.breakagelog = "$d/log/error.log"
accesslog.filename = "$d/log/access.log"
server.pid-file = "$d/lighttpd.pid"
server.max-request-size = 4100
server.tag = "burnlink"
${user:+server.username = \"$user\"}
${user:+server.groupname = \"$(id -gn "$user" 2>/dev/null)\"}
EOF
	if [ "$progs" = privatebin ]; then
		# PrivateBin's index.php, as PHP sites run it: php-cgi under
		# mod_fastcgi with 4 children (opcache shared by them), or as a CGI
		# program (a php-cgi process per request).
		cat <<EOF
setenv.add-environment = ( "CONFIG_PATH" => "$d/cfg" )
url.rewrite-once = ( "^/(\\?.*)?\$" => "/index.php\$1" )
EOF
		if [ "$mode" = fastcgi ]; then
			cat <<EOF
fastcgi.server = ( ".php" => (( "socket" => "$d/run/php.sock", "bin-path" => "$phpcgi",
	"max-procs" => 1, "bin-environment" => ( "PHP_FCGI_CHILDREN" => "4", "CONFIG_PATH" => "$d/cfg" ),
	"broken-scriptfilename" => "enable" )) )
EOF
		else
			echo "cgi.assign = ( \".php\" => \"$phpcgi\" )"
		fi
		return
	fi
	cat <<EOF
setenv.add-environment = (
	"BURNLINK_DB" => "$srv_db",
	"BURNLINK_SECRET_FILE" => "$d/data/secret.key",
	"BURNLINK_TRUSTED_PROXIES" => "127.0.0.1",
)
alias.url = ( "/cgi-bin/" => "$progs/" )
\$HTTP["request-method"] == "POST" {
	url.rewrite-once = ( "^/api/secrets\$" => "/cgi-bin/create",
		"^/api/secrets/([A-Za-z0-9_-]+)\$" => "/cgi-bin/retrieve/\$1" )
}
else \$HTTP["request-method"] == "DELETE" {
	url.rewrite-once = ( "^/api/secrets\$" => "/cgi-bin/create",
		"^/api/secrets/([A-Za-z0-9_-]+)\$" => "/cgi-bin/delete/\$1" )
}
else {
	url.rewrite-once = ( "^/api/secrets\$" => "/cgi-bin/create",
		"^/api/secrets/([A-Za-z0-9_-]+)\$" => "/cgi-bin/metadata/\$1" )
}
EOF
	if [ "$mode" = fastcgi ]; then
		procs=$FCGI_PROCS
		[ -z "$srv_pgdb" ] || procs=$PG_FCGI_PROCS
		echo 'fastcgi.server = ('
		for p in create metadata retrieve delete; do
			cat <<EOF
	"/cgi-bin/$p" => (( "socket" => "$d/run/$p.sock", "bin-path" => "$progs/$p",
		"max-procs" => $procs, "check-local" => "disable" )),
EOF
		done
		echo ')'
	else
		echo '$HTTP["url"] =~ "^/cgi-bin/" { cgi.assign = ( "" => "" ) }'
	fi
}

# A LoadModule line, unless the module is compiled into httpd (Debian: log_config, unixd).
builtin_or_load() {
	"$httpd" -l 2>/dev/null | grep -q "^ *$2\.c\$" || echo "LoadModule $1 $moddir/$2.so"
}

# apache_conf DIR PROGDIR MODE
apache_conf() {
	d=$1 progs=$2 mode=$3
	cat <<EOF
ServerRoot "$d"
Listen 127.0.0.1:$port
ServerName 127.0.0.1
PidFile "$d/run/httpd.pid"
ErrorLog "$d/log/error.log"
LogLevel warn
LoadModule mpm_event_module $moddir/mod_mpm_event.so
LoadModule authz_core_module $moddir/mod_authz_core.so
LoadModule alias_module $moddir/mod_alias.so
LoadModule rewrite_module $moddir/mod_rewrite.so
LoadModule env_module $moddir/mod_env.so
$(builtin_or_load log_config_module mod_log_config)
$( [ -z "$user" ] || builtin_or_load unixd_module mod_unixd)
${user:+User $user}
${user:+Group $(id -gn "$user" 2>/dev/null)}
LogFormat "%h %l %u %t \"%r\" %>s %b" common
CustomLog "$d/log/access.log" common
DocumentRoot "$work/www"
StartServers 2
ServerLimit 4
ThreadsPerChild 25
MaxRequestWorkers 100
KeepAlive On
MaxKeepAliveRequests 0
SetEnv BURNLINK_DB "$srv_db"
SetEnv BURNLINK_SECRET_FILE "$d/data/secret.key"
SetEnv BURNLINK_TRUSTED_PROXIES "127.0.0.1"
RewriteEngine On
RewriteCond %{REQUEST_METHOD} =POST
RewriteRule "^/api/secrets/([A-Za-z0-9_-]+)\$" "/cgi-bin/retrieve/\$1" [PT,L]
RewriteCond %{REQUEST_METHOD} =DELETE
RewriteRule "^/api/secrets/([A-Za-z0-9_-]+)\$" "/cgi-bin/delete/\$1" [PT,L]
RewriteRule "^/api/secrets/([A-Za-z0-9_-]+)\$" "/cgi-bin/metadata/\$1" [PT,L]
RewriteRule "^/api/secrets\$" "/cgi-bin/create" [PT,L]
<Directory />
	Require all denied
</Directory>
<Directory "$work/www">
	Require all granted
</Directory>
EOF
	if [ "$mode" = fastcgi ]; then
		cat <<EOF
LoadModule fcgid_module $moddir/mod_fcgid.so
FcgidIPCDir "$d/run"
FcgidProcessTableFile "$d/run/fcgid_shm"
FcgidMaxProcessesPerClass $FCGI_PROCS
FcgidMinProcessesPerClass 1
FcgidMaxRequestLen 4300000
FcgidPassHeader X-Forwarded-For
Alias /cgi-bin/ "$progs/"
<Directory "$progs">
	SetHandler fcgid-script
	Options +ExecCGI
	AcceptPathInfo On
	Require all granted
</Directory>
EOF
	else
		cat <<EOF
LoadModule cgid_module $moddir/mod_cgid.so
ScriptSock "$d/run/cgid.sock"
ScriptAlias /cgi-bin/ "$progs/"
<Directory "$progs">
	Options +ExecCGI
	Require all granted
</Directory>
EOF
	fi
}

# start_server KIND DB MODE: a fresh server over a fresh copy of the database.
# KIND: burnlink (the programs of DB's family), null (the floor), nullfcgi (the
# FastCGI floor) or privatebin;
# DB: sqlite, pg or pgbouncer (burnlink only).
start_server() {
	kind=$1 db=$2 mode=$3
	d=$(mktemp -d "$work/srv.XXXXXX")
	chmod 755 "$d"
	mkdir -p "$d/log" "$d/run" "$d/data"
	cp "$work/seed/secret.key" "$d/data/"
	srv_db=$d/data/burnlink.db srv_pgdb=""
	case "$kind" in
	null) progs=$work/null ;;
	nullfcgi) progs=$work/nullfcgi ;;
	privatebin) progs=privatebin; pb_conf "$d" ;;
	*)
		if [ "$db" = sqlite ]; then
			progs=$work/bin
			cp "$work/seed/sqlite"/burnlink.db* "$d/data/"
			# On disk before the run: the copy's dirty pages (the database
			# and its keys file, ~100 MB) were otherwise written by the
			# first fdatasync of each file, inside the run (measured: the
			# keys file's 0.8 s, the database's 0.2 s at the first
			# checkpoint: docs/PERFORMANCE.md, "The one-time read, shredded")
			sync "$d/data"/burnlink.db*
		else
			# A copy of the seeded database, as the SQLite file is copied.
			progs=$work/pgbin
			srv_pgdb=r_$(basename "$d" | tr -c 'A-Za-z0-9\n' _ | tr 'A-Z' 'a-z')
			pgsql "CREATE DATABASE $srv_pgdb OWNER burnlink TEMPLATE burnlink STRATEGY file_copy" >/dev/null
			if [ "$db" = pg ]; then
				srv_db="postgresql://burnlink@/$srv_pgdb?host=$pgsock"
			else
				srv_db="postgresql://burnlink@/$srv_pgdb?host=$pgb&port=6432"
			fi
		fi ;;
	esac
	srv_progs=$progs
	chmod 700 "$d/data"
	own "$d/log" "$d/run" "$d/data"
	port=$(free_port)
	if [ "$SERVER" = apache ]; then
		apache_conf "$d" "$progs" "$mode" >"$d/httpd.conf"
		"$httpd" -d "$d" -f "$d/httpd.conf" -DFOREGROUND >"$d/log/stdout.log" 2>&1 &
	else
		lighttpd_conf "$d" "$progs" "$mode" >"$d/lighttpd.conf"
		"$lighttpd" -D -f "$d/lighttpd.conf" >"$d/log/stdout.log" 2>&1 &
	fi
	server_pid=$!
	server_dir=$d
	i=0
	until listening "$port"; do
		i=$((i + 1))
		if [ $i -gt 500 ] || ! kill -0 "$server_pid" 2>/dev/null; then
			echo "bench: the server did not start; its log:" >&2
			cat "$d/log/stdout.log" "$d/log/error.log" >&2 2>/dev/null || true
			exit 1
		fi
		sleep 0.02
	done
}

stop_server() {
	[ -n "$server_pid" ] || return 0
	kill -TERM "$server_pid" 2>/dev/null || true
	wait "$server_pid" 2>/dev/null || true
	server_pid=""
	# Connections a FastCGI responder or PgBouncer still holds are ended.
	[ -z "$srv_pgdb" ] || pgsql "DROP DATABASE IF EXISTS $srv_pgdb WITH (FORCE)" >/dev/null || true
	srv_pgdb=""
	# A CGI program the server started may still be finishing: wait for the
	# files to be let go of (the server's process group), then remove them.
	[ -n "${KEEP:-}" ] || rm -rf "$server_dir" 2>/dev/null || { sleep 1; rm -rf "$server_dir" 2>/dev/null || true; }
}

# The peak RSS (KiB) of the FastCGI processes of the server now (children of it).
fcgi_hwm() {
	m=0
	for pid in $(ps -o pid= --ppid "$server_pid" 2>/dev/null) $(ps -o pid= -g "$server_pid" 2>/dev/null); do
		case "$(readlink "/proc/$pid/exe" 2>/dev/null)" in
		"$srv_progs/$1") v=$(awk '/^VmHWM/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)
			[ "${v:-0}" -gt "$m" ] && m=$v ;;
		esac
	done
	echo "$m"
}

# wrk_run SECONDS CONNS [ENV...]: one wrk run; prints its RESULT line.
wrk_run() {
	secs=$1 c=$2
	shift 2
	t=1
	[ "$c" -gt 1 ] && t=2
	env BL_THREADS=$t "$@" wrk -t"$t" -c"$c" -d"${secs}s" --timeout 30s -s "$top/bench/wrk.lua" \
		"http://127.0.0.1:$port" 2>&1 | sed -n 's/^RESULT //p'
}

field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

results=$work/results.txt
: >"$results"

# The seeded keys of a database's family (PgBouncer's are PostgreSQL's).
famdir() { if [ "$1" = sqlite ]; then echo "$work/seed/sqlite"; else echo "$work/seed/pg"; fi; }

# case_env NAME DB: the wrk environment of a case.
case_env() {
	sd=$(famdir "$2")
	ukey=$(cat "$sd/ukey" 2>/dev/null || true)
	pbh="BL_HEADER=X-Requested-With:JSONHttpRequest BL_EXPECT=\"status\":0"
	case "$1" in
	floor | floor-fcgi) echo "BL_METHOD=GET BL_PATH=/api/secrets/$ukey" ;;
	create-cs) echo "BL_METHOD=POST BL_PATH=/api/secrets BL_BODY=$work/cs-1024.json" ;;
	create-ss) echo "BL_METHOD=POST BL_PATH=/api/secrets BL_BODY=$work/ss-1024.json" ;;
	metadata) echo "BL_METHOD=GET BL_PATH=/api/secrets/$ukey" ;;
	retrieve) echo "BL_METHOD=POST BL_PATH=/api/secrets/$ukey" ;;
	retrieve-spread) echo "BL_METHOD=POST BL_PATH=/api/secrets/ BL_KEYS=$sd/upool BL_KEY_PICK=random" ;;
	retrieve-once) echo "BL_METHOD=POST BL_PATH=/api/secrets/ BL_KEYS=$sd/keys.run" ;;
	burn) echo "BL_METHOD=DELETE BL_PATH=/api/secrets/ BL_KEYS=$sd/keys.run BL_KEY_COL=2" ;;
	pb-create) echo "BL_METHOD=POST BL_PATH=/ BL_BODY=$work/pb-1024.json BL_VARY=\"ct\":\" $pbh" ;;
	pb-read) echo "BL_METHOD=GET BL_PATH=/?pasteid= $pbh" ;;
	pb-read-once) echo "BL_METHOD=GET BL_PATH=/?pasteid= BL_KEYS=$work/pbkeys.run $pbh" ;;
	esac
}

# pb_paste: creates a paste on the PrivateBin server now; prints its id.
pb_paste() {
	out=$(curl -s -H 'X-Requested-With: JSONHttpRequest' -H 'Content-Type: application/json' \
		--data-binary @"$work/pb-1024.json" "http://127.0.0.1:$port/" || true)
	id=$(printf '%s' "$out" | sed -n 's/.*"id":"\([0-9a-f]*\)".*/\1/p')
	if [ -z "$id" ]; then
		echo "bench: PrivateBin did not create a paste: $out" >&2
		cat "$server_dir/log/error.log" >&2 2>/dev/null || true
		exit 1
	fi
	echo "$id"
}

# pb_burn_pastes N: N burn-after-reading pastes on the PrivateBin server now,
# their ids in $work/pbkeys.run and (a quarter more, for the warm-up)
# $work/pbkeys.warm, two columns as BL_KEYS reads them. One is created
# through PrivateBin (a valid v2 paste with the burn flag, adata[3] = 1); the
# rest are copies of its file under new random ids, as PrivateBin's
# Filesystem storage names them (data/ab/cd/abcd....php): a read finds,
# returns and deletes each as it would the original (lib/Model/Paste.php).
pb_burn_pastes() {
	n=$1
	out=$(curl -s -H 'X-Requested-With: JSONHttpRequest' -H 'Content-Type: application/json' \
		--data-binary @"$work/pb-burn-1024.json" "http://127.0.0.1:$port/" || true)
	id=$(printf '%s' "$out" | sed -n 's/.*"id":"\([0-9a-f]*\)".*/\1/p')
	[ -n "$id" ] || { echo "bench: PrivateBin did not create a burn-after-reading paste: $out" >&2; exit 1; }
	node -e '
	const fs = require("fs"), path = require("path"), crypto = require("crypto");
	const [dir, id, n, run, warm] = process.argv.slice(1);
	const src = fs.readFileSync(path.join(dir, id.slice(0, 2), id.slice(2, 4), id + ".php"));
	const ids = [];
	for (let i = 0; i < Number(n); i++) {
		const k = crypto.randomBytes(8).toString("hex");
		const d = path.join(dir, k.slice(0, 2), k.slice(2, 4));
		fs.mkdirSync(d, { recursive: true, mode: 0o700 });
		fs.writeFileSync(path.join(d, k + ".php"), src, { mode: 0o640 });
		ids.push(k + " " + k);
	}
	const w = Math.floor(ids.length / 5);
	fs.writeFileSync(warm, ids.slice(0, w).join("\n") + "\n");
	fs.writeFileSync(run, ids.slice(w).join("\n") + "\n");
	' "$server_dir/pbdata" "$id" "$n" "$work/pbkeys.run" "$work/pbkeys.warm"
	own "$server_dir/pbdata"
}

# run_case NAME DB CONNS: RUNS runs, each on a fresh server; one line in $results.
run_case() {
	name=$1 db=$2 c=$3
	kind=burnlink mode=$MODE
	case "$name" in
	floor) kind=null mode=cgi ;;
	floor-fcgi) kind=nullfcgi mode=fastcgi ;;
	pb-*) kind=privatebin ;;
	esac
	envs=$(case_env "$name" "$db")
	# shellcheck disable=SC2086
	warmenv=$(echo $envs | sed "s|keys.run|keys.warm|")
	rpss="" p50s="" p99s="" bad=0 codes=""
	r=1
	while [ $r -le "$RUNS" ]; do
		start_server "$kind" "$db" "$mode"
		extra=""
		[ "$name" != pb-read ] || extra="BL_KEY=$(pb_paste)"
		[ "$name" != pb-read-once ] || { pb_burn_pastes "$PB_BURN"; sync -f "$server_dir/pbdata"; }
		# shellcheck disable=SC2086
		wrk_run "$WARMUP" "$c" $warmenv $extra >/dev/null
		# shellcheck disable=SC2086
		line=$(wrk_run "$DURATION" "$c" $envs $extra)
		stop_server
		[ -n "$line" ] || { echo "bench: wrk printed no result for $name" >&2; exit 1; }
		rpss="$rpss $(field "$line" rps)"
		p50s="$p50s $(field "$line" p50_ms)"
		p99s="$p99s $(field "$line" p99_ms)"
		bad=$((bad + $(field "$line" bad) + $(field "$line" sockerr)))
		cs=$(field "$line" codes)
		[ "$cs" = - ] || codes="$codes $cs"
		r=$((r + 1))
	done
	rps=$(echo "$rpss" | median)
	p50=$(echo "$p50s" | median)
	p99=$(echo "$p99s" | median)
	echo "$name $db $c $rps $p50 $p99 $bad${codes:+ $codes} |$rpss" >>"$results"
	printf '  %-14s %-10s c=%-2s %8.1f req/s  p50 %7.3f ms  p99 %7.3f ms  (runs:%s)%s\n' \
		"$name" "$db" "$c" "$rps" "$p50" "$p99" "$rpss" "$([ "$bad" = 0 ] || echo "  NOT 200: $bad$codes")" >&2
}

# --- the size curve: latency at 1 connection, and the program's peak RSS -----
sizes_file=$work/sizes.txt
: >"$sizes_file"
run_sizes() {
	db=$1
	sd=$(famdir "$db")
	for s in $SIZES; do
		skey=$(cat "$sd/size-$s")
		for op in create retrieve; do
			if [ $op = create ]; then
				envs="BL_METHOD=POST BL_PATH=/api/secrets BL_BODY=$work/cs-$s.json"
			else
				envs="BL_METHOD=POST BL_PATH=/api/secrets/$skey"
			fi
			start_server burnlink "$db" "$MODE"
			# shellcheck disable=SC2086
			wrk_run 1 1 $envs >/dev/null
			# shellcheck disable=SC2086
			line=$(wrk_run "$(( (DURATION + 1) / 2 ))" 1 $envs)
			if [ "$MODE" = fastcgi ]; then
				prog=$op
				rss=$(fcgi_hwm "$prog")
			else
				# The program run directly with the same request, 20 times.
				d=$server_dir
				if [ $op = create ]; then
					body=$work/cs-$s.json
					rss=$(cd "$d" && env -i PATH=/usr/bin:/bin REQUEST_METHOD=POST \
						CONTENT_TYPE=application/json CONTENT_LENGTH="$(wc -c <"$body")" \
						REMOTE_ADDR=127.0.0.1 HTTP_HOST=127.0.0.1 REQUEST_URI=/api/secrets \
						BURNLINK_DB="$srv_db" BURNLINK_SECRET_FILE="$d/data/secret.key" \
						"$helpers/drive" 20 "$body" "$srv_progs/create")
				else
					rss=$(cd "$d" && env -i PATH=/usr/bin:/bin REQUEST_METHOD=POST \
						PATH_INFO="/$skey" REMOTE_ADDR=127.0.0.1 HTTP_HOST=127.0.0.1 \
						BURNLINK_DB="$srv_db" BURNLINK_SECRET_FILE="$d/data/secret.key" \
						"$helpers/drive" 20 /dev/null "$srv_progs/retrieve")
				fi
				rss=$(field "$rss" maxrss_kib)
			fi
			stop_server
			echo "$op $s $(field "$line" rps) $(field "$line" p50_ms) $(field "$line" p99_ms) $(field "$line" bad) $rss $db" >>"$sizes_file"
			printf '  %-8s %-10s %8s B  %8.1f req/s  p50 %8.3f ms  peak RSS %s KiB\n' "$op" "$db" "$s" \
				"$(field "$line" rps)" "$(field "$line" p50_ms)" "$rss" >&2
		done
	done
}

fsync_start=$(field "$("$helpers/drive" fsync "$work")" fdatasync_ms)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
t0=$(date +%s)
echo "bench: $SERVER, $MODE mode, databases: $DBS, ${DURATION}s x $RUNS runs per case, connections: $CONNS" >&2
for c in $CONNS; do
	if want floor || [ "$(echo $CASES)" != sizes ]; then
		run_case floor "$floorfam" "$c"
	fi
	if want floor-fcgi; then run_case floor-fcgi "$floorfam" "$c"; fi
	for db in $DBS; do
		for name in create-cs create-ss metadata retrieve retrieve-spread retrieve-once burn; do
			if want "$name"; then run_case "$name" "$db" "$c"; fi
		done
	done
	for name in pb-create pb-read pb-read-once; do
		if want "$name"; then run_case "$name" privatebin "$c"; fi
	done
done
if want sizes; then
	for db in $DBS; do run_sizes "$db"; done
fi
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
fsync_end=$(field "$("$helpers/drive" fsync "$work")" fdatasync_ms)
elapsed=$(( $(date +%s) - t0 ))

# --- the report --------------------------------------------------------------
stamp=$(date -u +%Y-%m-%dT%H%MZ)
mkdir -p "$top/bench/results"
suffix=""
[ "$BACKEND" = sqlite ] || suffix=-postgres
out=${OUT:-$top/bench/results/$stamp-$SERVER-$MODE$suffix.md}
commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$top" status --porcelain -- lib cgi-bin 2>/dev/null | grep -q . && echo " (lib/ or cgi-bin/ modified)" || true)
floor_rps() { awk -v c="$1" '$1 == "floor" && $3 == c { print $4 }' "$results"; }
{
	echo "# burnlink benchmark: $SERVER, $MODE mode$([ "$BACKEND" = sqlite ] || echo ", SQLite and PostgreSQL")"
	echo
	echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit $commit$dirty; bench/run.sh, ${elapsed}s"
	echo "- machine: $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(uname -sr)"
	echo "- load average at start $load_start, at end $load_end (other work on the machine shows here)"
	echo "- a 4 KiB write + fdatasync in the work directory: $fsync_start ms at start, $fsync_end ms at end: one durable commit at a time (SQLite holds the write lock through the fsync) caps writes near $(awk -v a="$fsync_start" -v b="$fsync_end" 'BEGIN { m = (a + b) / 2; if (m > 0) printf "%d", 1000 / m; else print "?" }')/s"
	if [ "$SERVER" = apache ]; then echo "- server: $("$httpd" -v | sed -n 's/^Server version: //p'), event MPM, $( [ "$MODE" = fastcgi ] && echo "mod_fcgid, $FCGI_PROCS processes per program" || echo mod_cgid)"
	else echo "- server: $("$lighttpd" -v 2>&1 | cut -d' ' -f1), $( [ "$MODE" = fastcgi ] && echo "mod_fastcgi, $FCGI_PROCS processes per program$([ -z "$usepg" ] || echo " on SQLite, $PG_FCGI_PROCS on PostgreSQL")" || echo mod_cgi)"; fi
	echo "- load: $(wrk -v 2>&1 | head -n 1 | cut -d' ' -f1-2), ${DURATION}s per run after ${WARMUP}s of warm-up, $RUNS runs, a fresh server and database copy per run (database seeded with $SEED one-time secrets)"
	echo "- rate limiting on: every request counted (X-Forwarded-For drawn from 16,256 addresses, 127.0.0.1 trusted as proxy)"
	case " $DBS " in *" sqlite "*) echo "- sqlite: the static programs of \`make\`; $([ "$MODE" = fastcgi ] && echo "synchronous=NORMAL, each commit's WAL synced by the responder once its write lock is let go (early lock release)" || echo synchronous=FULL), secure_delete on" ;; esac
	if [ -n "$usepg" ]; then
		echo "- pg: the programs of \`make pg\` (dynamically linked) on PostgreSQL $pg_version, a throwaway cluster on the work directory's disk (fsync, full_page_writes and synchronous_commit on, max_connections 300), over its unix socket; each run on a copy of the seeded database (CREATE DATABASE ... TEMPLATE)"
		case " $DBS " in *" pgbouncer "*) echo "- pgbouncer: the same programs through PgBouncer $pgb_version on a unix socket, pool_mode = transaction, default_pool_size = 20: a CGI request connects to PgBouncer, not to a new PostgreSQL backend" ;; esac
	fi
	if [ -n "$pb_skip" ]; then
		echo "- PrivateBin: not measured: $pb_skip"
	elif [ -n "$pb_version" ]; then
		echo "- PrivateBin $pb_version ($(basename "$pb_tar")): $php_version, $( [ "$MODE" = fastcgi ] && echo "php-cgi under mod_fastcgi, one process manager with PHP_FCGI_CHILDREN=4" || echo "php-cgi under mod_cgi, a process per request"), opcache $pb_opcache$( [ "$MODE" = fastcgi ] || echo " (a CGI process keeps nothing of it for the next)"); its configuration is cfg/conf.sample.php with [traffic] limit = 0, Filesystem storage in the work directory; pb-create posts a v2 paste of 1 KiB of text (1,040 bytes of ciphertext, as burnlink's create-cs; 16 characters of it random per request, since PrivateBin names a paste after its ciphertext), pb-read reads one paste, pb-read-once reads each of $PB_BURN burn-after-reading pastes once (PrivateBin deletes each as it answers: unlink of its file) (JSON API, X-Requested-With: JSONHttpRequest); a 200 whose body lacks \"status\":0 counts as not 200"
	fi
	echo
	echo "| case | database | conns | req/s (median) | ratio to floor | p50 ms | p99 ms | not 200 | runs req/s |"
	echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
	while read -r name db c rps p50 p99 bad rest; do
		runs=${rest#*|}
		fl=$(floor_rps "$c")
		ratio=$(awk -v a="$rps" -v b="${fl:-0}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
		case "$name" in floor | floor-fcgi) db=- ;; esac
		echo "| $name | $db | $c | $rps | $ratio | $p50 | $p99 | $bad | $runs |"
	done <"$results"
	if [ -s "$sizes_file" ]; then
		echo
		echo "Size curve (1 connection; peak RSS: $( [ "$MODE" = fastcgi ] && echo "VmHWM of the FastCGI process after the case" || echo "the program run directly with the same request"))"
		echo
		echo "| operation | database | plaintext bytes | req/s | p50 ms | p99 ms | ms per MiB above 1 KiB | peak RSS KiB | RSS above 1 KiB |"
		echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
		awk '{
			k = $1 " " $8
			if (!(k in b)) { b[k] = $4; r[k] = $7 }
			slope = ($2 > 1024) ? sprintf("%.2f", ($4 - b[k]) / (($2 - 1024) / 1048576)) : "-"
			printf "| %s | %s | %d | %s | %s | %s | %s | %s | %d |\n", $1, $8, $2, $3, $4, $5, slope, $7, $7 - r[k]
		}' "$sizes_file"
	fi
	if [ -s "$results" ]; then
		case " $DBS " in *" sqlite "*)
		echo
		echo "Targets (SQLite, 8 connections, ratio to the CGI floor of this run; CGI: the second round's, docs/PERFORMANCE.md):"
		echo
		awk -v mode="$MODE" -v dbs="$DBS" '
		$3 == 8 { rps[$1 "@" $2] = $4; if ($1 == "floor") fl = $4 }
		function check(name, db, target,   r) {
			if (!((name "@" db) in rps) || fl == "") return
			r = rps[name "@" db] / fl
			printf "- %s%s: %.2f, target >= %s: %s\n", name, (db == "sqlite" ? "" : " (" db ")"), r, target, (r >= target ? "met" : "NOT met")
		}
		END {
			n = split(dbs, d, " ")
			for (i = 1; i <= n; i++) {
				if (d[i] != "sqlite") continue
				if (mode == "cgi") {
					check("metadata", d[i], 0.75); check("retrieve", d[i], 0.5)
					check("retrieve-once", d[i], 0.5); check("burn", d[i], 0.5)
					check("create-cs", d[i], 0.5); check("create-ss", d[i], 0.4)
				} else {
					check("create-cs", d[i], 2); check("create-ss", d[i], 2); check("retrieve", d[i], 2)
					check("retrieve-once", d[i], 2); check("metadata", d[i], 4)
				}
			}
		}' "$results" ;;
		esac
		if [ -n "$usepg" ]; then
			echo
			echo "PostgreSQL against SQLite, and PgBouncer against a direct connection (req/s over req/s, same session):"
			echo
			awk '
			{ rps[$1 "@" $2 "@" $3] = $4; if ($2 != "-" && !seen[$1 "@" $3]++) order[++n] = $1 "@" $3 }
			function r(a, b) { return (a != "" && b != "" && b > 0) ? sprintf("%.2f", a / b) : "-" }
			END {
				print "| case | conns | pg / sqlite | pgbouncer / sqlite | pgbouncer / pg |"
				print "| --- | ---: | ---: | ---: | ---: |"
				for (i = 1; i <= n; i++) {
					split(order[i], k, "@")
					if (k[1] == "floor" || k[1] ~ /^pb-/) continue
					s = rps[k[1] "@sqlite@" k[2]]; p = rps[k[1] "@pg@" k[2]]; b = rps[k[1] "@pgbouncer@" k[2]]
					printf "| %s | %s | %s | %s | %s |\n", k[1], k[2], r(p, s), r(b, s), r(b, p)
				}
			}' "$results"
			if [ "$MODE" = fastcgi ]; then
				echo
				echo "PostgreSQL target (FastCGI, 8 connections: pg at least half of SQLite):"
				echo
				awk '$3 == 8 { rps[$1 "@" $2] = $4 }
				END {
					split("create-cs retrieve retrieve-spread", c, " ")
					for (i = 1; i <= 3; i++) {
						s = rps[c[i] "@sqlite"]; p = rps[c[i] "@pg"]
						if (s == "" || p == "" || s <= 0) continue
						printf "- %s: %.2f, target >= 0.5: %s\n", c[i], p / s, (p / s >= 0.5 ? "met" : "NOT met")
					}
				}' "$results"
			fi
		fi
		if grep -q '^pb-' "$results"; then
			echo
			echo "Against PrivateBin (burnlink's req/s over PrivateBin's, same machine, same session$( [ "$MODE" = fastcgi ] && echo "; FastCGI target at 8 connections: >= 2" )):"
			echo
			awk -v mode="$MODE" -v dbs="$DBS" '
			{ rps[$1 "@" $2 "@" $3] = $4 }
			function cmp(ours, theirs, db, c,   a, b, r) {
				a = rps[ours "@" db "@" c]; b = rps[theirs "@privatebin@" c]
				if (a == "" || b == "" || b == 0) return
				r = a / b
				printf "- %s%s / %s, %d connection%s: %.1f / %.1f = %.2f", ours, (db == "sqlite" ? "" : " (" db ")"), theirs, c, (c == 1 ? "" : "s"), a, b, r
				if (mode == "fastcgi" && c == 8) printf ", target >= 2: %s", (r >= 2 ? "met" : "NOT met")
				printf "\n"
			}
			END {
				n = split(dbs, d, " ")
				for (i = 1; i <= n; i++)
					for (c = 1; c <= 64; c++) {
						cmp("create-cs", "pb-create", d[i], c)
						cmp("retrieve", "pb-read", d[i], c)
						cmp("retrieve-once", "pb-read-once", d[i], c)
						cmp("burn", "pb-read-once", d[i], c)
					}
			}' "$results"
		fi
	fi
} >"$out"
cat "$out"
echo "bench: written to ${out#"$top"/}" >&2
