/*
 * kernel-time [MS]: spend about MS milliseconds (default 300) of wall-clock
 * time, most of it in the kernel, in rounds of three kinds of system work,
 * each from its own function:
 *
 *   main -> do_writes   64 write(2)s of one byte to /dev/null
 *   main -> do_reads    8 read(2)s of 64 KiB from /dev/zero (clear_user)
 *   main -> do_faults   map 16 fresh pages, write each (page faults), unmap
 *
 * so a profile has many [k] symbols (syscall entry, vfs, the fault path)
 * besides a few user ones.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static char buf[65536];

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) int do_writes(int fd)
{
	int i;

	for (i = 0; i < 64; i++)
		if (write(fd, "x", 1) != 1)
			return -1;
	return 0;
}

__attribute__((noinline)) int do_reads(int fd)
{
	int i;

	for (i = 0; i < 8; i++)
		if (read(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			return -1;
	return 0;
}

__attribute__((noinline)) int do_faults(long pg)
{
	volatile char *p;
	int i;

	p = mmap(NULL, 16 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	for (i = 0; i < 16; i++)
		p[i * pg] = 1;
	return munmap((void *)p, 16 * pg);
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 300;
	double end = now_ms() + ms;
	long pg = sysconf(_SC_PAGESIZE);
	int wfd, rfd;

	wfd = open("/dev/null", O_WRONLY);
	rfd = open("/dev/zero", O_RDONLY);
	if (wfd < 0 || rfd < 0)
		return 1;
	do {
		if (do_writes(wfd) || do_reads(rfd) || do_faults(pg))
			return 1;
	} while (now_ms() < end);
	return 0;
}
