/* SPDX-License-Identifier: MIT */
/*
 * The description of a perf.data file that `perf report --header-only`
 * (and `--header`, and `-I` for the sections perf hides by default) prints:
 * the file header's numbers, then every feature section present, in the
 * order of its feature bit, then the features that are missing.
 *
 * The text follows Linux perf 6.1 line by line. Every feature section is
 * untrusted: one that does not parse prints what perf prints for a section
 * it could not read ("# hostname : (null)", "# event desc: not available
 * or unable to read"), or nothing where perf would print garbage, and the
 * other sections still print.
 */
#ifndef PCL_HEADER_H
#define PCL_HEADER_H

#include <stdio.h>
#include <pcl/common.h>
#include <pcl/data.h>

#ifdef __cplusplus
extern "C" {
#endif

/* perf report -I: print the sections perf shows only in full (topologies, caches). */
#define PCL_HEADER_FULL (1u << 0)
/*
 * Pipe mode: read the rest of the stream first, so that every
 * HEADER_FEATURE record has been seen (what --header-only wants; the
 * reader is then at its end).
 */
#define PCL_HEADER_READ_STREAM (1u << 1)
/* Pipe mode: no features, only the header lines (perf script --header-only). */
#define PCL_HEADER_NO_FEATURES (1u << 2)

/*
 * Print the header of the file @r reads to @fp, as perf report --header
 * does. @path is the path @r was opened with ("-" or NULL: standard input);
 * its modification time is the "captured on" line.
 *
 * File mode: "# ========", the header lines, each feature, "# missing
 * features: ...", "# ========", "#".
 * Pipe mode: the header lines (all offsets 0), "# ========", "#", then the
 * features @r has absorbed so far (the reader absorbs those before the
 * first data record when it opens), in the order of their bits, and no
 * "missing features" line (as perf). With PCL_HEADER_READ_STREAM the rest
 * of the stream is read first. A section perf could not process ends its
 * session: the features before it print, and -EBADMSG says which one.
 *
 * Returns 0, -EINVAL (NULL @fp or @r), -errno when @path cannot be
 * stat'ed (nothing printed, as perf), -EBADMSG (stream only, see above),
 * -EIO when @fp fails, -ENOMEM, or the error of reading the stream.
 * pcl_last_error() has the message. Not thread-safe against other users
 * of @r.
 */
PCL_API int pcl_header__print(FILE *fp, struct pcl_data_reader *r, const char *path,
			      unsigned int flags);

/* One field of an attr: its name in perf's words, its value as perf prints it. */
typedef void (*pcl_attr_field_fn)(void *ctx, const char *name, const char *val);

/*
 * The fields of @attr that perf prints (perf_event_attr__fprintf: the
 * non-zero ones, in its order, sample_type and friends as "IP|TID|..."),
 * each given to @fn. EVENT_DESC's "# event :" lines are made this way.
 */
PCL_API void pcl_header__attr_fields(const struct perf_event_attr *attr, pcl_attr_field_fn fn,
				     void *ctx);

/*
 * The name perf shows for event @a: its name from the file, else the
 * generic event's name with perf's modifiers (":u", ":ppp"...) in @buf,
 * else "unknown". Returns @a's name, @buf or a static string.
 */
PCL_API const char *pcl_header__event_name(const struct pcl_data_attr *a, char *buf, size_t len);

/* perf's name of feature @feat ("HOSTNAME", "CPU_TOPOLOGY"...), or NULL. Static. */
PCL_API const char *pcl_header__feature_name(int feat);

#ifdef __cplusplus
}
#endif
#endif
