/* webpost.c (layer: domain): one HTTP(S) POST over OpenSSL for cron/notify's webhooks, with every address checked before it is used (docs/NOTIFY.md). */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "internal.h"

#define CONNECT_MS	5000	/* the TCP connect, at most */

/*
 * Where a static program finds the system's certificate authorities when
 * OpenSSL's built-in place (Debian's /usr/lib/ssl/certs) is not the host's:
 * Debian and Ubuntu, Fedora and RHEL, openSUSE, Alpine.
 */
static const char *const ca_bundles[] = {
	"/etc/ssl/certs/ca-certificates.crt",
	"/etc/pki/tls/certs/ca-bundle.crt",
	"/etc/ssl/ca-bundle.pem",
	"/etc/ssl/cert.pem",
};

struct url {
	int	 https;
	char	 host[256];	/* without the brackets of an IPv6 literal */
	char	 authority[270];	/* as the URL wrote it: the Host header */
	char	 port[6];
	char	*path;		/* from the URL, "/" when empty; the fragment dropped */
};

/* 1 for a byte a URL may hold as it is (no space or control). */
static int
url_byte(unsigned char c)
{
	return c > 0x20 && c < 0x7f;
}

/* Splits an http(s) URL; NULL, or why not. u->path is the caller's to free. */
static const char *
parse_url(const char *s, int allow_http, struct url *u)
{
	const char	*a, *end, *colon;
	size_t		 n, i;
	long		 port = 0;

	memset(u, 0, sizeof(*u));
	if (strncmp(s, "https://", 8) == 0)
		u->https = 1, a = s + 8;
	else if (strncmp(s, "http://", 7) == 0)
		a = s + 7;
	else
		return "not a URL";
	if (!u->https && !allow_http)
		return "not https";
	for (i = 0; s[i] != '\0'; i++)
		if (!url_byte((unsigned char)s[i]))
			return "not a URL";
	end = a + strcspn(a, "/?#");
	n = (size_t)(end - a);
	if (n == 0 || n >= sizeof(u->authority) || memchr(a, '@', n) != NULL)
		return "not a URL";
	memcpy(u->authority, a, n);
	if (a[0] == '[') {
		const char *rb = memchr(a, ']', n);
		if (rb == NULL || (size_t)(rb - a - 1) >= sizeof(u->host))
			return "not a URL";
		memcpy(u->host, a + 1, (size_t)(rb - a - 1));
		colon = rb + 1 < end && rb[1] == ':' ? rb + 1 : NULL;
		if (rb + 1 < end && colon == NULL)
			return "not a URL";
	} else {
		colon = memchr(a, ':', n);
		if ((size_t)((colon != NULL ? colon : end) - a) >= sizeof(u->host))
			return "host name too long";
		memcpy(u->host, a, (size_t)((colon != NULL ? colon : end) - a));
	}
	if (u->host[0] == '\0')
		return "not a URL";
	if (colon != NULL) {
		if (colon + 1 == end || end - colon - 1 > 5)
			return "not a URL";
		for (a = colon + 1; a < end; a++) {
			if (*a < '0' || *a > '9')
				return "not a URL";
			port = port * 10 + (*a - '0');
		}
		if (port < 1 || port > 65535)
			return "not a URL";
	} else
		port = u->https ? 443 : 80;
	snprintf(u->port, sizeof(u->port), "%ld", port);
	n = strcspn(end, "#");
	if ((u->path = n == 0 || end[0] != '/' ? malloc(n + 2) : strndup(end, n)) == NULL)
		return "out of memory";
	if (n == 0 || end[0] != '/')
		snprintf(u->path, n + 2, "/%.*s", (int)n, end);
	return NULL;
}

/* Connects to ai within CONNECT_MS; the socket, or -1 with why set. */
static int
connect_to(const struct addrinfo *ai, long timeout_s, char *why, size_t len)
{
	struct timeval	 tv = { timeout_s, 0 };
	struct pollfd	 pfd;
	socklen_t	 sl = sizeof(int);
	int		 fd, fl, err = 0;

	if ((fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol)) < 0 ||
	    (fl = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) != 0)
		goto fail;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
		if (errno != EINPROGRESS)
			goto fail;
		pfd.fd = fd;
		pfd.events = POLLOUT;
		if (poll(&pfd, 1, CONNECT_MS) != 1) {
			errno = ETIMEDOUT;
			goto fail;
		}
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &sl) != 0 || err != 0) {
			errno = err;
			goto fail;
		}
	}
	if (fcntl(fd, F_SETFL, fl) != 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) != 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) != 0)
		goto fail;
	return fd;
