/* create: POST /api/secrets: store a new secret. */
#include "burnlink.h"

int
main(void)
{
	return bl_serve(&bl_route_create);
}
