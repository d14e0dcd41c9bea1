/* SPDX-License-Identifier: MIT */
/*
 * perf report --header's description of a perf.data file (contract in
 * include/pcl/header.h).
 *
 * Every feature section is parsed from its raw bytes, in perf's layout,
 * through a cursor that never reads past the section: strings are { u32
 * len; char s[len] } and must hold their NUL, counts are checked against
 * the bytes left before anything is read. A feature prints into a memory
 * stream first and reaches the caller's FILE only when the whole section
 * parsed; a malformed one prints what perf prints when a section does not
 * read at all (its empty values, "# hostname : (null)"), or nothing where
 * perf would print garbage or crash, and the other sections still print.
 *
 * The text is perf 6.1's, with its quirks kept where a perf user sees
 * them: TRANSACTION is missing from the sample_type names, a bit field
 * whose bits have no names repeats the previous field's value (perf's
 * buffer is reused), a cpu list is normalised ("0,1" prints "0-1", "" is
 * the dummy map "-1"), the memory node bitmap is cut at 99 characters.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <pcl/header.h>
#include "internal.h"

/* A section being read: never past end. */
struct cur {
	const uint8_t *p, *end;
};

struct ctx {
	struct pcl_data_reader *r;
	bool full, pipe, is_dir;
	uint64_t features[4]; /* the file header's feature bits (none for a stream) */
};

static size_t left(const struct cur *c)
{
	return (size_t)(c->end - c->p);
}

static bool rd(struct cur *c, void *v, size_t n)
{
	if (left(c) < n)
		return false;
	memcpy(v, c->p, n);
	c->p += n;
	return true;
}

static bool rd_u32(struct cur *c, uint32_t *v)
{
	return rd(c, v, 4);
}

static bool rd_u64(struct cur *c, uint64_t *v)
{
	return rd(c, v, 8);
}

/* A perf string: u32 len, then len bytes holding the string and its NUL. */
static const char *rd_str(struct cur *c)
{
	uint32_t len;
	const char *s;

	if (!rd_u32(c, &len) || len > left(c) || !memchr(c->p, '\0', len))
		return NULL;
	s = (const char *)c->p;
	c->p += len;
	return s;
}

/* The bytes perf counts for a string it read (its string_size()). */
static uint64_t perf_string_size(const char *s)
{
	return ((strlen(s) + 1 + 63) & ~(uint64_t)63) + 4;
}

/* Feature @feat's section; a file's header may list one that the file does not hold. */
static struct cur section(const struct ctx *x, int feat, bool *present)
{
	static const uint8_t none[1];
	size_t len = 0;
	const uint8_t *p = pcl_data_reader__feature(x->r, feat, &len);

	*present = p || (x->features[feat / 64] >> (feat % 64) & 1);
	if (!p)
		return (struct cur){ none, none };
	return (struct cur){ p, p + len };
}

/* ---- the simple features ---- */

static int print_string(FILE *o, struct cur c, const char *label)
{
	const char *s = rd_str(&c);

	if (!s)
		return -EBADMSG;
	fprintf(o, "# %s : %s\n", label, s);
	return 0;
}

static int print_hostname(const struct ctx *x, FILE *o, struct cur c)
{
	(void)x;
	return print_string(o, c, "hostname");
}

static int print_osrelease(const struct ctx *x, FILE *o, struct cur c)
{
	(void)x;
	return print_string(o, c, "os release");
}

static int print_version(const struct ctx *x, FILE *o, struct cur c)
{
	(void)x;
	return print_string(o, c, "perf version");
}

static int print_arch(const struct ctx *x, FILE *o, struct cur c)
{
	(void)x;
	return print_string(o, c, "arch");
}

static int print_cpudesc(const struct ctx *x, FILE *o, struct cur c)
{
	(void)x;
	return print_string(o, c, "cpudesc");
}

static int print_cpuid(const struct ctx *x, FILE *o, struct cur c)
{
	(void)x;
	return print_string(o, c, "cpuid");
}

static int print_nrcpus(const struct ctx *x, FILE *o, struct cur c)
{
	uint32_t avail, online;

	(void)x;
	if (!rd_u32(&c, &avail) || !rd_u32(&c, &online))
		return -EBADMSG;
	fprintf(o, "# nrcpus online : %u\n# nrcpus avail : %u\n", online, avail);
	return 0;
}

static int print_total_mem(const struct ctx *x, FILE *o, struct cur c)
{
	uint64_t kb;

	(void)x;
	if (!rd_u64(&c, &kb))
		return -EBADMSG;
	fprintf(o, "# total memory : %" PRIu64 " kB\n", kb);
	return 0;
}

/* Each argument followed by a space; a quote prints as \'. */
static int print_cmdline(const struct ctx *x, FILE *o, struct cur c)
{
	uint32_t nr;

	(void)x;
	if (!rd_u32(&c, &nr))
		return -EBADMSG;
	fputs("# cmdline : ", o);
	for (uint32_t i = 0; i < nr; i++) {
		const char *s = rd_str(&c);

		if (!s)
			return -EBADMSG;
		for (; *s; s++) {
			if (*s == '\'')
				fputs("\\'", o);
			else
				fputc(*s, o);
		}
		fputc(' ', o);
	}
	fputc('\n', o);
	return 0;
}

static int print_branch_stack(const struct ctx *x, FILE *o, struct cur c)
{
	(void)x;
	(void)c;
	fputs("# contains samples with branch stack\n", o);
	return 0;
}

static int print_auxtrace(const struct ctx *x, FILE *o, struct cur c)
{
	(void)x;
	(void)c;
	fputs("# contains AUX area data (e.g. instruction trace)\n", o);
	return 0;
}

static int print_stat(const struct ctx *x, FILE *o, struct cur c)
{
	(void)x;
	(void)c;
	fputs("# contains stat data\n", o);
	return 0;
}

/* "sec.usec", perf's timestamp__scnprintf_usec. */
static void print_usec(FILE *o, const char *label, uint64_t t)
{
	fprintf(o, "# %s : %" PRIu64 ".%06" PRIu64 "\n", label, t / 1000000000,
		t % 1000000000 / 1000);
}

static int print_sample_time(const struct ctx *x, FILE *o, struct cur c)
{
	uint64_t first, last;

	(void)x;
	if (!rd_u64(&c, &first) || !rd_u64(&c, &last))
		return -EBADMSG;
	print_usec(o, "time of first sample", first);
	print_usec(o, "time of last sample", last);
	fprintf(o, "# sample duration : %10.3f ms\n", (double)(last - first) / 1000000);
	return 0;
}

static int print_clockid(const struct ctx *x, FILE *o, struct cur c)
{
	uint64_t res_ns;

	(void)x;
	if (!rd_u64(&c, &res_ns))
		return -EBADMSG;
	fprintf(o, "# clockid frequency: %" PRIu64 " MHz\n", res_ns * 1000);
	return 0;
}

/* perf shows the version of a directory's data; a plain file reads as 0. */
static int print_dir_format(const struct ctx *x, FILE *o, struct cur c)
{
	uint64_t version = 0;

	if (x->pipe)
		return -EBADMSG; /* perf drops it: a stream is no directory */
	if (x->is_dir && !rd_u64(&c, &version))
		return -EBADMSG;
	fprintf(o, "# directory data version : %" PRIu64 "\n", version);
	return 0;
}

