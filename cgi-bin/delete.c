/* delete: DELETE /api/secrets/<key>: burn the secret. */
#include "burnlink.h"

int
main(void)
{
	return bl_serve(&bl_route_delete);
}
