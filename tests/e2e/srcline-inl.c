/* SPDX-License-Identifier: MIT */
/*
 * The workload of t-srcline.sh and t-srcline-inline.sh: a hot loop two
 * always_inline functions deep (leaf in mid in work), and libc's printf
 * code (lines from libc's debug file).
 */
#include <stdio.h>
#include <stdlib.h>
static inline __attribute__((always_inline)) unsigned long leaf(unsigned long x)
{
	unsigned long s = 0;
	for (int i = 0; i < 1000; i++)
		s += (x * i) ^ (s >> 3);
	return s;
}
static inline __attribute__((always_inline)) unsigned long mid(unsigned long x)
{
	return leaf(x) + leaf(x + 1);
}
__attribute__((noinline)) unsigned long work(unsigned long x)
{
	return mid(x) * 3;
}
int main(int argc, char **argv)
{
	unsigned long s = 0, n = argc > 1 ? strtoul(argv[1], 0, 10) : 200000;
	char buf[128];
	for (unsigned long i = 0; i < n; i++) {
		s += work(i);
		s += (unsigned long)snprintf(buf, sizeof(buf), "%lu %s %f", i, "libc", i * 0.5);
	}
	printf("%lu\n", s);
	return 0;
}
