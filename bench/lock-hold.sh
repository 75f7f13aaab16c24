#!/bin/sh
# lock-hold.sh: how long a FastCGI responder holds the responders' write lock
# (<db>-lock, lib/store_sqlite.c, wlock_take()) per batch, and which syncs it
# makes with the lock held and without, while two of them serve the same
# program at 8 connections (docs/PERFORMANCE.md, "Early lock release"). One
# bench/run.sh case (retrieve-once by default) runs, and `perf trace` (one per
# process) follows every process of that program for TRACE seconds of the
# measured run, tracing flock, fdatasync, fsync and accept only; which file a
# descriptor is comes from /proc/PID/fd, read as the trace starts.
#
#   sh bench/lock-hold.sh             (BURNLINK_BIN=dir: other programs)
#   CASE=burn PROGRAM=delete TRACE=4 sh bench/lock-hold.sh
#
# A batch: one hold of <db>-lock, from the return of the flock that took it
# (LOCK_EX) to the call that let it go (LOCK_UN). Requests: the connections
# the responders accepted. Prints a Markdown table: batches and requests,
# syncs per batch by file (the keys file, the WAL, the database) inside and
# outside the lock, the hold's mean and percentiles, a sync's mean. Tracing
# slows the processes (less than strace, which stops them at every system
# call); the counts, and the before/after comparison of one machine in the
# same minutes, are what it is for. KEEP_TRACE=1 keeps the work tree.
NAME=lock-hold
. "$(dirname "$0")/responders.sh"
# Each process's descriptors of <db>-lock, -keys, -wal and the database (perf
# trace shows numbers only), then one perf trace per process, so that no
# system call of one is cut by another's.
for p in $pids; do
	for f in /proc/"$p"/fd/*; do
		l=$(readlink "$f" 2>/dev/null) || continue
		case $l in
		*-lock) k=lock ;;
		*-keys) k=keys ;;
		*-wal) k=WAL ;;
		*.db) k=database ;;
		*) continue ;;
		esac
		echo "fd $p ${f##*/} $k"
	done
done >"$tmp/fds"
for p in $pids; do
	timeout -s INT "$TRACE" perf trace -e flock,fdatasync,fsync,accept,accept4 -p "$p" \
	    -o "$tmp/trace.$p" 2>/dev/null &
done
wait $bench || { cat "$tmp/bench.log" >&2; exit 1; }
sleep 1

# Per process: the lock's holds, and each sync inside or outside one.
for p in $pids; do
	[ -s "$tmp/trace.$p" ] && sed "s/^/$p /" "$tmp/trace.$p"
done >"$tmp/trace.txt"
awk -v rate="$(grep -E "^\| $CASE" "$tmp/result.md" | head -n 1)" '
$1 == "fd" { kind[$2 ":" $3] = $4; next }
{
	gsub(/\( +/, "(")
	pid = $1; ts = $2; dur = substr($3, 2) + 0
	call = ""
	for (i = 4; i < NF; i++)
		if ($i ~ /^[a-z0-9_]+\(/) { call = $i; fd = $(i + 1); break }
	sub(/\(.*/, "", call)
	sub(/[,)].*/, "", fd)
	k = kind[pid ":" fd]
	ok = $0 ~ /\) += [0-9]+ *$/
	if (ts == "?") call = ""	# a call cut by the start of the trace
}
pid != last { held = 0; last = pid }
(call == "accept" || call == "accept4") && ok { req++ }
call == "flock" && k == "lock" && $0 ~ /cmd: EX/ && ok { held = 1; since = ts + dur }
call == "flock" && k == "lock" && $0 ~ /cmd: UN/ {
	if (held) { h[++n] = ts - since; total += h[n] }
	held = 0
}
call == "fdatasync" || call == "fsync" {
	if (k == "") k = "other"
	where = held ? "held" : "free"
	syncs[where, k]++
	stime[where, k] += dur
}
END {
	if (n == 0) { print "lock-hold: no hold of the lock traced"; exit 1 }
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (h[j] < h[i]) { t = h[i]; h[i] = h[j]; h[j] = t }
	printf "requests traced: %d, batches (holds of the lock): %d, %.2f requests a batch\n(%s)\n\n", req, n, req / n, rate
	printf "| lock held per batch | ms |\n| --- | ---: |\n"
	printf "| mean | %.3f |\n| p50 | %.3f |\n| p90 | %.3f |\n| p99 | %.3f |\n\n", total / n, h[int(n * 0.5) + 1], h[int(n * 0.9) + 1], h[int(n * 0.99) + 1]
	printf "| syncs (fdatasync, fsync) | per batch, lock held | mean ms | per batch, lock free | mean ms |\n| --- | ---: | ---: | ---: | ---: |\n"
	split("keys WAL database other", ks, " ")
	for (i = 1; i <= 4; i++) {
		k = ks[i]
		if (syncs["held", k] + syncs["free", k] == 0) continue
		printf "| %s | %.2f | %s | %.2f | %s |\n", k, syncs["held", k] / n,
		    syncs["held", k] ? sprintf("%.3f", stime["held", k] / syncs["held", k]) : "",
		    syncs["free", k] / n,
		    syncs["free", k] ? sprintf("%.3f", stime["free", k] / syncs["free", k]) : ""
	}
}' "$tmp/fds" "$tmp/trace.txt"
echo
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
