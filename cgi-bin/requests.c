/* requests: /api/requests[/<key>]: secret requests (docs/API.md, "Secret requests"). */
#include "burnlink.h"

int
main(void)
{
	return bl_serve(&bl_route_requests);
}
