/* token: /api/token: the mail accounts need (docs/NOTIFY.md). */
#include "burnlink.h"

int
main(void)
{
	return bl_serve(&bl_route_token);
}
