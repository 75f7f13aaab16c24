#!/bin/sh
# install-tree.sh: lays out the Debian packages' files from a built tree
# (debian/rules, after `make` with BIN=build/deb/). Where things go follows
# Debian policy and the FHS (docs/ADMIN.md, "The Debian package"):
#   /usr/lib/burnlink/cgi-bin/   the CGI programs
#   /usr/lib/burnlink/bin/       cleanup and notify (systemd timers or cron.d)
#   /usr/sbin/burnlink-admin     the operator's command
#   /usr/share/burnlink/www/     the page, and api/openapi.yaml
#   /usr/share/burnlink/         schema.sql, schema-pg.sql
#   /etc/burnlink/burnlink.conf  the settings (a conffile)
#   /etc/apache2/conf-available/burnlink.conf, /etc/lighttpd/conf-available/
#   50-burnlink.conf, /etc/nginx/sites-available/burnlink (+ its params)
# Usage: debian/install-tree.sh BUILT_BIN_DIR SERVER_PKG_DIR CLI_PKG_DIR
set -eu
bin=$1
pkg=$2
cli=$3
top=$(cd "$(dirname "$0")/.." && pwd)

d() { install -d -m 755 "$pkg/$1"; }
d usr/lib/burnlink/cgi-bin
d usr/lib/burnlink/bin
d usr/sbin
d usr/share/burnlink/www
d etc/burnlink

for f in "$top"/cgi-bin/*.c; do
	p=$(basename "$f" .c)
	install -m 755 "$bin/cgi-bin/$p" "$pkg/usr/lib/burnlink/cgi-bin/$p"
done
install -m 755 "$bin/cron/cleanup" "$pkg/usr/lib/burnlink/bin/cleanup"
install -m 755 "$bin/cron/notify" "$pkg/usr/lib/burnlink/bin/notify"
install -m 755 "$bin/tools/burnlink-admin" "$pkg/usr/sbin/burnlink-admin"

# The page: every file of www/ but its .htaccess (the Apache snippet carries
# its rules), and the API's description at api/openapi.yaml.
(cd "$top/www" && find . -type f ! -name .htaccess | LC_ALL=C sort) | while IFS= read -r f; do
	install -D -m 644 "$top/www/$f" "$pkg/usr/share/burnlink/www/$f"
done
install -D -m 644 "$top/docs/openapi.yaml" "$pkg/usr/share/burnlink/www/api/openapi.yaml"
install -m 644 "$top/schema.sql" "$top/schema-pg.sql" "$pkg/usr/share/burnlink/"

install -m 644 "$top/conf/burnlink.conf.example" "$pkg/etc/burnlink/burnlink.conf"

# The web servers' snippets, made from the project's own configurations.
sh "$top/debian/webconf.sh" "$pkg"

# The CLI: the program and the wire format it shares with the page.
install -d -m 755 "$cli/usr/share/burnlink-cli/wire" "$cli/usr/bin"
install -m 755 "$top/cli/burnlink.mjs" "$cli/usr/share/burnlink-cli/burnlink.mjs"
install -m 644 "$top/www/assets/wire.js" "$top/www/assets/limits.js" "$cli/usr/share/burnlink-cli/wire/"
# "type": "module": the program and the wire format are ES modules
install -m 644 "$top/cli/package.json" "$cli/usr/share/burnlink-cli/package.json"
sed -i '1s|^#!/usr/bin/env node|#!/usr/bin/node|' "$cli/usr/share/burnlink-cli/burnlink.mjs"
ln -s ../share/burnlink-cli/burnlink.mjs "$cli/usr/bin/burnlink"
