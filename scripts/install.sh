#!/bin/sh
# install.sh: lay out a deployable burnlink tree (`make install`).
# Usage: scripts/install.sh DESTDIR PREFIX
#
#   PREFIX/htdocs/    document root: pages, assets, robots.txt, .htaccess, and
#                     api/openapi.yaml (docs/openapi.yaml)
#   PREFIX/cgi-bin/   the programs (create, metadata, retrieve, delete, and the
#                     account programs when built), .htaccess
#   PREFIX/bin/       cleanup (the hourly cron job), notify (every minute:
#                     notifications, docs/NOTIFY.md)
#   PREFIX/var/       the database and the install secret, mode 0700, owned by
#                     the user the programs run as; outside the document root
#   PREFIX/etc/       lighttpd.conf, apache-vhost.conf, nginx.conf, crontab and
#                     burnlink.env, filled in with this tree's paths
#
# Environment:
#   BURNLINK_USER     owner of var/ (the user the web server runs CGI programs
#                     as). Default when run as root: www-data if it exists.
#   BURNLINK_SITE_URL, BURNLINK_TRUSTED_PROXIES   written into the configuration
#   BURNLINK_SIGNUP   "open" lets anyone create an account (default closed)
#   BURNLINK_CONFIG   the settings file (default burnlink.conf beside the database)
#   BURNLINK_NOTIFY_ALLOW  networks (and "http") webhooks may reach (docs/NOTIFY.md)
#   BURNLINK_BIN      where the built programs are (default: the tree itself)
#   BURNLINK_WWW      the pages to install (default: www/)
#   BURNLINK_CONF_PREFIX  the path written into etc/ (default PREFIX; `make dist`
#                     sets a placeholder). When set, cgi-bin/.htaccess names no
#                     database: the programs then use ../var/burnlink.db beside
#                     their own directory, wherever the tree is uploaded.
# An upgrade (install over an existing tree) keeps var/ and keeps any
# configuration file that was edited after install, writing the new one as
# NAME.new (etc/cgi-bin_.htaccess.new for cgi-bin/.htaccess).
set -eu

