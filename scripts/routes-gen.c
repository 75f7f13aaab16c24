/*
 * routes-gen.c: the web servers' routing and the tests' map of routes, from
 * the route table (lib/route.c, bl_routes[]). Usage:
 *   routes-gen OUTDIR PROGRAM...
 * PROGRAM... are the programs of cgi-bin/ (the Makefile names them); each
 * must have a route and each route a program. Writes into OUTDIR one file per
 * placeholder of the conf/ templates that scripts/genconf.sh fills in:
 *   ROUTES_LIGHTTPD_GET, _POST, _DELETE, _OTHER  lighttpd's url.rewrite-once
 *                        lines for GET and HEAD, POST, DELETE, other methods
 *   ROUTES_APACHE        the virtual host's RewriteRules (conf/apache-vhost.conf.in)
 *   ROUTES_HTACCESS      the document root's .htaccess RewriteRules
 *   ROUTES_NGINX         nginx's API locations
 *   ROUTES_LIGHTTPD_ENV  lighttpd's setenv.add-environment line of the digest
 * and routes.json, the map tests/lib/openapi.mjs reads (cgiRoute()), and
 * ROUTES_DIGEST, the routes' digest alone (the Makefile compiles it into
 * the programs, $(BUILD)/digest.c).
 *
 * The digest (16 hex digits, FNV-1a 64 over each route's name, URL, path
 * kind, methods and fallback flag: what the routing depends on) travels with
 * every generated configuration as BURNLINK_ROUTES (Apache's and the
 * .htaccess's first RewriteRule sets it, nginx's locations pass it, lighttpd
 * adds it to the environment). A program compares it with its own: a
 * configuration generated for other routes (an upgrade whose new
 * configuration was not installed) is reported by GET /api/health and
 * burnlink-admin check (docs/API.md, BURNLINK_ROUTES).
 *
 * A route's URL takes what its path says (lib/internal.h, enum bl_path):
 *   BL_PATH_NONE      URL exactly
 *   BL_PATH_KEY       URL/<key>; any other path under URL/ with the key "-"
 *   BL_PATH_ITEM      URL and URL/<id>
 *   BL_PATH_KEY_ITEM  URL and URL/<key>; any other path under URL/ with "-"
 * Routes of BL_PATH_KEY may share a URL (metadata, retrieve, delete): each
 * takes the methods of its actions, and the first of them the other methods.
 * One route is BL_ROUTE_FALLBACK: every other path under /api/ reaches its
 * program with the path "/-" (its JSON 404).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define KEYRE	"[A-Za-z0-9_-]{1,255}"	/* a key or an id, as the servers match it */

static const char *const method_name[] = {
	[BL_M_GET] = "GET", [BL_M_HEAD] = "HEAD", [BL_M_POST] = "POST", [BL_M_DELETE] = "DELETE",
};
#define ALL_METHODS	(BL_MASK(BL_M_GET) | BL_MASK(BL_M_HEAD) | BL_MASK(BL_M_POST) | \
			    BL_MASK(BL_M_DELETE))

/* lighttpd's blocks, one per class of methods; 0 is every other method. */
static const struct {
	const char	*name;
	unsigned	 methods;
} klass[] = {
	{ "GET", BL_MASK(BL_M_GET) | BL_MASK(BL_M_HEAD) },
	{ "POST", BL_MASK(BL_M_POST) },
	{ "DELETE", BL_MASK(BL_M_DELETE) },
	{ "OTHER", 0 },
};
#define NKLASS	(sizeof(klass) / sizeof(klass[0]))

static const char	*outdir;
static int		 nroutes;
static char		 digest_hex[17];	/* the routes' digest */

