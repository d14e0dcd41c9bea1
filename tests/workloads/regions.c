/*
 * regions [THREADS [ITERS]]: a program instrumented with libpcl regions,
 * for tests/e2e/t-region.sh. THREADS threads (default 4, at most 16) and
 * the main thread each run ITERS times (default 100):
 *
 *   "step" { 3 getppid(); "inner" { 2 getppid() } }
 *
 * so "step" counts 5 and "inner" 2 getppid per call, exactly. getppid()
 * outside regions: none. With PCL_REGIONS=json|text the report is written
 * at exit by libpcl; the program itself prints nothing.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <pcl/region.h>

static int iters = 100;

static void *run(void *arg)
{
	int i, k;

	(void)arg;
	for (i = 0; i < iters; i++) {
		if (pcl_region_begin("step"))
			exit(2);
		for (k = 0; k < 3; k++)
			syscall(SYS_getppid);
		pcl_region_begin("inner");
		for (k = 0; k < 2; k++)
			syscall(SYS_getppid);
		if (pcl_region_end("inner") || pcl_region_end("step"))
			exit(3);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4, i;
	pthread_t th[16];

	if (argc > 2)
		iters = atoi(argv[2]);
	if (n < 0 || n > 16)
		n = 4;
	for (i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, run, NULL))
			return 1;
	run(NULL);
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	return 0;
}
