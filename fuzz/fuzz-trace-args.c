/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for pcl trace's decoding of what a traced program hands
 * it (cli/trace-mem.c, cli/trace-syscalls.c): the mappings its MMAP2
 * records describe (any start, length and protection, overlapping, forked,
 * exec'ed), and a call's number, six arguments and the copy of its user
 * stack, formatted into a line with the strings read from that stack.
 *
 * Input: a count byte K (mod 16), K map operations of 24 bytes (start,
 * length, then prot whose bit 31 makes it an exec and bit 30 a fork, and a
 * pid of 1..4), a syscall number (2 bytes: the low 14 bits, and the ABI
 * from the top two, mod 3), six arguments (48 bytes), an
 * 8-byte stack pointer, and the rest as the stack copy. No file or process
 * memory is read: the mappings name no file and the pid does not exist.
 * Besides ASan and UBSan, it traps when:
 *   - a process's mappings are not sorted and disjoint, or are empty;
 *   - the formatted line is not NUL-terminated within its buffer, or its
 *     returned length is not strlen() of it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"

#include "../cli/trace-mem.c"
#include "../cli/trace-syscalls.c"

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static void check_maps(struct trace_mem *m)
{
	for (int b = 0; b < NR_BUCKETS; b++)
		for (struct proc *p = m->buckets[b]; p; p = p->next)
			for (int i = 0; i < p->nmaps; i++) {
				require(p->maps[i].start < p->maps[i].end);
				require(i == 0 || p->maps[i - 1].end <= p->maps[i].start);
			}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char line[8192];
	struct trace_mem *m;
	struct trace_user u = { .pid = 0x7ffffff0, .time_ns = 1 };
	uint64_t args[6];
	size_t k, len;
	long nr;

	if (size < 1)
		return 0;
	k = data[0] % 16;
	data++, size--;
	m = trace_mem__new();
	if (!m)
		return 0;
	for (; k && size >= 24; k--, data += 24, size -= 24) {
		uint64_t start = get64(data), l = get64(data + 8);
		uint32_t prot, pid;

		memcpy(&prot, data + 16, 4);
		memcpy(&pid, data + 20, 4);
		pid = 0x7ffffff0 + pid % 4;
		if (prot & 0x80000000u)
			trace_mem__exec(m, (pid_t)pid);
		else if (prot & 0x40000000u)
			trace_mem__fork(m, 0x7ffffff0, (pid_t)pid);
		else
			trace_mem__map(m, (pid_t)pid, start, l, start, prot & 7, 0, 0, 0, "");
		check_maps(m);
	}
	if (size >= 2 + 48 + 8) {
		enum trace_abi abi = (enum trace_abi)((data[1] >> 6) % NR_TRACE_ABI);

		nr = data[0] | (data[1] & 0x3f) << 8;
		memcpy(args, data + 2, sizeof(args));
		u.sp = get64(data + 50);
		u.stack = data + 58;
		u.stack_size = size - 58;
		len = trace_fmt_args(line, sizeof(line), abi, trace_sc(abi, nr), nr, args, m, &u);
		require(memchr(line, 0, sizeof(line)) != NULL);
		require(len == strlen(line));
	}
	trace_mem__free(m);
	return 0;
}