[ $# -eq 2 ] || { echo "usage: install.sh DESTDIR PREFIX" >&2; exit 2; }
destdir=$1
prefix=$2
case "$prefix" in
/*) ;;
*) echo "install.sh: PREFIX must be an absolute path (got '$prefix')" >&2; exit 2 ;;
esac
prefix=${prefix%/}

top=$(cd "$(dirname "$0")/.." && pwd)
bin=${BURNLINK_BIN:-$top}
case "$bin" in /*) ;; *) bin=$top/$bin ;; esac
# BURNLINK_BIN names either a build directory holding cgi-bin/ or cgi-bin itself.
if [ -x "$bin/cgi-bin/create" ]; then cgidir=$bin/cgi-bin; crondir=$bin/cron
else cgidir=$bin; crondir=$bin/../cron; fi
[ -x "$crondir/cleanup" ] || crondir=$top/cron
www=${BURNLINK_WWW:-$top/www}

say() { [ -n "${BURNLINK_QUIET:-}" ] || echo "install.sh: $*"; }

for p in create metadata retrieve delete; do
	[ -x "$cgidir/$p" ] || { echo "install.sh: $cgidir/$p is missing (run make)" >&2; exit 1; }
done
[ -f "$www/index.html" ] || { echo "install.sh: $www/index.html is missing" >&2; exit 1; }

if [ -z "${BURNLINK_USER+x}" ]; then
	BURNLINK_USER=
	[ "$(id -u)" = 0 ] && id -u www-data >/dev/null 2>&1 && BURNLINK_USER=www-data
fi

root=$destdir$prefix
umask 022
mkdir -p "$root/htdocs" "$root/cgi-bin" "$root/bin" "$root/etc/.installed"

# Install a configuration file; keep one edited since the last install (the
# pristine copies live in etc/.installed/).
put_conf() { # put_conf NEW DEST
	flat=$(echo "${2#"$root"/}" | tr / _)
	pristine=$root/etc/.installed/$flat
	if [ -f "$2" ] && ! cmp -s "$1" "$2" && ! { [ -f "$pristine" ] && cmp -s "$2" "$pristine"; }; then
		# beside it under etc/; never a stray file in a served directory
		case "$2" in "$root"/etc/*) new=$2.new ;; *) new=$root/etc/$flat.new ;; esac
		cp "$1" "$new"
		chmod 644 "$new"
		echo "install.sh: kept your edited $2; the new version is $new" >&2
	else
		cp "$1" "$2"
		chmod 644 "$2"
	fi
	cp "$1" "$pristine"
}

# Pages.
(cd "$www" && find . -type d) | while IFS= read -r d; do mkdir -p "$root/htdocs/$d"; done
(cd "$www" && find . -type f ! -name '.htaccess') | while IFS= read -r f; do
	cp "$www/$f" "$root/htdocs/$f"
	chmod 644 "$root/htdocs/$f"
done
# The API's OpenAPI description, served at /api/openapi.yaml (docs/API.md).
mkdir -p "$root/htdocs/api"
cp "$top/docs/openapi.yaml" "$root/htdocs/api/openapi.yaml"
chmod 644 "$root/htdocs/api/openapi.yaml"
find "$root/htdocs" -type d -exec chmod 755 {} +

# Programs: copied to a new name and renamed, so a running request never sees
# a half-written file. (BURNLINK_INSTALL_LINK=1, for the tests: hard links
# where possible, to save copying the static programs again and again.)
copy() {
	rm -f "$2"
	if [ -n "${BURNLINK_INSTALL_LINK:-}" ] && ln "$1" "$2" 2>/dev/null; then
		return 0
	fi
	cp "$1" "$2"
}
for f in "$cgidir"/*; do
	p=${f##*/}
	case "$p" in *.* | *~) continue ;; esac
	[ -f "$f" ] && [ -x "$f" ] || continue
	copy "$f" "$root/cgi-bin/.$p.new"
	chmod 755 "$root/cgi-bin/.$p.new"
	mv -f "$root/cgi-bin/.$p.new" "$root/cgi-bin/$p"
done
if [ -x "$crondir/cleanup" ]; then
	copy "$crondir/cleanup" "$root/bin/.cleanup.new"
	chmod 755 "$root/bin/.cleanup.new"
	mv -f "$root/bin/.cleanup.new" "$root/bin/cleanup"
else
	echo "install.sh: warning: cron/cleanup is not built; bin/cleanup not installed" >&2
fi
if [ -x "$crondir/notify" ]; then
	copy "$crondir/notify" "$root/bin/.notify.new"
	chmod 755 "$root/bin/.notify.new"
	mv -f "$root/bin/.notify.new" "$root/bin/notify"
fi
# The operator's command (docs/ADMIN.md), beside the cron programs.
admin=$crondir/../tools/burnlink-admin
[ -x "$admin" ] || admin=$top/tools/burnlink-admin
if [ -x "$admin" ]; then
	copy "$admin" "$root/bin/.burnlink-admin.new"
	chmod 755 "$root/bin/.burnlink-admin.new"
	mv -f "$root/bin/.burnlink-admin.new" "$root/bin/burnlink-admin"
fi

# The data directory: outside the document root, private to the programs' user.
if [ ! -d "$root/var" ]; then
	mkdir -p "$root/var"
fi
chmod 700 "$root/var"
# Should var/ ever end up under a document root, Apache still refuses it.
[ -f "$root/var/.htaccess" ] || printf 'Require all denied\n' >"$root/var/.htaccess"
chmod 644 "$root/var/.htaccess"
if [ -n "$BURNLINK_USER" ]; then
	if [ "$(id -u)" = 0 ]; then
		chown -R "$BURNLINK_USER:$(id -gn "$BURNLINK_USER")" "$root/var"
	elif [ "$(id -un)" != "$BURNLINK_USER" ]; then
		echo "install.sh: warning: not root; give $root/var to $BURNLINK_USER yourself" >&2
	fi
