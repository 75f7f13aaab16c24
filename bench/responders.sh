# responders.sh: sourced by bench/lock-trace.sh and bench/lock-hold.sh, with
# NAME set to the script's name. Runs one bench/run.sh case (CASE,
# retrieve-once by default) in the background at 8 connections, FastCGI,
# for TRACE seconds (4 by default) of measured run after a warm-up, and
# waits until two responders of PROGRAM (retrieve by default) are up and
# 3 s have passed. Sets: top (the work tree), tmp (a work directory,
# removed on exit unless KEEP_TRACE is set), bench (the run's process, to
# wait for), pids (the responders' processes, one a line).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
CASE=${CASE:-retrieve-once}
PROGRAM=${PROGRAM:-retrieve}
TRACE=${TRACE:-4}
command -v perf >/dev/null || { echo "$NAME: perf is missing" >&2; exit 1; }

tmp=$(mktemp -d "${BENCH_TMP:-/var/tmp}/burnlink-$NAME.XXXXXX")
chmod 755 "$tmp"
trap '[ -n "${KEEP_TRACE:-}" ] || rm -rf "$tmp"' EXIT
BENCH_TMP=$tmp CASES=$CASE MODE=fastcgi CONNS=8 RUNS=1 WARMUP=2 \
    DURATION=$((TRACE + 4)) OUT=$tmp/result.md sh bench/run.sh >"$tmp/bench.log" 2>&1 &
bench=$!

# The case's responders (two, and their workers): once they are up, the
# warm-up and the run follow; the trace starts 3 s in.
pids=""
i=0
while [ $i -lt 600 ]; do
	pids=$(pgrep -f "^$tmp/burnlink-bench\.[^/]*/bin/$PROGRAM" || true)
	[ "$(echo "$pids" | grep -c .)" -ge 2 ] && break
	kill -0 $bench 2>/dev/null || { cat "$tmp/bench.log" >&2; exit 1; }
	sleep 0.2
	i=$((i + 1))
done
[ -n "$pids" ] || { echo "$NAME: no responder found" >&2; exit 1; }
sleep 3
