/*
 * fcgi_listen.c: starts a program as a FastCGI responder on a Unix socket, as
 * a web server does (the listening socket as its standard input), once the
 * caller says so: for tests that queue requests before the responder runs,
 * so that it answers them as one batch (tests/faults/batch.test.mjs).
 *
 *   fcgi_listen SOCKET PROGRAM
 *
 * Binds and listens on SOCKET, writes "listening\n" to standard output, waits
 * for a line (or end of file) on standard input, then runs PROGRAM with the
 * socket as its standard input.
 */
#include <sys/socket.h>
#include <sys/un.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int
main(int argc, char *argv[])
{
	struct sockaddr_un	 sa;
	char			 c;
	int			 s;

	if (argc != 3 || strlen(argv[1]) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "usage: fcgi_listen SOCKET PROGRAM\n");
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, argv[1], strlen(argv[1]));
	if ((s = socket(AF_UNIX, SOCK_STREAM, 0)) < 0 ||
	    bind(s, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(s, 64) != 0) {
		perror("fcgi_listen");
		return 1;
	}
	printf("listening\n");
	fflush(stdout);
	while (read(STDIN_FILENO, &c, 1) == 1 && c != '\n')
		;
	if (dup2(s, STDIN_FILENO) < 0) {
		perror("fcgi_listen: dup2");
		return 1;
	}
	close(s);
	execl(argv[2], argv[2], (char *)NULL);
	perror("fcgi_listen: exec");
	return 1;
}
