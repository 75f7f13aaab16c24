#!/bin/sh
# cpuid.sh: how many CPUID instructions a program runs before it exits
# (docs/PERFORMANCE.md, "2026-11-26"). Under a hypervisor each one traps
# to it; on a nested-virtualisation guest that costs ~10 us, more than
# many system calls. Every CPUID of the executable (objdump) gets a gdb
# breakpoint that counts and continues; the program runs with this
# script's environment (a CGI request's, if given) and stdin from BODY
# (default /dev/null). Prints "PROGRAM: N" and the count per function.
# Needs gdb and objdump (binutils).
#   sh bench/cpuid.sh build/bench/null cgi-bin/metadata
set -eu
for t in gdb objdump; do
	command -v $t >/dev/null 2>&1 || { echo "cpuid.sh: $t is missing" >&2; exit 1; }
done
tmp=$(mktemp -d /tmp/burnlink-cpuid.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
for prog in "$@"; do
	objdump -d "$prog" | awk '/\tcpuid/ { sub(":", "", $1);
	    print "break *0x" $1 "\ncommands\nsilent\ncontinue\nend" }' >"$tmp/script"
	printf 'set pagination off\nrun\ninfo breakpoints\n' >>"$tmp/script"
	gdb -batch -x "$tmp/script" --args "$prog" <"${BODY:-/dev/null}" >"$tmp/out" 2>&1 || true
	# "N breakpoint keep y 0xADDR <function+off>" then "breakpoint already hit K times"
	awk '/^[0-9]+ +breakpoint/ { f = $NF; sub(/^</, "", f); sub(/\+[0-9]+>$/, "", f) }
	    /already hit/ { n[f] += $4; t += $4 }
	    END { printf "%s: %d\n", prog, t; for (f in n) printf "  %-40s %d\n", f, n[f] }' \
	    prog="$prog" "$tmp/out"
done
