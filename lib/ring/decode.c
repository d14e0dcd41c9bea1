/* SPDX-License-Identifier: MIT */
/*
 * Decoding of PERF_RECORD_* records and of every sample_type field.
 *
 * A cursor walks the record's body with every read checked against the
 * bytes the record's header.size allows (itself checked against what the
 * caller can read): a record that lies about a length fails with -EBADMSG
 * and nothing past it is touched. Field order is the manual's (seed 003,
 * "MMAP layout", PERF_RECORD_SAMPLE) and the sample_id_all trailer's.
 */
#include <string.h>
#include "internal.h"

/* Record types from here on are perf's own, written to files, never by the kernel. */


struct cursor {
	const uint8_t *p, *end;
	bool bad;
};

static const void *take(struct cursor *c, size_t n)
{
	const void *at = c->p;

	if (c->bad || n > (size_t)(c->end - c->p)) {
		c->bad = true;
		return NULL;
	}
	c->p += n;
	return at;
}

static uint64_t u64(struct cursor *c)
{
	uint64_t v = 0;
	const void *at = take(c, 8);

	if (at)
		memcpy(&v, at, 8);
	return v;
}

/* Two u32 packed in one u64 word, the first in the low half (little end first). */
static void u32x2(struct cursor *c, uint32_t *a, uint32_t *b)
{
	const void *at = take(c, 8);
	uint32_t v[2] = { 0, 0 };

	if (at)
		memcpy(v, at, 8);
	*a = v[0];
	*b = v[1];
}

/* n u64 words in place; NULL when they do not fit (or n is absurd). */
static const uint64_t *words(struct cursor *c, uint64_t n)
{
	if (n > (uint64_t)(c->end - c->p) / 8) {
		c->bad = true;
		return NULL;
	}
	return take(c, (size_t)n * 8);
}

/* A NUL-terminated string that must end inside @len bytes. */
static const char *string(struct cursor *c, size_t len)
{
	const char *s = take(c, len);

	if (s && !memchr(s, '\0', len)) {
		c->bad = true;
		return NULL;
	}
	return s;
}

/* A string running to the end of the body (the trailer is already cut off). */
static const char *string_rest(struct cursor *c)
{
	return string(c, (size_t)(c->end - c->p));
}

static int popcount64(uint64_t v)
{
	return __builtin_popcountll(v);
}

static void read_block(struct cursor *c, uint64_t fmt, struct pcl_read *r)
{
	r->stride = 1 + !!(fmt & PERF_FORMAT_ID) + !!(fmt & PERF_FORMAT_LOST);
	if (fmt & PERF_FORMAT_GROUP) {
		r->nr = u64(c);
		if (fmt & PERF_FORMAT_TOTAL_TIME_ENABLED)
			r->time_enabled = u64(c);
		if (fmt & PERF_FORMAT_TOTAL_TIME_RUNNING)
			r->time_running = u64(c);
		if (r->nr > (uint64_t)(c->end - c->p) / 8 / (uint64_t)r->stride)
			c->bad = true;
		else
			r->raw = words(c, r->nr * (uint64_t)r->stride);
		return;
	}
	/* { value, [enabled], [running], [id], [lost] }: times come between value and id */
	r->nr = 1;
	r->raw = words(c, 1);
	if (fmt & PERF_FORMAT_TOTAL_TIME_ENABLED)
		r->time_enabled = u64(c);
	if (fmt & PERF_FORMAT_TOTAL_TIME_RUNNING)
		r->time_running = u64(c);
	/* id and lost follow the times; pcl_read__value() finds them there */
	if (r->stride > 1)
		words(c, (uint64_t)r->stride - 1);
}

