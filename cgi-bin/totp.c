/* totp: /api/totp: the second factor of password accounts (docs/ACCOUNTS.md). */
#include "burnlink.h"

int
main(void)
{
	return bl_serve(&bl_route_totp);
}
