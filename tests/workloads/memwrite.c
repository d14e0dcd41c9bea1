/*
 * memwrite M: store to the global 'pcl_target' exactly M times. The tests
 * build it with -no-pie, read the address of pcl_target with nm, and count
 * the stores with a mem:ADDR:w hardware breakpoint.
 */
#include <stdlib.h>

/* Initialised, so it lives in .data: nothing zero-fills it at exec time. */
volatile long pcl_target = 1;

static void store(long v)
{
	pcl_target = v;
}

int main(int argc, char **argv)
{
	long m = argc > 1 ? atol(argv[1]) : 100;
	long i;

	for (i = 0; i < m; i++)
		store(i);
	return 0;
}
