/* setup: /api/setup: the first operator's account, with the setup code (docs/ADMIN.md). */
#include "burnlink.h"

int
main(void)
{
	return bl_serve(&bl_route_setup);
}
