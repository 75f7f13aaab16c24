/* health: GET /api/health: whether the database, counters, settings and cleanup are well. */
#include "burnlink.h"

int
main(void)
{
	return bl_serve(&bl_route_health);
}
