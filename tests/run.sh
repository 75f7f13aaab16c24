#!/bin/sh
# run.sh: runs the test suites and prints one closing line "check: N passed, N failed".
# Usage: tests/run.sh [SUITE...]   (default: all; suites: layers unit cgi limits accounts requests notify metrics asan
#        valgrind fuzz-smoke faults security http fastcgi pg cli i18n browser deb screenshots)
# Called by `make check` after the programs, the unit tests and the sanitizer
# and valgrind builds are made.
set -u
cd "$(dirname "$0")/.." || exit 2
top=$(pwd)

suites=${*:-layers unit cgi limits accounts requests notify metrics asan valgrind fuzz-smoke faults security http conformance fastcgi pg cli i18n browser deb}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/burnlink-check.XXXXXX")
pgdir=""
# What a run leaves, when it ends or is stopped: the background suites (each
# one's subshell and what it runs), the work directory, the PostgreSQL
# cluster. INT and TERM end the run (status 130, 143) rather than only
# cleaning up and going on with the next suite. A terminal's ^C reaches the
# running suite too; a TERM sent to this script alone ends it once the suite
# in the foreground has finished.
cleanup() {
	for p in "$tmp"/*.pid; do
		[ -f "$p" ] || continue
		pkill -TERM -P "$(cat "$p")" 2>/dev/null
		kill "$(cat "$p")" 2>/dev/null
	done
	rm -rf "$tmp"
	[ -z "$pgdir" ] || node tests/pg/cluster.mjs stop "$pgdir" >/dev/null 2>&1
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
pass=0
fail=0
failed=""

# Adds the counts of a node:test TAP file to the totals.
count_tap() {
	p=$(sed -n 's/^# pass \([0-9]*\)$/\1/p' "$1" | tail -n 1)
	f=$(sed -n 's/^# fail \([0-9]*\)$/\1/p' "$1" | tail -n 1)
	pass=$((pass + ${p:-0}))
	fail=$((fail + ${f:-0}))
}

# node_suite NAME DIR [ENV=VALUE...]: one node:test run, spec to the terminal.
node_suite() {
	name=$1
	dir=$2
	shift 2
	# DIR is a directory of *.test.mjs files, or a list of test files
	if [ -d "$dir" ]; then
		files=$(ls "$dir"/*.test.mjs 2>/dev/null)
	else
		files=$dir
	fi
	if [ -z "$files" ]; then
		echo "== $name: no tests in $dir"
		return
	fi
	echo "== $name"
	tap="$tmp/$name.tap"
	t0=$(date +%s)
	if ! env "$@" node --test $conc --test-reporter=spec --test-reporter-destination=stdout \
	    --test-reporter=tap --test-reporter-destination="$tap" $files; then
		failed="$failed $name"
		# a crashed runner may have written no counts
		grep -q '^# fail [1-9]' "$tap" 2>/dev/null || fail=$((fail + 1))
	fi
	count_tap "$tap"
	echo "== $name: $(($(date +%s) - t0)) s"
}

# The suites started in the background (BURNLINK_BG_SUITES, default "faults
# deb"): node suites that start no web server on a fixed port and share no
# state with the others, and that run for minutes while the suites beside
# them mostly wait on their programs, servers and fsyncs. faults (its
# programs and FastCGI responders on sockets of its own temporary
# directories; the allocation sweep, scrypt in every sign-in run) starts with
# the run; deb (the package builds, debootstrap, piuparts and the chroot's
# servers on free loopback ports) starts with the HTTP-level suites (bg_at),
# which wait on their servers, rather than beside the CPU-bound CGI-level and
# sanitizer suites. Each prints its output, and is counted, where it stands
# in the order of the suites; one that comes before the suite it starts with
# runs in turn.
bg_suites=${BURNLINK_BG_SUITES-faults deb}
bg_dir() {
	case "$1" in faults) echo tests/faults ;; deb) echo tests/deb ;; *) echo "" ;; esac
}
# bg_at NAME: the suite NAME starts beside ("": the run's start).
bg_at() {
	case "$1" in deb) echo http ;; *) echo "" ;; esac
}

# bg_start NAME: starts the node suite NAME in the background.
bg_start() {
	name=$1
	dir=$(bg_dir "$name")
	[ -n "$dir" ] || return 1
	(
		date +%s >"$tmp/$name.t0"
		if [ "$name" = deb ] && ! BURNLINK_DEB_LINT=0 sh scripts/deb.sh >"$tmp/$name.out" 2>&1; then
			echo "== deb: building the packages (scripts/deb.sh) failed" >>"$tmp/$name.out"
			echo 1 >"$tmp/$name.rc"
		else
			node --test $conc --test-reporter=spec --test-reporter-destination=stdout \
			    --test-reporter=tap --test-reporter-destination="$tmp/$name.tap" "$dir"/*.test.mjs \
			    >"$tmp/$name.out" 2>&1
			echo $? >"$tmp/$name.rc"
		fi
		date +%s >"$tmp/$name.t1"
	) &
	echo $! >"$tmp/$name.pid"
}

# bg_due SUITE: starts the background suites due before SUITE ("": at the
# run's start: those whose suite is not in the run too).
bg_due() {
	for b in $bg_suites; do
		case " $suites " in *" $b "*) ;; *) continue ;; esac
		case " $bg_started $bg_done " in *" $b "*) continue ;; esac
		at=$(bg_at "$b")
		if [ -n "$1" ]; then
			[ "$at" = "$1" ] || continue
		else
			case " $suites " in *" $at "*) [ -z "$at" ] || continue ;; esac
		fi
		bg_start "$b" && bg_started="$bg_started $b"
	done
}

# bg_join NAME: waits for NAME, prints its output and counts it as node_suite does.
bg_join() {
	name=$1
	echo "== $name (started in the background)"
	wait "$(cat "$tmp/$name.pid")" 2>/dev/null
	rm -f "$tmp/$name.pid"
	cat "$tmp/$name.out"
	if [ "$(cat "$tmp/$name.rc" 2>/dev/null)" != 0 ]; then
		failed="$failed $name"
		grep -q '^# fail [1-9]' "$tmp/$name.tap" 2>/dev/null || fail=$((fail + 1))
	fi
	[ ! -f "$tmp/$name.tap" ] || count_tap "$tmp/$name.tap"
	echo "== $name: $(($(cat "$tmp/$name.t1") - $(cat "$tmp/$name.t0"))) s, while the suites before it ran"
}

unit() {
	echo "== unit"
	for t in build/tests/*; do
		[ -x "$t" ] || continue
		out=$("$t")
		rc=$?
		echo "$out"
		p=$(echo "$out" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
		f=$(echo "$out" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
		pass=$((pass + ${p:-0}))
		fail=$((fail + ${f:-0}))
		if [ "$rc" != 0 ]; then
			failed="$failed unit:$(basename "$t")"
			[ "${f:-0}" = 0 ] && fail=$((fail + 1))
		fi
	done
}

npm_deps() {
	# The browser tests' packages (playwright-core, axe-core), the page's QR code
	# and the response checker of every suite (tests/lib/openapi.mjs: ajv, yaml).
	[ -f package-lock.json ] || return 0
	if [ ! -d node_modules ] || [ package-lock.json -nt node_modules ]; then
		npm ci --no-audit --no-fund --loglevel=error || return 1
	fi
}

# Test files mostly wait on the programs and servers they start: run four at a
# time where this node has the option (Node 20; Debian 12's Node 18 runs one).
conc=""
node --help 2>/dev/null | grep -q -- '--test-concurrency' && conc="--test-concurrency=4"

valgrind_cmd="valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect"

# Every node suite checks the responses it receives against docs/openapi.yaml
# with npm packages (tests/lib/openapi.mjs).
for s in $suites; do
	case "$s" in
	unit | fuzz-smoke) ;;
	*) npm_deps || echo "== npm ci failed: the node suites cannot check responses against docs/openapi.yaml"
	   break ;;
	esac
done

bg_started=""
bg_done=""
bg_due ""

run_start=$(date +%s)
for s in $suites; do
	bg_due "$s"
	case " $bg_started " in
	*" $s "*) bg_join "$s"; bg_done="$bg_done $s"; continue ;;
	esac
	# a background suite reached before it was due runs in turn
	bg_done="$bg_done $s"
	case "$s" in
	unit) unit ;;
	# No unit of lib/ includes or calls one of a higher layer (scripts/layers.txt).
	layers)
		echo "== layers"
		if sh scripts/layers.sh; then
			pass=$((pass + 1))
		else
			fail=$((fail + 1))
			failed="$failed layers"
		fi ;;
	cgi) node_suite cgi tests/cgi ;;
	# The programs as FastCGI responders behind lighttpd mod_fastcgi.
	fastcgi)
		node_suite fastcgi tests/fastcgi
		# The same HTTP-level tests as under CGI, with the secret programs as
		# FastCGI responders (tests/lib/server.mjs: lighttpd-fastcgi).
		node_suite fastcgi-http tests/http BURNLINK_SERVER=lighttpd-fastcgi
		node_suite fastcgi-conformance tests/conformance BURNLINK_SERVER=lighttpd-fastcgi ;;
	limits) node_suite limits tests/limits ;;
	accounts) node_suite accounts tests/accounts ;;
	# Secret requests (docs/API.md): wire format, API, CLI.
	requests) node_suite requests tests/requests ;;
	# cron/notify against a loopback HTTPS receiver and a capture mailer (docs/NOTIFY.md).
	notify) node_suite notify tests/notify ;;
	# GET /api/metrics: access, promtool, a real Prometheus scraping lighttpd (docs/ADMIN.md "Metrics").
	# Its routing and access control again behind the other servers.
	metrics) node_suite metrics tests/metrics
		for srv in apache htaccess nginx; do
			node_suite "metrics-$srv" tests/metrics/prometheus.test.mjs BURNLINK_SERVER=$srv
		done ;;
	asan) node_suite asan-cgi tests/cgi BURNLINK_BIN="$top/build/asan" \
	    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
	    node_suite asan-limits tests/limits BURNLINK_BIN="$top/build/asan" \
	    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
	    node_suite asan-accounts tests/accounts BURNLINK_BIN="$top/build/asan" \
	    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
	    node_suite asan-requests tests/requests/api.test.mjs BURNLINK_BIN="$top/build/asan" \
	    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
	    node_suite asan-notify tests/notify BURNLINK_BIN="$top/build/asan" \
	    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
	    node_suite asan-metrics tests/metrics/cgi.test.mjs BURNLINK_BIN="$top/build/asan" \
	    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ;;
	# Under valgrind every program costs about 2 s of CPU: make check runs
	# tests/valgrind, every path through the four programs and cleanup once
	# (about a minute); valgrind-full runs the whole CGI suite (10-15 min).
	valgrind) node_suite valgrind tests/valgrind BURNLINK_BIN="$top/build/dyn" \
	    BURNLINK_WRAP="$valgrind_cmd" BURNLINK_SLOW=1 ;;
	valgrind-full) node_suite valgrind-cgi tests/cgi BURNLINK_BIN="$top/build/dyn" \
	    BURNLINK_WRAP="$valgrind_cmd" BURNLINK_SLOW=1 ;;
	pg)
		# The CGI-level and HTTP-level suites again on a throwaway PostgreSQL
		# cluster, with the programs of `make pg` (build/pg); the tests that
		# examine SQLite's own files are skipped (tests/pg/sqlite-only.mjs).
		# Then what only a shared database shows (tests/pg). Not htaccess: that
		# tree serves its own var/burnlink.db (shared hosting is one host).
		pgdir=$(mktemp -d "${TMPDIR:-/tmp}/burnlink-pg.XXXXXX")
		if [ ! -x build/pg/cgi-bin/create ] || ! node tests/pg/cluster.mjs start "$pgdir" >"$tmp/pg.log" 2>&1; then
			echo "== pg: no build/pg (make pg) or no PostgreSQL cluster:"; cat "$tmp/pg.log" 2>/dev/null
			failed="$failed pg"
			fail=$((fail + 1))
		else
			pgenv="BURNLINK_TEST_PG=$pgdir BURNLINK_BIN=$top/build/pg"
			# shellcheck disable=SC2086
			node_suite pg-cgi tests/cgi $pgenv NODE_OPTIONS=--import=$top/tests/pg/preload.mjs
			for srv in lighttpd apache nginx; do
				# shellcheck disable=SC2086
				node_suite "pg-http-$srv" tests/http $pgenv BURNLINK_SERVER=$srv \
				    NODE_OPTIONS=--import=$top/tests/pg/preload.mjs
			done
			# shellcheck disable=SC2086
			node_suite pg-requests tests/requests $pgenv NODE_OPTIONS=--import=$top/tests/pg/preload.mjs
			# shellcheck disable=SC2086
			node_suite pg-notify tests/notify $pgenv NODE_OPTIONS=--import=$top/tests/pg/preload.mjs
			# shellcheck disable=SC2086
			node_suite pg-metrics tests/metrics $pgenv NODE_OPTIONS=--import=$top/tests/pg/preload.mjs
			# shellcheck disable=SC2086
			node_suite pg tests/pg $pgenv
		fi
		node tests/pg/cluster.mjs stop "$pgdir" >/dev/null 2>&1
		pgdir="" ;;
	http)
		for srv in lighttpd apache htaccess nginx; do
			node_suite "http-$srv" tests/http BURNLINK_SERVER=$srv
		done ;;
	conformance) node_suite conformance tests/conformance ;;
	cli)
		# the interop tests drive the page in Chromium: same packages as the browser suite
		npm_deps || echo "== cli: npm ci failed; the page interop tests will skip"
		node_suite cli tests/cli ;;
	fuzz-smoke)
		# Each libFuzzer harness over its seed corpus and a few seconds more.
		echo "== fuzz-smoke"
		sh tests/fuzz/run.sh smoke | tee "$tmp/fuzz.out"
		p=$(sed -n 's/^fuzz-smoke: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$tmp/fuzz.out")
		f=$(sed -n 's/^fuzz-smoke: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$tmp/fuzz.out")
		pass=$((pass + ${p:-0}))
		fail=$((fail + ${f:-1}))
		[ "${f:-1}" = 0 ] || failed="$failed fuzz-smoke" ;;
	faults) node_suite faults tests/faults ;;
	# The page's message catalogues and the scan for words outside them (no
	# browser: tests/browser/i18n.test.mjs has the page in each language).
	i18n) node_suite i18n tests/i18n ;;
	security) node_suite security tests/security ;;
	browser)
		if npm_deps; then
			node_suite browser tests/browser
		else
			echo "== browser: npm ci failed"
			failed="$failed browser"
			fail=$((fail + 1))
		fi ;;
	screenshots) npm_deps && node tests/browser/screenshots.mjs ;;
	# The Debian packages (scripts/deb.sh builds them and runs lintian), then
	# tests/deb: reproducibility, manual pages, piuparts, and install, upgrade,
	# Apache and lighttpd, cron, remove and purge in a Debian 12 chroot.
	deb)
		echo "== deb: building the packages (scripts/deb.sh)"
		if BURNLINK_DEB_LINT=0 sh scripts/deb.sh >"$tmp/deb.log" 2>&1; then
			node_suite deb tests/deb
		else
			cat "$tmp/deb.log"
			failed="$failed deb"
			fail=$((fail + 1))
		fi ;;
	*) echo "run.sh: unknown suite $s" >&2; exit 2 ;;
	esac
done

# What failed, and why, at the end where a short tail of the output still
# shows it: each failing test's name and the first lines of its error.
for name in $failed; do
	[ -f "$tmp/$name.tap" ] || continue
	echo "== $name: failing tests"
	awk '/^ *not ok /{ n = 14; sub(/^ */, ""); print "  " $0; next }
	    n > 0 && /^ *(error|expected|actual|operator|code|failureType):|^ *[+-] |^ *\.\.\.$/ { print "    " $0; n--; if ($0 ~ /\.\.\.$/) n = 0 }' \
	    "$tmp/$name.tap" | grep -v '^    *\.\.\.$' | head -n 60
done
[ -n "$failed" ] && echo "failed suites:$failed"
echo "== run: $(($(date +%s) - run_start)) s"
echo "check: $pass passed, $fail failed"
[ "$fail" = 0 ] && [ -z "$failed" ]
