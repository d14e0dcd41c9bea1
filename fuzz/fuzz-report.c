/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the report pipeline: a perf.data file (or saved
 * stream) from disk, which may be cut, corrupt or hostile, read the way
 * pcl report reads it, without symbol files:
 *
 *   bytes -> memfd (/proc/self/fd/N) -> pcl_data_reader__open
 *         -> pcl_data_events (ordered) -> pcl_machine__process (non-samples,
 *            and the BUILD_ID feature) -> pcl_resolver__sample (no symbols)
 *         -> pcl_hists__add (children and call trees on) -> pcl_hists__finish
 *         -> pcl_report__print (graph, then folded) to /dev/null
 *
 * The last input byte picks caller or callee order, so both tree shapes
 * are reached. Periods are capped at 2^32 so that sums cannot wrap.
 * Besides what ASan and UBSan catch, it traps when a contract is broken:
 *   - open fails only with errno set;
 *   - events end with 0 or a -errno, and -EBADMSG comes with a message
 *     that names the offset;
 *   - the machine and the resolver fail only with -ENOMEM;
 *   - a resolved chain is no longer than the recorded one;
 *   - the entries' self periods and samples add up to the totals; in
 *     children mode an entry's children period is at least its self
 *     period and at most the total, entries come heaviest first, and a
 *     tree weighs no more than its entry;
 *   - printing succeeds.
 * At most MAX_EVENTS events per input are taken.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <pcl/analysis.h>
#include <pcl/common.h>
#include <pcl/data.h>
#include <pcl/machine.h>
#include <pcl/report.h>

#include "fuzz.h"

#define MAX_EVENTS 20000
#define MAX_PERIOD (1ULL << 32)

/* A memfd holding @n bytes of @data; the fd is reused from input to input. */
static int load(int *fd, const void *data, size_t n)
{
	if (*fd < 0)
		*fd = memfd_create("fuzz-report", MFD_CLOEXEC);
	if (*fd < 0 || ftruncate(*fd, 0))
		return -1;
	return n && pwrite(*fd, data, n, 0) != (ssize_t)n ? -1 : 0;
}

static void add_sample(struct pcl_resolver *res, struct pcl_hists *h, const struct pcl_record *rec)
{
	const struct pcl_sample *s = &rec->sample;
	struct pcl_resolved rs;
	uint64_t period = s->sample_type & PERF_SAMPLE_PERIOD ? s->period : 1;
	uint32_t cpu = s->sample_type & PERF_SAMPLE_CPU ? s->cpu : 0;
	int ret = pcl_resolver__sample(res, rec, &rs);

	require(ret == 0 || ret == -ENOMEM);
	if (ret)
		return;
	require(rs.thread != NULL);
	require(rs.nr_chain <= ((s->sample_type & PERF_SAMPLE_CALLCHAIN) ? s->nr_callchain : 0));
	if (period > MAX_PERIOD)
		period = MAX_PERIOD;
	ret = pcl_hists__add(h, &rs, cpu, period);
	require(ret == 0 || ret == -ENOMEM);
}

/* The events of @r into the machine and @h; the events' end. */
static int feed(struct pcl_data_reader *r, struct pcl_machine *m, struct pcl_resolver *res,
		struct pcl_hists *h)
{
	struct pcl_data_events *e = pcl_data_events__new(r, true);
	struct pcl_data_event ev;
	int ret = 0, n = 0;

	if (!e)
		return -ENOMEM;
	while (n++ < MAX_EVENTS && (ret = pcl_data_events__next(e, &ev)) == 1) {
		require(ev.hdr != NULL && ev.hdr->size >= sizeof(*ev.hdr));
		if (!ev.decoded)
			continue;
		require(ev.attr != NULL && ev.rec.type == ev.hdr->type);
		if (ev.rec.type == PERF_RECORD_SAMPLE) {
			add_sample(res, h, &ev.rec);
		} else {
			int pret = pcl_machine__process(m, &ev.rec);

			require(pret == 0 || pret == -ENOMEM);
		}
	}
	require(pcl_data_events__stats(e) != NULL);
	pcl_data_events__free(e);
	if (ret == 1)
		return 0; /* stopped at MAX_EVENTS */
	require(ret == 0 || ret == -EBADMSG || ret == -EIO || ret == -ENOMEM);
	if (ret == -EBADMSG) /* "%#llx": "offset 0x1f8", or "offset 0" */
		require(strstr(pcl_last_error(), "offset 0") != NULL);
	return ret;
}

static void check_hists(const struct pcl_hists *h)
{
	uint64_t self = 0, samples = 0, total = pcl_hists__total_period(h);
	size_t n = pcl_hists__nr_entries(h);

	for (size_t i = 0; i < n; i++) {
		const struct pcl_hist_entry *e = pcl_hists__entry(h, i);

		require(e != NULL && e->comm != NULL);
		self += e->self;
		samples += e->nr_samples;
		require(e->children >= e->self && e->children <= total);
		if (i)
			require(pcl_hists__entry(h, i - 1)->children >= e->children);
		require(!e->root || e->root->total <= e->children);
	}
	require(pcl_hists__entry(h, n) == NULL);
	require(self == total);
	require(samples == pcl_hists__nr_samples(h));
}

static void print(FILE *out, const struct pcl_hists *h, enum pcl_graph_mode graph)
{
	struct pcl_report_opts o = {
		.sz = sizeof(o),
		.children = true,
		.graph = graph,
		.graph_value = PCL_GRAPH_PERCENT,
		.graph_min_percent = 0.5,
	};

	require(pcl_report__print(out, h, &o) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static FILE *out;
	struct pcl_hist_opts ho = { .sz = sizeof(ho), .children = true, .callchain = true };
	struct pcl_data_reader *r;
	struct pcl_machine *m;
	struct pcl_resolver *res;
	struct pcl_hists *h;
	const void *bid;
	size_t bid_len = 0;
	char path[64];
	int next_fd;

	if (!out && !(out = fopen("/dev/null", "w")))
		return 0;
	if (load(&fd, data, size))
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ho.caller_order = size && (data[size - 1] & 1);

	/* a reader that leaked its descriptor would end a long run in EMFILE */
	next_fd = dup(0);
	if (next_fd >= 0)
		close(next_fd);
	errno = 0;
	r = pcl_data_reader__open(path);
	if (!r) {
		require(errno != 0);
		return 0;
	}
	m = pcl_machine__new();
	res = m ? pcl_resolver__new(m, NULL) : NULL;
	h = pcl_hists__new(&ho);
	if (m && res && h) {
		int ret;

		bid = pcl_data_reader__feature(r, PCL_FEAT_BUILD_ID, &bid_len);
		if (bid) {
			ret = pcl_machine__set_build_ids(m, bid, bid_len);
			require(ret == 0 || ret == -EBADMSG || ret == -ENOMEM);
		}
		feed(r, m, res, h);
		pcl_hists__finish(h);
		check_hists(h);
		print(out, h, PCL_GRAPH_ABS);
		print(out, h, PCL_GRAPH_FOLDED);
	}
	pcl_hists__free(h);
	pcl_resolver__free(res);
	pcl_machine__free(m);
	pcl_data_reader__close(r);
	require(next_fd < 0 || fcntl(next_fd, F_GETFD) < 0);
	return 0;
}