/* FNV-1a 64 of len bytes of p, continuing from h. */
static unsigned long long
fnv(unsigned long long h, const void *p, size_t len)
{
	const unsigned char	*b = p;
	size_t			 i;

	for (i = 0; i < len; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static void
die(const char *fmt, ...)
{
	va_list	 ap;

	fputs("routes-gen: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* The methods a route's actions answer. */
static unsigned
methods_of(const struct bl_route *rt)
{
	unsigned	 m = 0;
	size_t		 i;

	for (i = 0; i < BL_ACTIONS_MAX && rt->actions[i].handler != NULL; i++)
		m |= rt->actions[i].methods;
	return m;
}

/* Whether the route takes the path under its URL ("/<key>" or "/<id>"). */
static int
takes_item(const struct bl_route *rt)
{
	return rt->path != BL_PATH_NONE;
}

/* The first route of the table with rt's URL and path kind: it takes the other methods. */
static const struct bl_route *
first_of(const struct bl_route *rt)
{
	int	 i;

	for (i = 0; bl_routes[i] != NULL; i++)
		if (strcmp(bl_routes[i]->url, rt->url) == 0 && bl_routes[i]->path == rt->path)
			return bl_routes[i];
	return rt;
}

/* Whether rt shares its URL and path with another route (a method decides). */
static int
shared(const struct bl_route *rt)
{
	int	 i, n = 0;

	for (i = 0; bl_routes[i] != NULL; i++)
		if (strcmp(bl_routes[i]->url, rt->url) == 0 && bl_routes[i]->path == rt->path)
			n++;
	return n > 1;
}

/* The methods rt takes on its URL: its own, and the rest when it is the first of its URL. */
static unsigned
takes(const struct bl_route *rt)
{
	unsigned	 m = 0;
	int		 i;

	if (!shared(rt))
		return ALL_METHODS;
	if (first_of(rt) != rt)
		return methods_of(rt);
	for (i = 0; bl_routes[i] != NULL; i++)
		if (bl_routes[i] != rt && strcmp(bl_routes[i]->url, rt->url) == 0 &&
		    bl_routes[i]->path == rt->path)
			m |= methods_of(bl_routes[i]);
	return ALL_METHODS & ~m;
}

/* The route answering class k on rt's URL and path (for lighttpd). */
static const struct bl_route *
route_for(const struct bl_route *rt, size_t k)
{
	int	 i;

	if (!shared(rt) || klass[k].methods == 0)
		return first_of(rt);
	for (i = 0; bl_routes[i] != NULL; i++) {
		const struct bl_route	*o = bl_routes[i];

		if (strcmp(o->url, rt->url) != 0 || o->path != rt->path || first_of(o) == o)
			continue;
		if ((methods_of(o) & klass[k].methods) == klass[k].methods)
			return o;
	}
	return first_of(rt);
}

/* Checks the table: URLs, names, sharing, one fallback; and that programs and routes match. */
static void
check(int nprog, char **prog)
{
	int	 i, j, fallback = 0;

	for (i = 0; bl_routes[i] != NULL; i++) {
		const struct bl_route	*rt = bl_routes[i];
		const char		*p;
		unsigned		 m = methods_of(rt);
		size_t			 k;

		if (rt->name == NULL || rt->url == NULL)
			die("route %d (%s) has no .name or no .url (lib/route.c)", i,
			    rt->name ? rt->name : "?");
		if (strncmp(rt->url, "/api/", 5) != 0 || rt->url[5] == '\0')
			die("route %s: .url must be a path under /api/: %s", rt->name, rt->url);
		for (p = rt->url + 1; *p != '\0'; p++)
			if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
			    (*p == '/' && p[1] != '/' && p[1] != '\0') || *p == '-'))
				die("route %s: .url may hold a-z, 0-9, - and single inner /: %s",
				    rt->name, rt->url);
		for (p = rt->name; *p != '\0'; p++)
			if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
				die("route %s: .name must be a program name (a-z, 0-9, _)", rt->name);
		for (j = 0; j < i; j++) {
			const struct bl_route	*o = bl_routes[j];

			if (strcmp(o->name, rt->name) == 0)
				die("two routes are named %s", rt->name);
			if (strcmp(o->url, rt->url) != 0)
				continue;
			/* A URL's collection and its items: one route each, or KEY routes by method. */
			if ((o->path == BL_PATH_NONE && rt->path == BL_PATH_KEY) ||
			    (o->path == BL_PATH_KEY && rt->path == BL_PATH_NONE))
				continue;
			if (o->path == BL_PATH_KEY && rt->path == BL_PATH_KEY) {
				if (methods_of(o) & m)
					die("routes %s and %s share %s and a method", o->name, rt->name,
					    rt->url);
				continue;
			}
			die("routes %s and %s share %s: only BL_PATH_KEY routes may share a URL "
			    "(each with its own methods), beside one BL_PATH_NONE route", o->name,
			    rt->name, rt->url);
		}
		/* lighttpd routes in blocks of methods: a route takes whole blocks. */
		if (shared(rt))
			for (k = 0; k < NKLASS; k++)
				if ((m & klass[k].methods) != 0 &&
				    (m & klass[k].methods) != klass[k].methods)
					die("route %s takes part of lighttpd's %s block (conf/lighttpd.conf.in)",
					    rt->name, klass[k].name);
		if (rt->flags & BL_ROUTE_FALLBACK)
			fallback++;
	}
	nroutes = i;
	if (fallback != 1)
		die("%d routes are BL_ROUTE_FALLBACK: one program must answer the other paths under /api/",
		    fallback);
	for (j = 0; j < nprog; j++) {
		for (i = 0; bl_routes[i] != NULL; i++)
			if (strcmp(bl_routes[i]->name, prog[j]) == 0)
				break;
		if (bl_routes[i] == NULL)
			die("cgi-bin/%s.c has no route in bl_routes[] (lib/route.c)", prog[j]);
	}
	for (i = 0; bl_routes[i] != NULL; i++) {
		for (j = 0; j < nprog; j++)
			if (strcmp(bl_routes[i]->name, prog[j]) == 0)
				break;
		if (j == nprog)
			die("route %s has no program cgi-bin/%s.c", bl_routes[i]->name,
			    bl_routes[i]->name);
	}
}

static const struct bl_route *
fallback_route(void)
{
	int	 i;

	for (i = 0; !(bl_routes[i]->flags & BL_ROUTE_FALLBACK); i++)
		continue;
	return bl_routes[i];
}

/* "=POST" or "^(GET|HEAD)$": an Apache RewriteCond pattern; nginx's with "= " / "~ ". */
static void
method_pattern(FILE *f, unsigned m, const char *one, const char *many_open, const char *many_close)
{
	int	 i, n = 0, first = 1;

	for (i = BL_M_GET; i <= BL_M_DELETE; i++)
		n += (m & BL_MASK(i)) != 0;
	fputs(n == 1 ? one : many_open, f);
	for (i = BL_M_GET; i <= BL_M_DELETE; i++)
		if (m & BL_MASK(i)) {
			fprintf(f, "%s%s", first ? "" : "|", method_name[i]);
			first = 0;
		}
	fputs(n == 1 ? "" : many_close, f);
}

static FILE *
out(const char *name)
{
	char	 path[4096];
	FILE	*f;

	snprintf(path, sizeof(path), "%s/%s", outdir, name);
	if ((f = fopen(path, "w")) == NULL)
		die("%s: %s", path, strerror(errno));
	return f;
}

static void
done(FILE *f, const char *name)
{
	if (fflush(f) != 0 || ferror(f) || fclose(f) != 0)
		die("%s/%s: cannot write", outdir, name);
}

/* The routes' digest, into digest_hex: what the routing depends on, route by route. */
static void
digest(void)
{
	unsigned long long	 h = 0xcbf29ce484222325ULL;
	char			 line[512];
	int			 i, n;

	for (i = 0; bl_routes[i] != NULL; i++) {
		const struct bl_route	*rt = bl_routes[i];

		n = snprintf(line, sizeof(line), "%s %s %d %u %d\n", rt->name, rt->url,
		    (int)rt->path, methods_of(rt), (rt->flags & BL_ROUTE_FALLBACK) != 0);
		if (n < 0 || (size_t)n >= sizeof(line))
			die("route %s: too long", rt->name);
		h = fnv(h, line, (size_t)n);
	}
	snprintf(digest_hex, sizeof(digest_hex), "%016llx", h);
}

/* The digest's own files: ROUTES_DIGEST and lighttpd's environment line. */
static void
digest_files(void)
{
	FILE	*f = out("ROUTES_DIGEST");

	fprintf(f, "%s\n", digest_hex);
	done(f, "ROUTES_DIGEST");
	f = out("ROUTES_LIGHTTPD_ENV");
	fprintf(f, "\"BURNLINK_ROUTES\" => \"%s\",\n", digest_hex);
	done(f, "ROUTES_LIGHTTPD_ENV");
}

/* lighttpd: the url.rewrite-once lines of one block of methods. */
static void
lighttpd(size_t k)
{
	char	 name[64];
	FILE	*f;
	int	 i;

	snprintf(name, sizeof(name), "ROUTES_LIGHTTPD_%s", klass[k].name);
	f = out(name);
	for (i = 0; bl_routes[i] != NULL; i++) {
		const struct bl_route	*rt = bl_routes[i], *to;

		/* lighttpd drops the query string of a rewritten URL: kept where the route reads one */
		if (rt->path != BL_PATH_KEY)
			fprintf(f, "\"^%s(\\?.*)?$\" => \"/cgi-bin/%s%s\",\n", rt->url, rt->name,
			    rt->flags & BL_ROUTE_QUERY ? "$1" : "");
		if (!takes_item(rt) || (shared(rt) && first_of(rt) != rt))
			continue;
		to = route_for(rt, k);
		fprintf(f, "\"^%s/(" KEYRE ")(\\?.*)?$\" => \"/cgi-bin/%s/$1%s\",\n", rt->url, to->name,
		    rt->flags & BL_ROUTE_QUERY ? "$2" : "");
		if (rt->path != BL_PATH_ITEM)
			fprintf(f, "\"^%s/\" => \"/cgi-bin/%s/-\",\n", rt->url, to->name);
	}
	fprintf(f, "\"^/api(/|\\?|$)\" => \"/cgi-bin/%s/-\",\n", fallback_route()->name);
	done(f, name);
}

/*
 * Apache's RewriteRules: the virtual host's (prefix "/", programs in
 * @CGIBIN@) or the document root's .htaccess (prefix "", /cgi-bin/).
 */
static void
apache(const char *name, const char *prefix, const char *cgibin)
{
	FILE	*f = out(name);
	int	 i, j;

	/* Every request: which routes this configuration was made for (not last). */
	fprintf(f, "RewriteRule \"^\" \"-\" [E=BURNLINK_ROUTES:%s]\n", digest_hex);
	for (i = 0; bl_routes[i] != NULL; i++) {
		const struct bl_route	*rt = bl_routes[i];
		const char		*u = rt->url + 1;

		switch (rt->path) {
		case BL_PATH_NONE:
			fprintf(f, "RewriteRule \"^%s%s$\" \"%s/%s\" [L]\n", prefix, u, cgibin, rt->name);
			break;
		case BL_PATH_KEY:
			if (shared(rt) && first_of(rt) != rt)
				break;
			/* each route of the URL for its methods, then the first for the rest */
			for (j = i; shared(rt) && bl_routes[j] != NULL; j++) {
				const struct bl_route	*o = bl_routes[j];

				if (strcmp(o->url, rt->url) != 0 || o->path != BL_PATH_KEY)
					continue;
				fputs("RewriteCond \"%{REQUEST_METHOD}\" \"", f);
				method_pattern(f, methods_of(o), "=", "^(", ")$");
				fprintf(f, "\"\nRewriteRule \"^%s%s/(" KEYRE ")$\" \"%s/%s/$1\" [L]\n",
				    prefix, u, cgibin, o->name);
				fputs("RewriteCond \"%{REQUEST_METHOD}\" \"", f);
				method_pattern(f, methods_of(o), "=", "^(", ")$");
				fprintf(f, "\"\nRewriteRule \"^%s%s/\" \"%s/%s/-\" [L]\n", prefix, u,
				    cgibin, o->name);
			}
			fprintf(f, "RewriteRule \"^%s%s/(" KEYRE ")$\" \"%s/%s/$1\" [L]\n", prefix, u,
			    cgibin, rt->name);
			fprintf(f, "RewriteRule \"^%s%s/\" \"%s/%s/-\" [L]\n", prefix, u, cgibin,
			    rt->name);
			break;
		case BL_PATH_ITEM:
		case BL_PATH_KEY_ITEM:
			fprintf(f, "RewriteRule \"^%s%s(/" KEYRE ")?$\" \"%s/%s$1\" [L]\n", prefix, u,
			    cgibin, rt->name);
			if (rt->path == BL_PATH_KEY_ITEM)
				fprintf(f, "RewriteRule \"^%s%s/\" \"%s/%s/-\" [L]\n", prefix, u,
				    cgibin, rt->name);
			break;
		}
	}
	/* The .htaccess's /api is the folder of openapi.yaml: Apache redirects it to /api/ first. */
	if (prefix[0] == '\0')
		fputs("RewriteRule \"^api$\" - [R=404,L]\n", f);
	fprintf(f, "RewriteRule \"^%sapi(/|$)\" \"%s/%s/-\" [L]\n", prefix, cgibin,
	    fallback_route()->name);
	done(f, name);
}

/* One nginx location's body: the program ($bl_prog or a name) and its PATH_INFO. */
static void
nginx_pass(FILE *f, const char *prog, const char *pathinfo)
{
	fprintf(f, "\tinclude @NGINX_PARAMS@;\n"
	    "\tfastcgi_param SCRIPT_FILENAME @CGIBIN@/%s;\n"
	    "\tfastcgi_param PATH_INFO %s;\n"
	    "\tfastcgi_param BURNLINK_ROUTES %s;\n"
	    "\tfastcgi_pass unix:@FCGIWRAP_SOCKET@;\n", prog, pathinfo, digest_hex);
}

/* $bl_prog by method, for routes that share a URL. */
static void
nginx_choose(FILE *f, const struct bl_route *rt)
{
	int	 j;

	fprintf(f, "\tset $bl_prog %s;\n", rt->name);
	for (j = 0; bl_routes[j] != NULL; j++) {
		const struct bl_route	*o = bl_routes[j];

		if (o == rt || strcmp(o->url, rt->url) != 0 || o->path != rt->path)
			continue;
		fputs("\tif ($request_method ", f);
		method_pattern(f, methods_of(o), "= ", "~ \"^(", ")$\"");
		fprintf(f, ") {\n\t\tset $bl_prog %s;\n\t}\n", o->name);
	}
}

static void
nginx(void)
{
	FILE	*f = out("ROUTES_NGINX");
	int	 i;

	for (i = 0; bl_routes[i] != NULL; i++) {
		const struct bl_route	*rt = bl_routes[i];

		switch (rt->path) {
		case BL_PATH_NONE:
			fprintf(f, "location = %s {\n", rt->url);
			nginx_pass(f, rt->name, "\"\"");
			fputs("}\n", f);
			break;
		case BL_PATH_KEY:
			if (shared(rt) && first_of(rt) != rt)
				break;
			fprintf(f, "location ~ \"^%s/(?<bl_key>" KEYRE ")$\" {\n", rt->url);
			nginx_choose(f, rt);
			nginx_pass(f, "$bl_prog", "/$bl_key");
			fprintf(f, "}\nlocation ~ \"^%s/\" {\n", rt->url);
			nginx_choose(f, rt);
			nginx_pass(f, "$bl_prog", "/-");
			fputs("}\n", f);
			break;
		case BL_PATH_ITEM:
		case BL_PATH_KEY_ITEM:
			fprintf(f, "location ~ \"^%s(?<bl_id>/" KEYRE ")?$\" {\n", rt->url);
			nginx_pass(f, rt->name, "$bl_id");
			fputs("}\n", f);
			if (rt->path == BL_PATH_KEY_ITEM) {
				fprintf(f, "location ~ \"^%s/\" {\n", rt->url);
				nginx_pass(f, rt->name, "/-");
				fputs("}\n", f);
			}
			break;
		}
	}
	fputs("location /api/ {\n", f);
	nginx_pass(f, fallback_route()->name, "/-");
	fputs("}\nlocation = /api {\n", f);
	nginx_pass(f, fallback_route()->name, "/-");
	fputs("}\n", f);
	done(f, "ROUTES_NGINX");
}

/* The tests' map (tests/lib/openapi.mjs): each program's URL, path and methods. */
static void
json(void)
{
	static const char *const path_name[] = {
		[BL_PATH_NONE] = "none", [BL_PATH_KEY] = "key", [BL_PATH_ITEM] = "item",
		[BL_PATH_KEY_ITEM] = "key_item",
	};
	FILE	*f = out("routes.json");
	int	 i, m;

	fputs("{\n\t\"routes\": [\n", f);
	for (i = 0; bl_routes[i] != NULL; i++) {
		const struct bl_route	*rt = bl_routes[i];
		const char		*sep = "";

		fprintf(f, "\t\t{ \"name\": \"%s\", \"url\": \"%s\", \"path\": \"%s\", \"takes\": [",
		    rt->name, rt->url, path_name[rt->path]);
		for (m = BL_M_GET; m <= BL_M_DELETE; m++)
			if (takes(rt) & BL_MASK(m)) {
				fprintf(f, "%s\"%s\"", sep, method_name[m]);
				sep = ", ";
			}
		/*
		 * hidden: a route that answers the 404 of no endpoint to whom it
		 * does not serve (metrics); counted: counted before its method is
		 * matched, so a 405 carries X-RateLimit-* (tests/lib/openapi.mjs)
		 */
		fprintf(f, "], \"otherMethods\": %s, \"fallback\": %s, \"hidden\": %s, "
		    "\"counted\": %s, \"allow\": \"%s\", \"allowItem\": \"%s\" }%s\n",
		    first_of(rt) == rt ? "true" : "false",
		    (rt->flags & BL_ROUTE_FALLBACK) ? "true" : "false",
		    rt->visible != NULL ? "true" : "false",
		    (rt->flags & BL_ROUTE_NOT_PRECOUNTED) ? "false" : "true", rt->allow,
		    rt->allow_item != NULL ? rt->allow_item : "", i + 1 < nroutes ? "," : "");
	}
	fputs("\t]\n}\n", f);
	done(f, "routes.json");
}

int
main(int argc, char *argv[])
{
	size_t	 k;

	if (argc < 2)
		die("usage: routes-gen OUTDIR PROGRAM...");
	outdir = argv[1];
	check(argc - 2, argv + 2);
	digest();
	digest_files();
	for (k = 0; k < NKLASS; k++)
		lighttpd(k);
	apache("ROUTES_APACHE", "/", "@CGIBIN@");
	apache("ROUTES_HTACCESS", "", "/cgi-bin");
	nginx();
	json();
	return 0;
}