static int print_compressed(const struct ctx *x, FILE *o, struct cur c)
{
	uint32_t v[5]; /* version, type, level, ratio, mmap_len */

	(void)x;
	if (!rd(&c, v, sizeof(v)))
		return -EBADMSG;
	fprintf(o, "# compressed : %s, level = %d, ratio = %d\n", v[1] == 1 ? "Zstd" : "Unknown",
		(int)v[2], (int)v[3]);
	return 0;
}

/* ---- the event descriptions (perf's perf_event_attr__fprintf) ---- */

/* perf_event_attr up to sig_data (PERF_ATTR_SIZE_VER7), as perf 6.1 knows it. */
struct attr7 {
	uint32_t type, size;
	uint64_t config, sample_period, sample_type, read_format, flags;
	uint32_t wakeup_events, bp_type;
	uint64_t config1, config2, branch_sample_type, sample_regs_user;
	uint32_t sample_stack_user;
	int32_t clockid;
	uint64_t sample_regs_intr;
	uint32_t aux_watermark;
	uint16_t sample_max_stack, reserved_2;
	uint32_t aux_sample_size, reserved_3;
	uint64_t sig_data;
};
_Static_assert(sizeof(struct attr7) == 128, "perf_event_attr VER7 is 128 bytes");

struct bit_name {
	uint64_t bit;
	const char *name;
};

/* perf's lists, in its order (not always the bits' order; no TRANSACTION). */
static const struct bit_name sample_type_names[] = {
	{ 1u << 0, "IP" },
	{ 1u << 1, "TID" },
	{ 1u << 2, "TIME" },
	{ 1u << 3, "ADDR" },
	{ 1u << 4, "READ" },
	{ 1u << 5, "CALLCHAIN" },
	{ 1u << 6, "ID" },
	{ 1u << 7, "CPU" },
	{ 1u << 8, "PERIOD" },
	{ 1u << 9, "STREAM_ID" },
	{ 1u << 10, "RAW" },
	{ 1u << 11, "BRANCH_STACK" },
	{ 1u << 12, "REGS_USER" },
	{ 1u << 13, "STACK_USER" },
	{ 1u << 16, "IDENTIFIER" },
	{ 1u << 18, "REGS_INTR" },
	{ 1u << 15, "DATA_SRC" },
	{ 1u << 14, "WEIGHT" },
	{ 1u << 19, "PHYS_ADDR" },
	{ 1u << 20, "AUX" },
	{ 1u << 21, "CGROUP" },
	{ 1u << 22, "DATA_PAGE_SIZE" },
	{ 1u << 23, "CODE_PAGE_SIZE" },
	{ 1u << 24, "WEIGHT_STRUCT" },
	{ 0, NULL },
};

static const struct bit_name branch_type_names[] = {
	{ 1u << 0, "USER" },	   { 1u << 1, "KERNEL" },
	{ 1u << 2, "HV" },	   { 1u << 3, "ANY" },
	{ 1u << 4, "ANY_CALL" },   { 1u << 5, "ANY_RETURN" },
	{ 1u << 6, "IND_CALL" },   { 1u << 7, "ABORT_TX" },
	{ 1u << 8, "IN_TX" },	   { 1u << 9, "NO_TX" },
	{ 1u << 10, "COND" },	   { 1u << 11, "CALL_STACK" },
	{ 1u << 12, "IND_JUMP" },  { 1u << 13, "CALL" },
	{ 1u << 14, "NO_FLAGS" },  { 1u << 15, "NO_CYCLES" },
	{ 1u << 16, "TYPE_SAVE" }, { 1u << 17, "HW_INDEX" },
	{ 1u << 18, "PRIV_SAVE" }, { 0, NULL },
};

static const struct bit_name read_format_names[] = {
	{ 1u << 0, "TOTAL_TIME_ENABLED" },
	{ 1u << 1, "TOTAL_TIME_RUNNING" },
	{ 1u << 2, "ID" },
	{ 1u << 3, "GROUP" },
	{ 1u << 4, "LOST" },
	{ 0, NULL },
};

/* The one-bit (and precise_ip's two-bit) fields of the flags word, bit 0 up. */
static const char *const flag_names[] = {
	"disabled",
	"inherit",
	"pinned",
	"exclusive",
	"exclude_user",
	"exclude_kernel",
	"exclude_hv",
	"exclude_idle",
	"mmap",
	"comm",
	"freq",
	"inherit_stat",
	"enable_on_exec",
	"task",
	"watermark",
	"precise_ip",
	NULL /* its 2nd bit */,
	"mmap_data",
	"sample_id_all",
	"exclude_host",
	"exclude_guest",
	"exclude_callchain_kernel",
	"exclude_callchain_user",
	"mmap2",
	"comm_exec",
	"use_clockid",
	"context_switch",
	"write_backward",
	"namespaces",
	"ksymbol",
	"bpf_event",
	"aux_output",
	"cgroup",
	"text_poke",
	"build_id",
	"inherit_thread",
	"remove_on_exec",
	"sigtrap",
};

#define ATTR_BUF 1024

/* perf's __p_bits: names of the set bits; with none, buf keeps what it held. */
static void p_bits(char *buf, uint64_t v, const struct bit_name *bits)
{
	size_t at = 0;

	for (int i = 0; bits[i].name; i++) {
		if (!(v & bits[i].bit))
			continue;
		at += (size_t)snprintf(buf + at, ATTR_BUF - at, "%s%s", at ? "|" : "",
				       bits[i].name);
		if (at >= ATTR_BUF)
			break;
	}
}

/* Where an attr's fields go: EVENT_DESC's ", name = value", or a caller's callback. */
struct attr_sink {
	pcl_attr_field_fn fn;
	void *ctx;
};

static void field(const struct attr_sink *o, const char *name, const char *val)
{
	o->fn(o->ctx, name, val);
}

static void field_u(const struct attr_sink *o, char *buf, const char *name, uint64_t v)
{
	if (!v)
		return;
	snprintf(buf, ATTR_BUF, "%" PRIu64, v);
	field(o, name, buf);
}

static void field_x(const struct attr_sink *o, char *buf, const char *name, uint64_t v)
{
	if (!v)
		return;
	snprintf(buf, ATTR_BUF, "%#" PRIx64, v);
	field(o, name, buf);
}

static void field_bits(const struct attr_sink *o, char *buf, const char *name, uint64_t v,
		       const struct bit_name *bits)
{
	if (!v)
		return;
	p_bits(buf, v, bits);
	field(o, name, buf);
}