PCL_API struct pcl_read_value pcl_read__value(const struct pcl_read *r, uint64_t i, uint64_t fmt)
{
	struct pcl_read_value v = { 0 };
	const uint64_t *w;
	int k = 1;

	if (!r || !r->raw || i >= r->nr)
		return v;
	if (fmt & PERF_FORMAT_GROUP) {
		w = r->raw + i * (uint64_t)r->stride;
		v.value = w[0];
	} else {
		/* the single value's id and lost sit after the times */
		int times = !!(fmt & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			    !!(fmt & PERF_FORMAT_TOTAL_TIME_RUNNING);

		v.value = r->raw[0];
		w = r->raw + times;
	}
	if (fmt & PERF_FORMAT_ID)
		v.id = w[k++];
	if (fmt & PERF_FORMAT_LOST)
		v.lost = w[k];
	return v;
}

static void sample_id(struct cursor *c, uint64_t st, struct pcl_sample_id *id)
{
	if (st & PERF_SAMPLE_TID)
		u32x2(c, &id->pid, &id->tid);
	if (st & PERF_SAMPLE_TIME)
		id->time = u64(c);
	if (st & PERF_SAMPLE_ID)
		id->id = u64(c);
	if (st & PERF_SAMPLE_STREAM_ID)
		id->stream_id = u64(c);
	if (st & PERF_SAMPLE_CPU)
		u32x2(c, &id->cpu, &id->res);
	if (st & PERF_SAMPLE_IDENTIFIER)
		id->id = u64(c);
}

/* Bytes of the sample_id_all trailer for @attr. */
static size_t trailer_size(const struct perf_event_attr *attr)
{
	uint64_t st = attr->sample_type;

	if (!attr->sample_id_all)
		return 0;
	return 8 * (size_t)(!!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) +
			    !!(st & PERF_SAMPLE_ID) + !!(st & PERF_SAMPLE_STREAM_ID) +
			    !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_IDENTIFIER));
}

static void sample_regs(struct cursor *c, uint64_t mask, uint64_t *abi, const uint64_t **regs)
{
	*abi = u64(c);
	if (*abi)
		*regs = words(c, (uint64_t)popcount64(mask));
}

static void sample_tail(struct cursor *c, const struct perf_event_attr *a, struct pcl_sample *s)
{
	uint64_t st = a->sample_type;

	if (st & PERF_SAMPLE_REGS_USER)
		sample_regs(c, a->sample_regs_user, &s->user_abi, &s->user_regs);
	if (st & PERF_SAMPLE_STACK_USER) {
		s->user_stack_size = u64(c);
		/* the kernel dumps whole words; anything else would misalign what follows */
		if (s->user_stack_size & 7)
			c->bad = true;
		if (s->user_stack_size && !c->bad) {
			s->user_stack = take(c, (size_t)s->user_stack_size);
			s->user_stack_dyn_size = u64(c);
			if (s->user_stack_dyn_size > s->user_stack_size)
				c->bad = true;
		}
	}
	if (st & PERF_SAMPLE_WEIGHT)
		s->weight = u64(c);
	if (st & PERF_SAMPLE_WEIGHT_STRUCT) {
		uint32_t w[2];

		u32x2(c, &w[0], &w[1]);
		s->weight = w[0];
		s->weight_var2 = w[1] & 0xffff;
		s->weight_var3 = w[1] >> 16;
	}
	if (st & PERF_SAMPLE_DATA_SRC)
		s->data_src = u64(c);
	if (st & PERF_SAMPLE_TRANSACTION)
		s->transaction = u64(c);
	if (st & PERF_SAMPLE_REGS_INTR)
		sample_regs(c, a->sample_regs_intr, &s->intr_abi, &s->intr_regs);
	if (st & PERF_SAMPLE_PHYS_ADDR)
		s->phys_addr = u64(c);
	if (st & PERF_SAMPLE_CGROUP)
		s->cgroup = u64(c);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		s->data_page_size = u64(c);
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		s->code_page_size = u64(c);
	if (st & PERF_SAMPLE_AUX) {
		s->aux_size = u64(c);
		s->aux = take(c, (size_t)s->aux_size);
	}
}

