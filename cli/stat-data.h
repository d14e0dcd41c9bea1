/* SPDX-License-Identifier: MIT */
/* pcl stat record / report: counts in a perf.data stat file, as perf stat record writes. */
#ifndef PCL_CLI_STAT_DATA_H
#define PCL_CLI_STAT_DATA_H

#include <stdbool.h>
#include <stdint.h>
#include <pcl/pcl.h>

struct stat_writer;

/*
 * Create @path ("-": pipe mode) for the opened @el: its attrs with their
 * ids, the thread and CPU maps, and the STAT_CONFIG of @cfg / @interval_ms.
 */
struct stat_writer *stat_writer_create(const char *path, struct pcl_evlist *el,
				       const struct pcl_stat_config *cfg, long interval_ms,
				       int argc, char **argv);
/* One STAT per counter as last read, then a STAT_ROUND (final or interval) at @time_ns. */
int stat_writer_round(struct stat_writer *sw, bool final, uint64_t time_ns);
/* Close with the STAT feature; 0 or -errno (message printed). NULL-safe. */
int stat_writer_close(struct stat_writer *sw);
/*
 * After a failed run: a file is removed (only the one the writer made, also
 * through a symlink -o), a stream is closed whole. NULL-safe.
 */
void stat_writer_abort(struct stat_writer *sw);

/* pcl stat report [-i FILE|-] [-x SEP] [-j]: print a stat file as pcl stat would. */
int cmd_stat_report(int argc, char **argv);

#endif