static void print_attr(const struct attr_sink *o, const struct attr7 *a)
{
	char buf[ATTR_BUF] = "";

	field_u(o, buf, "type", a->type);
	field_u(o, buf, "size", a->size);
	field_x(o, buf, "config", a->config);
	field_u(o, buf, "{ sample_period, sample_freq }", a->sample_period);
	field_bits(o, buf, "sample_type", a->sample_type, sample_type_names);
	field_bits(o, buf, "read_format", a->read_format, read_format_names);
	for (unsigned int b = 0; b < ARRAY_SIZE(flag_names); b++) {
		uint64_t v = a->flags >> b & 1;

		if (!flag_names[b])
			continue;
		if (b == 15)
			v = a->flags >> 15 & 3; /* precise_ip */
		field_u(o, buf, flag_names[b], v);
	}
	field_u(o, buf, "{ wakeup_events, wakeup_watermark }", a->wakeup_events);
	field_u(o, buf, "bp_type", a->bp_type);
	field_x(o, buf, "{ bp_addr, config1 }", a->config1);
	field_x(o, buf, "{ bp_len, config2 }", a->config2);
	field_bits(o, buf, "branch_sample_type", a->branch_sample_type, branch_type_names);
	field_x(o, buf, "sample_regs_user", a->sample_regs_user);
	field_u(o, buf, "sample_stack_user", a->sample_stack_user);
	if (a->clockid) {
		snprintf(buf, ATTR_BUF, "%" PRId64, (int64_t)a->clockid);
		field(o, "clockid", buf);
	}
	field_x(o, buf, "sample_regs_intr", a->sample_regs_intr);
	field_u(o, buf, "aux_watermark", a->aux_watermark);
	field_u(o, buf, "sample_max_stack", a->sample_max_stack);
	field_u(o, buf, "aux_sample_size", a->aux_sample_size);
	field_u(o, buf, "sig_data", a->sig_data);
}

/* perf refuses attrs with bits it does not know (its perf_attr_check). */
static bool attr_known(const struct attr7 *a)
{
	if ((a->flags >> 38) || a->reserved_2 || a->reserved_3)
		return false;
	if (a->sample_type & ~((1ull << 25) - 1))
		return false;
	if (a->read_format & ~((1ull << 5) - 1))
		return false;
	return !((a->sample_type & PERF_SAMPLE_BRANCH_STACK) &&
		 (a->branch_sample_type & ~((1ull << 19) - 1)));
}

static void desc_field(void *ctx, const char *name, const char *val)
{
	fprintf(ctx, ", %s = %s", name, val);
}

void pcl_header__attr_fields(const struct perf_event_attr *attr, pcl_attr_field_fn fn, void *ctx)
{
	struct attr7 a = { 0 };

	memcpy(&a, attr, sizeof(*attr) < sizeof(a) ? sizeof(*attr) : sizeof(a));
	print_attr(&(struct attr_sink){ fn, ctx }, &a);
}

/* EVENT_DESC: u32 nr, u32 attr_size, per event: attr, u32 nr_ids, string name, ids. */
static int print_event_desc(const struct ctx *x, FILE *o, struct cur c)
{
	uint32_t nre, sz;
	bool ended = false;

	(void)x;
	if (!rd_u32(&c, &nre) || !rd_u32(&c, &sz))
		return -EBADMSG;
	for (uint32_t i = 0; i < nre; i++) {
		struct attr7 a = { 0 };
		uint32_t nr;
		const char *name;

		if (sz > left(&c))
			return -EBADMSG;
		memcpy(&a, c.p, sz < sizeof(a) ? sz : sizeof(a));
		c.p += sz;
		if (!attr_known(&a) || !rd_u32(&c, &nr) || !(name = rd_str(&c)) ||
		    nr > left(&c) / 8)
			return -EBADMSG;
		/* perf's list of events ends at the first attr of size 0 */
		ended = ended || !a.size;
		if (ended) {
			c.p += (size_t)nr * 8;
			continue;
		}
		fprintf(o, "# event : name = %s, ", name);
		for (uint32_t k = 0; k < nr; k++) {
			uint64_t id = 0;

			rd_u64(&c, &id); /* nr was checked against the bytes left */
			fprintf(o, "%s %" PRIu64, k ? "," : ", id = {", id);
		}
		if (nr)
			fputs(" }", o);
		print_attr(&(struct attr_sink){ desc_field, o }, &a);
		fputc('\n', o);
	}
	return 0;
}

/* ---- topologies ---- */

/* A string list: u32 nr, nr strings. Adds perf's byte count to *size. */
static bool rd_str_list(struct cur *c, uint32_t *nr, const char **first, uint64_t *size)
{
	if (!rd_u32(c, nr))
		return false;
	*size += 4;
	*first = (const char *)c->p;
	for (uint32_t i = 0; i < *nr; i++) {
		const char *s = rd_str(c);

		if (!s)
			return false;
		*size += perf_string_size(s);
	}
	return true;
}

/* A list rd_str_list() checked: u32 len and the string, @nr times from @p. */
static void print_str_list(FILE *o, const char *label, const char *p, uint32_t nr)
{
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t len;

		memcpy(&len, p, 4);
		fprintf(o, "# %s : %s\n", label, p + 4);
		p += 4 + (size_t)len;
	}
}

static uint32_t nr_cpus_avail(const struct ctx *x)
{
	bool present;
	struct cur c = section(x, PCL_FEAT_NRCPUS, &present);
	uint32_t avail = 0;

	if (present)
		rd_u32(&c, &avail);
	return avail;
}

/*
 * CPU_TOPOLOGY: socket and thread sibling lists, then (newer perf) u32
 * core and socket id per available CPU, then (newer still) the die lists
 * and a die id per CPU. perf decides what follows by its own count of the
 * bytes read so far, so this does too.
 */
static int print_cpu_topology(const struct ctx *x, FILE *o, struct cur c)
{
	uint32_t nr_sock, nr_thr, nr_dies = 0, cpu_nr = nr_cpus_avail(x);
	const char *sock, *thr, *dies = NULL;
	const uint8_t *ids = NULL, *die_ids = NULL;
	uint64_t size = 0, len = left(&c);

	if (!rd_str_list(&c, &nr_sock, &sock, &size) || !rd_str_list(&c, &nr_thr, &thr, &size))
		return -EBADMSG;
	/* ids cut short: a file says they are not available; a stream fails */
	if (len > size && (uint64_t)cpu_nr * 8 > left(&c) && x->pipe)
		return -EBADMSG;
	if (len > size && (uint64_t)cpu_nr * 8 <= left(&c)) {
		ids = c.p;
		c.p += (size_t)cpu_nr * 8;
		size += (uint64_t)cpu_nr * 8;
		if (len > size) {
			if (!rd_str_list(&c, &nr_dies, &dies, &size) ||
			    (uint64_t)cpu_nr * 4 > left(&c))
				return -EBADMSG;
			die_ids = c.p;
		}
	}
	print_str_list(o, "sibling sockets", sock, nr_sock);
	if (nr_dies)
		print_str_list(o, "sibling dies   ", dies, nr_dies);
	print_str_list(o, "sibling threads", thr, nr_thr);
	if (!ids) {
		fputs("# Core ID and Socket ID information is not available\n", o);
		return 0;
	}
	for (uint32_t i = 0; i < cpu_nr; i++) {
		int32_t core, socket, die = 0;

		memcpy(&core, ids + i * 8, 4);
		memcpy(&socket, ids + i * 8 + 4, 4);
		if (nr_dies) {
			memcpy(&die, die_ids + i * 4, 4);
			fprintf(o, "# CPU %u: Core ID %d, Die ID %d, Socket ID %d\n", i, core, die,
				socket);
		} else {
			fprintf(o, "# CPU %u: Core ID %d, Socket ID %d\n", i, core, socket);
		}
	}
	return 0;
}

#define MAX_CPU_LIST (1 << 16) /* cpus in one list */

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/*
 * A cpu list as perf reads it (perf_cpu_map__new): "N" and "N-M" joined by
 * commas, numbers in C notation, no duplicates; "" is the dummy map { -1 }.
 * Returns the number of cpus in *out (sorted; caller frees) or -EBADMSG.
 */