static void decode_sample(struct cursor *c, const struct perf_event_attr *a, struct pcl_record *r)
{
	struct pcl_sample *s = &r->sample;
	uint64_t st = a->sample_type;

	s->sample_type = st;
	if (st & PERF_SAMPLE_IDENTIFIER)
		s->identifier = u64(c);
	if (st & PERF_SAMPLE_IP)
		s->ip = u64(c);
	if (st & PERF_SAMPLE_TID)
		u32x2(c, &s->pid, &s->tid);
	if (st & PERF_SAMPLE_TIME)
		s->time = u64(c);
	if (st & PERF_SAMPLE_ADDR)
		s->addr = u64(c);
	if (st & PERF_SAMPLE_ID)
		s->id = u64(c);
	if (st & PERF_SAMPLE_STREAM_ID)
		s->stream_id = u64(c);
	if (st & PERF_SAMPLE_CPU)
		u32x2(c, &s->cpu, &s->res);
	/* without PERF_SAMPLE_PERIOD every sample weighs the fixed period (perf's reading too) */
	s->period = a->freq ? 0 : a->sample_period;
	if (st & PERF_SAMPLE_PERIOD)
		s->period = u64(c);
	if (st & PERF_SAMPLE_READ)
		read_block(c, a->read_format, &s->read);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		s->nr_callchain = u64(c);
		s->callchain = words(c, s->nr_callchain);
	}
	if (st & PERF_SAMPLE_RAW) {
		const void *size = take(c, 4);

		s->raw_size = 0;
		if (size)
			memcpy(&s->raw_size, size, 4);
		s->raw = take(c, s->raw_size);
		/* the u32 size and the data are padded together to 8 bytes */
		take(c, (8 - ((4 + (size_t)s->raw_size) & 7)) & 7);
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		s->nr_branches = u64(c);
		if (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			s->branch_hw_idx = u64(c);
		if (s->nr_branches > (uint64_t)(c->end - c->p) / sizeof(struct perf_branch_entry))
			c->bad = true;
		else
			s->branches =
				take(c, (size_t)s->nr_branches * sizeof(struct perf_branch_entry));
	}
	sample_tail(c, a, s);
	r->id.pid = s->pid;
	r->id.tid = s->tid;
	r->id.time = s->time;
	r->id.id = (st & PERF_SAMPLE_IDENTIFIER) ? s->identifier : s->id;
	r->id.stream_id = s->stream_id;
	r->id.cpu = s->cpu;
	r->id.res = s->res;
	r->has_id = true;
}

static void decode_mmap(struct cursor *c, struct pcl_record *r)
{
	u32x2(c, &r->mmap.pid, &r->mmap.tid);
	r->mmap.addr = u64(c);
	r->mmap.len = u64(c);
	r->mmap.pgoff = u64(c);
	if (r->type == PERF_RECORD_MMAP2) {
		if (r->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			const uint8_t *b = take(c, 24);

			if (b) {
				r->mmap.build_id_size = b[0] > 20 ? 20 : b[0];
				memcpy(r->mmap.build_id, b + 4, 20);
			}
		} else {
			u32x2(c, &r->mmap.maj, &r->mmap.min);
			r->mmap.ino = u64(c);
			r->mmap.ino_generation = u64(c);
		}
		u32x2(c, &r->mmap.prot, &r->mmap.flags);
	}
	r->mmap.filename = string_rest(c);
}

