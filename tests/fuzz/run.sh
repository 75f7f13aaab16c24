#!/bin/sh
# run.sh: builds and runs the libFuzzer harnesses of tests/fuzz/ (clang).
# Usage: tests/fuzz/run.sh build           compile into build/fuzz/
#        tests/fuzz/run.sh smoke           each harness over its seed corpus,
#                                          then FUZZ_SMOKE_TIME (default 3) s of fuzzing
#        tests/fuzz/run.sh fuzz            each harness for FUZZ_TIME (default 60) s,
#                                          the corpus growing in build/fuzz/corpus/
# FUZZERS="create base64" picks harnesses (default: every tests/fuzz/fuzz_*.c).
# A crash leaves its input in build/fuzz/artifacts/; reproduce it with
# build/fuzz/bin/fuzz_NAME build/fuzz/artifacts/NAME-crash-...
set -u
cd "$(dirname "$0")/../.." || exit 2

out=build/fuzz
CC_FUZZ=${CC_FUZZ:-clang}
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
# The library without seccomp (the harnesses never call bl_serve).
CFL="-O1 -g -D_GNU_SOURCE -DBL_NO_SECCOMP -Ilib -I$out -Itests/fuzz $SAN"
LIBS="-lfcgi -lssl -lcrypto -lsqlite3 -ljson-c -lm"

names() {
	if [ -n "${FUZZERS:-}" ]; then
		echo "$FUZZERS"
	else
		for f in tests/fuzz/fuzz_*.c; do
			f=${f#tests/fuzz/fuzz_}
			echo "${f%.c}"
		done
	fi
}

# Compiles what is older than its sources; 0 on success.
build() {
	command -v "$CC_FUZZ" >/dev/null 2>&1 || { echo "fuzz: $CC_FUZZ not found (scripts/deps.sh test)" >&2; return 1; }
	mkdir -p "$out/obj" "$out/bin" "$out/artifacts" || return 1
	# The compiled-in schema, made the way the Makefile makes it.
	make --no-print-directory -s build/schema.h build/version.h >/dev/null || return 1
	cp build/schema.h "$out/schema.h" || return 1
	# and the build's version (scripts/version.sh), as lib/config.c includes it
	cp build/version.h "$out/version.h" || return 1
	objs=""
	stale=""
	for src in lib/*.c; do
		o="$out/obj/$(basename "$src" .c).o"
		objs="$objs $o"
		if [ ! -f "$o" ] || [ "$src" -nt "$o" ] || [ lib/burnlink.h -nt "$o" ] ||
		    [ lib/internal.h -nt "$o" ] || [ "$out/schema.h" -nt "$o" ]; then
			echo "fuzz: cc $src"
			stale="$stale $src"
		fi
	done
	# on every core (FUZZ_JOBS, default nproc); a failed compile leaves no object
	if [ -n "$stale" ]; then
		printf '%s\n' $stale | CC_FUZZ=$CC_FUZZ CFL=$CFL out=$out \
		    xargs -P "${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}" -n 1 sh -c \
		    'o="$out/obj/$(basename "$0" .c).o"; $CC_FUZZ $CFL -fsanitize=fuzzer-no-link -c -o "$o.tmp" "$0" && mv "$o.tmp" "$o"' ||
		    return 1
	fi
	for n in $(names); do
		src=tests/fuzz/fuzz_$n.c
		bin=$out/bin/fuzz_$n
		stale=0
		[ -f "$bin" ] || stale=1
		for dep in "$src" tests/fuzz/fuzz.h $objs; do
			[ "$dep" -nt "$bin" ] && stale=1
		done
		[ "$stale" = 0 ] && continue
		echo "fuzz: link $bin"
		$CC_FUZZ $CFL -fsanitize=fuzzer -o "$bin" "$src" $objs $LIBS || return 1
	done
}

# run NAME SECONDS CORPUS-DIR: one harness; prints one result line; 0 if nothing was found.
run_one() {
	n=$1
	secs=$2
	grow=$3
	seeds=tests/fuzz/corpus/$n
	log=$out/fuzz_$n.log
	mkdir -p "$grow" "$seeds"
	start=$(date +%s)
	ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1} \
	UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1} \
	    "$out/bin/fuzz_$n" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
	    -max_len=65536 -print_final_stats=1 -close_fd_mask=2 \
	    -artifact_prefix="$out/artifacts/$n-" "$grow" "$seeds" >"$log" 2>&1
	rc=$?
	end=$(date +%s)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
	units=$(ls "$grow" | wc -l)
	if [ "$rc" = 0 ]; then
		echo "ok fuzz_$n: $((end - start)) s, ${execs:-?} runs, $cov, $units new inputs"
		return 0
	fi
	echo "not ok fuzz_$n: exit $rc after $((end - start)) s; see $log"
	grep -E 'ERROR|SUMMARY|Test unit written|#0 |#1 |#2 |#3 ' "$log" | head -n 20
	return 1
}

cmd=${1:-smoke}
case "$cmd" in
build) build ;;
smoke)
	build || { echo "fuzz-smoke: 0 passed, 1 failed"; exit 1; }
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/burnlink-fuzz.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT INT TERM
	pass=0
	fail=0
	for n in $(names); do
		if run_one "$n" "${FUZZ_SMOKE_TIME:-3}" "$tmp/$n"; then
			pass=$((pass + 1))
		else
			fail=$((fail + 1))
		fi
	done
	echo "fuzz-smoke: $pass passed, $fail failed"
	[ "$fail" = 0 ] ;;
fuzz)
	build || exit 1
	fail=0
	for n in $(names); do
		run_one "$n" "${FUZZ_TIME:-60}" "$out/corpus/$n" || fail=$((fail + 1))
	done
	[ "$fail" = 0 ] ;;
*) echo "usage: tests/fuzz/run.sh build|smoke|fuzz" >&2; exit 2 ;;
esac
