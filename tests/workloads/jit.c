/*
 * jit [MS]: run machine code copied into an anonymous executable mapping,
 * as a JIT compiler does, for about MS milliseconds (default 500): code
 * that no symbol table covers, so profilers show its bare addresses.
 *
 *   main -> run_plain -> jit code        about half the samples; the code
 *                                        keeps no frame, so a frame-pointer
 *                                        chain goes on at main
 *   main -> run_noframe -> jit code      the other half, entered with the
 *                                        frame pointer cleared: its chains
 *                                        hold the jit address alone
 *
 * x86-64 only (the code is x86-64 machine code): elsewhere it exits 2.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

#if defined(__x86_64__)
/* mov ecx, 20000; 1: imul rax, rax, 3; add rax, 7; dec ecx; jnz 1b; ret */
static const unsigned char code[] = {
	0xb9, 0x20, 0x4e, 0x00, 0x00, 0x48, 0x6b, 0xc0, 0x03, 0x48,
	0x83, 0xc0, 0x07, 0xff, 0xc9, 0x75, 0xf4, 0xc3,
};

__attribute__((noinline)) void run_plain(void (*fn)(void))
{
	__asm__ volatile("call *%0" : : "r"(fn) : "rax", "rcx", "memory", "cc");
}

/* With the frame pointer cleared, a frame-pointer unwinder stops at the jit code. */
__attribute__((noinline)) void run_noframe(void (*fn)(void))
{
	__asm__ volatile("push %%rbp\n\txor %%ebp, %%ebp\n\tcall *%0\n\tpop %%rbp"
			 : : "r"(fn) : "rax", "rcx", "memory", "cc");
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 500;
	double end = now_ms() + ms;
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void (*fn)(void);

	if (p == MAP_FAILED)
		return 1;
	memcpy(p, code, sizeof(code));
	if (mprotect(p, 4096, PROT_READ | PROT_EXEC))
		return 1;
	fn = (void (*)(void))p;
	do {
		run_plain(fn);
		run_noframe(fn);
	} while (now_ms() < end);
	return 0;
}
#else
int main(void)
{
	return 2;
}
#endif