static void decode_body(struct cursor *c, const struct perf_event_attr *a, struct pcl_record *r)
{
	switch (r->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		decode_mmap(c, r);
		break;
	case PERF_RECORD_COMM:
		u32x2(c, &r->comm.pid, &r->comm.tid);
		r->comm.comm = string_rest(c);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		u32x2(c, &r->task.pid, &r->task.ppid);
		u32x2(c, &r->task.tid, &r->task.ptid);
		r->task.time = u64(c);
		break;
	case PERF_RECORD_LOST:
		r->lost.id = u64(c);
		r->lost.lost = u64(c);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		r->lost_samples.lost = u64(c);
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		r->throttle.time = u64(c);
		r->throttle.id = u64(c);
		r->throttle.stream_id = u64(c);
		break;
	case PERF_RECORD_READ:
		u32x2(c, &r->read.pid, &r->read.tid);
		read_block(c, a->read_format, &r->read.values);
		break;
	case PERF_RECORD_AUX:
		r->aux.aux_offset = u64(c);
		r->aux.aux_size = u64(c);
		r->aux.flags = u64(c);
		break;
	case PERF_RECORD_ITRACE_START:
		u32x2(c, &r->itrace_start.pid, &r->itrace_start.tid);
		break;
	case PERF_RECORD_SWITCH:
		break;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		u32x2(c, &r->context_switch.next_prev_pid, &r->context_switch.next_prev_tid);
		break;
	case PERF_RECORD_NAMESPACES:
		u32x2(c, &r->namespaces.pid, &r->namespaces.tid);
		r->namespaces.nr = u64(c);
		if (r->namespaces.nr > (uint64_t)(c->end - c->p) / sizeof(struct perf_ns_link_info))
			c->bad = true;
		else
			r->namespaces.links = take(c, (size_t)r->namespaces.nr *
							      sizeof(struct perf_ns_link_info));
		break;
	case PERF_RECORD_KSYMBOL: {
		const uint8_t *w;

		r->ksymbol.addr = u64(c);
		w = take(c, 8);
		if (w) {
			memcpy(&r->ksymbol.len, w, 4);
			memcpy(&r->ksymbol.ksym_type, w + 4, 2);
			memcpy(&r->ksymbol.flags, w + 6, 2);
		}
		r->ksymbol.name = string_rest(c);
		break;
	}
	case PERF_RECORD_BPF_EVENT: {
		const uint8_t *w = take(c, 8);

		if (w) {
			memcpy(&r->bpf_event.type, w, 2);
			memcpy(&r->bpf_event.flags, w + 2, 2);
			memcpy(&r->bpf_event.id, w + 4, 4);
		}
		r->bpf_event.tag = take(c, 8);
		break;
	}
	case PERF_RECORD_CGROUP:
		r->cgroup.id = u64(c);
		r->cgroup.path = string_rest(c);
		break;
	case PERF_RECORD_TEXT_POKE: {
		const uint8_t *w;

		r->text_poke.addr = u64(c);
		w = take(c, 4);
		if (w) {
			memcpy(&r->text_poke.old_len, w, 2);
			memcpy(&r->text_poke.new_len, w + 2, 2);
		}
		r->text_poke.bytes = take(c, (size_t)r->text_poke.old_len + r->text_poke.new_len);
		/* padding to 8 bytes follows; the trailer is read from the end */
		break;
	}
	case PERF_RECORD_AUX_OUTPUT_HW_ID:
		r->aux_output_hw_id.hw_id = u64(c);
		break;
	default:
		r->unknown.data = c->p;
		r->unknown.size = (uint32_t)(c->end - c->p);
		c->p = c->end;
		break;
	}
}

PCL_API int pcl_record_decode(const struct perf_event_header *hdr, size_t avail,
			      const struct perf_event_attr *attr, struct pcl_record *out)
{
	struct cursor c;
	size_t tsize;

	if (!hdr || !attr || !out || avail < sizeof(*hdr) || hdr->size < sizeof(*hdr) ||
	    hdr->size > avail)
		return pcl_err(EINVAL, "pcl_record_decode: invalid argument");
	memset(out, 0, sizeof(*out));
	out->type = hdr->type;
	out->misc = hdr->misc;
	out->size = hdr->size;
	c.p = (const uint8_t *)(hdr + 1);
	c.end = (const uint8_t *)hdr + hdr->size;
	c.bad = false;
	if (hdr->type == PERF_RECORD_SAMPLE) {
		decode_sample(&c, attr, out);
		return c.bad ? -EBADMSG : 0;
	}
	/* the trailer sits at the very end of kernel records; perf's own types have none */
	tsize = hdr->type < PCL_RECORD_USER_TYPE_START ? trailer_size(attr) : 0;
	if (tsize) {
		struct cursor t = { .p = c.end - tsize, .end = c.end };

		if ((size_t)(c.end - c.p) < tsize)
			return pcl_err(EBADMSG, "pcl_record_decode: malformed record");
		sample_id(&t, attr->sample_type, &out->id);
		out->has_id = true;
		c.end -= tsize;
	}
	decode_body(&c, attr, out);
	return c.bad ? -EBADMSG : 0;
}

