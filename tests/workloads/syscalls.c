/*
 * A program that makes a known number of syscalls, for pcl trace's tests:
 *
 *   syscalls calls N    N getppid(), 5 writes of 1..5 bytes to /dev/null,
 *                       an openat of a missing path (ENOENT), an openat
 *                       of a path on the stack and one in the heap, each
 *                       overwritten right after the call, a 50 ms
 *                       nanosleep, then a 300 ms pause so that the heap
 *                       is still there to read
 *   syscalls wait FILE N  poll for FILE (every 10 ms), then N getppid()
 *   syscalls threads N  two threads making N getppid() each
 *   syscalls relro FILE [GO]  write "/FILECONTENT" into FILE (unless it has 4 KiB), map it private and
 *                       writable, put "/dev/null" over it, make it read-only
 *                       (as RELRO is), [wait for file GO,] open the path
 *                       there, pause 300 ms
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void getppids(long n)
{
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
}

static void *thread_main(void *arg)
{
	getppids((long)arg);
	return NULL;
}

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* The compiler must not drop the stores after the call. */
static void scribble(volatile char *s)
{
	memcpy((char *)s, "/CHANGED", 9);
}

static int calls(long n)
{
	char stack_path[64];
	char *heap_path = malloc(64);
	int fd = open("/dev/null", O_WRONLY);

	getppids(n);
	for (int i = 1; i <= 5; i++)
		if (write(fd, "hello", (size_t)i) != i)
			return 1;
	close(fd);
	if (openat(AT_FDCWD, "/nonexistent/pcl-trace-missing", O_RDONLY) >= 0)
		return 1;
	strcpy(stack_path, "/dev/zero");
	fd = openat(AT_FDCWD, stack_path, O_RDONLY);
	scribble(stack_path);
	close(fd);
	strcpy(heap_path, "/dev/full");
	fd = openat(AT_FDCWD, heap_path, O_RDONLY);
	scribble(heap_path);
	close(fd);
	nap(50);
	nap(300);
	free(heap_path);
	return 0;
}

static int relro(const char *file, const char *go)
{
	static char page[4096] = "/FILECONTENT";
	int fd = open(file, O_RDWR | O_CREAT, 0600);
	struct stat st;
	char *p;

	/* written only if not there: a file older than the call is what pcl reads */
	if (fd < 0 || fstat(fd, &st) ||
	    (st.st_size < (off_t)sizeof(page) && write(fd, page, sizeof(page)) != (ssize_t)sizeof(page)))
		return 1;
	p = mmap(NULL, sizeof(page), PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return 1;
	close(fd);
	strcpy(p, "/dev/null");
	if (mprotect(p, sizeof(page), PROT_READ))
		return 1;
	while (go && stat(go, &st))
		nap(10);
	fd = openat(AT_FDCWD, p, O_RDONLY);
	close(fd);
	nap(300);
	return 0;
}

int main(int argc, char **argv)
{
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "relro"))
		return relro(argv[2], argc == 4 ? argv[3] : NULL);
	if (argc == 3 && !strcmp(argv[1], "calls"))
		return calls(atol(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "wait")) {
		struct stat st;

		while (stat(argv[2], &st))
			nap(10);
		getppids(atol(argv[3]));
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "threads")) {
		pthread_t t[2];

		for (int i = 0; i < 2; i++)
			pthread_create(&t[i], NULL, thread_main, (void *)atol(argv[2]));
		for (int i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
		return 0;
	}
	fprintf(stderr, "usage: syscalls calls N | wait FILE N | threads N | relro FILE\n");
	return 2;
}
