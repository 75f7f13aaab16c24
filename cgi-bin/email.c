/* email: /api/email: the mail accounts need (docs/NOTIFY.md). */
#include "burnlink.h"

int
main(void)
{
	return bl_serve(&bl_route_email);
}
