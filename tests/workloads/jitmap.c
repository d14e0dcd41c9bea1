/*
 * jitmap [N]: a JIT in miniature. Copies a loop of N (default 3e8) steps into
 * an anonymous executable map, prints "PID ADDR" (hex) on stdout, runs it
 * and exits, so that a test can write /tmp/perf-PID.map for ADDR and check
 * how its samples are named. x86-64 machine code: other machines print
 * nothing and exit 77.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
#if defined(__x86_64__)
	/* mov rcx, N; 1: dec rcx; jnz 1b; ret */
	unsigned char code[] = { 0x48, 0xb9, 0,	   0,	 0,    0,    0,	   0,
				 0,    0,    0x48, 0xff, 0xc9, 0x75, 0xfb, 0xc3 };
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 300000000ull;
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	if (p == MAP_FAILED || !n)
		return 1;
	memcpy(code + 2, &n, sizeof(n));
	memcpy(p, code, sizeof(code));
	printf("%d %lx\n", (int)getpid(), (unsigned long)(uintptr_t)p);
	fflush(stdout);
	((void (*)(void))p)();
	return 0;
#else
	(void)argc;
	(void)argv;
	return 77;
#endif
}
