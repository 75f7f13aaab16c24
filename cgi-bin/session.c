/* session: /api/session: who is signed in, sign-in and sign-out. */
#include "burnlink.h"

int
main(void)
{
	return bl_serve(&bl_route_session);
}
