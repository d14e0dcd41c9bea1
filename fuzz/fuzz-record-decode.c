/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the record decoder (pcl_record_decode and its
 * helpers), which reads records straight from the kernel's ring buffer
 * and from perf.data files.
 *
 * Input: a 32-byte prefix with the attr fields the decoder depends on,
 * then the record (perf_event_header first), all little-endian:
 *
 *    0  u32  attr.sample_type
 *    4  u32  attr.branch_sample_type
 *    8  u8   attr.read_format
 *    9  u8   flags: bit 0 attr.sample_id_all;
 *                   bit 1 set header.size to the record's length;
 *                   bit 2 dump it as perf report -D (else as script -D)
 *   10  u8[6] ignored
 *   16  u64  attr.sample_regs_user
 *   24  u64  attr.sample_regs_intr
 *   32  the record
 *
 * The record is copied into a malloc of exactly the size the decoder may
 * read (header.size when it fits the input, else the whole input), so
 * that a read past it is an ASan report. Besides what ASan and UBSan
 * catch, it checks the contracts of include/pcl/record.h and traps when
 * one is broken:
 *   - the return value is 0, -EINVAL exactly when the size is below a
 *     header or above what is readable, else -EBADMSG;
 *   - on success every pointer of the result lies inside the record with
 *     the size the result claims, strings end inside it, and every byte
 *     of them is read (so ASan checks those bounds too);
 *   - decoding is a pure function: twice gives the same result;
 *   - pcl_record_identifier() agrees with the decoded id;
 *   - pcl_dump__record (-D) prints any record, decoded or not, without error.
 * tests/unit/test-record.c writes its records in this format
 * (PCL_RECORD_CORPUS=DIR): the seeds in fuzz/corpus/record-decode/.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <pcl/pcl.h>
#include <pcl/record.h>

#define PREFIX 32

#include "fuzz.h"

static volatile uint8_t sink;

/*
 * pcl_dump__record (-D) on the record: it reads the bytes of perf's own
 * records (ID_INDEX, THREAD_MAP, CPU_MAP) itself, and a sample's decoded
 * fields. Printed to /dev/null; it must succeed.
 */
static void dump(const struct perf_event_header *h, const struct perf_event_attr *attr,
		 const struct pcl_record *rec, uint8_t flags)
{
	static FILE *null;
	struct pcl_data_attr da = { .attr = *attr };
	struct pcl_dump_record d = {
		.path = "fuzz",
		.offset = 0x100,
		.hdr = h,
		.rec = rec,
		.attr = rec ? &da : NULL,
		.sample_type = attr->sample_type,
		.sample_id_all = attr->sample_id_all,
		.report = flags & 4,
	};

	if (!null)
		null = fopen("/dev/null", "w");
	if (null)
		require(pcl_dump__record(null, &d) == 0);
}

/* @p[0..n) lies in the record's body; read all of it. */
static void touch(const struct perf_event_header *h, const void *p, uint64_t n)
{
	const uint8_t *b = (const uint8_t *)h, *q = p;
	uint8_t x = 0;

	if (!n)
		return;
	require(q != NULL);
	require(q >= b + sizeof(*h) && q <= b + h->size);
	require(n <= (uint64_t)(b + h->size - q));
	for (uint64_t i = 0; i < n; i++)
		x ^= q[i];
	sink ^= x;
}

static void touch_str(const struct perf_event_header *h, const char *s)
{
	const uint8_t *b = (const uint8_t *)h, *q = (const uint8_t *)s;

	require(s != NULL);
	require(q >= b + sizeof(*h) && q < b + h->size);
	require(memchr(s, '\0', (size_t)(b + h->size - q)));
	touch(h, s, strlen(s) + 1);
}

static void touch_read(const struct perf_event_header *h, const struct pcl_read *r, uint64_t fmt)
{
	uint64_t words;

	require(r->raw != NULL);
	require(r->stride == 1 + !!(fmt & PERF_FORMAT_ID) + !!(fmt & PERF_FORMAT_LOST));
	if (fmt & PERF_FORMAT_GROUP) {
		words = r->nr * (uint64_t)r->stride;
	} else {
		require(r->nr == 1);
		words = 1 + !!(fmt & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			!!(fmt & PERF_FORMAT_TOTAL_TIME_RUNNING) + (uint64_t)r->stride - 1;
	}
	require(r->nr <= h->size / 8);
	touch(h, r->raw, words * 8);
	for (uint64_t i = 0; i <= r->nr; i++) {
		struct pcl_read_value v = pcl_read__value(r, i, fmt);

		sink ^= (uint8_t)(v.value ^ v.id ^ v.lost);
		if (i == r->nr)
			require(!v.value && !v.id && !v.lost);
	}
}

static void touch_sample(const struct perf_event_header *h, const struct perf_event_attr *a,
			 const struct pcl_record *r)
{
	const struct pcl_sample *s = &r->sample;
	uint64_t st = a->sample_type;

	require(s->sample_type == st);
	if (st & PERF_SAMPLE_READ)
		touch_read(h, &s->read, a->read_format);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		require(s->nr_callchain <= h->size / 8);
		touch(h, s->callchain, s->nr_callchain * 8);
	}
	if (st & PERF_SAMPLE_RAW)
		touch(h, s->raw, s->raw_size);
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		require(s->nr_branches <= h->size / sizeof(struct perf_branch_entry));
		touch(h, s->branches, s->nr_branches * sizeof(struct perf_branch_entry));
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		if (s->user_abi)
			touch(h, s->user_regs,
			      8 * (uint64_t)__builtin_popcountll(a->sample_regs_user));
		else
			require(s->user_regs == NULL);
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		touch(h, s->user_stack, s->user_stack_size);
		require(s->user_stack_dyn_size <= s->user_stack_size);
	}
	if (st & PERF_SAMPLE_REGS_INTR) {
		if (s->intr_abi)
			touch(h, s->intr_regs,
			      8 * (uint64_t)__builtin_popcountll(a->sample_regs_intr));
		else
			require(s->intr_regs == NULL);
	}
	if (st & PERF_SAMPLE_AUX)
		touch(h, s->aux, s->aux_size);
	/* the id block repeats the sample's own fields */
	require(r->id.pid == s->pid && r->id.tid == s->tid && r->id.time == s->time);
	require(r->id.stream_id == s->stream_id && r->id.cpu == s->cpu);
	require(r->id.id == (st & PERF_SAMPLE_IDENTIFIER ? s->identifier : s->id));
}

