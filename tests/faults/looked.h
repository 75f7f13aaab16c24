/*
 * looked.h: the write wrappers of the marker shims (failsync.c, holdsync.c).
 * write, pwrite and pwrite64 show what is written to the shim's own
 * look(buf, len), defined before this is included, and then call the real
 * function; write() passes over standard error, where the shims say what
 * they do.
 */
ssize_t
write(int fd, const void *buf, size_t len)
{
	static ssize_t	(*real)(int, const void *, size_t);

	if (real == NULL)
		real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	if (fd != STDERR_FILENO)
		look(buf, len);
	return real(fd, buf, len);
}

/* pwrite and pwrite64, whose offsets differ in type only. */
#define LOOKED_PWRITE(name, off_type)						\
ssize_t										\
name(int fd, const void *buf, size_t len, off_type off)				\
{										\
	static ssize_t	(*real)(int, const void *, size_t, off_type);		\
										\
	if (real == NULL)							\
		real = (ssize_t (*)(int, const void *, size_t, off_type))	\
		    dlsym(RTLD_NEXT, #name);					\
	look(buf, len);								\
	return real(fd, buf, len, off);						\
}

LOOKED_PWRITE(pwrite, off_t)
LOOKED_PWRITE(pwrite64, off64_t)
