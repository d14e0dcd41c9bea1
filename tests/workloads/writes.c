/*
 * writes K [MS]: make exactly K write(2) system calls to /dev/null, through
 * syscall(2) so that no stdio buffering adds or merges calls. With MS, the
 * writes are spread evenly over about MS milliseconds (for interval tests).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long k = argc > 1 ? atol(argv[1]) : 100;
	long ms = argc > 2 ? atol(argv[2]) : 0;
	struct timespec gap = { 0, 0 };
	long fd, i;

	fd = syscall(SYS_openat, AT_FDCWD, "/dev/null", O_WRONLY);
	if (fd < 0)
		return 1;
	if (ms > 0 && k > 0) {
		long ns = ms * 1000000L / k;

		gap.tv_sec = ns / 1000000000L;
		gap.tv_nsec = ns % 1000000000L;
	}
	for (i = 0; i < k; i++) {
		if (syscall(SYS_write, fd, "x", 1) != 1)
			return 1;
		if (ms > 0)
			syscall(SYS_nanosleep, &gap, NULL);
	}
	return 0;
}
