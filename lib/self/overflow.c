/* SPDX-License-Identifier: MIT */
/*
 * Overflow functions: every fd of an overflowing event gets a ring; its
 * samples reach the user's function from a signal handler (the kernel
 * sends the signal chosen with F_SETSIG to the thread named with
 * F_SETOWN_EX on every wakeup, and wakeup_events is 1) or from
 * pcl_counters__poll().
 *
 * The handler finds the ring by the fd in siginfo in a fixed table of
 * atomic pointers, so it takes no lock and allocates nothing. A ring is
 * drained by one party at a time (a try-lock flag): a handler that finds it
 * busy leaves the samples to whoever holds it. Signals that are not for a
 * pcl ring go to the handler that was installed before.
 */
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"
#include "self/overflow.h"

#define MAX_SIGNAL_RINGS 256

struct ovring {
	struct pcl_counters *c;
	int idx, fd;
	struct pcl_ring *ring;
	const struct perf_event_attr *attr;
	pcl_overflow_fn fn;
	void *arg;
	bool signal;
	atomic_int busy;
	_Atomic uint64_t lost;
	int slot; /* in sig_rings, or -1 */
};

struct overflow_set {
	int nr;
	struct pcl_overflow *cfg; /* [nr]; sz 0 where none */
	struct ovring **rings;
	int nrings;
};

static struct ovring *_Atomic sig_rings[MAX_SIGNAL_RINGS];
static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction old_act[_NSIG];
static atomic_bool installed[_NSIG];

struct overflow_set *overflow_new(int nr_events)
{
	struct overflow_set *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->nr = nr_events;
	s->cfg = calloc((size_t)nr_events, sizeof(*s->cfg));
	if (!s->cfg) {
		free(s);
		return NULL;
	}
	return s;
}

int overflow_set(struct overflow_set *s, int idx, const struct pcl_overflow *ov)
{
	/* @ov is the caller's struct already brought to this library's size */
	if (idx < 0 || idx >= s->nr)
		return pcl_err(EINVAL, "pcl_counters__set_overflow: bad index %d", idx);
	if (ov->ring_pages & (ov->ring_pages - 1))
		return pcl_err(EINVAL, "ring_pages %u is not a power of two", ov->ring_pages);
	if (ov->notify == PCL_NOTIFY_SIGNAL && (ov->signo < 0 || ov->signo >= _NSIG ||
						ov->signo == SIGKILL || ov->signo == SIGSTOP))
		return pcl_err(EINVAL, "bad signal %d", ov->signo);
	s->cfg[idx] = *ov;
	s->cfg[idx].sz = sizeof(*ov);
	return 0;
}

bool overflow_has(const struct overflow_set *s, int idx)
{
	return s && idx >= 0 && idx < s->nr && s->cfg[idx].sz;
}

uint64_t overflow_lost(const struct overflow_set *s, int idx)
{
	uint64_t n = 0;

	for (int i = 0; s && i < s->nrings; i++)
		if (s->rings[i]->idx == idx)
			n += atomic_load(&s->rings[i]->lost);
	return n;
}

/* Deliver what the ring holds; async-signal-safe. Returns the samples delivered. */
static int drain(struct ovring *r)
{
	const struct perf_event_header *h;
	int n = 0;

	if (atomic_exchange(&r->busy, 1))
		return 0;
	if (pcl_ring__read_begin(r->ring) == 0) {
		while ((h = pcl_ring__next(r->ring))) {
			struct pcl_record rec;

			if (pcl_record_decode(h, h->size, r->attr, &rec))
				continue;
			if (rec.type == PERF_RECORD_SAMPLE) {
				r->fn(r->c, r->idx, &rec.sample, r->arg);
				n++;
			} else if (rec.type == PERF_RECORD_LOST) {
				atomic_fetch_add(&r->lost, rec.lost.lost);
			}
		}
		pcl_ring__read_end(r->ring);
	}
	atomic_store(&r->busy, 0);
	return n;
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	for (int i = 0; i < MAX_SIGNAL_RINGS; i++) {
		struct ovring *r = atomic_load(&sig_rings[i]);

		if (r && r->fd == si->si_fd) {
			drain(r);
			errno = saved;
			return;
		}
	}
	/* not ours: whoever had the signal before gets it (never the default action) */
	if (old_act[sig].sa_flags & SA_SIGINFO) {
		if (old_act[sig].sa_sigaction)
			old_act[sig].sa_sigaction(sig, si, uc);
	} else if (old_act[sig].sa_handler != SIG_DFL && old_act[sig].sa_handler != SIG_IGN) {
		old_act[sig].sa_handler(sig);
	}
	errno = saved;
}

static int install_handler(int sig)
{
	struct sigaction sa;
	int ret = 0;

	if (atomic_load(&installed[sig]))
		return 0;
	pthread_mutex_lock(&install_lock);
	if (!atomic_load(&installed[sig])) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_signal;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sigemptyset(&sa.sa_mask);
		if (sigaction(sig, &sa, &old_act[sig]))
			ret = pcl_err(errno, "cannot install a handler for signal %d: %s", sig,
				      strerror(errno));
		else
			atomic_store(&installed[sig], true);
	}
	pthread_mutex_unlock(&install_lock);
	return ret;
}

