#!/bin/sh
# lock-trace.sh: the system calls a FastCGI responder makes per request while
# two of them serve the same program at 8 connections (docs/PERFORMANCE.md,
# "The one-time read, shredded"): one bench/run.sh case (retrieve-once by
# default) runs, and `perf trace -s` follows every process of that program
# for TRACE seconds of the measured run. The counts per request do not depend
# on the machine's speed the way a rate does: what the responders poll
# (clock_nanosleep, fcntl), how often they block (flock), how often they sync.
#
#   sh bench/lock-trace.sh            (BURNLINK_BIN=dir: other programs)
#   CASE=burn PROGRAM=delete TRACE=4 sh bench/lock-trace.sh
#
# Requests: the connections the responders accepted (lighttpd opens one per
# request). Prints a Markdown table: each system call's count per request.
# KEEP_TRACE=1 keeps the work tree (perf's summary, the run's result).
NAME=lock-trace
. "$(dirname "$0")/responders.sh"
echo "$pids" >"$tmp/pids"
timeout -s INT "$TRACE" perf trace -s -p "$(echo $pids | tr ' ' ,)" >"$tmp/trace.txt" 2>&1 || true
wait $bench || { cat "$tmp/bench.log" >&2; exit 1; }

# Sums each system call's calls (and errors) over the processes.
awk -v rate="$(grep -E "^\| $CASE" "$tmp/result.md" | head -n 1)" '
/^ *[a-z_0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+ / { calls[$1] += $2; errs[$1] += $3 }
END {
	req = calls["accept"] - errs["accept"] + calls["accept4"] - errs["accept4"]
	if (req <= 0) { print "lock-trace: no request traced"; exit 1 }
	printf "requests traced: %d (%s)\n\n", req, rate
	printf "| system call | calls per request | errors per request |\n| --- | ---: | ---: |\n"
	n = 0
	for (k in calls) names[++n] = k
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
		if (calls[names[j]] > calls[names[i]]) { t = names[i]; names[i] = names[j]; names[j] = t }
	for (i = 1; i <= n; i++)
		printf "| %s | %.2f | %.2f |\n", names[i], calls[names[i]] / req, errs[names[i]] / req
}' "$tmp/trace.txt"
echo
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
