#!/bin/sh
# run.sh: the benchmark (`make bench`). Each case gets a fresh web server on a
# free loopback port and a fresh copy of a seeded database; wrk drives it at 1
# and 8 connections, DURATION seconds per run after a WARMUP, RUNS runs; the
# table gives the median req/s, p50 and p99, and each case's ratio to the CGI
# floor (a static program that prints a fixed JSON body) measured the same way
# in the same session. It is printed and written as Markdown to bench/results/.
#
# Environment:
#   SERVER    lighttpd (default) | apache
#   MODE      cgi (default) | fastcgi (the programs as FastCGI responders; the
#             floor stays the CGI floor)
#   DURATION  seconds per run (10); WARMUP seconds before the runs (2); RUNS (3)
#   CONNS     connection counts ("1 8")
#   CASES     which cases ("floor create-cs create-ss metadata retrieve
#             retrieve-once burn sizes"); the floor always runs when a ratio needs it
#   SIZES     plaintext sizes of the size curve ("1024 65536 524288 2097152")
#   FCGI_PROCS  FastCGI processes per program (2 with lighttpd; 16 with Apache,
#               whose mod_fcgid gives each process one request at a time: INSTALL 15)
#   BURNLINK_BIN  the programs (default cgi-bin/); OUT: the Markdown file
# Every request carries a random X-Forwarded-For and the programs trust
# 127.0.0.1 as a proxy: the rate limiter counts every request, as deployed,
# without refusing the benchmark once one address has used its 1000 a day.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

SERVER=${SERVER:-lighttpd}
MODE=${MODE:-cgi}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-2}
RUNS=${RUNS:-3}
CONNS=${CONNS:-"1 8"}
CASES=${CASES:-"floor create-cs create-ss metadata retrieve retrieve-once burn sizes"}
SIZES=${SIZES:-"1024 65536 524288 2097152"}
if [ "$SERVER" = apache ]; then FCGI_PROCS=${FCGI_PROCS:-16}; else FCGI_PROCS=${FCGI_PROCS:-2}; fi
SEED=${SEED:-60000}

case "$SERVER" in lighttpd | apache) ;; *) echo "bench: SERVER must be lighttpd or apache" >&2; exit 2 ;; esac
case "$MODE" in cgi | fastcgi) ;; *) echo "bench: MODE must be cgi or fastcgi" >&2; exit 2 ;; esac

bin=${BURNLINK_BIN:-$top/cgi-bin}
for p in create metadata retrieve delete; do
	[ -x "$bin/$p" ] || { echo "bench: $bin/$p is missing; run make" >&2; exit 1; }
