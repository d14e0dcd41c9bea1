/* SPDX-License-Identifier: MIT */
/* pcl top's engine state, shared by top-run.c, top-stdio.c and top-tui.c. */
#ifndef PCL_CLI_TOP_INT_H
#define PCL_CLI_TOP_INT_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <pcl/pcl.h>
#include "top.h"

struct top_id {
	uint64_t id;
	int ev;
};

/* A record read from a ring, waiting for its batch to be put in time order. */
struct top_pending {
	uint64_t time;
	size_t off; /* in top.buf */
	uint32_t seq;
	int ev;
};

/* Records read from the rings, not yet processed. */
struct top_batch {
	uint8_t *buf;
	size_t buf_len, buf_cap;
	struct top_pending *pend;
	size_t npend, cap_pend;
};

struct top {
	struct top_opts *o;
	struct pcl_evlist *el;
	int nev;
	struct perf_event_attr *attrs; /* each event's, as opened */
	struct top_id *ids;	       /* sorted: a record's id -> its event */
	int nids;
	struct pcl_ring **rings;
	int nrings;
	struct pollfd *pfds; /* the rings' fds (and room for stdin) */
	int npfd;
	int nr_user_cpus;
	struct pcl_machine *m;
	struct pcl_symbols *syms;
	struct pcl_resolver *r;
	struct pcl_hists **hs; /* one histogram per event */
	int active;	       /* the event shown (perf's 'E', the browser's TAB) */
	struct pcl_hists *h;   /* hs[active] */
	struct pcl_hist_opts ho;
	struct pcl_report_opts ro;
	/* what the keys change while it runs */
	int delay_secs;
	bool zero, hide_kernel, hide_user;
	bool color; /* perf's colours (a terminal) */
	bool debug; /* $PCL_TOP_DEBUG: the model's size on stderr after each refresh */
	/* the header's counts, since the last refresh (lost_total: since the start) */
	uint64_t samples, kernel_samples, exact_samples, lost, lost_total;
	uint64_t nr_lost_records, nr_lost_warned;
	uint64_t failed, undecoded;
	struct top_batch batch; /* the stdio loop's */
	/* the browser's 'a': each sample's address, this interval's and the last one's */
	struct pcl_annotate *ann_cur, *ann_last;
};

bool top_done(void);
void top_stop(void);
/* Read the rings and feed their records in time order. 0 or -ENOMEM. */
int top_drain(struct top *t);
/* The two halves of top_drain: copy what the rings hold into @b; feed @b, emptied. */
int top_collect(struct top *t, struct top_batch *b);
void top_process(struct top *t, struct top_batch *b);
void top_batch_free(struct top_batch *b);
/* Decay (or zero) the histogram and prune the machine, after a refresh. */
void top_age(struct top *t);
/* perf top's header line into @bf; resets the per-refresh counts. */
void top_header(struct top *t, char *bf, size_t size);
/* Finish every event's histogram (pcl_hists__finish) before showing one. */
void top_finish(struct top *t);
/* Show event @ev (its histogram, its name in the header). */
void top_set_active(struct top *t, int ev);
/* The event of a record (index in the evlist), or -1. */
int top_event_of(const struct top *t, const struct perf_event_header *h);

/* The displays: exit codes. */
int top_stdio(struct top *t);
bool top_want_tui(const struct top *t);
int top_tui(struct top *t);

#endif
