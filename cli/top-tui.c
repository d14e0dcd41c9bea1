/* SPDX-License-Identifier: MIT */
/*
 * pcl top on a terminal: the live histogram in the browser of cli/tui.c
 * (Enter on an entry opens its callers and callees with -g; 'z' toggles
 * zeroing, 'K' and 'U' hide kernel and user samples; with several events,
 * TAB and shift-TAB show the next and previous one's).
 *
 * The browser calls tick() every -d seconds and redraws after it; between
 * ticks it waits for keys. The rings cannot wait that long at 4000 Hz
 * (with -g a ring holds well under a second), so a reader thread copies
 * what they hold into a batch every 100 ms or when one fills to a
 * quarter; tick() takes the batch under the lock, feeds it to the machine
 * and the histogram (both the browser thread's alone), and finishes the
 * histogram. Before that, the last one shown is decayed (or zeroed), as
 * perf top does at each refresh.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "run.h"
#include "top-int.h"
#include "tui.h"

struct live {
	struct top *t;
	pthread_mutex_t lock;
	struct top_batch in; /* filled by the reader, under lock */
	struct top_batch work;
	int stop; /* __atomic: set by the browser thread */
	int err;
	char title[256];
};

static void *reader(void *arg)
{
	struct live *l = arg;
	struct top *t = l->t;

	while (!__atomic_load_n(&l->stop, __ATOMIC_RELAXED)) {
		poll(t->pfds, (nfds_t)t->npfd, 100);
		unpoll_hung_up(t->pfds, t->npfd);
		pthread_mutex_lock(&l->lock);
		if (top_collect(t, &l->in))
			l->err = -ENOMEM;
		pthread_mutex_unlock(&l->lock);
	}
	return NULL;
}

static const struct pcl_hists *get(void *ctx)
{
	return ((struct live *)ctx)->t->h;
}

static int tick(void *ctx)
{
	struct live *l = ctx;
	struct top_batch tmp;
	int err;

	top_age(l->t);
	pthread_mutex_lock(&l->lock);
	tmp = l->in;
	l->in = l->work; /* the emptied one: its memory is used again */
	l->work = tmp;
	err = l->err;
	pthread_mutex_unlock(&l->lock);
	if (err)
		return err;
	top_process(l->t, &l->work);
	top_finish(l->t);
	/* the annotation shows the interval just ended: bounded, like a -z refresh */
	if (l->t->ann_cur)
		pcl_annotate__finish(l->t->ann_cur);
	pcl_annotate__free(l->t->ann_last);
	l->t->ann_last = l->t->ann_cur;
	l->t->ann_cur = pcl_annotate__new();
	return 0;
}

/* 'a': entry @e's function as pcl annotate --stdio prints it, from the last interval's samples. */
static int annotate(void *ctx, const struct pcl_hist_entry *e, FILE *fp)
{
	struct top *t = ((struct live *)ctx)->t;
	const struct pcl_annotate *a = t->ann_last;
	struct pcl_annotate_opts ao = { .sz = sizeof(ao) };

	if (!a || !e->frame.sym || !e->frame.map)
		return -ENOTSUP;
	for (size_t i = 0; i < pcl_annotate__nr_syms(a); i++) {
		const struct pcl_annotate_sym *s = pcl_annotate__sym(a, i);

		if (s->sym == e->frame.sym && s->dso == e->frame.map->dso)
			return pcl_annotate__print(fp, a, i, t->syms,
						   pcl_evlist__event(t->el, t->active)->name, &ao);
	}
	return -ENODATA; /* no sample in the function itself in the last interval */
}

/* perf top's title: "Samples: 3K of event 'cycles', 4000 Hz, Event count (approx.): N lost: 0/0 drop: 0/0" */
static const char *title(void *ctx)
{
	struct live *l = ctx;
	struct top *t = l->t;
	const struct perf_event_attr *a = &t->attrs[t->active];
	char n[32], rate[48] = "";

	pcl_report__count(n, sizeof(n), pcl_hists__nr_samples(t->h));
	if (a->freq)
		snprintf(rate, sizeof(rate), ", %" PRIu64 " Hz", (uint64_t)a->sample_freq);
	snprintf(l->title, sizeof(l->title),
		 "Samples: %s of event '%s'%s, Event count (approx.): %" PRIu64 " lost: %" PRIu64
		 "/%" PRIu64 " drop: 0/0%s%s%s",
		 n, pcl_evlist__event(t->el, t->active)->name, rate, pcl_hists__total_period(t->h), t->lost,
		 t->lost_total, t->zero ? " [z]" : "", t->hide_kernel ? " [K]" : "",
		 t->hide_user ? " [U]" : "");
	t->lost = 0;
	return l->title;
}

static int key(void *ctx, int c)
{
	struct top *t = ((struct live *)ctx)->t;

	switch (c) {
	case 'z':
		t->zero = !t->zero;
		return 0;
	case 'K':
		t->hide_kernel = !t->hide_kernel;
		return 0;
	case 'U':
		t->hide_user = !t->hide_user;
		return 0;
	case '\t':
	case TUI_KEY_BTAB:
		/* the next (previous) event, as in perf's browser */
		if (t->nev > 1)
			top_set_active(t, (t->active + (c == '\t' ? 1 : t->nev - 1)) % t->nev);
		return 0;
	}
	return -ENOTSUP;
}

bool top_want_tui(const struct top *t)
{
	/* perf's choice: the browser on a terminal, unless --stdio; --tui into a file is text */
	return t->o->ui != TOP_UI_STDIO && tui_usable();
}

int top_tui(struct top *t)
{
	struct live l = { .t = t };
	struct tui_source src = {
		.ctx = &l,
		.get = get,
		.tick = tick,
		.refresh_ms = t->delay_secs * 1000,
		.ropts = &t->ro,
		.title = title,
		.annotate = annotate,
		.key = key,
		.help = "z             Toggle zeroing the histogram at each refresh\n"
			"K             Hide kernel samples (again: show)\n"
			"U             Hide user samples (again: show)\n",
	};
	pthread_t th;
	int ret;

	pthread_mutex_init(&l.lock, NULL);
	top_finish(t);
	t->ann_cur = pcl_annotate__new(); /* NULL: 'a' says it cannot */
	if (pthread_create(&th, NULL, reader, &l)) {
		die_msg("cannot start the ring reader thread");
		pthread_mutex_destroy(&l.lock);
		return 1;
	}
	ret = tui_browse(&src);
	__atomic_store_n(&l.stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	pthread_mutex_destroy(&l.lock);
	top_batch_free(&l.in);
	top_batch_free(&l.work);
	if (ret < 0 && ret != -EINTR) {
		die_msg("the browser failed: %s", strerror(-ret));
		return 1;
	}
	return 0;
}
