/* admin_overview: /api/admin/overview, the operator's API (docs/API.md). */
#include "burnlink.h"

int
main(void)
{
	return bl_serve(&bl_route_admin_overview);
}