static int parse_cpu_list(const char *s, int **out)
{
	int *cpus = NULL, nr = 0, alloc = 0;

	if (!*s) {
		cpus = malloc(sizeof(int));
		if (!cpus)
			return -ENOMEM;
		cpus[0] = -1;
		*out = cpus;
		return 1;
	}
	while (*s >= '0' && *s <= '9') {
		char *p;
		unsigned long a = strtoul(s, &p, 0), b = a;

		if (a >= INT32_MAX || (*p && *p != ',' && *p != '-'))
			goto bad;
		if (*p == '-') {
			b = strtoul(p + 1, &p, 0);
			if (b >= INT32_MAX || (*p && *p != ',') || b < a)
				goto bad;
		}
		if (b - a >= (unsigned long)(MAX_CPU_LIST - nr))
			goto bad;
		for (; a <= b; a++) {
			if (grow_array((void **)&cpus, &alloc, nr + 1, sizeof(int))) {
				free(cpus);
				return -ENOMEM;
			}
			cpus[nr++] = (int)a;
		}
		s = *p ? p + 1 : p;
	}
	if (!nr || *s)
		goto bad;
	qsort(cpus, (size_t)nr, sizeof(int), cmp_int);
	for (int i = 1; i < nr; i++)
		if (cpus[i] == cpus[i - 1])
			goto bad;
	*out = cpus;
	return nr;
bad:
	free(cpus);
	return -EBADMSG;
}

/* perf's cpu_map__snprint into a 1024-byte buffer: "0-3,5". */
static void print_cpu_map(FILE *o, const int *cpus, int nr)
{
	char buf[1024];
	size_t at = 0;

	buf[0] = '\0';
	for (int i = 0; i < nr && at < sizeof(buf);) {
		int j = i;

		while (j + 1 < nr && cpus[j + 1] == cpus[j] + 1)
			j++;
		if (j > i)
			at += (size_t)snprintf(buf + at, sizeof(buf) - at, "%s%d-%d", i ? "," : "",
					       cpus[i], cpus[j]);
		else
			at += (size_t)snprintf(buf + at, sizeof(buf) - at, "%s%d", i ? "," : "",
					       cpus[i]);
		i = j + 1;
	}
	fprintf(o, "%s\n", buf);
}

/* NUMA_TOPOLOGY: u32 nr, per node: u32 node, u64 total, u64 free (kB), string cpus. */
static int print_numa_topology(const struct ctx *x, FILE *o, struct cur c)
{
	uint32_t nr;

	(void)x;
	if (!rd_u32(&c, &nr))
		return -EBADMSG;
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t node;
		uint64_t total, free_kb;
		const char *cpus;
		int *map, n;

		if (!rd_u32(&c, &node) || !rd_u64(&c, &total) || !rd_u64(&c, &free_kb) ||
		    !(cpus = rd_str(&c)))
			return -EBADMSG;
		n = parse_cpu_list(cpus, &map);
		if (n < 0)
			return n;
		fprintf(o,
			"# node%u meminfo  : total = %" PRIu64 " kB, free = %" PRIu64 " kB\n"
			"# node%u cpu list : ",
			node, total, free_kb, node);
		print_cpu_map(o, map, n);
		free(map);
	}
	return 0;
}

/* HYBRID_TOPOLOGY: u32 nr, per node: string pmu name, string cpus. */
static int print_hybrid_topology(const struct ctx *x, FILE *o, struct cur c)
{
	uint32_t nr;

	(void)x;
	if (!rd_u32(&c, &nr))
		return -EBADMSG;
	fputs("# hybrid cpu system:\n", o);
	for (uint32_t i = 0; i < nr; i++) {
		const char *pmu = rd_str(&c), *cpus = pmu ? rd_str(&c) : NULL;

		if (!cpus)
			return -EBADMSG;
		fprintf(o, "# %s cpu list : %s\n", pmu, cpus);
	}
	return 0;
}

/* CACHE: u32 version (1), u32 nr, per level: u32 level, line, sets, ways; type, size, map. */
static int print_cache(const struct ctx *x, FILE *o, struct cur c)
{
	uint32_t version, nr;

	(void)x;
	if (!rd_u32(&c, &version) || version != 1 || !rd_u32(&c, &nr))
		return -EBADMSG;
	fputs("# CPU cache info:\n", o);
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t v[4]; /* level, line_size, sets, ways */
		const char *type, *size, *map;

		if (!rd(&c, v, sizeof(v)) || !(type = rd_str(&c)) || !(size = rd_str(&c)) ||
		    !(map = rd_str(&c)))
			return -EBADMSG;
		fprintf(o, "#  L%d %-15s %8s [%s]\n", (int)v[0], type, size, map);
	}
	return 0;
}

/* perf's unit_number__scnprintf: divide by 1024 while the quotient is over 1. */
static void unit_number(char *buf, size_t len, uint64_t n)
{
	static const char unit[] = "BKMG";
	int i = 0;

	while (n / 1024 > 1 && i < 3) {
		n /= 1024;
		i++;
	}
	snprintf(buf, len, "%" PRIu64 "%c", n, unit[i]);
}

static bool bit_set(const uint8_t *words, uint64_t bit)
{
	uint64_t w;

	memcpy(&w, words + bit / 64 * 8, 8);
	return w >> (bit % 64) & 1;
}

/* perf's bitmap_scnprintf into 100 bytes: ranges of set bits, "0-23,32-199". */
static void bitmap_list(char *buf, const uint8_t *words, uint64_t nbits)
{
	size_t at = 0, size = 100;
	uint64_t b = 0;

	buf[0] = '\0';
	while (b < nbits) {
		uint64_t e;

		if (!bit_set(words, b)) {
			b++;
			continue;
		}
		for (e = b; e + 1 < nbits && bit_set(words, e + 1); e++)
			;
		if (at < size - 1)
			at += (size_t)snprintf(buf + at, size - at, "%s%" PRIu64, at ? "," : "", b);
		if (e > b && at < size - 1)
			at += (size_t)snprintf(buf + at, size - at, "-%" PRIu64, e);
		if (at > size - 1)
			at = size - 1;
		b = e + 1;
	}
}

/*
 * MEM_TOPOLOGY: u64 version (1), u64 block size, u64 nr, per node: u64
 * node, u64 size, then a bitmap of memory blocks (u64 nbits, the words).
 */
static int print_mem_topology(const struct ctx *x, FILE *o, struct cur c)
{
	uint64_t version, bsize, nr;

	(void)x;
	if (!rd_u64(&c, &version) || version != 1 || !rd_u64(&c, &bsize) || !rd_u64(&c, &nr) ||
	    nr > left(&c) / 24)
		return -EBADMSG;
	fprintf(o, "# memory nodes (nr %d, block size 0x%llx):\n", (int)nr,
		(unsigned long long)bsize);
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t node, size, nbits, words, weight = 0;
		char map[100], sz[50];

		if (!rd_u64(&c, &node) || !rd_u64(&c, &size) || !rd_u64(&c, &nbits))
			return -EBADMSG;
		words = nbits / 64 + (nbits % 64 != 0);
		if (words > left(&c) / 8)
			return -EBADMSG;
		for (uint64_t b = 0; b < nbits; b++)
			weight += bit_set(c.p, b);
		bitmap_list(map, c.p, nbits);
		c.p += words * 8;
		unit_number(sz, sizeof(sz), bsize * weight);
		fprintf(o, "#  %3" PRIu64 " [%s]: %s\n", node, sz, map);
	}
	return 0;
}