static int claim_slot(struct ovring *r)
{
	for (int i = 0; i < MAX_SIGNAL_RINGS; i++) {
		struct ovring *expect = NULL;

		if (atomic_compare_exchange_strong(&sig_rings[i], &expect, r)) {
			r->slot = i;
			return 0;
		}
	}
	return pcl_err(ENOSPC, "more than %d counters with overflow signals in this process",
		       MAX_SIGNAL_RINGS);
}

/* Send the fd's wakeups to @tid as signal @sig. */
static int arm_signal(struct ovring *r, int sig, pid_t tid)
{
	struct f_owner_ex owner = { .type = F_OWNER_TID, .pid = tid };
	int fl = fcntl(r->fd, F_GETFL);

	if (fl < 0 || fcntl(r->fd, F_SETOWN_EX, &owner) || fcntl(r->fd, F_SETSIG, sig) ||
	    fcntl(r->fd, F_SETFL, fl | O_ASYNC | O_NONBLOCK))
		return pcl_err(errno, "cannot route overflow signals of fd %d: %s", r->fd,
			       strerror(errno));
	return 0;
}

static int add_ring(struct overflow_set *s, struct pcl_counters *c, struct pcl_evlist *el, int idx,
		    int fd, pid_t tid)
{
	const struct pcl_overflow *ov = &s->cfg[idx];
	struct ovring *r, **grown;
	int ret;

	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->c = c;
	r->idx = idx;
	r->fd = fd;
	r->slot = -1;
	r->attr = pcl_evlist__attr(el, idx);
	r->fn = ov->fn;
	r->arg = ov->arg;
	r->signal = ov->notify == PCL_NOTIFY_SIGNAL;
	grown = realloc(s->rings, sizeof(*s->rings) * (size_t)(s->nrings + 1));
	if (!grown) {
		free(r);
		return -ENOMEM;
	}
	s->rings = grown;
	s->rings[s->nrings++] = r;
	r->ring = pcl_ring__mmap(fd, ov->ring_pages ? ov->ring_pages : 8, false);
	if (!r->ring)
		return pcl_err(errno, "cannot map the ring of '%s': %s",
			       pcl_evlist__event(el, idx)->name, strerror(errno));
	if (!r->signal)
		return 0;
	ret = install_handler(ov->signo ? ov->signo : SIGIO);
	if (!ret)
		ret = claim_slot(r);
	if (!ret)
		ret = arm_signal(r, ov->signo ? ov->signo : SIGIO, tid > 0 ? tid : gettid());
	return ret;
}

int overflow_open(struct overflow_set *s, struct pcl_counters *c, struct pcl_evlist *el)
{
	int ncpu = pcl_evlist__nr_cpus(el), nthr = pcl_evlist__nr_threads(el);

	for (int idx = 0; idx < s->nr; idx++) {
		if (!s->cfg[idx].sz || pcl_evlist__state(el, idx) != PCL_EVSEL_OK)
			continue;
		for (int ci = 0; ci < ncpu; ci++) {
			for (int ti = 0; ti < nthr; ti++) {
				int fd = pcl_evlist__fd(el, idx, ci, ti);
				int ret;

				if (fd < 0)
					continue;
				ret = add_ring(s, c, el, idx, fd, pcl_evlist__thread(el, ti));
				if (ret)
					return ret;
			}
		}
	}
	return 0;
}

int overflow_poll(struct overflow_set *s, int timeout_ms)
{
	struct pollfd *pfd;
	int n = 0, ret;

	if (!s->nrings)
		return 0;
	pfd = calloc((size_t)s->nrings, sizeof(*pfd));
	if (!pfd)
		return -ENOMEM;
	for (int i = 0; i < s->nrings; i++) {
		pfd[i].fd = s->rings[i]->fd;
		pfd[i].events = POLLIN;
	}
	/* what is already there goes first, without waiting */
	for (int i = 0; i < s->nrings; i++)
		n += drain(s->rings[i]);
	if (!n && timeout_ms != 0) {
		do {
			ret = poll(pfd, (nfds_t)s->nrings, timeout_ms);
		} while (ret < 0 && errno == EINTR && timeout_ms < 0);
		if (ret < 0 && errno != EINTR) {
			ret = -errno;
			free(pfd);
			return ret;
		}
		for (int i = 0; i < s->nrings; i++)
			n += drain(s->rings[i]);
	}
	free(pfd);
	return n;
}

void overflow_free(struct overflow_set *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->nrings; i++) {
		struct ovring *r = s->rings[i];
		int fl;

		if (r->slot >= 0) {
			fl = fcntl(r->fd, F_GETFL);
			if (fl >= 0)
				fcntl(r->fd, F_SETFL, fl & ~O_ASYNC);
			atomic_store(&sig_rings[r->slot], NULL);
		}
		/* a handler still draining it finishes before the ring goes */
		while (atomic_load(&r->busy))
			sched_yield();
		pcl_ring__munmap(r->ring);
		free(r);
	}
	free(s->rings);
	free(s->cfg);
	free(s);
}
