/* null.c: the CGI floor: a static program that prints a fixed JSON response. */
#include <unistd.h>

static const char resp[] =
    "Status: 200 OK\r\n"
    "Content-Type: application/json; charset=utf-8\r\n"
    "Content-Length: 16\r\n"
    "Cache-Control: no-store\r\n"
    "\r\n"
    "{\"success\":true}";

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
