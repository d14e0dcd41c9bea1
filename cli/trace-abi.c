/* SPDX-License-Identifier: MIT */
/*
 * The syscall ABI of each process pcl trace sees: whether its calls are
 * numbered as x86-64's or as i386's (unistd_32.h). The raw_syscalls
 * tracepoints give the number the process passed, in its own ABI, and
 * nothing else says which table names it.
 *
 * What a call's sample says is the best source: the user registers' ABI
 * (PERF_SAMPLE_REGS_USER), which the kernel takes from the mode the thread
 * ran in at the call. A process also gets the ABI of its parent at fork.
 * Failing both (the exit of a call whose entry was not seen: made before
 * pcl attached, or lost), the ELF header of /proc/PID/exe says it, read
 * once; by then a short-lived process may be gone, and its calls are taken
 * as x86-64 ones, not known for sure (the caller counts them and says so).
 *
 * An exec forgets what was known: the new program may be of the other
 * class. Entries go when their process exits.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "trace.h"

#define NR_BUCKETS 1024

struct pabi {
	pid_t pid;
	enum trace_abi abi;
	bool certain;
	struct pabi *next;
};

struct trace_abis {
	struct pabi *buckets[NR_BUCKETS];
};

struct trace_abis *trace_abis__new(void)
{
	return calloc(1, sizeof(struct trace_abis));
}

void trace_abis__free(struct trace_abis *a)
{
	if (!a)
		return;
	for (int b = 0; b < NR_BUCKETS; b++) {
		for (struct pabi *p = a->buckets[b], *n; p; p = n) {
			n = p->next;
			free(p);
		}
	}
	free(a);
}

/* The entry of @pid; a new one (not certain, x86-64) if @create; NULL if none. */
static struct pabi *find(struct trace_abis *a, pid_t pid, bool create)
{
	struct pabi **head = &a->buckets[(unsigned int)pid % NR_BUCKETS], *p;

	for (p = *head; p; p = p->next)
		if (p->pid == pid)
			return p;
	if (!create || !(p = calloc(1, sizeof(*p))))
		return NULL;
	p->pid = pid;
	p->abi = TRACE_ABI_64;
	p->next = *head;
	*head = p;
	return p;
}

/* The ABI of the program /proc/@pid/exe: 0, or -errno if it cannot be read. */
static int exe_abi(pid_t pid, enum trace_abi *abi)
{
	unsigned char e[EI_NIDENT + 4];
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = pread(fd, e, sizeof(e), 0);
	close(fd);
	if (n != (ssize_t)sizeof(e) || memcmp(e, ELFMAG, SELFMAG) || e[EI_DATA] != ELFDATA2LSB)
		return -ENOEXEC;
	/* e_machine follows e_ident and e_type; an ELFCLASS32 EM_X86_64 is x32 */
	*abi = e[EI_CLASS] == ELFCLASS32 && (e[EI_NIDENT + 2] | e[EI_NIDENT + 3] << 8) == EM_386
		       ? TRACE_ABI_I386
		       : TRACE_ABI_64;
	return 0;
}

enum trace_abi trace_abis__get(struct trace_abis *a, pid_t pid, bool *certain)
{
	struct pabi *p = find(a, pid, false);

	if (!p && (p = find(a, pid, true)))
		p->certain = !exe_abi(pid, &p->abi);
	*certain = p && p->certain;
	return p ? p->abi : TRACE_ABI_64;
}

void trace_abis__set(struct trace_abis *a, pid_t pid, enum trace_abi abi)
{
	struct pabi *p = find(a, pid, true);

	if (p) {
		p->abi = abi;
		p->certain = true;
	}
}

void trace_abis__exec(struct trace_abis *a, pid_t pid)
{
	trace_abis__exit(a, pid);
}

void trace_abis__fork(struct trace_abis *a, pid_t parent, pid_t child)
{
	struct pabi *pp = find(a, parent, false);

	if (pp && pp->certain)
		trace_abis__set(a, child, pp->abi);
}

void trace_abis__exit(struct trace_abis *a, pid_t pid)
{
	struct pabi **pp = &a->buckets[(unsigned int)pid % NR_BUCKETS];

	for (; *pp; pp = &(*pp)->next) {
		if ((*pp)->pid == pid) {
			struct pabi *p = *pp;

			*pp = p->next;
			free(p);
			return;
		}
	}
}
