# burnlink: the cleanup every hour and notifications every minute, where
# systemd does not run (where it does, the burnlink-cleanup and
# burnlink-notify timers do the same and these lines stand down).
MAILTO=""
17 * * * *	www-data	[ -d /run/systemd/system ] || (set -a; [ ! -r /etc/default/burnlink ] || . /etc/default/burnlink; exec /usr/lib/burnlink/bin/cleanup)
* * * * *	www-data	[ -d /run/systemd/system ] || (set -a; [ ! -r /etc/default/burnlink ] || . /etc/default/burnlink; exec /usr/lib/burnlink/bin/notify >/dev/null)
