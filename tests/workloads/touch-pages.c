/*
 * touch-pages N: map N fresh anonymous pages and write one byte to each, so
 * the run takes at least N page faults. Used by the stat e2e tests.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	long pg = sysconf(_SC_PAGESIZE);
	volatile char *p;
	long i;

	if (n <= 0)
		return 2;
	p = mmap(NULL, (size_t)n * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	/* No MAP_POPULATE, no THP: one write per page, one fault per page. */
	madvise((void *)p, (size_t)n * pg, MADV_NOHUGEPAGE);
	for (i = 0; i < n; i++)
		p[i * pg] = 1;
	return 0;
}