/* ---- pmus ---- */

/* PMU_MAPPINGS: u32 nr, per pmu: u32 type, string name. */
static int print_pmu_mappings(const struct ctx *x, FILE *o, struct cur c)
{
	uint32_t nr;

	(void)x;
	if (!rd_u32(&c, &nr))
		return -EBADMSG;
	if (!nr) {
		fputs("# pmu mappings: not available\n", o);
		return 0;
	}
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t type;
		const char *name;

		if (!rd_u32(&c, &type) || !(name = rd_str(&c)))
			return -EBADMSG;
		fprintf(o, "%s%s = %u", i ? ", " : "# pmu mappings: ", name, type);
	}
	fputc('\n', o);
	return 0;
}

/* One PMU's capabilities: u32 nr, then nr (name, value) strings. */
static int print_caps(FILE *o, struct cur *c, const char *pmu_name_or_null)
{
	uint32_t nr;
	char *line = NULL;
	size_t len = 0;
	FILE *m;
	int ret = 0;

	if (!rd_u32(c, &nr))
		return -EBADMSG;
	m = open_memstream(&line, &len);
	if (!m)
		return -ENOMEM;
	for (uint32_t i = 0; i < nr && !ret; i++) {
		const char *name = rd_str(c), *value = name ? rd_str(c) : NULL;

		if (!value)
			ret = -EBADMSG;
		else
			fprintf(m, "%s%s=%s", i ? ", " : "", name, value);
	}
	fclose(m);
	/* the PMU's name follows its caps in PMU_CAPS */
	if (!ret && !pmu_name_or_null && !(pmu_name_or_null = rd_str(c)))
		ret = -EBADMSG;
	if (!ret && !nr)
		fprintf(o, "# %s pmu capabilities: not available\n", pmu_name_or_null);
	else if (!ret)
		fprintf(o, "# %s pmu capabilities: %s\n", pmu_name_or_null, line);
	free(line);
	return ret;
}

static int print_cpu_pmu_caps(const struct ctx *x, FILE *o, struct cur c)
{
	(void)x;
	return print_caps(o, &c, "cpu");
}

/* PMU_CAPS: u32 nr, per pmu: its caps, then its name. */
static int print_pmu_caps(const struct ctx *x, FILE *o, struct cur c)
{
	uint32_t nr;
	int ret = 0;

	(void)x;
	if (!rd_u32(&c, &nr))
		return -EBADMSG;
	for (uint32_t i = 0; i < nr && !ret; i++)
		ret = print_caps(o, &c, NULL);
	return ret;
}

/* ---- groups ---- */

/* perf's evsel__add_modifiers: ":k", ":ppp", ":HG"... for a name perf makes up. */
static void add_modifiers(char *buf, size_t len, const struct perf_event_attr *a)
{
	size_t at = strlen(buf), colon = at;
	bool guest_default = false;

#define MOD(excluded, c)                                                                           \
	do {                                                                                       \
		if (!(excluded) && at + 2 < len)                                                   \
			buf[at++] = (c);                                                           \
	} while (0)
	buf[at++] = ':';
	if (a->exclude_kernel || a->exclude_user || a->exclude_hv) {
		MOD(a->exclude_kernel, 'k');
		MOD(a->exclude_user, 'u');
		MOD(a->exclude_hv, 'h');
		guest_default = true;
	}
	for (unsigned int i = 0; i < a->precise_ip && at + 2 < len; i++)
		buf[at++] = 'p';
	guest_default = guest_default || a->precise_ip;
	if (a->exclude_host || a->exclude_guest == guest_default) {
		MOD(a->exclude_host, 'H');
		MOD(a->exclude_guest, 'G');
	}
#undef MOD
	buf[at == colon + 1 ? colon : at] = '\0';
}

/* The event's name from EVENT_DESC, else the one perf makes up for a generic event. */
const char *pcl_header__event_name(const struct pcl_data_attr *a, char *buf, size_t len)
{
	const struct pcl_event_name *n;

	if (a->name && *a->name)
		return a->name;
	for (int i = 0; (n = pcl_event_names(i)); i++) {
		if (n->type == a->attr.type && n->config == a->attr.config) {
			snprintf(buf, len, "%s", n->name);
			add_modifiers(buf, len, &a->attr);
			return buf;
		}
	}
	return "unknown";
}

struct group {
	const char *name;
	uint32_t leader, nr;
};

/* perf rebuilds the groups over the file's events in order; a mismatch is malformed. */
static int print_groups(const struct ctx *x, FILE *o, const struct group *g, uint32_t nr_groups)
{
	int nr_attrs = pcl_data_reader__nr_attrs(x->r);
	uint32_t i = 0, members = 0;

	for (int idx = 0; idx < nr_attrs; idx++) {
		char buf[256];
		const char *name = pcl_header__event_name(pcl_data_reader__attr(x->r, idx), buf, sizeof(buf));

		if (i < nr_groups && (uint32_t)idx == g[i].leader) {
			if (members)
				return -EBADMSG;
			members = g[i].nr - 1;
			if (g[i].nr > 1)
				fprintf(o, "# group: %s{%s",
					strcmp(g[i].name, "{anon_group}") ? g[i].name : "", name);
			i++;
		} else if (members) {
			fprintf(o, ",%s", name);
			if (--members == 0)
				fputs("}\n", o);
		}
	}
	return i != nr_groups || members ? -EBADMSG : 0;
}

