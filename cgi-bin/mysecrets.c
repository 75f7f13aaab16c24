/* mysecrets: /api/my/secrets[/<id>]: the signed-in account's secrets (receipts only). */
#include "burnlink.h"

int
main(void)
{
	return bl_serve(&bl_route_mysecrets);
}
