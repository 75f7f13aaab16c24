/*
 * null-fcgi.c: the FastCGI floor: a responder that answers every request with
 * the same fixed JSON response as null.c, reading nothing. What lighttpd, wrk
 * and libfcgi leave of the machine for a request (bench/run.sh, case floor-fcgi).
 */
#include <fcgiapp.h>

#include "null.h"

int
main(void)
{
	FCGX_Request	 q;

	if (FCGX_Init() != 0 || FCGX_InitRequest(&q, 0, 0) != 0)
		return 1;
	while (FCGX_Accept_r(&q) >= 0) {
		if (FCGX_PutStr(resp, (int)sizeof(resp) - 1, q.out) != (int)sizeof(resp) - 1)
			continue;
		FCGX_Finish_r(&q);
	}
	return 0;
}
