#!/bin/sh
# profile.sh: where a CGI request spends its time (docs/PERFORMANCE.md), per
# case, in figures that other load on the machine does not disturb:
#   instructions   callgrind, user space, one run (after a warm-up run)
#   syscalls       strace -f, one run
#   faults, CPU    bench/drive over RUNS runs: page faults and user + system
#                  time per run (CPU time is still disturbed by a loaded machine)
# Every request carries a DOCUMENT_ROOT (an empty directory beside the data,
# as a web server sets it: the programs check that no data file lies under it)
# and is counted by the rate limiter (a new X-Forwarded-For each,
# 127.0.0.1 trusted), as in `make bench`; synchronous=FULL and secure_delete as
# deployed. The instructions and system calls are of a run that starts with an
# empty WAL (cron/cleanup checkpoints it first), so that they do not depend on
# what ran before: a process that finds no other one using the database
# rebuilds the WAL index from every frame of the WAL (up to 32 pages), and a
# write that brings the WAL to 32 pages checkpoints it. Run by `make profile`, which builds what it needs:
#   BENCH_HELPERS  build/bench (seed, drive, null)
#   PROF_BIN       programs built without seccomp, for valgrind (build/prof)
#   BURNLINK_BIN   the programs measured by strace and drive (the tree's cgi-bin/)
#   RUNS           drive's runs per case (200); CASES (all below)
#   KEEP=1         keep the work directory (callgrind files, strace logs)
# Prints a Markdown table.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
helpers=${BENCH_HELPERS:-$top/build/bench}
prof=${PROF_BIN:-$top/build/prof}/cgi-bin
bin=${BURNLINK_BIN:-$top}/cgi-bin
cleanup=${BURNLINK_BIN:-$top}/cron/cleanup
RUNS=${RUNS:-200}
CASES=${CASES:-"null metadata retrieve retrieve-once burn create-cs create-ss"}
for t in valgrind strace; do
	command -v $t >/dev/null 2>&1 || { echo "profile: $t is missing (scripts/deps.sh profile)" >&2; exit 1; }
done

work=$(mktemp -d /tmp/burnlink-profile.XXXXXX)
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work/data" "$work/out" "$work/www"
(umask 077 && head -c 32 /dev/urandom >"$work/data/secret.key")
db=$work/data/burnlink.db
seed() { BURNLINK_DB=$db BURNLINK_SECRET_FILE=$work/data/secret.key "$helpers/seed" "$@"; }
ukey=$(seed 1 0 1024 | cut -d' ' -f1)
seed 60 1 1024 >"$work/keys"	# retrieve-once and burn take 23 each
b64() { base64 -w0; }
printf '{"text":{"ciphertext":"%s","iv":"%s"},"ttl":86400,"maxViews":1}' \
	"$(head -c 1040 /dev/urandom | b64)" "$(head -c 12 /dev/urandom | b64)" >"$work/cs.json"
printf '{"text":"%s","ttl":86400,"maxViews":1}' "$(head -c 768 /dev/urandom | b64)" >"$work/ss.json"
: >"$work/empty"
line=0
# nextkey COLUMN: sets key to the next unused seeded key (1: secret, 2: receipt)
nextkey() { line=$((line + 1)); key=$(sed -n "${line}p" "$work/keys" | cut -d' ' -f"$1"); }

# case NAME: sets prog, method, body and path (path: a fresh key where the case consumes one)
setcase() {
	case "$1" in
	null) prog=null method=GET body=$work/empty path="" ;;
	metadata) prog=metadata method=GET body=$work/empty path=/$ukey ;;
	retrieve) prog=retrieve method=POST body=$work/empty path=/$ukey ;;
	retrieve-once) nextkey 1; prog=retrieve method=POST body=$work/empty path=/$key ;;
	burn) nextkey 2; prog=delete method=DELETE body=$work/empty path=/$key ;;
	create-cs) prog=create method=POST body=$work/cs.json path="" ;;
	create-ss) prog=create method=POST body=$work/ss.json path="" ;;
	*) echo "profile: unknown case $1" >&2; exit 2 ;;
	esac
}

