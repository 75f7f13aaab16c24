/* delete: DELETE /api/secrets/<key>: burn the secret. */
#include "burnlink.h"

int
main(void)
{
	return bl_serve(bl_op_burn);
}
