/* keys: /api/keys[/<id>]: the signed-in account's API keys. */
#include "burnlink.h"

int
main(void)
{
	return bl_serve(&bl_route_keys);
}
