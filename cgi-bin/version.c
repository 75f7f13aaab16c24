/* version: GET /api/version: the build's and the schema's version. */
#include "burnlink.h"

int
main(void)
{
	return bl_serve(&bl_route_version);
}
