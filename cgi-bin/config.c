/* config: GET /api/config: the limits, choices, features and branding in force. */
#include "burnlink.h"

int
main(void)
{
	return bl_serve(&bl_route_config);
}
