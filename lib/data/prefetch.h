/* SPDX-License-Identifier: MIT */
/*
 * Reading ahead on a second thread (lib/data/prefetch.c): a source of
 * events (pcl_data_events's own reading, ordering and decoding) runs on its
 * own thread and hands its events over, in order, through a bounded queue.
 */
#ifndef PCL_DATA_PREFETCH_H
#define PCL_DATA_PREFETCH_H

#include <pcl/data.h>

/*
 * The source: the next event into @ev, 1; 0 at the end; or -errno with
 * pcl_last_error() set. Its record is valid until the next call, or, when
 * the source sets *@stable, until prefetch_stop (a record in the mapped
 * file, and the decoded record's pointers into it): such an event is handed
 * over as it is, not copied. Called on the prefetch thread only, from
 * prefetch_start to its end or error.
 */
typedef int (*prefetch_source_fn)(void *src, struct pcl_data_event *ev, bool *stable);

struct prefetch;

/*
 * Start a thread that calls @next(@src) until it returns 0 or an error,
 * putting each event into a queue of a few batches (a record that is not
 * stable is copied, and decoded again over the copy); it waits while the
 * queue is full. NULL with
 * errno when there is no memory or no thread: the caller reads on its own.
 */
struct prefetch *prefetch_start(prefetch_source_fn next, void *src);

/*
 * The next event, as @next gave it, in the same order: 1, 0 at the end, or
 * the source's -errno with its message in this thread's pcl_last_error().
 * ev->hdr and the record's pointers stay valid until the next call. After
 * 0 or an error the thread has ended (the source is the caller's again).
 */
int prefetch_next(struct prefetch *p, struct pcl_data_event *ev);

/* Stop the thread (it ends at its next event) and free @p. NULL: nothing. */
void prefetch_stop(struct prefetch *p);

#endif
