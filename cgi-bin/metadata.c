/* metadata: GET /api/secrets/<key>: what a key may know, without using a view. */
#include "burnlink.h"

int
main(void)
{
	return bl_serve(&bl_route_metadata);
}
