/* signup: /api/signup: create an account (when sign-up is open). */
#include "burnlink.h"

int
main(void)
{
	return bl_serve(&bl_route_signup);
}
