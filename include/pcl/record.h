/* SPDX-License-Identifier: MIT */
/*
 * Decoding of every PERF_RECORD_* type of this kernel's perf_event.h and of
 * every sample_type field, as perf_event_open(2) lays them out.
 *
 * Decoding is a pure function of the record's bytes and the attr of the
 * event that wrote it: nothing is read but the record, every length is
 * checked against the record's size before use, and pointers in the result
 * point into the record (valid as long as its bytes are).
 */
#ifndef PCL_RECORD_H
#define PCL_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include <pcl/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The sample_id_all trailer (and the matching fields of a sample). */
struct pcl_sample_id {
	uint32_t pid, tid;
	uint64_t time;
	uint64_t id;
	uint64_t stream_id;
	uint32_t cpu, res;
};

/* One value of a read_format block. */
struct pcl_read_value {
	uint64_t value;
	uint64_t id;   /* with PERF_FORMAT_ID, else 0 */
	uint64_t lost; /* with PERF_FORMAT_LOST, else 0 */
};

/* A read_format block: one value, or a group's (PERF_FORMAT_GROUP). */
struct pcl_read {
	uint64_t nr; /* values; 1 without GROUP */
	uint64_t time_enabled;
	uint64_t time_running;
	const uint64_t *raw; /* the values in the record, stride words each */
	int stride;	     /* words per value: 1 + ID + LOST */
};
/* Value @i (0 <= i < nr) of a read block. */
PCL_API struct pcl_read_value pcl_read__value(const struct pcl_read *r, uint64_t i,
					      uint64_t read_format);

/* A PERF_RECORD_SAMPLE; each field is set when its sample_type bit is. */
struct pcl_sample {
	uint64_t sample_type; /* which fields below are valid */
	uint64_t identifier;  /* PERF_SAMPLE_IDENTIFIER */
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t id;
	uint64_t stream_id;
	uint32_t cpu, res;
	uint64_t period;      /* without PERF_SAMPLE_PERIOD: the attr's fixed sample_period (0 with freq) */
	struct pcl_read read;
	uint64_t nr_callchain; /* with the PERF_CONTEXT_* markers in the chain */
	const uint64_t *callchain;
	uint32_t raw_size;
	const void *raw;
	uint64_t nr_branches;
	uint64_t branch_hw_idx; /* with PERF_SAMPLE_BRANCH_HW_INDEX */
	const struct perf_branch_entry *branches;
	uint64_t user_abi;	   /* PERF_SAMPLE_REGS_ABI_*; 0 = no registers */
	const uint64_t *user_regs; /* one per bit of attr.sample_regs_user */
	uint64_t user_stack_size;
	const void *user_stack;
	uint64_t user_stack_dyn_size;
	uint64_t weight;		   /* PERF_SAMPLE_WEIGHT, or WEIGHT_STRUCT's var1_dw */
	uint32_t weight_var2, weight_var3; /* WEIGHT_STRUCT */
	uint64_t data_src;
	uint64_t transaction;
	uint64_t intr_abi;
	const uint64_t *intr_regs; /* one per bit of attr.sample_regs_intr */
	uint64_t phys_addr;
	uint64_t cgroup;
	uint64_t data_page_size;
	uint64_t code_page_size;
	uint64_t aux_size;
	const void *aux;
};

/* A decoded record. */
struct pcl_record {
	uint32_t type;
	uint16_t misc;
	uint16_t size;
	bool has_id; /* the sample_id_all trailer was decoded into id */
	struct pcl_sample_id id;
	/* anonymous: a C11 feature, which __extension__ lets C99 -pedantic users accept */
	__extension__ union {
		struct pcl_sample sample;
		struct {
			uint32_t pid, tid;
			uint64_t addr, len, pgoff;
			uint32_t maj, min; /* MMAP2 without a build id */
			uint64_t ino, ino_generation;
			uint8_t build_id_size; /* MMAP2 with PERF_RECORD_MISC_MMAP_BUILD_ID */
			uint8_t build_id[20];
			uint32_t prot, flags; /* MMAP2 */
			const char *filename; /* NUL-terminated inside the record */
		} mmap;			      /* MMAP and MMAP2 */
		struct {
			uint32_t pid, tid;
			const char *comm;
		} comm;
		struct {
			uint32_t pid, ppid, tid, ptid;
			uint64_t time;
		} task; /* FORK and EXIT */
		struct {
			uint64_t id, lost;
		} lost;
		struct {
			uint64_t lost;
		} lost_samples;
		struct {
			uint64_t time, id, stream_id;
		} throttle; /* THROTTLE and UNTHROTTLE */
		struct {
			uint32_t pid, tid;
			struct pcl_read values;
		} read;
		struct {
			uint64_t aux_offset, aux_size, flags;
		} aux;
		struct {
			uint32_t pid, tid;
		} itrace_start;
		struct {
			uint32_t next_prev_pid, next_prev_tid; /* SWITCH_CPU_WIDE only */
		} context_switch;			       /* SWITCH and SWITCH_CPU_WIDE */
		struct {
			uint32_t pid, tid;
			uint64_t nr;
			const struct perf_ns_link_info *links;
		} namespaces;
		struct {
			uint64_t addr;
			uint32_t len;
			uint16_t ksym_type, flags;
			const char *name;
		} ksymbol;
		struct {
			uint16_t type, flags;
			uint32_t id;
			const uint8_t *tag; /* BPF_TAG_SIZE (8) bytes */
		} bpf_event;
		struct {
			uint64_t id;
			const char *path;
		} cgroup;
		struct {
			uint64_t addr;
			uint16_t old_len, new_len;
			const uint8_t *bytes; /* old_len + new_len bytes */
		} text_poke;
		struct {
			uint64_t hw_id;
		} aux_output_hw_id;
		struct {
			const void *data; /* the body of a type this decoder does not know */
			uint32_t size;
		} unknown;
	};
};

/*
 * Decode the record at @hdr, of which @avail bytes are readable, written by
 * an event with @attr (its sample_type, read_format, sample_id_all,
 * branch_sample_type, sample_regs_user/intr). Returns 0, -EINVAL for a
 * record whose size is below its header or above @avail, -EBADMSG for a
 * record whose fields do not fit its size. Thread-safe.
 */
PCL_API int pcl_record_decode(const struct perf_event_header *hdr, size_t avail,
			      const struct perf_event_attr *attr, struct pcl_record *out);

/*
 * The event id of a record, found without its attr when every attr of the
 * file has PERF_SAMPLE_IDENTIFIER: the first word after a sample's header,
 * the last word of another record's trailer. 0 when it cannot be known.
 */
PCL_API uint64_t pcl_record_identifier(const struct perf_event_header *hdr, size_t avail,
				       bool sample_id_all);

/* "SAMPLE", "MMAP2", ... for a record type (perf's own ones too: "FINISHED_ROUND"...); "UNKNOWN" otherwise. */
PCL_API const char *pcl_record_type_name(uint32_t type);

#ifdef __cplusplus
}
#endif
#endif
