#!/bin/sh
# webconf.sh: the Debian package's web-server snippets, made at build time
# from the project's own configurations (conf/, www/.htaccess), so that the
# routes are written in one place. Usage: debian/webconf.sh PKG_DIR
#   Apache:   /etc/apache2/conf-available/burnlink.conf (a2enconf burnlink):
#             the page and API at /burnlink/, in every virtual host
#   lighttpd: /etc/lighttpd/conf-available/50-burnlink.conf
#             (lighttpd-enable-mod burnlink): the same at /burnlink/
#   nginx:    /etc/nginx/sites-available/burnlink, a server block of its own
#             (fcgiwrap), with /etc/burnlink/nginx-fastcgi-params
set -eu
pkg=$1
top=$(cd "$(dirname "$0")/.." && pwd)
www=/usr/share/burnlink/www
cgi=/usr/lib/burnlink/cgi-bin
base=/burnlink

# The timers (or cron.d) run the cleanup and notify jobs: the programs never
# start them themselves (docs/API.md, BURNLINK_SELF_WORK).
BURNLINK_SELF_WORK=off
export BURNLINK_SELF_WORK

gen() { # gen TEMPLATE: the project's genconf.sh with the package's paths
	BL_PASSENV="BURNLINK_SELF_WORK" BL_HOST=0.0.0.0 BL_PORT=80 BL_VHOST='*:80' \
	BL_SERVERNAME=burnlink.example.org BL_DOCROOT=$www BL_CGIBIN=$cgi \
	BL_DATADIR=/var/lib/burnlink BL_OPENAPI=$www/api/openapi.yaml \
	BL_LOGDIR=/var/log/lighttpd BL_ACCESSLOG=/var/log/lighttpd/access.log \
	BL_RUNDIR=/run BL_USER="" BL_PREFIX=/usr/lib/burnlink \
	BL_FCGIWRAP_SOCKET=/run/fcgiwrap.socket BL_NGINX_LISTEN=80 \
	BL_NGINX_HTTP_HOST='$host' BL_NGINX_PARAMS=/etc/burnlink/nginx-fastcgi-params \
	BL_UPLOADDIR=/dev/shm sh "$top/scripts/genconf.sh" "$1"
}

indent() { sed 's/^\(.\)/\t\1/'; }

# Apache: the document root's and the cgi-bin's .htaccess rules, each inside
# the <Directory> of its files, the routes taken to /burnlink/cgi-bin/.
mkdir -p "$pkg/etc/apache2/conf-available"
{
	cat <<HEAD
# burnlink (Debian package): the page and the API at $base/ in every virtual
# host. Enable with: a2enconf burnlink && systemctl reload apache2
# (the package enabled mod_rewrite, mod_headers and mod_cgi or mod_cgid).
# Made from the project's www/.htaccess and cgi-bin .htaccess; the programs
# find their data in /var/lib/burnlink and their settings in
# /etc/burnlink/burnlink.conf (burnlink.conf(5)). Set the site's address for
# the links of mails and webhooks with, e.g.:
#   SetEnv BURNLINK_SITE_URL "https://example.org/burnlink"
# in the <Directory $cgi> block below.

<IfModule !rewrite_module>
	Error "burnlink needs mod_rewrite: a2enmod rewrite"
</IfModule>
<IfModule !headers_module>
	Error "burnlink needs mod_headers (the page's security headers): a2enmod headers"
</IfModule>
<IfModule !cgid_module>
	<IfModule !cgi_module>
		Error "burnlink needs mod_cgid or mod_cgi: a2enmod cgi"
	</IfModule>
</IfModule>

Alias $base/cgi-bin/ $cgi/
Alias $base $www

<Directory $cgi>
	AllowOverride None
	Require all granted
	CGIPassAuth On
HEAD
	gen "$top/conf/cgi-bin.htaccess.in" | grep -v '^# SetEnv' | indent
	echo "</Directory>"
	echo
	echo "<Directory $www>"
	echo "	AllowOverride None"
	echo "	Require all granted"
	gen "$top/www/.htaccess" | sed -e "s|^# RewriteBase /burnlink/|RewriteBase $base/|" \
	    -e "s|\"/cgi-bin/|\"$base/cgi-bin/|g" | indent
	echo "</Directory>"
} >"$pkg/etc/apache2/conf-available/burnlink.conf"
grep -q "^	RewriteBase $base/" "$pkg/etc/apache2/conf-available/burnlink.conf" || {
	echo "webconf.sh: www/.htaccess has no '# RewriteBase /burnlink/' line to set" >&2; exit 1; }

# lighttpd: the server configuration's routes, headers and log formats under
# /burnlink/ (everything from its cgi-bin alias on), the paths prefixed.
mkdir -p "$pkg/etc/lighttpd/conf-available"
{
	cat <<HEAD
# burnlink (Debian package): the page and the API at $base/.
# Enable with: lighttpd-enable-mod burnlink && systemctl reload lighttpd
# Made from the project's conf/lighttpd.conf.in. The programs find their data
# in /var/lib/burnlink and their settings in /etc/burnlink/burnlink.conf.

server.modules += ( "mod_alias", "mod_rewrite", "mod_setenv", "mod_cgi" )
# A request body over 64 KiB is kept in a file before the program reads it,
# and a server-side create holds plaintext: keep such files on a tmpfs
# (Debian's lighttpd.conf names /var/cache/lighttpd/uploads, on disk).
server.upload-dirs := ( "/dev/shm" )
url.redirect += ( "^$base\$" => "$base/" )

\$HTTP["url"] =~ "^$base/" {
HEAD
	gen "$top/conf/lighttpd.conf.in" | sed -n '/^alias\.url = /,$p' |
	sed -e "s|^alias\.url = ( \"/cgi-bin/\"|alias.url += ( \"$base/cgi-bin/\"|" \
	    -e "s|^alias\.url += ( \"/api/|alias.url += ( \"$base/api/|" \
	    -e "/\"^\//s|=> \"/|=> \"$base/|g" -e "s|\"^/|\"^$base/|g" \
	    -e "s|== \"/|== \"$base/|g" \
	    -e "s|\"%m /|\"%m $base/|g" |
	sed -e 's/^setenv\.add-environment = ($/setenv.add-environment += (/' | indent
	echo "	alias.url += ( \"$base/\" => \"$www/\" )"
	echo "}"
} >"$pkg/etc/lighttpd/conf-available/50-burnlink.conf"

# nginx: the project's server block as it is, for a site of its own.
mkdir -p "$pkg/etc/nginx/sites-available"
{
	echo "# burnlink (Debian package): a server block of its own, with fcgiwrap."
	echo "# Set server_name, then: ln -s ../sites-available/burnlink /etc/nginx/sites-enabled/"
	echo "# (apt-get install fcgiwrap; its socket unit runs the programs as www-data)."
	gen "$top/conf/nginx.conf.in"
} >"$pkg/etc/nginx/sites-available/burnlink"
mkdir -p "$pkg/etc/burnlink"
gen "$top/conf/nginx-fastcgi-params.in" >"$pkg/etc/burnlink/nginx-fastcgi-params"
chmod 644 "$pkg/etc/apache2/conf-available/burnlink.conf" \
	"$pkg/etc/lighttpd/conf-available/50-burnlink.conf" \
	"$pkg/etc/nginx/sites-available/burnlink" "$pkg/etc/burnlink/nginx-fastcgi-params"
