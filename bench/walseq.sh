#!/bin/sh
# walseq.sh: the one-time read over a sequence of CGI requests, as the
# benchmark makes them (one after another, each process alone with the
# database), so that what depends on the WAL's length counts at its average
# over the WAL's cycle: a lone process rebuilds the WAL index from every frame
# of the WAL, and the commit that brings the WAL to WAL_PAGES pages
# checkpoints and truncates it (lib/store_sqlite.c; docs/PERFORMANCE.md, "The
# one-time read under CGI"). make profile measures one request on an empty WAL.
#
#   sh bench/walseq.sh DIR...    # DIR: a build's BIN directory (cgi-bin/retrieve,
#                                # cron/cleanup), e.g. build/prof build/w16
#
# For each DIR, three sequences of N one-time reads (N=64 by default), each
# from an empty WAL: under callgrind (instructions), under strace -f (system
# calls, and the fdatasyncs among them), and through bench/drive one run at a
# time (page faults, CPU time). Prints a Markdown table of the means per
# request. Build the programs without seccomp (valgrind cannot run under it):
#   make BUILD=build/w16-obj BIN=build/w16/ SECCOMP=0 CFLAGS="-O2 -g -DBL_WAL_PAGES=16" \
#       build/w16/cgi-bin/retrieve build/w16/cron/cleanup
# Needs build/bench (make profile builds it).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
helpers=${BENCH_HELPERS:-$top/build/bench}
N=${N:-64}
for t in valgrind strace; do
	command -v $t >/dev/null 2>&1 || { echo "walseq: $t is missing (scripts/deps.sh profile)" >&2; exit 1; }
done
work=$(mktemp -d /tmp/burnlink-walseq.XXXXXX)
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work/out" "$work/www"
: >"$work/empty"

n=0
# request DIR [WRAPPER...]: one one-time read of $key as a CGI request
request() {
	d=$1
	shift
	n=$((n + 1))
	env -i PATH=/usr/bin:/bin DOCUMENT_ROOT="$work/www" GATEWAY_INTERFACE=CGI/1.1 SERVER_PROTOCOL=HTTP/1.1 \
		REQUEST_METHOD=POST CONTENT_TYPE=application/json CONTENT_LENGTH=0 REMOTE_ADDR=127.0.0.1 \
		HTTP_X_FORWARDED_FOR="10.98.$((n / 250)).$((n % 250 + 1))" HTTP_HOST=127.0.0.1 \
		SCRIPT_NAME=/cgi-bin/retrieve PATH_INFO="/$key" REQUEST_URI=/api/secrets/"$key" \
		BURNLINK_DB="$db" BURNLINK_SECRET_FILE="$data/secret.key" \
		BURNLINK_TRUSTED_PROXIES=127.0.0.1 "$@" "$d/cgi-bin/retrieve" <"$work/empty" >"$work/out/answer" 2>/dev/null || true
	sed -n '1s/^Status: \([0-9]*\).*/\1/p' "$work/out/answer" | grep -qx 200 ||
		{ echo "walseq: $d: request $n: $(head -1 "$work/out/answer")" >&2; exit 1; }
}

echo "| build | instructions | system calls | fdatasync | page faults | CPU ms |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
for dir in "$@"; do
	d=$(cd "$dir" && pwd)
	data=$work/data.$(basename "$d")
	mkdir -p "$data"
	(umask 077 && head -c 32 /dev/urandom >"$data/secret.key")
	db=$data/burnlink.db
	BURNLINK_DB=$db BURNLINK_SECRET_FILE=$data/secret.key "$helpers/seed" $((3 * N)) 1 1024 |
		cut -d' ' -f1 >"$data/keys"
	line=0
	nextkey() { line=$((line + 1)); key=$(sed -n "${line}p" "$data/keys"); }
	quiesce() { BURNLINK_DB=$db BURNLINK_SECRET_FILE=$data/secret.key "$d/cron/cleanup" >/dev/null 2>&1 || true; }
	# instructions
	quiesce
	ins=0 i=0
	while [ $i -lt "$N" ]; do
		nextkey
		request "$d" valgrind -q --tool=callgrind --callgrind-out-file="$work/out/cg"
		ins=$((ins + $(sed -n 's/^summary: //p' "$work/out/cg")))
		i=$((i + 1))
	done
	# system calls
	quiesce
	calls=0 syncs=0 i=0
	while [ $i -lt "$N" ]; do
		nextkey
		request "$d" strace -f -qq -o "$work/out/st"
		calls=$((calls + $(grep -vc 'exited with\|resumed>' "$work/out/st" || true)))
		syncs=$((syncs + $(grep -c '^[0-9]* *fdatasync\|^fdatasync\|^[0-9]* *fsync\|^fsync' "$work/out/st" || true)))
		i=$((i + 1))
	done
	# page faults and CPU time
	quiesce
	flt=0 cpu=0 i=0
	while [ $i -lt "$N" ]; do
		nextkey
		n=$((n + 1))
		r=$(env -i PATH=/usr/bin:/bin DOCUMENT_ROOT="$work/www" REQUEST_METHOD=POST \
			HTTP_X_FORWARDED_FOR="10.98.$((n / 250)).$((n % 250 + 1))" \
			REMOTE_ADDR=127.0.0.1 HTTP_HOST=127.0.0.1 PATH_INFO="/$key" \
			BURNLINK_DB="$db" BURNLINK_SECRET_FILE="$data/secret.key" \
			BURNLINK_TRUSTED_PROXIES=127.0.0.1 "$helpers/drive" 1 "$work/empty" "$d/cgi-bin/retrieve")
		case "$r" in *status=200*) ;; *) echo "walseq: $d: drive: $r" >&2; exit 1 ;; esac
		flt=$(echo "$flt $(echo "$r" | tr ' ' '\n' | sed -n 's/^faults=//p')" | awk '{ print $1 + $2 }')
		cpu=$(echo "$cpu $(echo "$r" | tr ' ' '\n' | sed -n 's/^cpu_ms=//p')" | awk '{ print $1 + $2 }')
		i=$((i + 1))
	done
	printf '| %s | %s | %s | %s | %s | %s |\n' "$dir" \
		"$(echo "$ins $N" | awk '{ printf "%.0f", $1 / $2 }' | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta')" \
		"$(echo "$calls $N" | awk '{ printf "%.1f", $1 / $2 }')" \
		"$(echo "$syncs $N" | awk '{ printf "%.2f", $1 / $2 }')" \
		"$(echo "$flt $N" | awk '{ printf "%.0f", $1 / $2 }')" \
		"$(echo "$cpu $N" | awk '{ printf "%.2f", $1 / $2 }')"
done
echo
echo "$N one-time reads in sequence per column, each sequence from an empty WAL; load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