/* GROUP_DESC: u32 nr, per group: string name, u32 leader index, u32 nr members. */
static int print_group_desc(const struct ctx *x, FILE *o, struct cur c)
{
	uint32_t nr;
	struct group *g;
	int ret;

	if (!rd_u32(&c, &nr) || nr > left(&c) / 12)
		return -EBADMSG;
	g = calloc(nr ? nr : 1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	for (uint32_t i = 0; i < nr; i++) {
		if (!(g[i].name = rd_str(&c)) || !rd_u32(&c, &g[i].leader) ||
		    !rd_u32(&c, &g[i].nr)) {
			free(g);
			return -EBADMSG;
		}
	}
	ret = print_groups(x, o, g, nr);
	free(g);
	return ret;
}

/* ---- clocks ---- */

static const char *clockid_name(uint32_t id)
{
	switch (id) {
	case 1:
		return "monotonic";
	case 4:
		return "monotonic_raw";
	case 0:
		return "realtime";
	case 7:
		return "boottime";
	case 11:
		return "tai";
	default:
		return "(not found)";
	}
}

/* CLOCK_DATA: u32 version (1), u32 clockid, u64 time of day, u64 clockid time (ns). */
static int print_clock_data(const struct ctx *x, FILE *o, struct cur c)
{
	uint32_t version, clockid;
	uint64_t tod, clk;
	char date[64], tstr[64];
	struct tm tm;
	time_t sec;

	(void)x;
	if (!rd_u32(&c, &version) || version != 1 || !rd_u32(&c, &clockid) || !rd_u64(&c, &tod) ||
	    !rd_u64(&c, &clk))
		return -EBADMSG;
	sec = (time_t)(tod / 1000000000);
	if (!localtime_r(&sec, &tm)) {
		snprintf(tstr, sizeof(tstr), "<error>");
	} else {
		strftime(date, sizeof(date), "%F %T", &tm);
		snprintf(tstr, sizeof(tstr), "%s.%06d", date, (int)(tod % 1000000000 / 1000));
	}
	fprintf(o, "# clockid: %s (%u)\n", clockid_name(clockid), clockid);
	fprintf(o, "# reference time: %s = %ld.%06d (TOD) = %ld.%09ld (%s)\n", tstr, (long)sec,
		(int)(tod % 1000000000 / 1000), (long)(clk / 1000000000), (long)(clk % 1000000000),
		clockid_name(clockid));
	return 0;
}

/* ---- bpf ---- */

/*
 * BTF, as much as naming a function needs: the header, the string
 * section (NUL first and last), and the offset of every type (ids from 1).
 */
struct btf {
	const uint8_t *types, *strs;
	uint32_t str_len;
	uint32_t *off; /* off[id - 1]: the type's offset in types */
	uint32_t nr;
};

/* Bytes a BTF type has after its 12-byte common part, or -1 for an unknown kind. */
static long btf_type_extra(uint32_t info)
{
	uint32_t kind = info >> 24 & 0x1f, vlen = info & 0xffff;

	switch (kind) {
	case 1:	 /* INT */
	case 14: /* VAR */
	case 17: /* DECL_TAG */
		return 4;
	case 3: /* ARRAY */
		return 12;
	case 4:	 /* STRUCT */
	case 5:	 /* UNION */
	case 15: /* DATASEC */
	case 19: /* ENUM64 */
		return 12L * vlen;
	case 6:	 /* ENUM */
	case 13: /* FUNC_PROTO */
		return 8L * vlen;
	case 2:	 /* PTR */
	case 7:	 /* FWD */
	case 8:	 /* TYPEDEF */
	case 9:	 /* VOLATILE */
	case 10: /* CONST */
	case 11: /* RESTRICT */
	case 12: /* FUNC */
	case 16: /* FLOAT */
	case 18: /* TYPE_TAG */
		return 0;
	default:
		return -1;
	}
}

static bool btf_parse(struct btf *b, const uint8_t *p, size_t len)
{
	uint32_t h[6]; /* magic/version/flags, hdr_len, type_off, type_len, str_off, str_len */
	uint64_t meta;

	memset(b, 0, sizeof(*b));
	if (len < sizeof(h))
		return false;
	memcpy(h, p, sizeof(h));
	if ((h[0] & 0xffff) != 0xeb9f || h[1] < sizeof(h) || h[1] > len)
		return false;
	meta = len - h[1];
	if ((uint64_t)h[2] + h[3] > meta || (uint64_t)h[4] + h[5] > meta || !h[5])
		return false;
	b->types = p + h[1] + h[2];
	b->strs = p + h[1] + h[4];
	b->str_len = h[5];
	if (b->strs[0] || b->strs[b->str_len - 1])
		return false;
	b->off = malloc((h[3] / 12 + 1) * sizeof(*b->off));
	if (!b->off)
		return false;
	for (uint32_t at = 0; at < h[3];) {
		uint32_t info;
		long extra;

		if (h[3] - at < 12)
			goto bad;
		memcpy(&info, b->types + at + 4, 4);
		extra = btf_type_extra(info);
		if (extra < 0 || (uint64_t)extra > h[3] - at - 12)
			goto bad;
		b->off[b->nr++] = at;
		at += 12 + (uint32_t)extra;
	}
	return true;
bad:
	free(b->off);
	b->off = NULL;
	return false;
}

/* The name of type @id (libbpf's btf__type_by_id + btf__name_by_offset), or NULL. */
static const char *btf_type_name(const struct btf *b, uint32_t id)
{
	uint32_t name_off = 0;

	if (id > b->nr)
		return NULL;
	if (id)
		memcpy(&name_off, b->types + b->off[id - 1], 4);
	return name_off < b->str_len ? (const char *)b->strs + name_off : NULL;
}

/* The BTF blob with id @id in a BPF_BTF section (u32 nr, { u32 id, u32 size, data }). */
static bool btf_find(struct btf *b, const void *sec, size_t len, uint32_t id)
{
	struct cur c;
	uint32_t nr;

	if (!sec)
		return false;
	c = (struct cur){ sec, (const uint8_t *)sec + len };
	if (!rd_u32(&c, &nr))
		return false;
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t bid, size;

		if (!rd_u32(&c, &bid) || !rd_u32(&c, &size) || size > left(&c))
			return false;
		if (bid == id)
			return btf_parse(b, c.p, size);
		c.p += size;
	}
	return false;
}

/* Offsets in struct bpf_prog_info (the kernel's ABI). */
enum {
	BPI_ID = 4,
	BPI_TAG = 8,
	BPI_NAME = 64,
	BPI_NR_JITED_KSYMS = 104,
	BPI_NR_JITED_FUNC_LENS = 108,
	BPI_JITED_KSYMS = 112,
	BPI_JITED_FUNC_LENS = 120,
	BPI_BTF_ID = 128,
	BPI_FUNC_INFO_REC_SIZE = 132,
	BPI_FUNC_INFO = 136,
	BPI_NR_FUNC_INFO = 144,
	BPI_NR_PROG_TAGS = 180,
	BPI_PROG_TAGS = 184,
	BPI_SIZE = 232, /* sizeof(struct bpf_prog_info) in perf 6.1 */
};

/* perf_bpil array bits: which pointer fields hold offsets into the data. */
enum { BPIL_JITED_KSYMS = 3, BPIL_JITED_FUNC_LENS = 4, BPIL_FUNC_INFO = 5, BPIL_PROG_TAGS = 8 };

struct bpf_prog {
	uint8_t info[BPI_SIZE];
	uint64_t arrays;
	const uint8_t *data;
	uint32_t data_len;
	uint32_t idx; /* order in the section: of two with one id, the first counts */
};

static uint32_t bpi_u32(const struct bpf_prog *p, int off)
{
	uint32_t v;

	memcpy(&v, p->info + off, 4);
	return v;
}

/* Array @bit of @p with @n items of @size bytes, inside its data; NULL if not. */
static const uint8_t *bpi_array(const struct bpf_prog *p, int bit, int off, uint64_t n,
				uint64_t size)
{
	uint64_t at;

	memcpy(&at, p->info + off, 8);
	if (!(p->arrays >> bit & 1) || at > p->data_len || n * size > p->data_len - at)
		return NULL;
	return p->data + at;
}

/* perf's synthesize_bpf_prog_name: bpf_prog_<tag>[_<name>]. */
static void bpf_prog_name(char *buf, size_t len, const struct bpf_prog *p, const uint8_t *tags,
			  const struct btf *btf, const uint8_t *finfo, uint32_t sub)
{
	const char *short_name = NULL;
	char name[17];
	size_t at = (size_t)snprintf(buf, len, "bpf_prog_");

	for (int i = 0; i < 8; i++)
		at += (size_t)snprintf(buf + at, len - at, "%02x", tags[sub * 8 + i]);
	if (btf) {
		uint32_t type_id;

		memcpy(&type_id, finfo + (size_t)sub * bpi_u32(p, BPI_FUNC_INFO_REC_SIZE) + 4, 4);
		short_name = btf_type_name(btf, type_id);
		if (!short_name)
			short_name = "(null)";
	} else if (sub == 0 && bpi_u32(p, BPI_NR_JITED_KSYMS) == 1) {
		memcpy(name, p->info + BPI_NAME, 16);
		name[16] = '\0';
		if (name[0])
			short_name = name;
	} else {
		short_name = "F";
	}
	if (short_name)
		snprintf(buf + at, len - at, "_%s", short_name);
}

