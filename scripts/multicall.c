/*
 * multicall.c: every program of the `make dist` tarball in one binary,
 * bin/burnlink-programs (scripts/dist.sh). Each program's file in cgi-bin/
 * and bin/ is a stub (scripts/stub.c) that executes this binary with its own
 * name as argv[0]; that name picks the program: a route of the route table
 * (lib/route.c: the CGI programs), cleanup, notify or burnlink-admin, whose
 * main()s are compiled under other names (scripts/multicall.h). One copy of
 * OpenSSL, SQLite and json-c instead of one per program.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "multicall.h"

int
main(int argc, char *argv[])
{
	const char	*name = argc > 0 && argv[0] != NULL ? argv[0] : "";
	const char	*slash = strrchr(name, '/');
	int		 i;

	if (slash != NULL)
		name = slash + 1;
	for (i = 0; bl_routes[i] != NULL; i++)
		if (strcmp(bl_routes[i]->name, name) == 0)
			return bl_serve(bl_routes[i]);
	if (strcmp(name, "cleanup") == 0)
		return bl_main_cleanup(argc, argv);
	if (strcmp(name, "notify") == 0)
		return bl_main_notify(argc, argv);
	if (strcmp(name, "burnlink-admin") == 0)
		return bl_main_burnlink_admin(argc, argv);
	fprintf(stderr, "burnlink-programs: run as one of its programs (cgi-bin/create, "
	    "bin/cleanup, ...), not as \"%s\"\n", name);
	return 2;
}
