/* SPDX-License-Identifier: MIT */
/*
 * Watch a global variable by name: who writes it, and from where.
 *
 * pcl_watch_symbol() finds "shared_total" in this executable's symbol
 * table and puts a hardware write breakpoint on it. Every write calls
 * on_hit() in signal context, which only copies the hit (ip, tid, call
 * chain) into a static array. Afterwards, outside the handler, each hit is
 * symbolized: the writer function and the chain of callers. On x86 the
 * breakpoint traps after the write, so the ip is that of the next
 * instruction (still inside the writer).
 *
 * Usage: watch-variable
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <pcl/counters.h>

/* Named functions stay themselves in symbols: no inlining, no clones. */
#if defined(__GNUC__) && !defined(__clang__)
#define NOINLINE __attribute__((noinline, noclone))
#else
#define NOINLINE __attribute__((noinline))
#endif

#define MAX_HITS  64
#define MAX_CHAIN 8

volatile long shared_total; /* the watched variable */
static volatile long reads_done, days_done;

struct hit {
	uint64_t ip;
	uint32_t tid;
	int nr;
	uint64_t chain[MAX_CHAIN];
};
static struct hit hits[MAX_HITS];
static volatile int nr_hits;

/* Signal context: copy what is needed, no stdio, no malloc. */
static void on_hit(const struct pcl_watch_hit *h, void *arg)
{
	struct hit *dst;

	(void)arg;
	if (nr_hits >= MAX_HITS)
		return;
	dst = &hits[nr_hits];
	dst->ip = h->ip;
	dst->tid = h->tid;
	dst->nr = 0;
	for (uint64_t i = 0; i < h->nr_callchain && dst->nr < MAX_CHAIN; i++)
		if (h->callchain[i] < PERF_CONTEXT_MAX) /* skip the PERF_CONTEXT_* markers */
			dst->chain[dst->nr++] = h->callchain[i];
	nr_hits++;
}

/*
 * The writers call a function after they write and use its result: they
 * are not leaf functions and end in no tail call, so their frame is set up
 * while they write and their callers show in the chain.
 */
NOINLINE static long after_write(void)
{
	return shared_total; /* a read: not a hit for a write watchpoint */
}

NOINLINE static void add_deposit(long amount)
{
	shared_total += amount;
	reads_done += after_write();
}

NOINLINE static void apply_fee(long fee)
{
	shared_total -= fee;
	reads_done += after_write();
}

NOINLINE static void run_day(void)
{
	for (int i = 0; i < 3; i++)
		add_deposit(100);
	for (int i = 0; i < 2; i++)
		apply_fee(7);
	days_done++; /* after the last call: no tail call, run_day stays in the chain */
}

static const char *sym(uint64_t addr, char *buf, size_t len)
{
	if (pcl_self_symbolize(addr, buf, len, NULL))
		snprintf(buf, len, "[unknown %#llx]", (unsigned long long)addr);
	return buf;
}

int main(void)
{
	PCL_OPTS(pcl_watch_opts, o, .fn = on_hit); /* write, 8 bytes, signal */
	struct pcl_counters *w = pcl_watch_symbol("shared_total", &o);
	struct pcl_value v;
	char name[256];

	if (!w) {
		fprintf(stderr, "watch-variable: %s\n", pcl_last_error());
		return 1;
	}
	run_day();
	pcl_counters__poll(w, 0); /* hits whose signal has not come yet */
	pcl_counters__read(w, &v);
	pcl_counters__free(w);

	printf("shared_total = %ld after %llu writes, %d hits recorded\n", shared_total,
	       (unsigned long long)v.raw, nr_hits);
	for (int i = 0; i < nr_hits; i++) {
		printf("hit %d: tid %u wrote in %s, called from", i + 1, (unsigned)hits[i].tid,
		       sym(hits[i].ip, name, sizeof(name)));
		/* chain[0] is the ip itself; the rest are return addresses, up to main */
		for (int k = 1; k < hits[i].nr; k++) {
			printf(" %s%s", k > 1 ? "<- " : "",
			       sym(hits[i].chain[k], name, sizeof(name)));
			if (!strcmp(name, "main"))
				break;
		}
		printf("\n");
	}
	return 0;
}
