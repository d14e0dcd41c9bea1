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
 *   syscalls signals N  N kill()s of itself with SIGUSR1, each handled (so
 *                       N rt_sigreturn()s, whose exits carry no syscall nr)
 *   syscalls signed     lseek(99, -5, SEEK_CUR), pread64(99, buf, 1, -3) and
 *                       clock_gettime of its own CPU clock (a negative id)
 *   syscalls procs N    N child processes at once, each opening a path in its
 *                       heap and living 300 ms; then, 500 ms after they are
 *                       gone, print how many fds the parent (the tracer) has
 *   syscalls restart    a read(2) of 1 byte from a pipe, interrupted by a
 *                       SA_RESTART signal (SIGUSR1 from a child after 100 ms)
 *                       and restarted, then fed (by the child after 200 ms)
 *   syscalls relro FILE [GO]  write "/FILECONTENT" into FILE (unless it has 4 KiB), map it private and
 *                       writable, put "/dev/null" over it, make it read-only
 *                       (as RELRO is), [wait for file GO,] open the path
 *                       there, pause 300 ms
 */
#include <fcntl.h>
#include <dirent.h>
#include <pthread.h>
#include <sys/wait.h>
#include <signal.h>
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

static void on_usr1(int sig)
{
	(void)sig;
}

static int signals(long n)
{
	struct sigaction sa = { .sa_handler = on_usr1 };

	if (sigaction(SIGUSR1, &sa, NULL))
		return 1;
	for (long i = 0; i < n; i++)
		syscall(SYS_kill, getpid(), SIGUSR1);
	return 0;
}

static int signed_args(void)
{
	struct timespec ts;
	clockid_t c;
	char b;

	lseek(99, -5, SEEK_CUR);
	if (pread(99, &b, 1, -3) >= 0 || clock_getcpuclockid(0, &c))
		return 1;
	return clock_gettime(c, &ts) != 0;
}

static int procs(long n)
{
	pid_t tracer = getppid();
	char path[64];
	struct dirent *de;
	int fds = 0;
	DIR *d;

	for (long i = 0; i < n; i++) {
		if (fork() == 0) {
			char *p = malloc(64);

			strcpy(p, "/dev/null");
			close(open(p, O_RDONLY));
			nap(300);
			_exit(0);
		}
	}
	while (wait(NULL) > 0)
		;
	nap(500);
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)tracer);
	if (!(d = opendir(path)))
		return 1;
	while ((de = readdir(d)))
		fds += de->d_name[0] != '.';
	closedir(d);
	printf("%d\n", fds);
	return 0;
}

static int restart(void)
{
	struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_RESTART };
	int p[2];
	pid_t parent = getpid();
	char c;

	if (sigaction(SIGUSR1, &sa, NULL) || pipe(p))
		return 1;
	if (fork() == 0) {
		nap(100);
		kill(parent, SIGUSR1);
		nap(100);
		_exit(write(p[1], "x", 1) != 1);
	}
	return read(p[0], &c, 1) != 1;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "procs"))
		return procs(atol(argv[2]));
	if (argc == 2 && !strcmp(argv[1], "signed"))
		return signed_args();
	if (argc == 2 && !strcmp(argv[1], "restart"))
		return restart();
	if (argc == 3 && !strcmp(argv[1], "signals"))
		return signals(atol(argv[2]));
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
	fprintf(stderr, "usage: syscalls calls N | wait FILE N | threads N | signals N | signed | procs N | restart | relro FILE\n");
	return 2;
}
