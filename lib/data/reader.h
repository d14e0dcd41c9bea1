/* SPDX-License-Identifier: MIT */
/* What the reader (lib/data/reader.c) tells the rest of lib/data only. */
#ifndef PCL_DATA_READER_H
#define PCL_DATA_READER_H

#include <stdbool.h>
#include <pcl/data.h>

/*
 * Whether @rec, a record pcl_data_reader__next() returned, stays valid
 * until the reader is closed (it points into the mapped file), so that a
 * queue may keep the pointer instead of a copy; false for a copy that the
 * next call overwrites (a record read through the buffer, decompressed, or
 * from a stream).
 */
bool pcl_data_reader_stable(const struct pcl_data_reader *r, const void *rec);

/*
 * Records are kept past the next call (a queue of pointers into the
 * mapping): the reader no longer gives back the mapped pages behind its
 * position; the caller does, with pcl_data_reader_drop, as it is done with
 * them.
 */
void pcl_data_reader_lend(struct pcl_data_reader *r);

/*
 * Give back the mapped file's pages far enough (MAP_KEEP) below file offset
 * @upto, from *@dropped (0 at first; where the last call stopped, updated).
 * A page still in use is read again from the page cache, unchanged: this
 * bounds the memory, not what is valid. Nothing when the file is not mapped.
 * Safe on another thread than the reader's (it changes no reader state).
 */
void pcl_data_reader_drop(const struct pcl_data_reader *r, uint64_t upto, uint64_t *dropped);

#endif
