/* password: /api/password: change the signed-in account's password. */
#include "burnlink.h"

int
main(void)
{
	return bl_serve(&bl_route_password);
}