done
helpers=${BENCH_HELPERS:-build/bench}
case "$helpers" in /*) ;; *) helpers=$top/$helpers ;; esac
for p in null seed drive; do
	[ -x "$helpers/$p" ] || { echo "bench: $helpers/$p is missing; run make bench" >&2; exit 1; }
done
command -v wrk >/dev/null || { echo "bench: wrk is missing (sh scripts/deps.sh bench)" >&2; exit 1; }

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

# The work tree: on disk (not tmpfs), so commits pay a real fdatasync.
work=$(mktemp -d "${BENCH_TMP:-/var/tmp}/burnlink-bench.XXXXXX")
server_pid=""
cleanup() {
	rc=$?
	stop_server
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
mkdir -p "$work/bin" "$work/null" "$work/www" "$work/seed"
for p in create metadata retrieve delete; do
	cp "$bin/$p" "$work/bin/$p"
	cp "$helpers/null" "$work/null/$p"
done
echo "ok" >"$work/www/robots.txt"
chmod -R a+rX "$work/bin" "$work/null" "$work/www"

# --- the seeded database -------------------------------------------------
# One unlimited-view 1 KiB secret (metadata, retrieve), one unlimited secret
# per size of the curve, and SEED one-time secrets (retrieve-once, burn).
# Seeded on tmpfs when there is one (fast), then copied per run.
seeddir=$work/seed
[ -d /dev/shm ] && [ -w /dev/shm ] && seeddir=$(mktemp -d /dev/shm/burnlink-seed.XXXXXX)
seed() {
	BURNLINK_DB=$seeddir/burnlink.db BURNLINK_SECRET_FILE=$seeddir/secret.key \
		"$helpers/seed" "$@"
}
echo "bench: seeding $SEED one-time secrets" >&2
ukey=$(seed 1 0 1024 | cut -d' ' -f1)
for s in $SIZES; do
	seed 1 0 "$s" | cut -d' ' -f1 >"$work/seed/size-$s"
done
seed "$SEED" 1 1024 >"$work/seed/keys.all"
# The warm-ups take keys from the last quarter, the runs from the rest.
nwarm=$((SEED / 4))
head -n $((SEED - nwarm)) "$work/seed/keys.all" >"$work/seed/keys.run"
tail -n "$nwarm" "$work/seed/keys.all" >"$work/seed/keys.warm"
[ "$seeddir" = "$work/seed" ] || { cp "$seeddir/burnlink.db" "$work/seed/"; rm -rf "$seeddir"; }
seeddir=$work/seed
# The install secret (HMAC key of the rate-limit buckets), as on first use.
(umask 077 && head -c 32 /dev/urandom >"$seeddir/secret.key")

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
chmod a+r "$work"/*.json

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
	cat <<EOF
server.modules = ( "mod_access", "mod_alias", "mod_rewrite", "mod_setenv", "$handler", "mod_accesslog" )
server.bind = "127.0.0.1"
server.port = $port
server.document-root = "$work/www"
server.errorlog = "$d/log/error.log"
server.breakagelog = "$d/log/error.log"
accesslog.filename = "$d/log/access.log"
server.pid-file = "$d/lighttpd.pid"
server.max-request-size = 4100
server.tag = "burnlink"
${user:+server.username = \"$user\"}
${user:+server.groupname = \"$(id -gn "$user" 2>/dev/null)\"}
setenv.add-environment = (
	"BURNLINK_DB" => "$d/data/burnlink.db",
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
		echo 'fastcgi.server = ('
		for p in create metadata retrieve delete; do
			cat <<EOF
	"/cgi-bin/$p" => (( "socket" => "$d/run/$p.sock", "bin-path" => "$progs/$p",
		"max-procs" => $FCGI_PROCS, "check-local" => "disable" )),
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
SetEnv BURNLINK_DB "$d/data/burnlink.db"
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

# start_server PROGDIR MODE: a fresh server over a fresh copy of the database.
start_server() {
	progs=$1 mode=$2
	d=$(mktemp -d "$work/srv.XXXXXX")
	chmod 755 "$d"
	mkdir -p "$d/log" "$d/run" "$d/data"
	cp "$seeddir/burnlink.db" "$seeddir/secret.key" "$d/data/"
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
	# A CGI program the server started may still be finishing: wait for the
	# files to be let go of (the server's process group), then remove them.
	[ -n "${KEEP:-}" ] || rm -rf "$server_dir" 2>/dev/null || { sleep 1; rm -rf "$server_dir" 2>/dev/null || true; }
}

# The peak RSS (KiB) of the FastCGI processes of the server now (children of it).
fcgi_hwm() {
	m=0
	for pid in $(ps -o pid= --ppid "$server_pid" 2>/dev/null) $(ps -o pid= -g "$server_pid" 2>/dev/null); do
		case "$(readlink "/proc/$pid/exe" 2>/dev/null)" in
		"$work/bin/$1") v=$(awk '/^VmHWM/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)
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

# case_env NAME: the wrk environment of a case.
case_env() {
	case "$1" in
	floor) echo "BL_METHOD=GET BL_PATH=/api/secrets/$ukey" ;;
	create-cs) echo "BL_METHOD=POST BL_PATH=/api/secrets BL_BODY=$work/cs-1024.json" ;;
	create-ss) echo "BL_METHOD=POST BL_PATH=/api/secrets BL_BODY=$work/ss-1024.json" ;;
	metadata) echo "BL_METHOD=GET BL_PATH=/api/secrets/$ukey" ;;
	retrieve) echo "BL_METHOD=POST BL_PATH=/api/secrets/$ukey" ;;
	retrieve-once) echo "BL_METHOD=POST BL_PATH=/api/secrets/ BL_KEYS=$seeddir/keys.run" ;;
	burn) echo "BL_METHOD=DELETE BL_PATH=/api/secrets/ BL_KEYS=$seeddir/keys.run BL_KEY_COL=2" ;;
	esac
}

# run_case NAME CONNS: RUNS runs, each on a fresh server; one line in $results.
run_case() {
	name=$1 c=$2
	progs=$work/bin mode=$MODE
	if [ "$name" = floor ]; then progs=$work/null mode=cgi; fi
	envs=$(case_env "$name")
	# shellcheck disable=SC2086
	warmenv=$(echo $envs | sed "s|keys.run|keys.warm|")
	rpss="" p50s="" p99s="" bad=0 codes=""
	r=1
	while [ $r -le "$RUNS" ]; do
		start_server "$progs" "$mode"
		# shellcheck disable=SC2086
		wrk_run "$WARMUP" "$c" $warmenv >/dev/null
		# shellcheck disable=SC2086
		line=$(wrk_run "$DURATION" "$c" $envs)
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
	echo "$name $c $rps $p50 $p99 $bad${codes:+ $codes} |$rpss" >>"$results"
	printf '  %-14s c=%-2s %8.1f req/s  p50 %7.3f ms  p99 %7.3f ms  (runs:%s)%s\n' \
		"$name" "$c" "$rps" "$p50" "$p99" "$rpss" "$([ "$bad" = 0 ] || echo "  NOT 200: $bad$codes")" >&2
}

# --- the size curve: latency at 1 connection, and the program's peak RSS -----
sizes_file=$work/sizes.txt
: >"$sizes_file"
run_sizes() {
	for s in $SIZES; do
		skey=$(cat "$seeddir/size-$s")
		for op in create retrieve; do
			if [ $op = create ]; then
				envs="BL_METHOD=POST BL_PATH=/api/secrets BL_BODY=$work/cs-$s.json"
			else
				envs="BL_METHOD=POST BL_PATH=/api/secrets/$skey"
			fi
			start_server "$work/bin" "$MODE"
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
						BURNLINK_DB="$d/data/burnlink.db" BURNLINK_SECRET_FILE="$d/data/secret.key" \
						"$helpers/drive" 20 "$body" "$work/bin/create")
				else
					rss=$(cd "$d" && env -i PATH=/usr/bin:/bin REQUEST_METHOD=POST \
						PATH_INFO="/$skey" REMOTE_ADDR=127.0.0.1 HTTP_HOST=127.0.0.1 \
						BURNLINK_DB="$d/data/burnlink.db" BURNLINK_SECRET_FILE="$d/data/secret.key" \
						"$helpers/drive" 20 /dev/null "$work/bin/retrieve")
				fi
				rss=$(field "$rss" maxrss_kib)
			fi
			stop_server
			echo "$op $s $(field "$line" rps) $(field "$line" p50_ms) $(field "$line" p99_ms) $(field "$line" bad) $rss" >>"$sizes_file"
			printf '  %-8s %8s B  %8.1f req/s  p50 %8.3f ms  peak RSS %s KiB\n' "$op" "$s" \
				"$(field "$line" rps)" "$(field "$line" p50_ms)" "$rss" >&2
		done
	done
}

fsync_start=$(field "$("$helpers/drive" fsync "$work")" fdatasync_ms)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
t0=$(date +%s)
echo "bench: $SERVER, $MODE mode, ${DURATION}s x $RUNS runs per case, connections: $CONNS" >&2
want() { case " $CASES " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
for c in $CONNS; do
	for name in floor create-cs create-ss metadata retrieve retrieve-once burn; do
		if want "$name" || { [ "$name" = floor ] && [ "$CASES" != sizes ]; }; then
			run_case "$name" "$c"
		fi
	done
done
want sizes && run_sizes
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
fsync_end=$(field "$("$helpers/drive" fsync "$work")" fdatasync_ms)
elapsed=$(( $(date +%s) - t0 ))

# --- the report --------------------------------------------------------------
stamp=$(date -u +%Y-%m-%dT%H%MZ)
mkdir -p "$top/bench/results"
out=${OUT:-$top/bench/results/$stamp-$SERVER-$MODE.md}
commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$top" status --porcelain -- lib cgi-bin 2>/dev/null | grep -q . && echo " (lib/ or cgi-bin/ modified)" || true)
floor_rps() { awk -v c="$1" '$1 == "floor" && $2 == c { print $3 }' "$results"; }
{
	echo "# burnlink benchmark: $SERVER, $MODE mode"
	echo
	echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit $commit$dirty; bench/run.sh, ${elapsed}s"
	echo "- machine: $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(uname -sr)"
	echo "- load average at start $load_start, at end $load_end (other work on the machine shows here)"
	echo "- a 4 KiB write + fdatasync in the work directory: $fsync_start ms at start, $fsync_end ms at end: one durable commit at a time (SQLite holds the write lock through the fsync) caps writes near $(awk -v a="$fsync_start" -v b="$fsync_end" 'BEGIN { m = (a + b) / 2; if (m > 0) printf "%d", 1000 / m; else print "?" }')/s"
	if [ "$SERVER" = apache ]; then echo "- server: $("$httpd" -v | sed -n 's/^Server version: //p'), event MPM, $( [ "$MODE" = fastcgi ] && echo "mod_fcgid, $FCGI_PROCS processes per program" || echo mod_cgid)"
	else echo "- server: $("$lighttpd" -v 2>&1 | cut -d' ' -f1), $( [ "$MODE" = fastcgi ] && echo "mod_fastcgi, $FCGI_PROCS processes per program" || echo mod_cgi)"; fi
	echo "- load: $(wrk -v 2>&1 | head -n 1 | cut -d' ' -f1-2), ${DURATION}s per run after ${WARMUP}s of warm-up, $RUNS runs, a fresh server and database copy per run (database seeded with $SEED one-time secrets)"
	echo "- rate limiting on: every request counted (random X-Forwarded-For, 127.0.0.1 trusted as proxy); synchronous=FULL, secure_delete on"
	echo
	echo "| case | conns | req/s (median) | ratio to floor | p50 ms | p99 ms | not 200 | runs req/s |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
	while read -r name c rps p50 p99 bad rest; do
		runs=${rest#*|}
		fl=$(floor_rps "$c")
		ratio=$(awk -v a="$rps" -v b="${fl:-0}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
		echo "| $name | $c | $rps | $ratio | $p50 | $p99 | $bad | $runs |"
	done <"$results"
	if [ -s "$sizes_file" ]; then
		echo
		echo "Size curve (1 connection; peak RSS: $( [ "$MODE" = fastcgi ] && echo "VmHWM of the FastCGI process after the case" || echo "the program run directly with the same request"))"
		echo
		echo "| operation | plaintext bytes | req/s | p50 ms | p99 ms | ms per MiB above 1 KiB | peak RSS KiB | RSS above 1 KiB |"
		echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
		awk '{
			if (!($1 in b)) { b[$1] = $4; r[$1] = $7 }
			slope = ($2 > 1024) ? sprintf("%.2f", ($4 - b[$1]) / (($2 - 1024) / 1048576)) : "-"
			printf "| %s | %d | %s | %s | %s | %s | %s | %d |\n", $1, $2, $3, $4, $5, slope, $7, $7 - r[$1]
		}' "$sizes_file"
	fi
	if [ -s "$results" ]; then
		echo
		echo "Targets (8 connections, ratio to the CGI floor of this run):"
		echo
		awk -v mode="$MODE" '
		$2 == 8 { rps[$1] = $3 }
		function check(name, target,   r) {
			if (!(name in rps) || !("floor" in rps)) return
			r = rps[name] / rps["floor"]
			printf "- %s: %.2f, target >= %s: %s\n", name, r, target, (r >= target ? "met" : "NOT met")
		}
		END {
			if (mode == "cgi") {
				check("metadata", 0.6); check("retrieve", 0.5)
				check("create-cs", 0.45); check("create-ss", 0.3)
			} else {
				check("create-cs", 2); check("create-ss", 2); check("retrieve", 2)
				check("retrieve-once", 2); check("metadata", 4)
			}
		}' "$results"
	fi
} >"$out"
cat "$out"
echo "bench: written to ${out#"$top"/}" >&2