PCL_API uint64_t pcl_record_identifier(const struct perf_event_header *hdr, size_t avail,
				       bool sample_id_all)
{
	uint64_t id;

	if (!hdr || avail < sizeof(*hdr) || hdr->size > avail || hdr->size < sizeof(*hdr) + 8)
		return 0;
	if (hdr->type == PERF_RECORD_SAMPLE) {
		memcpy(&id, hdr + 1, 8);
		return id;
	}
	if (!sample_id_all || hdr->type >= PCL_RECORD_USER_TYPE_START)
		return 0;
	memcpy(&id, (const uint8_t *)hdr + hdr->size - 8, 8);
	return id;
}

PCL_API const char *pcl_record_type_name(uint32_t type)
{
	static const char *const names[] = {
		[PERF_RECORD_MMAP] = "MMAP",
		[PERF_RECORD_LOST] = "LOST",
		[PERF_RECORD_COMM] = "COMM",
		[PERF_RECORD_EXIT] = "EXIT",
		[PERF_RECORD_THROTTLE] = "THROTTLE",
		[PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE",
		[PERF_RECORD_FORK] = "FORK",
		[PERF_RECORD_READ] = "READ",
		[PERF_RECORD_SAMPLE] = "SAMPLE",
		[PERF_RECORD_MMAP2] = "MMAP2",
		[PERF_RECORD_AUX] = "AUX",
		[PERF_RECORD_ITRACE_START] = "ITRACE_START",
		[PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES",
		[PERF_RECORD_SWITCH] = "SWITCH",
		[PERF_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
		[PERF_RECORD_NAMESPACES] = "NAMESPACES",
		[PERF_RECORD_KSYMBOL] = "KSYMBOL",
		[PERF_RECORD_BPF_EVENT] = "BPF_EVENT",
		[PERF_RECORD_CGROUP] = "CGROUP",
		[PERF_RECORD_TEXT_POKE] = "TEXT_POKE",
		[PERF_RECORD_AUX_OUTPUT_HW_ID] = "AUX_OUTPUT_HW_ID",
		/* perf's own records, as perf report --stats names them */
		[PCL_RECORD_HEADER_ATTR] = "ATTR",
		[PCL_RECORD_HEADER_EVENT_TYPE] = "EVENT_TYPE",
		[PCL_RECORD_HEADER_TRACING_DATA] = "TRACING_DATA",
		[PCL_RECORD_HEADER_BUILD_ID] = "BUILD_ID",
		[PCL_RECORD_FINISHED_ROUND] = "FINISHED_ROUND",
		[PCL_RECORD_ID_INDEX] = "ID_INDEX",
		[PCL_RECORD_AUXTRACE_INFO] = "AUXTRACE_INFO",
		[PCL_RECORD_AUXTRACE] = "AUXTRACE",
		[PCL_RECORD_AUXTRACE_ERROR] = "AUXTRACE_ERROR",
		[PCL_RECORD_THREAD_MAP] = "THREAD_MAP",
		[PCL_RECORD_CPU_MAP] = "CPU_MAP",
		[PCL_RECORD_STAT_CONFIG] = "STAT_CONFIG",
		[PCL_RECORD_STAT] = "STAT",
		[PCL_RECORD_STAT_ROUND] = "STAT_ROUND",
		[PCL_RECORD_EVENT_UPDATE] = "EVENT_UPDATE",
		[PCL_RECORD_TIME_CONV] = "TIME_CONV",
		[PCL_RECORD_HEADER_FEATURE] = "FEATURE",
		[PCL_RECORD_COMPRESSED] = "COMPRESSED",
		[PCL_RECORD_FINISHED_INIT] = "FINISHED_INIT",
	};

	return type < ARRAY_SIZE(names) && names[type] ? names[type] : "UNKNOWN";
}