static void touch_record(const struct perf_event_header *h, const struct perf_event_attr *a,
			 const struct pcl_record *r)
{
	require(r->type == h->type && r->misc == h->misc && r->size == h->size);
	switch (r->type) {
	case PERF_RECORD_SAMPLE:
		touch_sample(h, a, r);
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		touch_str(h, r->mmap.filename);
		require(r->mmap.build_id_size <= sizeof(r->mmap.build_id));
		break;
	case PERF_RECORD_COMM:
		touch_str(h, r->comm.comm);
		break;
	case PERF_RECORD_READ:
		touch_read(h, &r->read.values, a->read_format);
		break;
	case PERF_RECORD_NAMESPACES:
		require(r->namespaces.nr <= h->size / sizeof(struct perf_ns_link_info));
		touch(h, r->namespaces.links, r->namespaces.nr * sizeof(struct perf_ns_link_info));
		break;
	case PERF_RECORD_KSYMBOL:
		touch_str(h, r->ksymbol.name);
		break;
	case PERF_RECORD_BPF_EVENT:
		touch(h, r->bpf_event.tag, 8);
		break;
	case PERF_RECORD_CGROUP:
		touch_str(h, r->cgroup.path);
		break;
	case PERF_RECORD_TEXT_POKE:
		touch(h, r->text_poke.bytes, (uint64_t)r->text_poke.old_len + r->text_poke.new_len);
		break;
	default:
		if (r->type >= PERF_RECORD_MAX) {
			require(r->unknown.size <= h->size - sizeof(*h));
			touch(h, r->unknown.data, r->unknown.size);
		}
		break;
	}
	/* the id the decoder found is the one pcl_record_identifier() finds */
	if (a->sample_id_all && (a->sample_type & PERF_SAMPLE_IDENTIFIER) && r->type < PERF_RECORD_MAX &&
	    (r->type == PERF_RECORD_SAMPLE || r->has_id))
		require(pcl_record_identifier(h, h->size, true) == r->id.id);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perf_event_attr a = { .size = sizeof(a) };
	struct pcl_record r1, r2;
	struct perf_event_header *h;
	size_t len, alloc;
	uint32_t st, bst;
	uint16_t hsize;
	uint8_t flags;
	int ret;

	if (size < PREFIX)
		return 0;
	memcpy(&st, data, 4);
	memcpy(&bst, data + 4, 4);
	a.sample_type = st;
	a.branch_sample_type = bst;
	a.read_format = data[8];
	flags = data[9];
	a.sample_id_all = flags & 1;
	memcpy(&a.sample_regs_user, data + 16, 8);
	memcpy(&a.sample_regs_intr, data + 24, 8);
	data += PREFIX;
	len = size - PREFIX;
	if (len > 65535)
		len = 65535;

	/* the readable bytes: header.size of them when it fits, else all */
	hsize = 0;
	if (len >= sizeof(*h)) {
		if (flags & 2)
			hsize = (uint16_t)len;
		else
			memcpy(&hsize, data + offsetof(struct perf_event_header, size), 2);
	}
	alloc = len >= sizeof(*h) && hsize >= sizeof(*h) && hsize <= len ? hsize : len;
	h = malloc(alloc ? alloc : 1);
	if (!h)
		return 0;
	memcpy(h, data, alloc);
	if (alloc >= sizeof(*h))
		h->size = hsize;

	ret = pcl_record_decode(h, alloc, &a, &r1);
	if (alloc < sizeof(*h) || hsize < sizeof(*h) || hsize > alloc) {
		require(ret == -EINVAL);
	} else {
		require(ret == 0 || ret == -EBADMSG);
		require(pcl_record_decode(h, alloc, &a, &r2) == ret);
		if (ret == 0) {
			require(!memcmp(&r1, &r2, sizeof(r1)));
			touch_record(h, &a, &r1);
		}
	}
	sink ^= (uint8_t)pcl_record_identifier(h, alloc, a.sample_id_all);
	sink ^= (uint8_t)pcl_record_identifier(h, alloc, !a.sample_id_all);
	if (alloc >= sizeof(*h))
		require(pcl_record_type_name(h->type) != NULL);
	/* -D's dump of any well-sized record: with its decoding, or its bytes alone */
	if (alloc >= sizeof(*h) && hsize >= sizeof(*h) && hsize <= alloc)
		dump(h, &a, ret == 0 ? &r1 : NULL, flags);
	free(h);
	return 0;
}
