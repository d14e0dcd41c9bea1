/* SPDX-License-Identifier: MIT */
/*
 * The data layer: the perf.data file, as Linux perf reads and writes it
 * (tools/perf/Documentation/perf.data-file-format.txt).
 *
 * File mode: header | attr ids | attrs | data | feature table | features.
 * The header is written first with a data size of 0 and completed only by
 * close(), which also appends the feature sections: a recorder killed by
 * SIGKILL leaves its rounds on disk under a header that says the recording
 * did not finish (perf warns and reads them; so does pcl), and a file with
 * a data size is a file that was closed.
 *
 * Pipe mode ("-"): a 16-byte header, then HEADER_ATTR and HEADER_FEATURE
 * records (and HEADER_TRACING_DATA with its trailing bytes) before the data;
 * build ids go as HEADER_BUILD_ID records at the end. Nothing is seeked.
 *
 * Not thread-safe: a writer belongs to one thread.
 */
#ifndef PCL_DATA_H
#define PCL_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>
#include <pcl/common.h>
#include <pcl/record.h>

#ifdef __cplusplus
extern "C" {
#endif

/* perf's feature bits (the header's adds_features bitmap). */
enum pcl_feature {
	PCL_FEAT_TRACING_DATA = 1,
	PCL_FEAT_BUILD_ID = 2,
	PCL_FEAT_HOSTNAME = 3,
	PCL_FEAT_OSRELEASE = 4,
	PCL_FEAT_VERSION = 5,
	PCL_FEAT_ARCH = 6,
	PCL_FEAT_NRCPUS = 7,
	PCL_FEAT_CPUDESC = 8,
	PCL_FEAT_CPUID = 9,
	PCL_FEAT_TOTAL_MEM = 10,
	PCL_FEAT_CMDLINE = 11,
	PCL_FEAT_EVENT_DESC = 12,
	PCL_FEAT_CPU_TOPOLOGY = 13,
	PCL_FEAT_NUMA_TOPOLOGY = 14,
	PCL_FEAT_BRANCH_STACK = 15,
	PCL_FEAT_PMU_MAPPINGS = 16,
	PCL_FEAT_GROUP_DESC = 17,
	PCL_FEAT_AUXTRACE = 18,
	PCL_FEAT_STAT = 19,
	PCL_FEAT_CACHE = 20,
	PCL_FEAT_SAMPLE_TIME = 21,
	PCL_FEAT_MEM_TOPOLOGY = 22,
	PCL_FEAT_CLOCKID = 23,
	PCL_FEAT_DIR_FORMAT = 24,
	PCL_FEAT_BPF_PROG_INFO = 25,
	PCL_FEAT_BPF_BTF = 26,
	PCL_FEAT_COMPRESSED = 27,
	PCL_FEAT_CPU_PMU_CAPS = 28,
	PCL_FEAT_CLOCK_DATA = 29,
	PCL_FEAT_HYBRID_TOPOLOGY = 30,
	PCL_FEAT_PMU_CAPS = 31,
	PCL_FEAT_MAX = 256,
};

/* perf's own record types, written to files, never by the kernel. */
#define PCL_RECORD_USER_TYPE_START 64
enum pcl_user_record {
	PCL_RECORD_HEADER_ATTR = 64,
	PCL_RECORD_HEADER_EVENT_TYPE = 65,
	PCL_RECORD_HEADER_TRACING_DATA = 66,
	PCL_RECORD_HEADER_BUILD_ID = 67,
	PCL_RECORD_FINISHED_ROUND = 68,
	PCL_RECORD_ID_INDEX = 69,
	PCL_RECORD_AUXTRACE_INFO = 70,
	PCL_RECORD_AUXTRACE = 71,
	PCL_RECORD_AUXTRACE_ERROR = 72,
	PCL_RECORD_THREAD_MAP = 73,
	PCL_RECORD_CPU_MAP = 74,
	PCL_RECORD_STAT_CONFIG = 75,
	PCL_RECORD_STAT = 76,
	PCL_RECORD_STAT_ROUND = 77,
	PCL_RECORD_EVENT_UPDATE = 78,
	PCL_RECORD_TIME_CONV = 79,
	PCL_RECORD_HEADER_FEATURE = 80,
	PCL_RECORD_COMPRESSED = 81,
	PCL_RECORD_FINISHED_INIT = 82,
};

/* One event of the file: its attr, name and the kernel ids of its fds. */
struct pcl_data_attr {
	struct perf_event_attr attr;
	const char *name;
	const uint64_t *ids;
	uint32_t nr_ids;
};

struct pcl_data_writer;

/*
 * Create @path for writing ("-" writes a pipe-mode stream to stdout). An
 * existing non-empty regular file is renamed to @path.old first, as perf
 * does (through a symlink: its target; the link stays). A character device
 * or a FIFO at @path takes a pipe-mode stream and is never renamed or
 * removed; anything else is refused. The @attrs
 * (copied) are written at once. NULL with errno and pcl_last_error().
 */
PCL_API struct pcl_data_writer *
pcl_data_writer__create(const char *path, const struct pcl_data_attr *attrs, int nr_attrs);
/* Whether the writer streams (pipe mode). */
PCL_API bool pcl_data_writer__is_pipe(const struct pcl_data_writer *w);

/* Append one record (its header.size bytes). Buffered. */
PCL_API int pcl_data_writer__write(struct pcl_data_writer *w, const void *record);
/*
 * End a round: write a FINISHED_ROUND record, flush, and (file mode) make
 * the header cover the data on disk.
 */
PCL_API int pcl_data_writer__finish_round(struct pcl_data_writer *w);

/*
 * The bytes of feature section @feat, written at close (file mode) or as a
 * HEADER_FEATURE record at once (pipe mode, where they should come before
 * the first record). Copied.
 */
PCL_API int pcl_data_writer__set_feature(struct pcl_data_writer *w, int feat, const void *data,
					 size_t len);

/* Bytes of records written so far. */
PCL_API uint64_t pcl_data_writer__data_size(const struct pcl_data_writer *w);
/*
 * perf record -z: from now on records go out zstd-compressed at @level
 * (1..22) in PERF_RECORD_COMPRESSED records, and the file gets the
 * COMPRESSED feature. @mmap_len is a ring's mapped size (data pages + 1):
 * no compressed record holds more than its data pages' worth, which is
 * what readers size their buffer by. 0 or -errno.
 */
PCL_API int pcl_data_writer__set_compression(struct pcl_data_writer *w, int level,
					     uint32_t mmap_len);
/* Bytes given to the compressor so far, and the COMPRESSED record bytes it wrote. */
PCL_API void pcl_data_writer__compression(const struct pcl_data_writer *w, uint64_t *transferred,
					  uint64_t *compressed);

/*
 * Flush, append the features, write the final header, close, free. Returns
 * 0 or the first write error (the file is then removed, see abort).
 */
PCL_API int pcl_data_writer__close(struct pcl_data_writer *w);
/*
 * Give up: close and remove the file (a partial file must not look whole);
 * only a regular file this writer made, never a device or a FIFO. NULL-safe.
 */
PCL_API void pcl_data_writer__abort(struct pcl_data_writer *w);

/*
 * Describe this machine and run the way perf record does: hostname,
 * osrelease, version, arch, nrcpus, cpudesc, cpuid, total_mem, cmdline
 * (@argc/@argv), cpu topology and pmu mappings. EVENT_DESC is written from
 * the attrs at close. Returns 0 or -ENOMEM.
 */
PCL_API int pcl_data_writer__add_host_features(struct pcl_data_writer *w, int argc,
					       char *const argv[]);

/*
 * The TRACING_DATA feature for the tracepoints among @attrs (their tracefs
 * format files), which perf needs to read a file with tracepoint events; in
 * pipe mode it is streamed at once, as perf does. 0 (also when there is no
 * tracepoint) or -errno.
 */
PCL_API int pcl_data_writer__add_tracing_data(struct pcl_data_writer *w,
					      const struct perf_event_attr *const *attrs, int nr);

/*
 * One entry of the BUILD_ID feature: @size bytes of build id (at most 20)
 * for @filename, mapped in @pid (-1 for the kernel), user or kernel space.
 */
PCL_API int pcl_data_writer__add_build_id(struct pcl_data_writer *w, int32_t pid, bool kernel,
					  const uint8_t *build_id, uint8_t size,
					  const char *filename);

/*
 * The build id of an ELF file (its NT_GNU_BUILD_ID note, through libelf).
 * Returns the id's size (1..20) with @id filled, or a negative errno
 * (-ENOENT: no such note). Thread-safe.
 */
PCL_API int pcl_build_id_read(const char *path, uint8_t id[20]);
/* The running kernel's build id, from /sys/kernel/notes; size or -errno. */
PCL_API int pcl_build_id_kernel(uint8_t id[20]);

/*
 * Which mapped files got samples, for the BUILD_ID feature: feed it every
 * MMAP, MMAP2, FORK and SAMPLE record as decoded; then write one entry per
 * file with a sample and a readable build id.
 */
struct pcl_dso_hits;
PCL_API struct pcl_dso_hits *pcl_dso_hits__new(void);
PCL_API void pcl_dso_hits__free(struct pcl_dso_hits *h);
PCL_API void pcl_dso_hits__record(struct pcl_dso_hits *h, const struct pcl_record *rec);
/* Entries written, or a negative errno. */
PCL_API int pcl_dso_hits__write_build_ids(struct pcl_dso_hits *h, struct pcl_data_writer *w);

/*
 * Synthesized records for what the kernel will not report: the kernel's
 * map, and the threads (COMM, FORK) and executable maps (MMAP2, from
 * /proc/PID/maps) of a process that already runs. Each record carries the
 * sample_id_all trailer @attr asks for, with @id as its event id, and is
 * handed to @sink (return non-zero to stop).
 */
typedef int (*pcl_record_sink_t)(void *ctx, const struct perf_event_header *rec);
PCL_API int pcl_synthesize_kernel_mmap(const struct perf_event_attr *attr, uint64_t id,
				       pcl_record_sink_t sink, void *ctx);
/* @data_maps: also non-executable file maps (for -d), marked MMAP_DATA. */
PCL_API int pcl_synthesize_process(pid_t pid, const struct perf_event_attr *attr, uint64_t id,
				   bool data_maps, pcl_record_sink_t sink, void *ctx);
/*
 * pcl_synthesize_process for each process of @el's threads once (the
 * process of a thread is its Tgid), or with @el NULL for every process in
 * /proc. A process gone meanwhile is passed over; the first other error
 * (a sink's, -EIO) stops and is returned.
 */
struct pcl_evlist;
PCL_API int pcl_synthesize_processes(const struct pcl_evlist *el,
				     const struct perf_event_attr *attr, uint64_t id,
				     bool data_maps, pcl_record_sink_t sink, void *ctx);

/*
 * Reading a perf.data file or stream ("-" reads stdin). Every number in the
 * file is checked before use: section offsets and sizes against the file,
 * attr sizes against what we know, record sizes against their header and
 * the bytes left. Records come in file order; in pipe mode HEADER_ATTR and
 * HEADER_FEATURE records are absorbed (the attrs and features appear as
 * they arrive) and not returned. Not thread-safe.
 */
struct pcl_data_reader;
PCL_API struct pcl_data_reader *pcl_data_reader__open(const char *path);
PCL_API void pcl_data_reader__close(struct pcl_data_reader *r);
PCL_API bool pcl_data_reader__is_pipe(const struct pcl_data_reader *r);
PCL_API int pcl_data_reader__nr_attrs(const struct pcl_data_reader *r);
/* Attr @i with its ids and its name (from EVENT_DESC, else ""); valid until close. */
PCL_API const struct pcl_data_attr *pcl_data_reader__attr(const struct pcl_data_reader *r, int i);
/* The attr whose ids hold @id, or NULL. */
PCL_API const struct pcl_data_attr *pcl_data_reader__attr_by_id(const struct pcl_data_reader *r,
								uint64_t id);
/* Feature @feat's section (bytes valid until close), or NULL when absent. */
PCL_API const void *pcl_data_reader__feature(const struct pcl_data_reader *r, int feat,
					     size_t *len);
/*
 * The next record (valid until the next call), or NULL at the end or on an
 * error: then errno is 0 at a clean end, EBADMSG for a corrupt record (the
 * message names the offset), EIO for a read error. A file that ends inside
 * a record ends there with pcl_data_reader__truncated() true.
 */
PCL_API const struct perf_event_header *pcl_data_reader__next(struct pcl_data_reader *r);
/* File offset of the record next() returned last. */
PCL_API uint64_t pcl_data_reader__offset(const struct pcl_data_reader *r);
PCL_API bool pcl_data_reader__truncated(const struct pcl_data_reader *r);

/* File mode: where the data and the feature sections are (all 0 for a pipe). */
struct pcl_data_layout {
	uint64_t data_offset, data_size, feat_offset;
	uint64_t features[4]; /* the header's feature bits */
};
PCL_API void pcl_data_reader__layout(const struct pcl_data_reader *r, struct pcl_data_layout *l);

/*
 * How many records of @type next() has read so far, counting those a pipe
 * absorbs and those inside compressed records (types >= 128 count as 0).
 */
PCL_API uint64_t pcl_data_reader__count(const struct pcl_data_reader *r, uint32_t type);

/* How many PERF_RECORD_COMPRESSED records next() has expanded so far. */
PCL_API uint64_t pcl_data_reader__nr_compressed(const struct pcl_data_reader *r);

/*
 * The records of a reader as events: each decoded with the attr of the
 * event that wrote it (found through the id index when the file has more
 * than one), and, when ordered, delivered in timestamp order the way perf
 * does it: records are queued, and at each FINISHED_ROUND those not later
 * than the previous round's newest timestamp are sorted and delivered
 * (FINISHED_INIT and the end deliver all). Records without a timestamp, and
 * perf's own records, pass straight through. Memory holds about two rounds;
 * past a cap, the older half of the queue is delivered early.
 */
struct pcl_data_event {
	const struct perf_event_header *hdr; /* the raw record, valid until the next call */
	const struct pcl_data_attr *attr;    /* its event; NULL for perf's own records */
	int attr_idx;			     /* index of attr, or -1 */
	bool decoded;			     /* rec holds the decoded record */
	struct pcl_record rec;
	uint64_t offset; /* where the record is in the file */
};

/* Counts of what went through, for --stats. */
struct pcl_data_stats {
	uint64_t nr[128]; /* records per type, as pcl_data_reader__count() */
	uint64_t nr_undecodable;  /* kernel records that did not decode (skipped) */
	uint64_t nr_unknown_id;	  /* samples whose id matched no event (skipped) */
	uint64_t nr_unordered;	  /* delivered after a later timestamp had been */
	uint64_t total_lost;	  /* LOST records' lost counts */
	uint64_t total_lost_samples; /* LOST_SAMPLES records */
};

struct pcl_data_events;
/* An event stream over @r (borrowed; it must outlive the stream). NULL with errno. */
PCL_API struct pcl_data_events *pcl_data_events__new(struct pcl_data_reader *r, bool ordered);
PCL_API void pcl_data_events__free(struct pcl_data_events *e);
/*
 * The next event into @ev: 1, 0 at the end, or -errno (-EBADMSG: a corrupt
 * record, the message names its offset). A record that cannot be decoded
 * is counted and skipped, not fatal.
 */
PCL_API int pcl_data_events__next(struct pcl_data_events *e, struct pcl_data_event *ev);
PCL_API const struct pcl_data_stats *pcl_data_events__stats(const struct pcl_data_events *e);
/*
 * Read ahead: from now on a second thread reads, decompresses, orders and
 * decodes @e's events while the caller handles earlier ones, and
 * pcl_data_events__next hands them over in the same order (its records
 * valid until the next call, as before). Call it before the first
 * __next. Until __next has returned 0 or an error, the reader belongs to
 * that thread: call no pcl_data_reader__ function that reads its progress
 * (__offset, __count, __truncated) nor pcl_data_events__stats. Returns 0;
 * -EOPNOTSUPP for a stream (pipe mode: the reader learns its events as it
 * goes), or -errno when no thread can be made: then the events are read
 * on the caller's thread, as without it.
 */
PCL_API int pcl_data_events__prefetch(struct pcl_data_events *e);

/*
 * Strings of a CMDLINE-style feature (u32 n, then n perf strings) into a
 * NULL-terminated array; the caller frees each string and the array.
 * Returns n, -EBADMSG for a malformed section, or -ENOMEM.
 */
PCL_API int pcl_feature_parse_strings(const void *data, size_t len, char ***out);

/* Feature section encoders: a malloc'd buffer in perf's layout; *len set. NULL on ENOMEM. */
PCL_API void *pcl_feature_string(const char *s, size_t *len);
PCL_API void *pcl_feature_strings(const char *const *v, int n, size_t *len);

#ifdef __cplusplus
}
#endif
#endif
