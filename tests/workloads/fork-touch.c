/*
 * fork-touch N: fork one child that maps and writes N fresh pages, and wait
 * for it. The parent touches no extra pages, so counting with inheritance
 * sees >= N page faults and counting the parent alone (-i) sees far fewer.
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static void touch(long n)
{
	long pg = sysconf(_SC_PAGESIZE);
	volatile char *p;
	long i;

	p = mmap(NULL, (size_t)n * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(1);
	madvise((void *)p, (size_t)n * pg, MADV_NOHUGEPAGE);
	for (i = 0; i < n; i++)
		p[i * pg] = 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		touch(n);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
