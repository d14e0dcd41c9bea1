/* SPDX-License-Identifier: MIT */
/*
 * The names perf gives the generic hardware, software and cache events,
 * with perf's alternative spellings, and the cache-event formula of the
 * manual: config = cache_id | (op_id << 8) | (result_id << 16).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "internal.h"
#include "event/names.h"

static const struct pcl_event_name generic[] = {
	{ "cpu-cycles", "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions", "branches", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", "idle-cycles-frontend", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", "idle-cycles-backend", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "cpu-clock", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
	{ "bpf-output", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT },
	{ "cgroup-switches", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CGROUP_SWITCHES },
};

/* Cache ids, ops and results with perf's spellings; the first is the listed one. */
static const char *const cache_names[PERF_COUNT_HW_CACHE_MAX][5] = {
	{ "L1-dcache", "l1-d", "l1d", "L1-data" },
	{ "L1-icache", "l1-i", "l1i", "L1-instruction" },
	{ "LLC", "L2" },
	{ "dTLB", "d-tlb", "Data-TLB" },
	{ "iTLB", "i-tlb", "Instruction-TLB" },
	{ "branch", "branches", "bpu", "btb", "bpc" },
	{ "node" },
};

static const char *const cache_ops[PERF_COUNT_HW_CACHE_OP_MAX][5] = {
	{ "load", "loads", "read" },
	{ "store", "stores", "write" },
	{ "prefetch", "prefetches", "speculative-read", "speculative-load" },
};

static const char *const cache_results[PERF_COUNT_HW_CACHE_RESULT_MAX][5] = {
	{ "refs", "Reference", "ops", "access" },
	{ "misses", "miss" },
};

/* Which ops each cache supports, as perf lists them. */
static const unsigned char cache_valid_ops[PERF_COUNT_HW_CACHE_MAX] = {
	[PERF_COUNT_HW_CACHE_L1D] = 7,	[PERF_COUNT_HW_CACHE_L1I] = 1 | 4,
	[PERF_COUNT_HW_CACHE_LL] = 7,	[PERF_COUNT_HW_CACHE_DTLB] = 7,
	[PERF_COUNT_HW_CACHE_ITLB] = 1, [PERF_COUNT_HW_CACHE_BPU] = 1,
	[PERF_COUNT_HW_CACHE_NODE] = 7,
};

#define NR_CACHE_LISTED (PERF_COUNT_HW_CACHE_MAX * PERF_COUNT_HW_CACHE_OP_MAX * 2)
static struct pcl_event_name cache_listed[NR_CACHE_LISTED];
static char cache_listed_names[NR_CACHE_LISTED][48];
static int nr_cache_listed = -1;

bool cache_op_valid(int cache, int op)
{
	return cache >= 0 && cache < PERF_COUNT_HW_CACHE_MAX && op >= 0 &&
	       op < PERF_COUNT_HW_CACHE_OP_MAX && (cache_valid_ops[cache] & (1 << op));
}

void cache_event_name(int cache, int op, int result, char *buf, size_t size)
{
	static const char *const plural[] = { "loads", "stores", "prefetches" };

	if (result == PERF_COUNT_HW_CACHE_RESULT_ACCESS)
		snprintf(buf, size, "%s-%s", cache_names[cache][0], plural[op]);
	else
		snprintf(buf, size, "%s-%s-misses", cache_names[cache][0], cache_ops[op][0]);
}

static void build_cache_list(void)
{
	int n = 0;

	for (int c = 0; c < PERF_COUNT_HW_CACHE_MAX; c++) {
		for (int op = 0; op < PERF_COUNT_HW_CACHE_OP_MAX; op++) {
			if (!cache_op_valid(c, op))
				continue;
			for (int r = 0; r < PERF_COUNT_HW_CACHE_RESULT_MAX; r++) {
				cache_event_name(c, op, r, cache_listed_names[n],
						 sizeof(cache_listed_names[n]));
				cache_listed[n].name = cache_listed_names[n];
				cache_listed[n].type = PERF_TYPE_HW_CACHE;
				cache_listed[n].config =
					(uint64_t)c | ((uint64_t)op << 8) | ((uint64_t)r << 16);
				n++;
			}
		}
	}
	__atomic_store_n(&nr_cache_listed, n, __ATOMIC_RELEASE);
}

PCL_API const struct pcl_event_name *pcl_event_names(int idx)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	if (idx < 0)
		return NULL;
	if (idx < (int)ARRAY_SIZE(generic))
		return &generic[idx];
	pthread_once(&once, build_cache_list);
	idx -= (int)ARRAY_SIZE(generic);
	return idx < nr_cache_listed ? &cache_listed[idx] : NULL;
}

const struct pcl_event_name *generic_event_lookup(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(generic); i++) {
		if (!strcmp(name, generic[i].name) ||
		    (generic[i].alias && !strcmp(name, generic[i].alias)))
			return &generic[i];
	}
	return NULL;
}

/*
 * Match the longest cache name at the start of @s ("L1-dcache" contains a
 * dash, so split points cannot be found by dashes alone).
 */
static int match_cache_prefix(const char *s, size_t *used)
{
	int best = -1;
	size_t best_len = 0;

	for (int c = 0; c < PERF_COUNT_HW_CACHE_MAX; c++) {
		for (int i = 0; i < 5 && cache_names[c][i]; i++) {
			size_t l = strlen(cache_names[c][i]);

			if (l > best_len && !strncasecmp(s, cache_names[c][i], l) &&
			    (s[l] == '-' || s[l] == '\0')) {
				best = c;
				best_len = l;
			}
		}
	}
	*used = best_len;
	return best;
}

/* Longest op or result spelling at the start of @s: returns 1 for op, 2 for result. */
static int match_op_or_result(const char *s, int *id, size_t *used)
{
	int kind = 0;
	size_t best = 0;

	for (int k = 1; k <= 2; k++) {
		int rows = k == 1 ? PERF_COUNT_HW_CACHE_OP_MAX : PERF_COUNT_HW_CACHE_RESULT_MAX;

		for (int r = 0; r < rows; r++) {
			const char *const *row = k == 1 ? cache_ops[r] : cache_results[r];

			for (int i = 0; i < 5 && row[i]; i++) {
				size_t l = strlen(row[i]);

				if (l > best && !strncasecmp(s, row[i], l) &&
				    (s[l] == '-' || s[l] == '\0')) {
					best = l;
					kind = k;
					*id = r;
				}
			}
		}
	}
	*used = best;
	return kind;
}

int cache_event_parse(const char *name, uint64_t *config)
{
	size_t used;
	int cache = match_cache_prefix(name, &used), op = -1, result = -1;
	const char *p = name + used;

	if (cache < 0)
		return -ENOENT;
	while (*p == '-') {
		int id, kind = match_op_or_result(p + 1, &id, &used);

		if (!kind)
			return -ENOENT;
		if (kind == 1) {
			if (op >= 0)
				return -ENOENT;
			op = id;
		} else {
			if (result >= 0)
				return -ENOENT;
			result = id;
		}
		p += 1 + used;
	}
	if (*p)
		return -ENOENT;
	if (op < 0)
		op = PERF_COUNT_HW_CACHE_OP_READ;
	if (result < 0)
		result = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
	if (!cache_op_valid(cache, op))
		return -EOPNOTSUPP;
	*config = (uint64_t)cache | ((uint64_t)op << 8) | ((uint64_t)result << 16);
	return 0;
}