# request DIR PROG [WRAPPER...]: one run as a CGI request; the answer in $work/out/answer
n=0
request() {
	d=$1 p=$2
	shift 2
	n=$((n + 1))
	env -i PATH=/usr/bin:/bin DOCUMENT_ROOT="$work/www" GATEWAY_INTERFACE=CGI/1.1 SERVER_PROTOCOL=HTTP/1.1 \
		REQUEST_METHOD="$method" CONTENT_TYPE=application/json \
		CONTENT_LENGTH="$(wc -c <"$body")" REMOTE_ADDR=127.0.0.1 \
		HTTP_X_FORWARDED_FOR="10.99.$((n / 250)).$((n % 250 + 1))" HTTP_HOST=127.0.0.1 \
		SCRIPT_NAME=/cgi-bin/"$prog" PATH_INFO="$path" REQUEST_URI=/api/secrets"$path" \
		BURNLINK_DB="$db" BURNLINK_SECRET_FILE="$work/data/secret.key" \
		BURNLINK_TRUSTED_PROXIES=127.0.0.1 "$@" "$d/$p" <"$body" >"$work/out/answer" 2>/dev/null || true
}
# An empty WAL: the hourly cleanup checkpoints and truncates it.
quiesce() { BURNLINK_DB=$db BURNLINK_SECRET_FILE=$work/data/secret.key "$cleanup" >/dev/null 2>&1 || true; }
status() { sed -n '1s/^Status: \([0-9]*\).*/\1/p' "$work/out/answer"; }
field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

echo "| case | instructions | system calls | page faults | CPU ms | status |"
echo "| --- | ---: | ---: | ---: | ---: | --- |"
for c in $CASES; do
	if [ "$c" = null ]; then pdir=$helpers cdir=$helpers; else pdir=$prof cdir=$bin; fi
	setcase "$c"
	request "$pdir" "$prog"		# warm-up: page cache, WAL, counters file
	setcase "$c"
	quiesce
	request "$pdir" "$prog" valgrind -q --tool=callgrind --callgrind-out-file="$work/out/$c.cg"
	ins=$(sed -n 's/^summary: //p' "$work/out/$c.cg")
	setcase "$c"
	quiesce
	request "$cdir" "$prog" strace -f -qq -o "$work/out/$c.strace"
	st=$(status)
	calls=$(grep -vc 'exited with\|resumed>' "$work/out/$c.strace" || true)
	setcase "$c"
	case "$c" in
	retrieve-once | burn)	# drive repeats one path: give it runs of one
		cpu=0 flt=0 i=0
		while [ $i -lt 20 ]; do
			setcase "$c"
			r=$(env -i PATH=/usr/bin:/bin DOCUMENT_ROOT="$work/www" DRIVE_VARY_ADDR=1 REQUEST_METHOD="$method" \
				REMOTE_ADDR=127.0.0.1 HTTP_HOST=127.0.0.1 PATH_INFO="$path" \
				BURNLINK_DB="$db" BURNLINK_SECRET_FILE="$work/data/secret.key" \
				BURNLINK_TRUSTED_PROXIES=127.0.0.1 "$helpers/drive" 1 "$body" "$cdir/$prog")
			cpu=$(echo "$cpu $(field "$r" cpu_ms)" | awk '{ print $1 + $2 }')
			flt=$(echo "$flt $(field "$r" faults)" | awk '{ print $1 + $2 }')
			i=$((i + 1))
		done
		cpu=$(echo "$cpu" | awk '{ printf "%.2f", $1 / 20 }')
		flt=$(echo "$flt" | awk '{ printf "%.0f", $1 / 20 }') ;;
	*)
		r=$(env -i PATH=/usr/bin:/bin DOCUMENT_ROOT="$work/www" DRIVE_VARY_ADDR=1 REQUEST_METHOD="$method" \
			CONTENT_TYPE=application/json CONTENT_LENGTH="$(wc -c <"$body")" \
			REMOTE_ADDR=127.0.0.1 HTTP_HOST=127.0.0.1 PATH_INFO="$path" \
			BURNLINK_DB="$db" BURNLINK_SECRET_FILE="$work/data/secret.key" \
			BURNLINK_TRUSTED_PROXIES=127.0.0.1 "$helpers/drive" "$RUNS" "$body" "$cdir/$prog")
		cpu=$(field "$r" cpu_ms | awk '{ printf "%.2f", $1 }')
		flt=$(field "$r" faults) ;;
	esac
	printf '| %s | %s | %s | %s | %s | %s |\n' "$c" \
		"$(echo "$ins" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta')" "$calls" "$flt" "$cpu" "$st"
done
echo
echo "load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores; $RUNS runs per CPU figure (20 for the one-time cases)"
[ "${KEEP:-0}" != 1 ] || echo "kept: $work/out" >&2
