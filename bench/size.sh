#!/bin/sh
# size.sh: CPU time and latency per CGI request on databases of growing size
# (docs/PERFORMANCE.md, "Scale"). Usage: nice sh bench/size.sh [COUNT...]
# (default "10000 1000000 10000000"; make build/bench/seed build/bench/drive first).
# Each database is seeded fast on disk (BENCH_TMP, default /var/tmp): COUNT - 100
# rows of a 256-byte text in one INSERT ... SELECT of the sqlite3 tool (random key
# hashes, expiries spread over the next 90 days), then 100 secrets with known keys
# through build/bench/seed, whose unlimited views the cases use. Cases, each
# build/bench/drive RUNS times (200) after 20 runs of warm-up: metadata of one
# of the known secrets, retrieve of another, and create (a 1 KiB text); every
# run is counted by the rate limiter from an address of its own. Prints a
# Markdown table: the database's size and bytes per secret, then per case the
# CPU time (user + system) and the mean wall time of a request. ROUNDS=N (1)
# seeds every database first and then measures them in turn N times, each
# round a row per size (interleaved, against the noise of a shared machine).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
COUNTS=${*:-"10000 1000000 10000000"}
RUNS=${RUNS:-200}
ROUNDS=${ROUNDS:-1}
tmp=$(mktemp -d "${BENCH_TMP:-/var/tmp}/burnlink-size.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
drive=$top/build/bench/drive
seed=$top/build/bench/seed
for p in "$drive" "$seed"; do [ -x "$p" ] || { echo "size.sh: $p missing (make $p)" >&2; exit 2; }; done
head -c 1024 /dev/urandom | base64 -w0 | sed 's/.*/{"text":"&"}/' >"$tmp/body"

echo "## CPU time and latency per CGI request by database size"
echo
echo "- machine: $(nproc) x $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1), load average at the start $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- commit $(git rev-parse --short HEAD 2>/dev/null), $RUNS runs a case (build/bench/drive), database on $(df -P "$tmp" | awk 'NR==2{print $1}')"
echo
echo "| secrets | seeding (s) | file (MiB) | bytes a secret | metadata cpu / wall (ms) | retrieve cpu / wall (ms) | create cpu / wall (ms) |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
seed_db() {	# COUNT: seeds $tmp/COUNT; prints "seconds bytes"
	d=$tmp/$1
	mkdir -p "$d"
	db=$d/burnlink.db
	t0=$(date +%s)
	BURNLINK_DB=$db BURNLINK_SECRET_FILE=$d/secret.key "$seed" 100 0 256 >"$d/keys"
	now=$(($(date +%s) * 1000))
	sqlite3 "$db" "PRAGMA cache_size=-2000000; WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < $(($1 - 100)))
INSERT INTO secrets (secret_hash, receipt_hash, created_at, expires_at, text_ct, text_iv, server_side)
SELECT randomblob(32), randomblob(32), $now, $now + 3600000 + (i % 7776000) * 1000, randomblob(272), randomblob(12), 0 FROM k;
PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
	echo "$(($(date +%s) - t0)) $(stat -c %s "$db")"
}
measure() {	# COUNT SECONDS BYTES LABEL: one table row
	d=$tmp/$1
	db=$d/burnlink.db
	k1=$(sed -n 1p "$d/keys" | cut -d' ' -f1)
	k2=$(sed -n 2p "$d/keys" | cut -d' ' -f1)
	run() {	# PROGRAM METHOD KEY BODY
		env -i PATH="$PATH" BURNLINK_DB="$db" BURNLINK_SECRET_FILE="$d/secret.key" \
		    BURNLINK_TRUSTED_PROXIES=127.0.0.1 DRIVE_VARY_ADDR=1 REMOTE_ADDR=127.0.0.1 \
		    REQUEST_METHOD="$2" PATH_INFO="${3:+/$3}" HTTP_HOST=bench.example \
		    CONTENT_TYPE=application/json CONTENT_LENGTH="$(stat -c %s "$4")" \
		    "$drive" "$5" "$4" "cgi-bin/$1"
	}
	cell() {	# PROGRAM METHOD KEY BODY
		run "$1" "$2" "$3" "$4" 20 >/dev/null
		run "$1" "$2" "$3" "$4" "$RUNS" | sed -n "s/.*mean_ms=\([0-9.]*\).*cpu_ms=\([0-9.]*\).*status=\(.*\)/\2 \/ \1 (\3)/p"
	}
	m=$(cell metadata GET "$k1" /dev/null)
	r=$(cell retrieve POST "$k2" /dev/null)
	c=$(cell create POST "" "$tmp/body")
	echo "| $4$1 | $2 | $(($3 / 1048576)) | $(($3 / $1)) | $m | $r | $c |"
}
if [ "$ROUNDS" -le 1 ]; then
	for n in $COUNTS; do
		set -- $(seed_db "$n")
		measure "$n" "$1" "$2" ""
		rm -rf "${tmp:?}/$n"
	done
else
	# Every database first, then ROUNDS rounds that measure each in turn, so that
	# the machine's noise of a moment falls on every size alike.
	for n in $COUNTS; do
		seed_db "$n" >"$tmp/seeded-$n"
	done
	round=1
	while [ "$round" -le "$ROUNDS" ]; do
		for n in $COUNTS; do
			set -- $(cat "$tmp/seeded-$n")
			measure "$n" "$1" "$2" "round $round: "
		done
		round=$((round + 1))
	done
fi
echo
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
