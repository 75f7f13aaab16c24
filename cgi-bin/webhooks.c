/* webhooks: /api/webhooks[/<id>]: the signed-in account's webhooks (docs/NOTIFY.md). */
#include "burnlink.h"

int
main(void)
{
	return bl_serve(&bl_route_webhooks);
}
