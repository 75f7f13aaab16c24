/* myevents: GET /api/my/events: the account's audit events (docs/API.md, "Activity"). */
#include "burnlink.h"

int
main(void)
{
	return bl_serve(&bl_route_myevents);
}
