#!/bin/sh
# deps.sh: install the Debian packages a make target needs, only those missing.
# Usage: scripts/deps.sh GROUP...   (build, run, apache, test, browser, bench, profile, pg, deb)
set -eu

pkgs_for() {
	case "$1" in
	build)   echo "make gcc pkg-config libssl-dev libsqlite3-dev libjson-c-dev libfcgi-dev libseccomp-dev nodejs npm" ;;
	run)     echo "lighttpd" ;;
	apache)  echo "apache2" ;;
	# strace: the programs' file creations (tests/security/tempfiles.test.mjs)
	# prometheus: promtool and a real scrape of GET /api/metrics (tests/metrics)
	# bash-completion: the CLI's completion run in bash (tests/cli/completion.test.mjs)
	test)    echo "lighttpd apache2 nginx fcgiwrap sqlite3 valgrind nodejs npm curl clang util-linux strace prometheus jq python3 bash-completion procps" ;;
	# the fonts: the page in Japanese and Chinese (CJK) and in Arabic, for the
	# screenshots and the tests that look at those languages
	# libapache2-mod-auth-openidc: sign-in through the web server against a
	# real OpenID provider (tests/browser/oidc.test.mjs)
	browser) echo "chromium fonts-noto-cjk fonts-noto-core libapache2-mod-auth-openidc" ;;
	# PrivateBin, the peer of the benchmark (bench/privatebin.sh), runs on
	# php-cgi (opcache comes with it); php-gd draws its comment icons.
	# pgbouncer: the pooler measured against direct connections (BACKEND=postgres).
	# procps: pgrep, which finds the responders (bench/responders.sh); tests/run.sh
	# stops the background suites with pkill.
	bench)   echo "wrk lighttpd curl php-cgi php-gd pgbouncer procps" ;;
	# make profile: instructions and system calls per CGI request.
	profile) echo "valgrind strace" ;;
	# iproute2: tests/pg/vanished-host.mjs makes a database host unreachable (ip rule, in a network namespace)
	pg)      echo "postgresql libpq-dev iproute2" ;;
	# make deb and its tests (tests/deb): debhelper builds, lintian checks,
	# debootstrap and piuparts make clean Debian 12 chroots, man renders the
	# manual pages, systemd-analyze checks the timers.
	deb)     echo "debhelper dpkg-dev fakeroot bash-completion lintian debootstrap piuparts man-db systemd libpq-dev" ;;
	*) echo "deps.sh: unknown group $1" >&2; exit 2 ;;
	esac
}

want=""
for g in "$@"; do
	want="$want $(pkgs_for "$g")"
done

missing=""
for p in $want; do
	# A tool already on PATH (e.g. a newer node than Debian's) counts as present.
	case "$p" in
	nodejs) command -v node >/dev/null 2>&1 && continue ;;
	npm) command -v npm >/dev/null 2>&1 && continue ;;
	esac
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		case " $missing " in *" $p "*) ;; *) missing="$missing $p" ;; esac
	fi
done

[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps.sh: missing Debian packages:$missing" >&2
	echo "deps.sh: run as root, or install them: apt-get install$missing" >&2
	exit 1
fi

echo "deps.sh: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# Packages such as nginx and apache2 would start their system services on
# install; the project runs its own servers, so forbid that while installing.
if [ ! -e /usr/sbin/policy-rc.d ]; then
	printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
	chmod 755 /usr/sbin/policy-rc.d
	trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi
if [ ! -d /var/lib/apt/lists ] || [ -z "$(ls /var/lib/apt/lists 2>/dev/null | grep -v lock | head -n 1)" ] ||
	[ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null | head -n 1)" ]; then
	apt-get update -qq >&2
fi
# shellcheck disable=SC2086
if ! apt-get install -y -qq --no-install-recommends $missing >&2; then
	apt-get update -qq >&2
	apt-get install -y -qq --no-install-recommends $missing >&2
fi
