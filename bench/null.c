/* null.c: the CGI floor: a static program that prints a fixed JSON response. */
#include <unistd.h>

#include "null.h"

int
main(void)
{
	const char	*p = resp;
	size_t		 len = sizeof(resp) - 1;
	ssize_t		 n;

	while (len > 0) {
		if ((n = write(STDOUT_FILENO, p, len)) <= 0)
			return 1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}