fi

# Generated configuration, with this tree's paths.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
cprefix=${BURNLINK_CONF_PREFIX:-$prefix}
BURNLINK_DB=$cprefix/var/burnlink.db
BURNLINK_SECRET_FILE=$cprefix/var/secret.key
export BURNLINK_DB BURNLINK_SECRET_FILE
passenv="BURNLINK_DB BURNLINK_SECRET_FILE"
[ -n "${BURNLINK_SITE_URL:-}" ] && passenv="$passenv BURNLINK_SITE_URL"
[ -n "${BURNLINK_TRUSTED_PROXIES:-}" ] && passenv="$passenv BURNLINK_TRUSTED_PROXIES"
[ -n "${BURNLINK_SIGNUP:-}" ] && passenv="$passenv BURNLINK_SIGNUP"
[ -n "${BURNLINK_CONFIG:-}" ] && passenv="$passenv BURNLINK_CONFIG"
[ -n "${BURNLINK_NOTIFY_ALLOW:-}" ] && passenv="$passenv BURNLINK_NOTIFY_ALLOW"
export BL_PASSENV="$passenv"
export BL_HOST=0.0.0.0 BL_PORT=80 BL_VHOST='*:80' BL_SERVERNAME=${BURNLINK_SERVER_NAME:-burnlink.example.org}
export BL_DOCROOT="$cprefix/htdocs" BL_CGIBIN="$cprefix/cgi-bin" BL_DATADIR="$cprefix/var"
export BL_OPENAPI="$cprefix/htdocs/api/openapi.yaml"
export BL_LOGDIR=/var/log/lighttpd BL_ACCESSLOG=/var/log/lighttpd/access.log BL_RUNDIR=/run BL_USER="${BURNLINK_USER:-www-data}" BL_PREFIX="$cprefix"
export BL_FCGIWRAP_SOCKET=/run/fcgiwrap.socket BL_NGINX_LISTEN=80 BL_NGINX_HTTP_HOST='$host'
gen="$top/scripts/genconf.sh"
if [ -n "${BURNLINK_CONF_PREFIX:-}" ]; then
	BL_PASSENV="" sh "$gen" "$top/conf/cgi-bin.htaccess.in" >"$tmp/cgi-bin.htaccess"
else
	sh "$gen" "$top/conf/cgi-bin.htaccess.in" >"$tmp/cgi-bin.htaccess"
fi
sh "$gen" "$www/.htaccess" >"$tmp/htdocs.htaccess"
sh "$gen" "$top/conf/lighttpd.conf.in" >"$tmp/lighttpd.conf"
sh "$gen" "$top/conf/apache-vhost.conf.in" >"$tmp/apache-vhost.conf"
BL_NGINX_PARAMS=$cprefix/etc/nginx-fastcgi-params sh "$gen" "$top/conf/nginx.conf.in" >"$tmp/nginx.conf"
sh "$gen" "$top/conf/nginx-fastcgi-params.in" >"$tmp/nginx-fastcgi-params"
sh "$gen" "$top/cron/crontab.example" >"$tmp/crontab"
{
	echo "# burnlink: the programs' settings, for the cron job and nginx (fcgiwrap)."
	for n in $passenv; do eval "echo \"$n=\$$n\""; done
} >"$tmp/burnlink.env"

put_conf "$tmp/htdocs.htaccess" "$root/htdocs/.htaccess"
put_conf "$tmp/cgi-bin.htaccess" "$root/cgi-bin/.htaccess"
for f in lighttpd.conf apache-vhost.conf nginx.conf nginx-fastcgi-params crontab burnlink.env; do
	put_conf "$tmp/$f" "$root/etc/$f"
done

say "installed into $root"
say "document root: $prefix/htdocs   programs: $prefix/cgi-bin   data: $prefix/var (owner ${BURNLINK_USER:-$(id -un)})"
say "cron job: $prefix/etc/crontab; server configuration: $prefix/etc/ (see INSTALL)"
