/*
 * bigleaf [N]: call big_leaf N times (default 300, about a millisecond
 * each) from caller, from main:
 *
 *   main -> caller -> big_leaf
 *
 * big_leaf sets up no frame (omit-frame-pointer for it alone, whatever the
 * build says) and keeps 400 bytes of locals, so its return address lies
 * about 400 bytes above the SP: more than pcl record -g's 64-byte stack
 * copy holds, for the leaf repair's "copy too small" path (t-fpleaf.sh).
 */
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline, optimize("omit-frame-pointer"))) void big_leaf(void)
{
	volatile char buf[400];

	for (int r = 0; r < 2000; r++)
		for (int i = 0; i < 400; i++)
			buf[i] = (char)(i + r);
	sink += buf[7];
}

__attribute__((noinline)) void caller(void)
{
	big_leaf();
	sink++;
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 300;

	while (calls-- > 0)
		caller();
	return 0;
}
