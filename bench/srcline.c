/* SPDX-License-Identifier: MIT */
/*
 * Source-line lookups: lib/symbol/srcline.c against addr2line, which perf
 * 6.1 runs for its srcline (bench/srcline.sh builds and runs this).
 *
 *   srcline FILE [DISTINCT [REPEAT]]
 *
 * DISTINCT addresses spread over FILE's .text (default 20000), each asked
 * REPEAT times (default 10) in a shuffled order, as a profile asks them.
 * Timed: pcl's open and first answers (libdw, cache misses), the repeated
 * answers (cache hits), and addr2line two ways: as perf 6.1 drives it
 * (one `addr2line -e FILE -a -i -f` process kept open, each address
 * written with a "," sentinel after it, the answer read back up to the
 * sentinel's record before the next is written; perf caches answers by
 * address, so it asks each distinct address once), and given every
 * address at once (addr2line's best case). Printed, never asserted.
 */
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/wait.h>
#include <pcl/pcl.h>
#include "symbol/srcline.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int text_range(const char *path, uint64_t *start, uint64_t *end)
{
	int fd = open(path, O_RDONLY);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	Elf *e;

	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	*start = *end = 0;
	if (e && !elf_getshdrstrndx(e, &shstrndx)) {
		while ((scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			const char *n;

			if (gelf_getshdr(scn, &sh) && (n = elf_strptr(e, shstrndx, sh.sh_name)) &&
			    !strcmp(n, ".text")) {
				*start = sh.sh_addr;
				*end = sh.sh_addr + sh.sh_size;
			}
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return *end > *start ? 0 : -1;
}

/* perf's addr2line protocol over pipes; seconds, or a negative value on failure. */
static double addr2line_pipe(const char *file, const uint64_t *addrs, size_t n)
{
	int in[2], out[2];
	char *line = NULL;
	size_t cap = 0;
	double t0;
	FILE *to, *from;
	pid_t pid;

	if (pipe(in) || pipe(out))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execlp("addr2line", "addr2line", "-e", file, "-a", "-i", "-f", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	to = fdopen(in[1], "w");
	from = fdopen(out[0], "r");
	t0 = now();
	for (size_t i = 0; i < n && to && from; i++) {
		bool first = true;

		fprintf(to, "%016llx\n,\n", (unsigned long long)addrs[i]);
		fflush(to);
		/* Records until the sentinel's: address 0 (binutils reads "," as 0). */
		while (getline(&line, &cap, from) > 0) {
			if (!strncmp(line, "0x", 2)) {
				if (!first && !strtoull(line, NULL, 16)) {
					/* the sentinel's function and location lines */
					if (getline(&line, &cap, from) <= 0 ||
					    getline(&line, &cap, from) <= 0)
						break;
					break;
				}
				first = false;
			}
		}
	}
	t0 = now() - t0;
	if (to)
		fclose(to);
	if (from)
		fclose(from);
	free(line);
	waitpid(pid, NULL, 0);
	return t0;
}

int main(int argc, char **argv)
{
	size_t distinct = argc > 2 ? strtoul(argv[2], NULL, 0) : 20000;
	size_t repeat = argc > 3 ? strtoul(argv[3], NULL, 0) : 10;
	const struct srcline_info *info;
	uint64_t start, end, step, *addrs, *order, hits, misses;
	struct srcline_dso *d;
	size_t n = 0, found = 0;
	char tmpl[] = "/tmp/pcl-bench-srcline-XXXXXX", cmd[8192];
	double t0, t_open, t_miss, t_hit, t_a2l, t_pipe;
	FILE *f;
	int fd;

	if (argc < 2 || !distinct || text_range(argv[1], &start, &end)) {
		fprintf(stderr, "usage: srcline ELF-FILE-WITH-.text [DISTINCT [REPEAT]]\n");
		return 2;
	}
	addrs = calloc(distinct, sizeof(*addrs));
	order = calloc(distinct * repeat, sizeof(*order));
	if (!addrs || !order)
		return 1;
	step = (end - start) / distinct + 1;
	for (uint64_t a = start; a < end && n < distinct; a += step | 1)
		addrs[n++] = a;
	srand(1);
	for (size_t i = 0; i < n * repeat; i++)
		order[i] = addrs[(size_t)rand() % n];

	t0 = now();
	d = srcline_dso__open(argv[1], NULL);
	if (!d) {
		fprintf(stderr, "srcline: %s\n", pcl_last_error());
		return 1;
	}
	t_open = now() - t0;
	t0 = now();
	for (size_t i = 0; i < n; i++)
		found += !srcline_dso__find(d, addrs[i], &info);
	t_miss = now() - t0;
	t0 = now();
	for (size_t i = 0; i < n * repeat; i++)
		srcline_dso__find(d, order[i], &info);
	t_hit = now() - t0;
	srcline_dso__stats(d, &hits, &misses);

	fd = mkstemp(tmpl);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f)
		return 1;
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%#llx\n", (unsigned long long)addrs[i]);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "addr2line -e '%s' -i -f -a < '%s' > /dev/null",
		 srcline_dso__debug_file(d) ? srcline_dso__debug_file(d) : argv[1], tmpl);
	t0 = now();
	if (system(cmd))
		fprintf(stderr, "srcline: addr2line failed\n");
	t_a2l = now() - t0;
	unlink(tmpl);
	t_pipe = addr2line_pipe(srcline_dso__debug_file(d) ? srcline_dso__debug_file(d) : argv[1],
				addrs, n);

	printf("%s (DWARF from %s)\n", argv[1],
	       srcline_dso__debug_file(d) ? srcline_dso__debug_file(d) : "none");
	printf("  %zu distinct addresses (%zu found), each asked %zu more times\n", n, found,
	       repeat);
	printf("  pcl open            %8.1f ms\n", t_open * 1e3);
	printf("  pcl first answers   %8.1f ms  %7.2f us/address\n", t_miss * 1e3,
	       t_miss * 1e6 / (double)n);
	printf("  pcl cached answers  %8.1f ms  %7.3f us/lookup (%llu hits, %llu misses)\n",
	       t_hit * 1e3, t_hit * 1e6 / (double)(n * repeat), (unsigned long long)hits,
	       (unsigned long long)misses);
	printf("  addr2line, as perf  %8.1f ms  %7.2f us/address\n", t_pipe * 1e3,
	       t_pipe * 1e6 / (double)n);
	printf("  addr2line, batch    %8.1f ms  %7.2f us/address\n", t_a2l * 1e3,
	       t_a2l * 1e6 / (double)n);
	printf("  pcl (open + first answers) is %.1fx faster than addr2line as perf runs it,"
	       " %.1fx than its batch\n",
	       t_pipe / (t_open + t_miss), t_a2l / (t_open + t_miss));
	srcline_dso__close(d);
	free(addrs);
	free(order);
	return 0;
}
