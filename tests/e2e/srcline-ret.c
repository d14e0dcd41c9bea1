/* SPDX-License-Identifier: MIT */
/*
 * The workload of t-srcline-inline.sh's return-address check: a hot
 * leaf function called from an always_inline one (wrap), whose call is its
 * last statement; the return address is in the caller's own next
 * statement, so only the address minus 1 is inside wrap's inlined code.
 * Built with -DKEEP_FP, the chain has outer's entry; without, -g's leaf
 * repair (fpleaf.c) puts it back.
 */
#include <stdlib.h>
__attribute__((noinline)) unsigned long hot(unsigned long x)
{
	unsigned long s = 0;
	for (int i = 0; i < 20000; i++)
		s += (x * i) ^ (s >> 3);
	__asm__ volatile("" : "+r"(s));
#ifdef KEEP_FP
	/* makes gcc set up rbp in this leaf: the kernel's chain then has outer */
	__asm__ volatile("" : : "r"(__builtin_frame_address(0)));
#endif
	return s;
}
static inline __attribute__((always_inline)) unsigned long wrap(unsigned long x)
{
	return hot(x * 7);
}
__attribute__((noinline)) unsigned long outer(unsigned long n)
{
	unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++) {
		s += wrap(i);
		s ^= s << 7;
	}
	return s;
}
int main(int argc, char **argv)
{
	return (int)(outer(argc > 1 ? strtoul(argv[1], 0, 10) : 20000) & 1);
}