fail:
	snprintf(why, len, "cannot connect: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

/* A TLS session over fd, the peer's certificate checked for u's host; NULL with why set. */
static SSL *
tls_open(SSL_CTX **ctxp, int fd, const struct url *u, const char *ca, char *why, size_t len)
{
	unsigned char	 lit[16];
	SSL_CTX		*ctx;
	SSL		*ssl = NULL;
	size_t		 i;
	int		 ip = inet_pton(AF_INET, u->host, lit) == 1 ||
			    inet_pton(AF_INET6, u->host, lit) == 1;
	long		 vr;

	if ((*ctxp = ctx = SSL_CTX_new(TLS_client_method())) == NULL ||
	    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1) {
		snprintf(why, len, "cannot set up TLS");
		return NULL;
	}
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	if (ca != NULL && ca[0] != '\0') {
		if (SSL_CTX_load_verify_locations(ctx, ca, NULL) != 1) {
			snprintf(why, len, "cannot read BURNLINK_NOTIFY_CA %s", ca);
			return NULL;
		}
	} else {
		SSL_CTX_set_default_verify_paths(ctx);
		for (i = 0; i < sizeof(ca_bundles) / sizeof(ca_bundles[0]); i++)
			if (access(ca_bundles[i], R_OK) == 0 &&
			    SSL_CTX_load_verify_locations(ctx, ca_bundles[i], NULL) == 1)
				break;
	}
	ERR_clear_error();
	if ((ssl = SSL_new(ctx)) == NULL || SSL_set_fd(ssl, fd) != 1 ||
	    (!ip && (SSL_set_tlsext_host_name(ssl, u->host) != 1 ||
	    SSL_set1_host(ssl, u->host) != 1)) ||
	    (ip && X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), u->host) != 1)) {
		snprintf(why, len, "cannot set up TLS");
		SSL_free(ssl);
		return NULL;
	}
	if (SSL_connect(ssl) != 1) {
		if ((vr = SSL_get_verify_result(ssl)) != X509_V_OK)
			snprintf(why, len, "TLS: the certificate: %s",
			    X509_verify_cert_error_string(vr));
		else
			snprintf(why, len, "TLS: the handshake failed");
		SSL_free(ssl);
		return NULL;
	}
	return ssl;
}

/* Writes all of buf over ssl (or fd). 0, or -1. */
static int
send_all(SSL *ssl, int fd, const char *buf, size_t n)
{
	ssize_t	 w;

	while (n > 0) {
		w = ssl != NULL ? SSL_write(ssl, buf, n > INT32_MAX ? INT32_MAX : (int)n) :
		    write(fd, buf, n);
		if (w <= 0) {
			if (ssl == NULL && w < 0 && errno == EINTR)
				continue;
			return -1;
		}
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Reads the status line and returns its code, or -1. */
static long
read_status(SSL *ssl, int fd)
{
	char	 line[64];
	size_t	 n = 0;
	ssize_t	 r;
	long	 code = 0;
	int	 i;

	while (n < sizeof(line) - 1 && memchr(line, '\n', n) == NULL) {
		r = ssl != NULL ? SSL_read(ssl, line + n, (int)(sizeof(line) - 1 - n)) :
		    read(fd, line + n, sizeof(line) - 1 - n);
		if (r <= 0) {
			if (ssl == NULL && r < 0 && errno == EINTR)
				continue;
			break;
		}
		n += (size_t)r;
	}
	line[n] = '\0';
	if (n < 12 || strncmp(line, "HTTP/1.", 7) != 0 || line[8] != ' ')
		return -1;
	for (i = 9; i < 12; i++) {
		if (line[i] < '0' || line[i] > '9')
			return -1;
		code = code * 10 + (line[i] - '0');
	}
	return code;
}

/*
 * POSTs p->body to p->url with p->headers ("Name: value" each): resolves the
 * host once, asks p->refuse about every address it has (NULL: allowed) and
 * connects to the first, so no second lookup can lead elsewhere; https with
 * the certificate checked for the host (p->ca, else the system's
 * authorities), http only when p->allow_http. No proxy, no redirect. Sets
 * *status to the HTTP status (or -1) and returns NULL, or why it failed.
 */
const char *
bl_webpost(const struct bl_webpost *p, long *status, char *why, size_t len)
{
	struct addrinfo	 hints, *res = NULL, *ai;
	struct url	 u;
	SSL_CTX		*ctx = NULL;
	SSL		*ssl = NULL;
	char		*req = NULL, *hdrs = NULL, *tmp;
	const char	*bad, *w;
	size_t		 i;
	int		 fd = -1, n;

	*status = -1;
	if ((bad = parse_url(p->url, p->allow_http, &u)) != NULL)
		goto out;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(u.host, u.port, &hints, &res) != 0 || res == NULL) {
		bad = "host name not found";
		goto out;
	}
	for (ai = res; ai != NULL; ai = ai->ai_next)
		if ((w = p->refuse(p->arg, ai->ai_addr)) != NULL) {
			snprintf(why, len, "address not allowed (%s)", w);
			bad = why;
			goto out;
		}
	if ((fd = connect_to(res, p->timeout_s, why, len)) < 0) {
		bad = why;
		goto out;
	}
	if (u.https && (ssl = tls_open(&ctx, fd, &u, p->ca, why, len)) == NULL) {
		bad = why;
		goto out;
	}
	if ((hdrs = strdup("")) == NULL)
		goto oom;
	for (i = 0; i < p->nheaders; i++) {
		if (asprintf(&tmp, "%s%s\r\n", hdrs, p->headers[i]) < 0)
			goto oom;
		free(hdrs);
		hdrs = tmp;
	}
	if ((n = asprintf(&req, "POST %s HTTP/1.1\r\nHost: %s\r\n%sContent-Length: %zu\r\n"
	    "Connection: close\r\n\r\n%s", u.path, u.authority, hdrs, strlen(p->body),
	    p->body)) < 0) {
		req = NULL;
		goto oom;
	}
	if (send_all(ssl, fd, req, (size_t)n) != 0) {
		snprintf(why, len, "cannot send the request: %s", ssl != NULL ? "TLS write failed" :
		    strerror(errno));
		bad = why;
		goto out;
	}
	if ((*status = read_status(ssl, fd)) < 0) {
		bad = "no HTTP answer";
		goto out;
	}
	goto out;
oom:
	bad = "out of memory";
out:
	if (ssl != NULL) {
		SSL_shutdown(ssl);
		SSL_free(ssl);
	}
	SSL_CTX_free(ctx);
	if (fd >= 0)
		close(fd);
	if (res != NULL)
		freeaddrinfo(res);
	free(u.path);
	free(hdrs);
	free(req);
	return bad;
}
