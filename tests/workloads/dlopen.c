/*
 * dlopen [MS]: load libdlwork.so with dlopen(3) from the directory this
 * executable is in (found through /proc/self/exe: the Makefile builds both
 * into build/tests/workloads), then spend about MS milliseconds (default
 * 300) of wall-clock time: about 90% in the library's dlwork_leaf (through
 * dlwork_burn) and 10% in this program's own exe_burn. The library is
 * mapped after the program started, so a profiler sees it only through the
 * MMAP2 record of the dlopen(). Exits 2 if the library cannot be loaded.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) void exe_burn(double ms)
{
	double end = now_ms() + ms;
	unsigned long i;

	do
		for (i = 0; i < 40000; i++)
			sink += i ^ (sink >> 3);
	while (now_ms() < end);
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 300;
	char path[4096];
	void (*burn)(double);
	ssize_t len;
	char *slash;
	void *lib;
	int k;

	len = readlink("/proc/self/exe", path, sizeof(path) - 32);
	if (len < 0)
		return 2;
	path[len] = 0;
	slash = strrchr(path, '/');
	strcpy(slash ? slash + 1 : path, "libdlwork.so");
	lib = dlopen(path, RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 2;
	}
	*(void **)&burn = dlsym(lib, "dlwork_burn");
	if (!burn) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 2;
	}
	/* Ten slices, so both shares are spread over the whole run. */
	for (k = 0; k < 10; k++) {
		burn(ms * 0.09);
		exe_burn(ms * 0.01);
	}
	dlclose(lib);
	return 0;
}
