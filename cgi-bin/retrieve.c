/* retrieve: POST /api/secrets/<secretKey>: one view of the secret. */
#include "burnlink.h"

int
main(void)
{
	return bl_serve(&bl_route_retrieve);
}