/* perf's bpf_event__print_bpf_prog_info; a program it cannot name prints nothing. */
static int print_bpf_prog(const struct ctx *x, FILE *o, const struct bpf_prog *p)
{
	uint32_t nr = bpi_u32(p, BPI_NR_JITED_KSYMS), rec = bpi_u32(p, BPI_FUNC_INFO_REC_SIZE);
	const uint8_t *addrs, *lens, *tags, *finfo = NULL;
	struct btf btf, *bp = NULL;
	size_t blen = 0;
	const void *bsec = pcl_data_reader__feature(x->r, PCL_FEAT_BPF_BTF, &blen);

	if (nr != bpi_u32(p, BPI_NR_PROG_TAGS) || nr != bpi_u32(p, BPI_NR_JITED_FUNC_LENS))
		return 0;
	addrs = bpi_array(p, BPIL_JITED_KSYMS, BPI_JITED_KSYMS, nr, 8);
	lens = bpi_array(p, BPIL_JITED_FUNC_LENS, BPI_JITED_FUNC_LENS, nr, 4);
	tags = bpi_array(p, BPIL_PROG_TAGS, BPI_PROG_TAGS, nr, 8);
	if (!addrs || !lens || !tags)
		return -EBADMSG;
	/* in a stream, BPF_BTF comes after BPF_PROG_INFO: perf has no BTF yet */
	if (!x->pipe && bpi_u32(p, BPI_BTF_ID) &&
	    btf_find(&btf, bsec, blen, bpi_u32(p, BPI_BTF_ID))) {
		bp = &btf;
		if (nr > bpi_u32(p, BPI_NR_FUNC_INFO) || rec < 8 ||
		    !(finfo = bpi_array(p, BPIL_FUNC_INFO, BPI_FUNC_INFO, nr, rec))) {
			free(btf.off);
			return -EBADMSG;
		}
	}
	if (nr != 1)
		fprintf(o, "# bpf_prog_info %u:\n", bpi_u32(p, BPI_ID));
	for (uint32_t i = 0; i < nr; i++) {
		char name[256];
		uint64_t addr;
		uint32_t size;

		bpf_prog_name(name, sizeof(name), p, tags, bp, finfo, i);
		memcpy(&addr, addrs + i * 8, 8);
		memcpy(&size, lens + i * 4, 4);
		if (nr == 1)
			fprintf(o, "# bpf_prog_info %u: %s addr 0x%llx size %u\n",
				bpi_u32(p, BPI_ID), name, (unsigned long long)addr, size);
		else
			fprintf(o, "# \tsub_prog %u: %s addr 0x%llx size %u\n", i, name,
				(unsigned long long)addr, size);
	}
	if (bp)
		free(btf.off);
	return 0;
}

static int cmp_prog_id(const void *a, const void *b)
{
	const struct bpf_prog *p = a, *q = b;
	uint32_t x = bpi_u32(p, BPI_ID), y = bpi_u32(q, BPI_ID);

	if (x != y)
		return (x > y) - (x < y);
	return (p->idx > q->idx) - (p->idx < q->idx);
}

/*
 * BPF_PROG_INFO: u32 nr, per program: u32 info_len, u32 data_len, u64
 * arrays, info_len bytes of struct bpf_prog_info, data_len bytes of the
 * arrays it points into (by offset). Printed in order of id; perf keeps the
 * first of two programs with one id.
 */
static int print_bpf_prog_info(const struct ctx *x, FILE *o, struct cur c)
{
	uint32_t nr;
	struct bpf_prog *p;
	int ret = 0;

	if (!rd_u32(&c, &nr) || nr > left(&c) / 16)
		return -EBADMSG;
	p = calloc(nr ? nr : 1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	for (uint32_t i = 0; i < nr && !ret; i++) {
		uint32_t info_len;

		if (!rd_u32(&c, &info_len) || !rd_u32(&c, &p[i].data_len) ||
		    !rd_u64(&c, &p[i].arrays) || info_len > BPI_SIZE ||
		    !rd(&c, p[i].info, info_len) || p[i].data_len > left(&c))
			ret = -EBADMSG;
		else
			p[i].data = c.p;
		p[i].idx = i;
		c.p += ret ? 0 : p[i].data_len;
	}
	if (!ret)
		qsort(p, nr, sizeof(*p), cmp_prog_id);
	for (uint32_t i = 0; i < nr && !ret; i++)
		if (!i || bpi_u32(&p[i], BPI_ID) != bpi_u32(&p[i - 1], BPI_ID))
			ret = print_bpf_prog(x, o, &p[i]);
	free(p);
	return ret;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* BPF_BTF: u32 nr, per blob: u32 id, u32 size, data. One line per id, in order. */
static int print_bpf_btf(const struct ctx *x, FILE *o, struct cur c)
{
	uint32_t nr, *ids;

	(void)x;
	if (!rd_u32(&c, &nr) || nr > left(&c) / 8)
		return -EBADMSG;
	ids = malloc((nr ? nr : 1) * sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t size;

		if (!rd_u32(&c, &ids[i]) || !rd_u32(&c, &size) || size > left(&c)) {
			free(ids);
			return -EBADMSG;
		}
		c.p += size;
	}
	qsort(ids, nr, sizeof(*ids), cmp_u32);
	for (uint32_t i = 0; i < nr; i++)
		if (!i || ids[i] != ids[i - 1])
			fprintf(o, "# btf info of id %u\n", ids[i]);
	free(ids);
	return 0;
}

/* ---- the table and the driver ---- */

typedef int (*print_fn)(const struct ctx *x, FILE *o, struct cur c);

struct feat_op {
	const char *name;
	print_fn print;	      /* NULL: perf prints nothing for it */
	bool full_only;	      /* without -I: "info available" */
	bool pipe_too;	      /* perf prints it in pipe mode (it has a process step) */
	const char *fallback; /* a file's section that does not read: perf's empty values */
};

#define FEAT(id, fn, full, pipe, fb) [PCL_FEAT_##id] = { #id, fn, full, pipe, fb }

static const struct feat_op feat_ops[] = {
	FEAT(TRACING_DATA, NULL, false, false, NULL),
	FEAT(BUILD_ID, NULL, false, false, NULL),
	FEAT(HOSTNAME, print_hostname, false, true, "# hostname : (null)\n"),
	FEAT(OSRELEASE, print_osrelease, false, true, "# os release : (null)\n"),
	FEAT(VERSION, print_version, false, true, "# perf version : (null)\n"),
	FEAT(ARCH, print_arch, false, true, "# arch : (null)\n"),
	FEAT(NRCPUS, print_nrcpus, false, true, "# nrcpus online : 0\n# nrcpus avail : 0\n"),
	FEAT(CPUDESC, print_cpudesc, false, true, "# cpudesc : (null)\n"),
	FEAT(CPUID, print_cpuid, false, true, "# cpuid : (null)\n"),
	FEAT(TOTAL_MEM, print_total_mem, false, true, "# total memory : 0 kB\n"),
	FEAT(CMDLINE, print_cmdline, false, true, "# cmdline : \n"),
	FEAT(EVENT_DESC, print_event_desc, false, true,
	     "# event desc: not available or unable to read\n"),
	FEAT(CPU_TOPOLOGY, print_cpu_topology, true, true,
	     "# Core ID and Socket ID information is not available\n"),
	FEAT(NUMA_TOPOLOGY, print_numa_topology, true, true, NULL),
	FEAT(BRANCH_STACK, print_branch_stack, false, false, NULL),
	FEAT(PMU_MAPPINGS, print_pmu_mappings, false, true, "# pmu mappings: not available\n"),
	FEAT(GROUP_DESC, print_group_desc, false, true, NULL),
	FEAT(AUXTRACE, print_auxtrace, false, true, NULL),
	FEAT(STAT, print_stat, false, false, NULL),
	FEAT(CACHE, print_cache, true, true, "# CPU cache info:\n"),
	FEAT(SAMPLE_TIME, print_sample_time, false, true,
	     "# time of first sample : 0.000000\n# time of last sample : 0.000000\n"
	     "# sample duration :      0.000 ms\n"),
	FEAT(MEM_TOPOLOGY, print_mem_topology, true, true,
	     "# memory nodes (nr 0, block size 0x0):\n"),
	FEAT(CLOCKID, print_clockid, false, true, "# clockid frequency: 0 MHz\n"),
	FEAT(DIR_FORMAT, print_dir_format, false, true, NULL),
	FEAT(BPF_PROG_INFO, print_bpf_prog_info, false, true, NULL),
	FEAT(BPF_BTF, print_bpf_btf, false, true, NULL),
	FEAT(COMPRESSED, print_compressed, false, true,
	     "# compressed : Unknown, level = 0, ratio = 0\n"),
	FEAT(CPU_PMU_CAPS, print_cpu_pmu_caps, false, true,
	     "# cpu pmu capabilities: not available\n"),
	FEAT(CLOCK_DATA, print_clock_data, false, true, "# reference time disabled\n"),
	FEAT(HYBRID_TOPOLOGY, print_hybrid_topology, true, true, "# hybrid cpu system:\n"),
	FEAT(PMU_CAPS, print_pmu_caps, false, true, NULL),
};

#define LAST_FEATURE ((int)ARRAY_SIZE(feat_ops))

PCL_API const char *pcl_header__feature_name(int feat)
{
	return feat > 0 && feat < LAST_FEATURE ? feat_ops[feat].name : NULL;
}

/*
 * One feature: its text goes to a memory stream first and on to @fp only
 * if the section parsed. A file's section that does not parse (or that
 * its header lists but the file does not hold) prints what perf prints
 * from its empty values, where that is a fixed text, else nothing; perf
 * prints "info available" for a hidden section whatever it holds. In a
 * stream, a section perf cannot process ends its session: -EBADMSG here,
 * after what came before (a bad EVENT_DESC only prints perf's note).
 */
static int print_feature(const struct ctx *x, FILE *fp, int feat)
{
	const struct feat_op *op = &feat_ops[feat];
	bool present;
	struct cur c = section(x, feat, &present);
	char *text = NULL;
	size_t len = 0;
	FILE *m;
	int ret;

	if (!present || !op->print || (x->pipe && !op->pipe_too))
		return 0;
	m = open_memstream(&text, &len);
	if (!m)
		return -ENOMEM;
	ret = op->print(x, m, c);
	if (fclose(m) || ret == -ENOMEM) {
		free(text);
		return -ENOMEM;
	}
	if (op->full_only && !x->full) {
		if (!ret || !x->pipe)
			fprintf(fp, "# %s info available, use -I to display\n", op->name);
	} else if (!ret) {
		fwrite(text, 1, len, fp);
	} else if (op->fallback && (!x->pipe || feat == PCL_FEAT_EVENT_DESC)) {
		fputs(op->fallback, fp);
	}
	free(text);
	if (ret && x->pipe && feat != PCL_FEAT_EVENT_DESC)
		return pcl_err(EBADMSG, "malformed %s feature in the stream", op->name);
	return 0;
}

static int print_top(FILE *fp, const struct pcl_data_layout *l, const char *path, struct stat *st)
{
	char when[64];
	bool in = !path || !strcmp(path, "-");

	if (in ? fstat(STDIN_FILENO, st) : stat(path, st))
		return pcl_err(errno, "cannot stat '%s': %s", in ? "<stdin>" : path,
			       strerror(errno));
	if (!ctime_r(&st->st_mtime, when))
		snprintf(when, sizeof(when), "(null)");
	fprintf(fp,
		"# ========\n"
		"# captured on    : %s"
		"# header version : 1\n"
		"# data offset    : %" PRIu64 "\n"
		"# data size      : %" PRIu64 "\n"
		"# feat offset    : %" PRIu64 "\n",
		when, l->data_offset, l->data_size, l->feat_offset);
	return 0;
}

static void print_missing(FILE *fp, const struct pcl_data_layout *l)
{
	fputs("# missing features: ", fp);
	for (int f = 1; f < LAST_FEATURE; f++)
		if (!(l->features[f / 64] >> (f % 64) & 1))
			fprintf(fp, "%s ", feat_ops[f].name);
	fputc('\n', fp);
}

/* perf reads a file's feature table in one go: if the file cuts it, no feature prints. */
static bool feature_table_whole(const struct pcl_data_layout *l, const struct stat *st)
{
	uint64_t n = 0;

	for (int i = 0; i < 4; i++)
		n += (uint64_t)__builtin_popcountll(l->features[i]);
	return l->feat_offset <= (uint64_t)st->st_size &&
	       n * 16 <= (uint64_t)st->st_size - l->feat_offset;
}

/* Read a stream to its end, so that its HEADER_FEATURE records are absorbed. */
static int read_stream(struct pcl_data_reader *r)
{
	while (pcl_data_reader__next(r))
		;
	return errno ? -errno : 0;
}

PCL_API int pcl_header__print(FILE *fp, struct pcl_data_reader *r, const char *path,
			      unsigned int flags)
{
	struct ctx x = { r, flags & PCL_HEADER_FULL, pcl_data_reader__is_pipe(r), false, { 0 } };
	struct pcl_data_layout l;
	struct stat st;
	int ret, rs = 0;

	if (!fp || !r)
		return pcl_err(EINVAL, "no file or reader to print the header of");
	pcl_data_reader__layout(r, &l);
	memcpy(x.features, l.features, sizeof(x.features));
	ret = print_top(fp, &l, path, &st);
	if (ret)
		return ret;
	x.is_dir = S_ISDIR(st.st_mode);
	if (x.pipe) {
		fputs("# ========\n#\n", fp);
		if (flags & PCL_HEADER_READ_STREAM)
			rs = read_stream(r);
	}
	if ((x.pipe && !(flags & PCL_HEADER_NO_FEATURES)) || (!x.pipe && feature_table_whole(&l, &st)))
		for (int f = 1; f < LAST_FEATURE && !ret; f++)
			ret = print_feature(&x, fp, f);
	if (!ret && !x.pipe) {
		print_missing(fp, &l);
		fputs("# ========\n#\n", fp);
	}
	if (!ret && (fflush(fp) || ferror(fp)))
		ret = pcl_err(EIO, "cannot write the header: %s", strerror(errno));
	return ret ? ret : rs;
}
