/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the record decoder (lib/ring/decode.c, include/pcl/record.h).
 *
 * The expected layouts are perf_event_open(2) and the comments of
 * linux/perf_event.h, not the decoder: every record is hand-built here from
 * a table row (a list of u64/u32/u16/u8/string/bytes items, in the order
 * the manual gives) and decoded, and the row says what each field of the
 * result must be. MARK(n) items remember where the next byte of the record
 * goes, so a row can say "this pointer points there".
 *
 * Each record is copied into a malloc of exactly its size: a read past it
 * is an ASan report in the sanitizer build. Every record is also decoded
 * cut short at each length, with a header size above what is readable and
 * with a size below the header. Non-sample rows are run with and without
 * the sample_id_all trailer, for several sample_types; sample rows with
 * sample_id_all on and off (samples never carry the trailer).
 *
 * With PCL_RECORD_CORPUS=DIR in the environment, every record decoded by
 * the tables is also written to DIR in the input format of
 * fuzz/fuzz-record-decode.c: that is how fuzz/corpus/record-decode/ was
 * made.
 *
 * The last tests decode real records of a software event opened on this
 * process, read from its ring buffer.
 */
#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <pcl/data.h>
#include <pcl/record.h>
#include <pcl/ring.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif
#define S(x) PERF_SAMPLE_##x
#define F(x) PERF_FORMAT_##x
#define ID_BITS (S(TID) | S(TIME) | S(ID) | S(STREAM_ID) | S(CPU) | S(IDENTIFIER))
#define NMARKS 8

/* ---- the record builder ---- */

enum { I_END, I_U64, I_U32, I_U16, I_U8, I_STR, I_BYTES, I_PAD8, I_MARK };

struct item {
	uint8_t kind;
	uint64_t v;
	const char *s;
};

#define U64(x) { I_U64, (uint64_t)(x), NULL }
#define U32(x) { I_U32, (uint64_t)(x), NULL }
#define U16(x) { I_U16, (uint64_t)(x), NULL }
#define U8(x) { I_U8, (uint64_t)(x), NULL }
#define STR(x) { I_STR, 0, (x) }		/* with its NUL, zero-padded to 8 bytes */
#define BYTES(x, n) { I_BYTES, (n), (x) }	/* n bytes as they are */
#define PAD8 { I_PAD8, 0, NULL }		/* zeroes up to the next multiple of 8 */
#define MARK(n) { I_MARK, (n), NULL }

struct rb {
	uint8_t b[65536];
	size_t len;
	size_t marks[NMARKS];
};

static void rb_init(struct rb *r)
{
	memset(r, 0, sizeof(*r));
	r->len = sizeof(struct perf_event_header);
}

static void rb_put(struct rb *r, const void *p, size_t n)
{
	assert_true(r->len + n <= sizeof(r->b));
	memcpy(r->b + r->len, p, n);
	r->len += n;
}

static void rb_u64(struct rb *r, uint64_t v)
{
	rb_put(r, &v, 8);
}

static void rb_u32(struct rb *r, uint32_t v)
{
	rb_put(r, &v, 4);
}

static void rb_pad8(struct rb *r)
{
	static const uint8_t zero[8];

	rb_put(r, zero, (8 - (r->len & 7)) & 7);
}

static void rb_items(struct rb *r, const struct item *it, size_t n)
{
	for (size_t i = 0; i < n && it[i].kind != I_END; i++) {
		uint16_t v16 = (uint16_t)it[i].v;
		uint8_t v8 = (uint8_t)it[i].v;

		switch (it[i].kind) {
		case I_U64: rb_u64(r, it[i].v); break;
		case I_U32: rb_u32(r, (uint32_t)it[i].v); break;
		case I_U16: rb_put(r, &v16, 2); break;
		case I_U8: rb_put(r, &v8, 1); break;
		case I_STR: rb_put(r, it[i].s, strlen(it[i].s) + 1); rb_pad8(r); break;
		case I_BYTES: rb_put(r, it[i].s, (size_t)it[i].v); break;
		case I_PAD8: rb_pad8(r); break;
		case I_MARK: r->marks[it[i].v] = r->len; break;
		}
	}
}

/* The values every trailer of these tests carries. */
#define T_PID 0x5001u
#define T_TID 0x5002u
#define T_TIME 0x5003000000000003ull
#define T_ID 0x5004000000000004ull
#define T_STREAM 0x5005000000000005ull
#define T_CPU 0x5006u

/* The sample_id_all trailer for @st, in the manual's order. */
static void rb_trailer(struct rb *r, uint64_t st)
{
	if (st & S(TID)) {
		rb_u32(r, T_PID);
		rb_u32(r, T_TID);
	}
	if (st & S(TIME))
		rb_u64(r, T_TIME);
	if (st & S(ID))
		rb_u64(r, T_ID);
	if (st & S(STREAM_ID))
		rb_u64(r, T_STREAM);
	if (st & S(CPU)) {
		rb_u32(r, T_CPU);
		rb_u32(r, 0);
	}
	if (st & S(IDENTIFIER))
		rb_u64(r, T_ID);
}

/*
 * The first @alloc bytes of the record built in @r, in a malloc of exactly
 * @alloc bytes, with header {type, misc, size}.
 */
static struct perf_event_header *rec_alloc(const struct rb *r, uint32_t type, uint16_t misc,
					   size_t size, size_t alloc)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = (uint16_t)size };
	uint8_t *p = malloc(alloc ? alloc : 1);

	assert_non_null(p);
	memcpy(p, r->b, alloc);
	memcpy(p, &h, alloc < sizeof(h) ? alloc : sizeof(h));
	return (struct perf_event_header *)p;
}

/* ---- what a row expects ---- */

enum { C_END, C_U, C_PTR, C_STR, C_NULL, C_MEM };

struct chk {
	uint8_t kind;
	const char *what;
	size_t off, width;
	uint64_t v;
	const char *s;
};

#define FLD(f) #f, offsetof(struct pcl_record, f), sizeof(((struct pcl_record *)0)->f)
#define EQ(f, x) { C_U, FLD(f), (uint64_t)(x), NULL }
#define AT(f, m) { C_PTR, FLD(f), (m), NULL }		/* points at MARK(m) */
#define STREQ(f, x) { C_STR, FLD(f), 0, (x) }
#define ISNULL(f) { C_NULL, FLD(f), 0, NULL }
#define MEMEQ(f, x) { C_MEM, FLD(f), 0, (x) }		/* sizeof(f) bytes */

enum {
	VAR = 1,	/* a shorter record may still decode (strings, padding) */
	NO_TRAILER = 2,	/* run only without sample_id_all */
};

struct row {
	const char *name;
	uint32_t type;
	uint16_t misc;
	uint64_t sample_type, read_format, branch_sample_type, regs_user, regs_intr;
	int ret;
	unsigned int flags;
	struct item in[80];
	struct chk want[48];
};

static int differ_ret(const char *row, int got, int want)
{
	if (got == want)
		return 0;
	print_message("'%s': returned %d (%s), expected %d (%s)\n", row, got,
		      got ? strerror(-got) : "ok", want, want ? strerror(-want) : "ok");
	return 1;
}

static void dump(const char *row, const struct perf_event_header *h, size_t len)
{
	print_message("'%s': record bytes (%zu), u64 words:\n", row, len);
	for (size_t i = 0; i + 8 <= len && i < 256; i += 8) {
		uint64_t w;

		memcpy(&w, (const uint8_t *)h + i, 8);
		print_message("    +%3zu: %#018llx\n", i, (unsigned long long)w);
	}
	if (len & 7)
		print_message("    (+%zu trailing bytes)\n", len & 7);
}

static int check_fields(const char *row, const struct pcl_record *rec,
			const struct perf_event_header *h, const struct chk *c, size_t n,
			const size_t *marks)
{
	int bad = 0;

	for (size_t i = 0; i < n && c[i].kind != C_END; i++) {
		const uint8_t *at = (const uint8_t *)rec + c[i].off;
		const uint8_t *p;
		uint64_t v = 0;

		switch (c[i].kind) {
		case C_U:
			memcpy(&v, at, c[i].width);
			bad += differ(row, c[i].what, v, c[i].v);
			break;
		case C_PTR:
			memcpy(&p, at, sizeof(p));
			if (p != (const uint8_t *)h + marks[c[i].v]) {
				print_message("'%s': %s points at record byte %lld, expected %zu\n", row,
					      c[i].what,
					      p ? (long long)(p - (const uint8_t *)h) : -1LL,
					      marks[c[i].v]);
				bad++;
			}
			break;
		case C_STR:
			memcpy(&p, at, sizeof(p));
			bad += differ_str(row, c[i].what, (const char *)p, c[i].s);
			break;
		case C_NULL:
			memcpy(&p, at, sizeof(p));
			bad += differ(row, c[i].what, (uint64_t)(uintptr_t)p, 0);
			break;
		case C_MEM:
			if (memcmp(at, c[i].s, c[i].width)) {
				print_message("'%s': %s differs\n", row, c[i].what);
				bad++;
			}
			break;
		}
	}
	return bad;
}

/* @p[0..n) lies inside the record's body. */
static int inside(const char *row, const char *what, const struct perf_event_header *h,
		  const void *p, uint64_t n)
{
	const uint8_t *b = (const uint8_t *)h, *q = p;

	if (!n)
		return 0;
	if (q && q >= b + sizeof(*h) && q <= b + h->size && n <= (uint64_t)(b + h->size - q))
		return 0;
	print_message("'%s': %s (%llu bytes at record byte %lld) is not inside the record (%u)\n",
		      row, what, (unsigned long long)n, q ? (long long)(q - b) : -1LL, h->size);
	return 1;
}

static int inside_str(const char *row, const char *what, const struct perf_event_header *h,
		      const char *s)
{
	const uint8_t *b = (const uint8_t *)h;

	if (!s || (const uint8_t *)s < b + sizeof(*h) || (const uint8_t *)s >= b + h->size ||
	    !memchr(s, '\0', (size_t)(b + h->size - (const uint8_t *)s))) {
		print_message("'%s': %s is not a string inside the record\n", row, what);
		return 1;
	}
	return 0;
}

/* Every pointer a decoded record holds stays inside it, with the sizes it claims. */
static int check_bounds(const char *row, const struct perf_event_header *h,
			const struct perf_event_attr *a, const struct pcl_record *r)
{
	const struct pcl_sample *s = &r->sample;
	int bad = 0;

	switch (r->type) {
	case PERF_RECORD_SAMPLE: {
		uint64_t st = s->sample_type;

		if (st & S(READ)) {
			uint64_t fmt = a->read_format, words;

			if (fmt & F(GROUP))
				words = s->read.nr * (uint64_t)s->read.stride;
			else
				words = 1 + !!(fmt & F(TOTAL_TIME_ENABLED)) +
					!!(fmt & F(TOTAL_TIME_RUNNING)) + !!(fmt & F(ID)) +
					!!(fmt & F(LOST));
			bad += inside(row, "read.raw", h, s->read.raw, words * 8);
		}
		if (st & S(CALLCHAIN))
			bad += inside(row, "callchain", h, s->callchain, s->nr_callchain * 8);
		if (st & S(RAW))
			bad += inside(row, "raw", h, s->raw, s->raw_size);
		if (st & S(BRANCH_STACK))
			bad += inside(row, "branches", h, s->branches,
				      s->nr_branches * sizeof(struct perf_branch_entry));
		if ((st & S(REGS_USER)) && s->user_abi)
			bad += inside(row, "user_regs", h, s->user_regs,
				      8 * (uint64_t)__builtin_popcountll(a->sample_regs_user));
		if (st & S(STACK_USER))
			bad += inside(row, "user_stack", h, s->user_stack, s->user_stack_size);
		if ((st & S(REGS_INTR)) && s->intr_abi)
			bad += inside(row, "intr_regs", h, s->intr_regs,
				      8 * (uint64_t)__builtin_popcountll(a->sample_regs_intr));
		if (st & S(AUX))
			bad += inside(row, "aux", h, s->aux, s->aux_size);
		break;
	}
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		bad += inside_str(row, "mmap.filename", h, r->mmap.filename);
		if (r->mmap.build_id_size > 20)
			bad += differ(row, "mmap.build_id_size <= 20", r->mmap.build_id_size, 20);
		break;
	case PERF_RECORD_COMM:
		bad += inside_str(row, "comm.comm", h, r->comm.comm);
		break;
	case PERF_RECORD_KSYMBOL:
		bad += inside_str(row, "ksymbol.name", h, r->ksymbol.name);
		break;
	case PERF_RECORD_CGROUP:
		bad += inside_str(row, "cgroup.path", h, r->cgroup.path);
		break;
	case PERF_RECORD_NAMESPACES:
		bad += inside(row, "namespaces.links", h, r->namespaces.links,
			      r->namespaces.nr * sizeof(struct perf_ns_link_info));
		break;
	case PERF_RECORD_BPF_EVENT:
		bad += inside(row, "bpf_event.tag", h, r->bpf_event.tag, 8);
		break;
	case PERF_RECORD_TEXT_POKE:
		bad += inside(row, "text_poke.bytes", h, r->text_poke.bytes,
			      (uint64_t)r->text_poke.old_len + r->text_poke.new_len);
		break;
	case PERF_RECORD_READ:
		bad += inside(row, "read.values.raw", h, r->read.values.raw,
			      8 * r->read.values.nr * (uint64_t)r->read.values.stride);
		break;
	default:
		if (r->type >= PERF_RECORD_MAX)
			bad += inside(row, "unknown.data", h, r->unknown.data, r->unknown.size);
		break;
	}
	return bad;
}

/* ---- seeds for the fuzz target (see fuzz/fuzz-record-decode.c for the format) ---- */

static void corpus_write(const char *name, const struct perf_event_attr *a,
			 const struct perf_event_header *h, size_t len)
{
	const char *dir = getenv("PCL_RECORD_CORPUS");
	uint8_t pre[32] = { 0 };
	uint32_t st = (uint32_t)a->sample_type, bst = (uint32_t)a->branch_sample_type;
	char path[PATH_MAX];
	FILE *f;
	int n;

	if (!dir)
		return;
	memcpy(pre, &st, 4);
	memcpy(pre + 4, &bst, 4);
	pre[8] = (uint8_t)a->read_format;
	pre[9] = (a->sample_id_all ? 1 : 0) | 2;
	memcpy(pre + 16, &a->sample_regs_user, 8);
	memcpy(pre + 24, &a->sample_regs_intr, 8);
	n = snprintf(path, sizeof(path), "%s/", dir);
	for (const char *c = name; *c && n < (int)sizeof(path) - 1; c++)
		path[n++] = (*c == '/' || *c == ' ') ? '-' : *c;
	path[n] = '\0';
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(pre, 1, sizeof(pre), f), sizeof(pre));
	assert_int_equal(fwrite(h, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* ---- the runner ---- */

static struct perf_event_attr row_attr(const struct row *row, uint64_t sample_type,
				       bool sample_id_all)
{
	struct perf_event_attr a = { .size = sizeof(a) };

	a.sample_type = sample_type;
	a.read_format = row->read_format;
	a.branch_sample_type = row->branch_sample_type;
	a.sample_regs_user = row->regs_user;
	a.sample_regs_intr = row->regs_intr;
	a.sample_id_all = sample_id_all;
	return a;
}

/* The trailer fields of @r as a record with @a must have them. */
static int check_trailer(const char *row, const struct pcl_record *r,
			 const struct perf_event_attr *a)
{
	uint64_t st = a->sample_id_all ? a->sample_type : 0;
	int bad = 0;

	bad += differ(row, "has_id", r->has_id, !!(st & ID_BITS));
	bad += differ(row, "id.pid", r->id.pid, st & S(TID) ? T_PID : 0);
	bad += differ(row, "id.tid", r->id.tid, st & S(TID) ? T_TID : 0);
	bad += differ(row, "id.time", r->id.time, st & S(TIME) ? T_TIME : 0);
	bad += differ(row, "id.id", r->id.id, st & (S(ID) | S(IDENTIFIER)) ? T_ID : 0);
	bad += differ(row, "id.stream_id", r->id.stream_id, st & S(STREAM_ID) ? T_STREAM : 0);
	bad += differ(row, "id.cpu", r->id.cpu, st & S(CPU) ? T_CPU : 0);
	return bad;
}

/* A sample's id block repeats its own fields. */
static int check_sample_id(const char *row, const struct pcl_record *r)
{
	const struct pcl_sample *s = &r->sample;
	int bad = 0;

	bad += differ(row, "id.pid", r->id.pid, s->pid);
	bad += differ(row, "id.tid", r->id.tid, s->tid);
	bad += differ(row, "id.time", r->id.time, s->time);
	bad += differ(row, "id.id", r->id.id,
		      s->sample_type & S(IDENTIFIER) ? s->identifier : s->id);
	bad += differ(row, "id.stream_id", r->id.stream_id, s->stream_id);
	bad += differ(row, "id.cpu", r->id.cpu, s->cpu);
	bad += differ(row, "id.res", r->id.res, s->res);
	return bad;
}

/* Build @row for @a (with a trailer for non-samples when a->sample_id_all). */
static void build_row(struct rb *r, const struct row *row, const struct perf_event_attr *a)
{
	rb_init(r);
	rb_items(r, row->in, ARRAY_SIZE(row->in));
	if (row->type != PERF_RECORD_SAMPLE && a->sample_id_all)
		rb_trailer(r, a->sample_type);
}

/* Decode @row for @a and check it; mismatches. @seed: also write it to the fuzz corpus. */
static int run_row(const struct row *row, const char *variant, const struct perf_event_attr *a,
		   bool seed)
{
	struct pcl_record rec;
	struct perf_event_header *h;
	char name[160];
	struct rb *r = malloc(sizeof(*r));
	int ret, bad = 0;

	assert_non_null(r);
	snprintf(name, sizeof(name), "%s/%s", row->name, variant);
	build_row(r, row, a);
	h = rec_alloc(r, row->type, row->misc, r->len, r->len);
	if (seed)
		corpus_write(name, a, h, r->len);
	ret = pcl_record_decode(h, r->len, a, &rec);
	bad += differ_ret(name, ret, row->ret);
	if (ret == 0 && row->ret == 0) {
		bad += differ(name, "type", rec.type, row->type);
		bad += differ(name, "misc", rec.misc, row->misc);
		bad += differ(name, "size", rec.size, r->len);
		bad += check_fields(name, &rec, h, row->want, ARRAY_SIZE(row->want), r->marks);
		bad += check_bounds(name, h, a, &rec);
		if (row->type == PERF_RECORD_SAMPLE) {
			bad += check_sample_id(name, &rec);
			if (a->sample_type & S(IDENTIFIER))
				bad += differ(name, "pcl_record_identifier",
					      pcl_record_identifier(h, r->len, a->sample_id_all),
					      rec.sample.identifier);
		} else {
			bad += check_trailer(name, &rec, a);
			if (a->sample_id_all && (a->sample_type & S(IDENTIFIER)))
				bad += differ(name, "pcl_record_identifier",
					      pcl_record_identifier(h, r->len, true), T_ID);
		}
	}
	if (bad)
		dump(name, h, r->len);
	free(h);
	free(r);
	return bad;
}

/*
 * @row cut at every length from one byte short down to a bare header: no
 * read outside the cut record, and -EBADMSG unless the row is VAR; then
 * a size above what is readable and sizes below a header: -EINVAL.
 */
static int truncate_row(const struct row *row, const char *variant, const struct perf_event_attr *a)
{
	struct pcl_record rec;
	struct perf_event_header *h;
	char name[160];
	struct rb *r = malloc(sizeof(*r));
	int bad = 0, wrong = 0, first = 0, first_ret = 0;

	assert_non_null(r);
	snprintf(name, sizeof(name), "%s/%s", row->name, variant);
	build_row(r, row, a);
	for (size_t size = r->len - 1; size >= sizeof(*h); size--) {
		int ret;

		h = rec_alloc(r, row->type, row->misc, size, size);
		ret = pcl_record_decode(h, size, a, &rec);
		if (ret == 0)
			bad += check_bounds(name, h, a, &rec);
		if ((ret != -EBADMSG && !(row->flags & VAR)) || (ret != 0 && ret != -EBADMSG)) {
			if (!wrong++) {
				first = (int)size;
				first_ret = ret;
			}
		}
		free(h);
	}
	if (wrong) {
		print_message("'%s': %d of %zu truncations did not fail with -EBADMSG "
			      "(first: size %d of %zu returned %d)\n",
			      name, wrong, r->len - sizeof(*h), first, r->len, first_ret);
		bad += wrong;
	}
	/* one byte less readable than the header says */
	h = rec_alloc(r, row->type, row->misc, r->len, r->len - 1);
	bad += differ_ret(name, pcl_record_decode(h, r->len - 1, a, &rec), -EINVAL);
	free(h);
	/* a size below the header */
	for (size_t size = 0; size < sizeof(*h); size++) {
		h = rec_alloc(r, row->type, row->misc, size, r->len);
		if (pcl_record_decode(h, r->len, a, &rec) != -EINVAL) {
			print_message("'%s': header.size %zu did not fail with -EINVAL\n", name, size);
			bad++;
		}
		free(h);
	}
	free(r);
	return bad;
}

/* ---- the non-sample records ---- */

static const char bid20[] = "\x01\x23\x45\x67\x89\xab\xcd\xef\x10\x32\x54\x76\x98\xba\xdc\xfe"
			    "\x11\x22\x33\x44";
static const char bid8[20] = "\xfe\xed\xfa\xce\x01\x02\x03\x04";
static const char tag8[] = "\x0a\x1b\x2c\x3d\x4e\x5f\x60\x71";
static const char poke10[] = "\x0f\x1f\x44\x00\x00\xe8\x10\x20\x30\x40";

#define MMAP_HEAD U32(1001), U32(1002), U64(0x400000), U64(0x2000), U64(0x1000)
#define MMAP_WANT EQ(mmap.pid, 1001), EQ(mmap.tid, 1002), EQ(mmap.addr, 0x400000), \
	EQ(mmap.len, 0x2000), EQ(mmap.pgoff, 0x1000)

static const struct row record_rows[] = {
	{ .name = "mmap", .type = PERF_RECORD_MMAP, .misc = PERF_RECORD_MISC_USER, .flags = VAR,
	  .in = { MMAP_HEAD, MARK(0), STR("/usr/bin/true") },
	  .want = { MMAP_WANT, STREQ(mmap.filename, "/usr/bin/true"), AT(mmap.filename, 0) } },
	{ .name = "mmap-short-name", .type = PERF_RECORD_MMAP, .flags = VAR,
	  .misc = PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_DATA,
	  .in = { MMAP_HEAD, STR("/a") },
	  .want = { MMAP_WANT, STREQ(mmap.filename, "/a") } },
	{ .name = "mmap-name-of-8", .type = PERF_RECORD_MMAP, .flags = VAR,
	  .in = { MMAP_HEAD, STR("[vdso]x") },
	  .want = { MMAP_WANT, STREQ(mmap.filename, "[vdso]x") } },
	{ .name = "mmap2-inode", .type = PERF_RECORD_MMAP2, .misc = PERF_RECORD_MISC_USER,
	  .flags = VAR,
	  .in = { MMAP_HEAD, U32(8), U32(3), U64(123456), U64(7), U32(5), U32(2), MARK(0),
		  STR("/usr/lib/x86_64-linux-gnu/libc.so.6") },
	  .want = { MMAP_WANT, EQ(mmap.maj, 8), EQ(mmap.min, 3), EQ(mmap.ino, 123456),
		    EQ(mmap.ino_generation, 7), EQ(mmap.prot, 5), EQ(mmap.flags, 2),
		    EQ(mmap.build_id_size, 0),
		    STREQ(mmap.filename, "/usr/lib/x86_64-linux-gnu/libc.so.6"),
		    AT(mmap.filename, 0) } },
	{ .name = "mmap2-inode-short-name", .type = PERF_RECORD_MMAP2, .flags = VAR,
	  .in = { MMAP_HEAD, U32(8), U32(3), U64(99), U64(1), U32(1), U32(1), STR("//anon") },
	  .want = { MMAP_WANT, EQ(mmap.ino, 99), EQ(mmap.prot, 1), EQ(mmap.flags, 1),
		    STREQ(mmap.filename, "//anon") } },
	{ .name = "mmap2-build-id", .type = PERF_RECORD_MMAP2, .flags = VAR,
	  .misc = PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID,
	  .in = { MMAP_HEAD, U8(20), U8(0), U16(0), BYTES(bid20, 20), U32(5), U32(2),
		  STR("/usr/bin/bash") },
	  .want = { MMAP_WANT, EQ(mmap.build_id_size, 20), MEMEQ(mmap.build_id, bid20),
		    EQ(mmap.maj, 0), EQ(mmap.min, 0), EQ(mmap.ino, 0), EQ(mmap.ino_generation, 0),
		    EQ(mmap.prot, 5), EQ(mmap.flags, 2), STREQ(mmap.filename, "/usr/bin/bash") } },
	{ .name = "mmap2-build-id-8", .type = PERF_RECORD_MMAP2, .flags = VAR,
	  .misc = PERF_RECORD_MISC_MMAP_BUILD_ID,
	  .in = { MMAP_HEAD, U8(8), U8(0), U16(0), BYTES(bid8, 20), U32(1), U32(2), STR("/x") },
	  .want = { MMAP_WANT, EQ(mmap.build_id_size, 8), MEMEQ(mmap.build_id, bid8),
		    EQ(mmap.prot, 1), EQ(mmap.flags, 2), STREQ(mmap.filename, "/x") } },
	{ .name = "lost", .type = PERF_RECORD_LOST,
	  .in = { U64(0x42), U64(17) },
	  .want = { EQ(lost.id, 0x42), EQ(lost.lost, 17) } },
	{ .name = "comm", .type = PERF_RECORD_COMM, .flags = VAR,
	  .in = { U32(1001), U32(1002), MARK(0), STR("bash") },
	  .want = { EQ(comm.pid, 1001), EQ(comm.tid, 1002), STREQ(comm.comm, "bash"),
		    AT(comm.comm, 0) } },
	{ .name = "comm-exec-16", .type = PERF_RECORD_COMM, .misc = PERF_RECORD_MISC_COMM_EXEC,
	  .flags = VAR,
	  .in = { U32(1001), U32(1001), STR("0123456789abcde") },
	  .want = { EQ(comm.pid, 1001), EQ(comm.tid, 1001),
		    STREQ(comm.comm, "0123456789abcde") } },
	{ .name = "exit", .type = PERF_RECORD_EXIT,
	  .in = { U32(2001), U32(2000), U32(2002), U32(2003), U64(0xabcdef0123) },
	  .want = { EQ(task.pid, 2001), EQ(task.ppid, 2000), EQ(task.tid, 2002),
		    EQ(task.ptid, 2003), EQ(task.time, 0xabcdef0123) } },
	{ .name = "fork", .type = PERF_RECORD_FORK,
	  .in = { U32(2011), U32(2010), U32(2012), U32(2013), U64(0x1122334455) },
	  .want = { EQ(task.pid, 2011), EQ(task.ppid, 2010), EQ(task.tid, 2012),
		    EQ(task.ptid, 2013), EQ(task.time, 0x1122334455) } },
	{ .name = "throttle", .type = PERF_RECORD_THROTTLE,
	  .in = { U64(0x1000000001), U64(0x21), U64(0x22) },
	  .want = { EQ(throttle.time, 0x1000000001), EQ(throttle.id, 0x21),
		    EQ(throttle.stream_id, 0x22) } },
	{ .name = "unthrottle", .type = PERF_RECORD_UNTHROTTLE,
	  .in = { U64(0x1000000002), U64(0x23), U64(0x24) },
	  .want = { EQ(throttle.time, 0x1000000002), EQ(throttle.id, 0x23),
		    EQ(throttle.stream_id, 0x24) } },
	{ .name = "read", .type = PERF_RECORD_READ,
	  .in = { U32(3001), U32(3002), MARK(0), U64(123456789) },
	  .want = { EQ(read.pid, 3001), EQ(read.tid, 3002), EQ(read.values.nr, 1),
		    EQ(read.values.stride, 1), AT(read.values.raw, 0) } },
	{ .name = "read-group-id", .type = PERF_RECORD_READ, .read_format = F(GROUP) | F(ID),
	  .in = { U32(3001), U32(3002), U64(2), MARK(0), U64(10), U64(0x31), U64(20), U64(0x32) },
	  .want = { EQ(read.values.nr, 2), EQ(read.values.stride, 2), AT(read.values.raw, 0) } },
	{ .name = "aux", .type = PERF_RECORD_AUX,
	  .in = { U64(0x10000), U64(0x8000), U64(PERF_AUX_FLAG_TRUNCATED) },
	  .want = { EQ(aux.aux_offset, 0x10000), EQ(aux.aux_size, 0x8000),
		    EQ(aux.flags, PERF_AUX_FLAG_TRUNCATED) } },
	{ .name = "itrace-start", .type = PERF_RECORD_ITRACE_START,
	  .in = { U32(4001), U32(4002) },
	  .want = { EQ(itrace_start.pid, 4001), EQ(itrace_start.tid, 4002) } },
	{ .name = "lost-samples", .type = PERF_RECORD_LOST_SAMPLES,
	  .in = { U64(999) },
	  .want = { EQ(lost_samples.lost, 999) } },
	{ .name = "switch", .type = PERF_RECORD_SWITCH, .misc = PERF_RECORD_MISC_SWITCH_OUT,
	  .want = { EQ(misc, PERF_RECORD_MISC_SWITCH_OUT) } },
	{ .name = "switch-cpu-wide", .type = PERF_RECORD_SWITCH_CPU_WIDE,
	  .in = { U32(5001), U32(5002) },
	  .want = { EQ(context_switch.next_prev_pid, 5001),
		    EQ(context_switch.next_prev_tid, 5002) } },
	{ .name = "namespaces", .type = PERF_RECORD_NAMESPACES,
	  .in = { U32(6001), U32(6002), U64(2), MARK(0), U64(4), U64(0xf0000001), U64(4),
		  U64(0xf0000002) },
	  .want = { EQ(namespaces.pid, 6001), EQ(namespaces.tid, 6002), EQ(namespaces.nr, 2),
		    AT(namespaces.links, 0) } },
	{ .name = "namespaces-none", .type = PERF_RECORD_NAMESPACES,
	  .in = { U32(6001), U32(6002), U64(0) },
	  .want = { EQ(namespaces.nr, 0) } },
	{ .name = "ksymbol", .type = PERF_RECORD_KSYMBOL, .flags = VAR,
	  .in = { U64(0xffffffffc0001000), U32(0x100), U16(PERF_RECORD_KSYMBOL_TYPE_BPF), U16(0),
		  MARK(0), STR("bpf_prog_6deef7357e7b4530_sd_fw_ingress") },
	  .want = { EQ(ksymbol.addr, 0xffffffffc0001000), EQ(ksymbol.len, 0x100),
		    EQ(ksymbol.ksym_type, PERF_RECORD_KSYMBOL_TYPE_BPF), EQ(ksymbol.flags, 0),
		    STREQ(ksymbol.name, "bpf_prog_6deef7357e7b4530_sd_fw_ingress"),
		    AT(ksymbol.name, 0) } },
	{ .name = "ksymbol-unregister", .type = PERF_RECORD_KSYMBOL, .flags = VAR,
	  .in = { U64(0xffffffffc0002000), U32(0x40), U16(PERF_RECORD_KSYMBOL_TYPE_OOL),
		  U16(PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER), STR("ool") },
	  .want = { EQ(ksymbol.ksym_type, PERF_RECORD_KSYMBOL_TYPE_OOL),
		    EQ(ksymbol.flags, PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER),
		    STREQ(ksymbol.name, "ool") } },
	{ .name = "bpf-event", .type = PERF_RECORD_BPF_EVENT,
	  .in = { U16(PERF_BPF_EVENT_PROG_LOAD), U16(3), U32(77), MARK(0), BYTES(tag8, 8) },
	  .want = { EQ(bpf_event.type, PERF_BPF_EVENT_PROG_LOAD), EQ(bpf_event.flags, 3),
		    EQ(bpf_event.id, 77), AT(bpf_event.tag, 0) } },
	{ .name = "cgroup", .type = PERF_RECORD_CGROUP, .flags = VAR,
	  .in = { U64(0x2a), MARK(0), STR("/system.slice/foo.service") },
	  .want = { EQ(cgroup.id, 0x2a), STREQ(cgroup.path, "/system.slice/foo.service"),
		    AT(cgroup.path, 0) } },
	{ .name = "cgroup-root", .type = PERF_RECORD_CGROUP, .flags = VAR,
	  .in = { U64(1), STR("/") },
	  .want = { EQ(cgroup.id, 1), STREQ(cgroup.path, "/") } },
	{ .name = "text-poke", .type = PERF_RECORD_TEXT_POKE, .flags = VAR,
	  .in = { U64(0xffffffff81234560), U16(5), U16(5), MARK(0), BYTES(poke10, 10), PAD8 },
	  .want = { EQ(text_poke.addr, 0xffffffff81234560), EQ(text_poke.old_len, 5),
		    EQ(text_poke.new_len, 5), AT(text_poke.bytes, 0) } },
	{ .name = "text-poke-4", .type = PERF_RECORD_TEXT_POKE,
	  .in = { U64(0xffffffff81234570), U16(1), U16(3), MARK(0), BYTES(poke10, 4) },
	  .want = { EQ(text_poke.old_len, 1), EQ(text_poke.new_len, 3),
		    AT(text_poke.bytes, 0) } },
	{ .name = "aux-output-hw-id", .type = PERF_RECORD_AUX_OUTPUT_HW_ID,
	  .in = { U64(0x1234) },
	  .want = { EQ(aux_output_hw_id.hw_id, 0x1234) } },
	{ .name = "unknown-type-30", .type = 30, .flags = NO_TRAILER | VAR,
	  .in = { MARK(0), U64(1), U64(2) },
	  .want = { EQ(type, 30), EQ(unknown.size, 16), AT(unknown.data, 0) } },
	{ .name = "unknown-type-22-empty", .type = PERF_RECORD_MAX, .flags = NO_TRAILER | VAR,
	  .want = { EQ(unknown.size, 0) } },

	/* strings with no NUL before the trailer (the trailer itself holds zero bytes) */
	{ .name = "mmap-no-nul", .type = PERF_RECORD_MMAP, .ret = -EBADMSG,
	  .in = { MMAP_HEAD, BYTES("/usr/bin", 8) } },
	{ .name = "mmap-no-name", .type = PERF_RECORD_MMAP, .ret = -EBADMSG,
	  .in = { MMAP_HEAD } },
	{ .name = "mmap2-no-nul", .type = PERF_RECORD_MMAP2, .ret = -EBADMSG,
	  .in = { MMAP_HEAD, U32(8), U32(3), U64(99), U64(1), U32(1), U32(1), BYTES("abcdefgh", 8) } },
	{ .name = "mmap2-build-id-cut", .type = PERF_RECORD_MMAP2, .ret = -EBADMSG,
	  .misc = PERF_RECORD_MISC_MMAP_BUILD_ID,
	  .in = { MMAP_HEAD, U8(20), U8(0), U16(0), BYTES(bid20, 12) } },
	{ .name = "comm-no-nul", .type = PERF_RECORD_COMM, .ret = -EBADMSG,
	  .in = { U32(1), U32(1), BYTES("abcdefgh", 8) } },
	{ .name = "comm-no-name", .type = PERF_RECORD_COMM, .ret = -EBADMSG,
	  .in = { U32(1), U32(1) } },
	{ .name = "ksymbol-no-nul", .type = PERF_RECORD_KSYMBOL, .ret = -EBADMSG,
	  .in = { U64(0xffffffffc0001000), U32(0x100), U16(1), U16(0), BYTES("bpf_prog", 8) } },
	{ .name = "cgroup-no-nul", .type = PERF_RECORD_CGROUP, .ret = -EBADMSG,
	  .in = { U64(0x2a), BYTES("/sys/fs/", 8) } },
	/* lying lengths */
	{ .name = "namespaces-nr-huge", .type = PERF_RECORD_NAMESPACES, .ret = -EBADMSG,
	  .in = { U32(1), U32(1), U64(UINT64_MAX), U64(4), U64(5) } },
	{ .name = "namespaces-nr-wraps", .type = PERF_RECORD_NAMESPACES, .ret = -EBADMSG,
	  .in = { U32(1), U32(1), U64(1ull << 60), U64(4), U64(5) } },
	{ .name = "namespaces-nr-one-too-many", .type = PERF_RECORD_NAMESPACES, .ret = -EBADMSG,
	  .in = { U32(1), U32(1), U64(3), U64(4), U64(5), U64(4), U64(6) } },
	{ .name = "text-poke-lens-huge", .type = PERF_RECORD_TEXT_POKE, .ret = -EBADMSG,
	  .in = { U64(0xffffffff81234560), U16(0xffff), U16(0xffff), BYTES(poke10, 4) } },
	{ .name = "text-poke-one-past", .type = PERF_RECORD_TEXT_POKE, .ret = -EBADMSG,
	  .in = { U64(0xffffffff81234560), U16(2), U16(3), BYTES(poke10, 4) } },
	{ .name = "read-group-nr-huge", .type = PERF_RECORD_READ, .ret = -EBADMSG,
	  .read_format = F(GROUP) | F(ID),
	  .in = { U32(1), U32(1), U64(UINT64_MAX), U64(10), U64(0x31) } },
	{ .name = "read-group-nr-wraps", .type = PERF_RECORD_READ, .ret = -EBADMSG,
	  .read_format = F(GROUP) | F(ID),
	  .in = { U32(1), U32(1), U64(1ull << 63), U64(10), U64(0x31) } },
	{ .name = "read-group-nr-one-too-many", .type = PERF_RECORD_READ, .ret = -EBADMSG,
	  .read_format = F(GROUP) | F(ID) | F(LOST),
	  .in = { U32(1), U32(1), U64(2), U64(10), U64(0x31), U64(0) } },
	{ .name = "read-no-id", .type = PERF_RECORD_READ, .ret = -EBADMSG,
	  .read_format = F(ID) | F(TOTAL_TIME_ENABLED),
	  .in = { U32(1), U32(1), U64(10), U64(100) } },
	{ .name = "bpf-event-no-tag", .type = PERF_RECORD_BPF_EVENT, .ret = -EBADMSG,
	  .in = { U16(1), U16(0), U32(77) } },
	{ .name = "lost-short", .type = PERF_RECORD_LOST, .ret = -EBADMSG,
	  .in = { U64(0x42) } },
};

/* Trailer variants of the non-sample rows. */
static const struct variant {
	const char *name;
	bool sample_id_all;
	uint64_t sample_type;
	bool seed;		/* written to the fuzz corpus */
} record_variants[] = {
	/* the id bits but no sample_id_all: there is no trailer */
	{ "plain", false, ID_BITS | S(IP), true },
	{ "all-ids", true, ID_BITS | S(IP) | S(PERIOD), true },
	{ "identifier", true, S(IDENTIFIER), false },
	{ "tid-time-cpu", true, S(TID) | S(TIME) | S(CPU) | S(CALLCHAIN), false },
	{ "id-stream-id", true, S(ID) | S(STREAM_ID), false },
	/* sample_id_all but none of the id bits: no trailer either */
	{ "no-id-bits", true, S(IP) | S(PERIOD), false },
};

static void test_records(void **state)
{
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(record_rows); i++) {
		for (size_t v = 0; v < ARRAY_SIZE(record_variants); v++) {
			const struct variant *var = &record_variants[v];
			struct perf_event_attr a;

			if ((record_rows[i].flags & NO_TRAILER) && var->sample_id_all)
				continue;
			a = row_attr(&record_rows[i], var->sample_type, var->sample_id_all);
			bad += run_row(&record_rows[i], var->name, &a, var->seed);
		}
	}
	assert_int_equal(bad, 0);
}

static void test_records_truncated(void **state)
{
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(record_rows); i++) {
		if (record_rows[i].ret)
			continue;
		for (size_t v = 0; v < ARRAY_SIZE(record_variants); v++) {
			const struct variant *var = &record_variants[v];
			struct perf_event_attr a;

			if ((record_rows[i].flags & NO_TRAILER) && var->sample_id_all)
				continue;
			a = row_attr(&record_rows[i], var->sample_type, var->sample_id_all);
			bad += truncate_row(&record_rows[i], var->name, &a);
		}
	}
	assert_int_equal(bad, 0);
}

/* Every type of this perf_event.h has a row that decodes. */
static void test_every_type_has_a_row(void **state)
{
	int bad = 0;

	(void)state;
	for (uint32_t t = PERF_RECORD_MMAP; t < PERF_RECORD_MAX; t++) {
		bool found = false;

		if (t == PERF_RECORD_SAMPLE)
			continue;
		for (size_t i = 0; i < ARRAY_SIZE(record_rows) && !found; i++)
			found = record_rows[i].type == t && !record_rows[i].ret;
		if (!found) {
			print_message("no row for record type %u (%s)\n", t, pcl_record_type_name(t));
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

/* ---- samples ---- */

#define KIP 0xffffffff81001234ull
#define SAMPLE(n) .type = PERF_RECORD_SAMPLE, .name = (n)
static const char raw13[] = "0123456789abc";

static const struct row sample_rows[] = {
	{ SAMPLE("identifier"), .sample_type = S(IDENTIFIER),
	  .in = { U64(0xabc) },
	  .want = { EQ(sample.sample_type, S(IDENTIFIER)), EQ(sample.identifier, 0xabc),
		    EQ(id.id, 0xabc) } },
	{ SAMPLE("ip"), .sample_type = S(IP),
	  .in = { U64(KIP) },
	  .want = { EQ(sample.ip, KIP) } },
	{ SAMPLE("tid"), .sample_type = S(TID),
	  .in = { U32(7001), U32(7002) },
	  .want = { EQ(sample.pid, 7001), EQ(sample.tid, 7002), EQ(id.pid, 7001),
		    EQ(id.tid, 7002) } },
	{ SAMPLE("time"), .sample_type = S(TIME),
	  .in = { U64(0x7000000000000003) },
	  .want = { EQ(sample.time, 0x7000000000000003), EQ(id.time, 0x7000000000000003) } },
	{ SAMPLE("addr"), .sample_type = S(ADDR),
	  .in = { U64(0x7ffd12345678) },
	  .want = { EQ(sample.addr, 0x7ffd12345678) } },
	{ SAMPLE("id"), .sample_type = S(ID),
	  .in = { U64(0x55) },
	  .want = { EQ(sample.id, 0x55), EQ(id.id, 0x55) } },
	{ SAMPLE("stream-id"), .sample_type = S(STREAM_ID),
	  .in = { U64(0x56) },
	  .want = { EQ(sample.stream_id, 0x56), EQ(id.stream_id, 0x56) } },
	{ SAMPLE("cpu"), .sample_type = S(CPU),
	  .in = { U32(3), U32(0) },
	  .want = { EQ(sample.cpu, 3), EQ(sample.res, 0), EQ(id.cpu, 3) } },
	{ SAMPLE("cpu-res"), .sample_type = S(CPU),
	  .in = { U32(3), U32(9) },
	  .want = { EQ(sample.cpu, 3), EQ(sample.res, 9), EQ(id.cpu, 3), EQ(id.res, 9) } },
	{ SAMPLE("period"), .sample_type = S(PERIOD),
	  .in = { U64(100003) },
	  .want = { EQ(sample.period, 100003) } },
	{ SAMPLE("read-single"), .sample_type = S(READ),
	  .in = { MARK(0), U64(42) },
	  .want = { EQ(sample.read.nr, 1), EQ(sample.read.stride, 1), AT(sample.read.raw, 0) } },
	{ SAMPLE("callchain"), .sample_type = S(CALLCHAIN),
	  .in = { U64(5), MARK(0), U64(PERF_CONTEXT_KERNEL), U64(KIP), U64(PERF_CONTEXT_USER),
		  U64(0x401000), U64(0x401100) },
	  .want = { EQ(sample.nr_callchain, 5), AT(sample.callchain, 0) } },
	{ SAMPLE("callchain-empty"), .sample_type = S(CALLCHAIN) | S(PERIOD),
	  .in = { U64(1), U64(0) },
	  .want = { EQ(sample.period, 1), EQ(sample.nr_callchain, 0) } },
	{ SAMPLE("raw-4"), .sample_type = S(RAW),
	  .in = { U32(4), MARK(0), BYTES("abcd", 4) },
	  .want = { EQ(sample.raw_size, 4), AT(sample.raw, 0) } },
	{ SAMPLE("raw-12"), .sample_type = S(RAW),
	  .in = { U32(12), MARK(0), BYTES(raw13, 12) },
	  .want = { EQ(sample.raw_size, 12), AT(sample.raw, 0) } },
	{ SAMPLE("raw-5-padded"), .sample_type = S(RAW),
	  .in = { U32(5), MARK(0), BYTES("abcde", 5), PAD8 },
	  .want = { EQ(sample.raw_size, 5), AT(sample.raw, 0) } },
	{ SAMPLE("raw-0-padded"), .sample_type = S(RAW) | S(PERIOD),
	  .in = { U64(7), U32(0), PAD8 },
	  .want = { EQ(sample.period, 7), EQ(sample.raw_size, 0) } },
	{ SAMPLE("raw-13-then-branch"), .sample_type = S(RAW) | S(BRANCH_STACK),
	  .in = { U32(13), MARK(0), BYTES(raw13, 13), PAD8, U64(1), MARK(1), U64(0x401000),
		  U64(0x402000), U64(0x3) },
	  .want = { EQ(sample.raw_size, 13), AT(sample.raw, 0), EQ(sample.nr_branches, 1),
		    AT(sample.branches, 1) } },
	{ SAMPLE("callchain-then-raw"), .sample_type = S(CALLCHAIN) | S(RAW),
	  .in = { U64(1), U64(KIP), U32(4), MARK(0), BYTES("wxyz", 4) },
	  .want = { EQ(sample.nr_callchain, 1), EQ(sample.raw_size, 4), AT(sample.raw, 0) } },
	{ SAMPLE("branch-stack"), .sample_type = S(BRANCH_STACK),
	  .branch_sample_type = PERF_SAMPLE_BRANCH_ANY,
	  .in = { U64(2), MARK(0), U64(0x401000), U64(0x402000), U64(0x1), U64(0x403000),
		  U64(0x404000), U64(0x2) },
	  .want = { EQ(sample.nr_branches, 2), EQ(sample.branch_hw_idx, 0),
		    AT(sample.branches, 0) } },
	{ SAMPLE("branch-stack-hw-index"), .sample_type = S(BRANCH_STACK),
	  .branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX,
	  .in = { U64(2), U64(5), MARK(0), U64(0x401000), U64(0x402000), U64(0x1),
		  U64(0x403000), U64(0x404000), U64(0x2) },
	  .want = { EQ(sample.nr_branches, 2), EQ(sample.branch_hw_idx, 5),
		    AT(sample.branches, 0) } },
	{ SAMPLE("branch-stack-empty"), .sample_type = S(BRANCH_STACK) | S(WEIGHT),
	  .in = { U64(0), U64(31) },
	  .want = { EQ(sample.nr_branches, 0), EQ(sample.weight, 31) } },
	{ SAMPLE("branch-stack-hw-index-empty"), .sample_type = S(BRANCH_STACK) | S(WEIGHT),
	  .branch_sample_type = PERF_SAMPLE_BRANCH_HW_INDEX,
	  .in = { U64(0), U64(UINT64_MAX), U64(31) },
	  .want = { EQ(sample.nr_branches, 0), EQ(sample.branch_hw_idx, UINT64_MAX),
		    EQ(sample.weight, 31) } },
	{ SAMPLE("regs-user"), .sample_type = S(REGS_USER), .regs_user = 0xb,
	  .in = { U64(PERF_SAMPLE_REGS_ABI_64), MARK(0), U64(0xa0), U64(0xa1), U64(0xa3) },
	  .want = { EQ(sample.user_abi, PERF_SAMPLE_REGS_ABI_64), AT(sample.user_regs, 0) } },
	{ SAMPLE("regs-user-abi-none"), .sample_type = S(REGS_USER) | S(STACK_USER),
	  .regs_user = 0xff,
	  .in = { U64(PERF_SAMPLE_REGS_ABI_NONE), U64(8), MARK(0), U64(0x1234), U64(8) },
	  .want = { EQ(sample.user_abi, 0), ISNULL(sample.user_regs),
		    EQ(sample.user_stack_size, 8), AT(sample.user_stack, 0),
		    EQ(sample.user_stack_dyn_size, 8) } },
	{ SAMPLE("stack-user"), .sample_type = S(STACK_USER),
	  .in = { U64(16), MARK(0), U64(0x1111), U64(0x2222), U64(12) },
	  .want = { EQ(sample.user_stack_size, 16), AT(sample.user_stack, 0),
		    EQ(sample.user_stack_dyn_size, 12) } },
	{ SAMPLE("stack-user-empty"), .sample_type = S(STACK_USER) | S(WEIGHT),
	  .in = { U64(0), U64(99) },
	  .want = { EQ(sample.user_stack_size, 0), EQ(sample.user_stack_dyn_size, 0),
		    EQ(sample.weight, 99) } },
	{ SAMPLE("weight"), .sample_type = S(WEIGHT),
	  .in = { U64(0x1122334455667788) },
	  .want = { EQ(sample.weight, 0x1122334455667788) } },
	{ SAMPLE("weight-struct"), .sample_type = S(WEIGHT_STRUCT),
	  .in = { U32(0x11223344), U16(0x5566), U16(0x7788) },
	  .want = { EQ(sample.weight, 0x11223344), EQ(sample.weight_var2, 0x5566),
		    EQ(sample.weight_var3, 0x7788) } },
	{ SAMPLE("data-src"), .sample_type = S(DATA_SRC),
	  .in = { U64(0x68100142) },
	  .want = { EQ(sample.data_src, 0x68100142) } },
	{ SAMPLE("transaction"), .sample_type = S(TRANSACTION),
	  .in = { U64(PERF_TXN_ELISION | PERF_TXN_SYNC) },
	  .want = { EQ(sample.transaction, PERF_TXN_ELISION | PERF_TXN_SYNC) } },
	{ SAMPLE("regs-intr"), .sample_type = S(REGS_INTR), .regs_intr = 0xff00,
	  .in = { U64(PERF_SAMPLE_REGS_ABI_64), MARK(0), U64(1), U64(2), U64(3), U64(4), U64(5),
		  U64(6), U64(7), U64(8) },
	  .want = { EQ(sample.intr_abi, PERF_SAMPLE_REGS_ABI_64), AT(sample.intr_regs, 0) } },
	{ SAMPLE("regs-intr-abi-none"), .sample_type = S(REGS_INTR) | S(PHYS_ADDR),
	  .regs_intr = 0xff,
	  .in = { U64(PERF_SAMPLE_REGS_ABI_NONE), U64(0x12345000) },
	  .want = { EQ(sample.intr_abi, 0), ISNULL(sample.intr_regs),
		    EQ(sample.phys_addr, 0x12345000) } },
	{ SAMPLE("regs-user-and-intr"), .sample_type = S(REGS_USER) | S(REGS_INTR),
	  .regs_user = 0x3, .regs_intr = 0x1,
	  .in = { U64(PERF_SAMPLE_REGS_ABI_32), MARK(0), U64(1), U64(2), U64(PERF_SAMPLE_REGS_ABI_64),
		  MARK(1), U64(3) },
	  .want = { EQ(sample.user_abi, PERF_SAMPLE_REGS_ABI_32), AT(sample.user_regs, 0),
		    EQ(sample.intr_abi, PERF_SAMPLE_REGS_ABI_64), AT(sample.intr_regs, 1) } },
	{ SAMPLE("phys-addr"), .sample_type = S(PHYS_ADDR),
	  .in = { U64(0xabc000) },
	  .want = { EQ(sample.phys_addr, 0xabc000) } },
	{ SAMPLE("cgroup"), .sample_type = S(CGROUP),
	  .in = { U64(0x2a) },
	  .want = { EQ(sample.cgroup, 0x2a) } },
	{ SAMPLE("data-page-size"), .sample_type = S(DATA_PAGE_SIZE),
	  .in = { U64(4096) },
	  .want = { EQ(sample.data_page_size, 4096) } },
	{ SAMPLE("code-page-size"), .sample_type = S(CODE_PAGE_SIZE),
	  .in = { U64(2097152) },
	  .want = { EQ(sample.code_page_size, 2097152) } },
	{ SAMPLE("aux"), .sample_type = S(AUX),
	  .in = { U64(16), MARK(0), U64(0x99), U64(0x98) },
	  .want = { EQ(sample.aux_size, 16), AT(sample.aux, 0) } },
	{ SAMPLE("aux-empty"), .sample_type = S(AUX) | S(CODE_PAGE_SIZE),
	  .in = { U64(4096), U64(0) },
	  .want = { EQ(sample.code_page_size, 4096), EQ(sample.aux_size, 0) } },
	{ SAMPLE("id-fields"), .sample_type = S(TID) | S(TIME) | S(ID) | S(STREAM_ID) | S(CPU),
	  .in = { U32(11), U32(12), U64(13), U64(14), U64(15), U32(16), U32(0) },
	  .want = { EQ(id.pid, 11), EQ(id.tid, 12), EQ(id.time, 13), EQ(id.id, 14),
		    EQ(id.stream_id, 15), EQ(id.cpu, 16), EQ(sample.id, 14) } },
	{ SAMPLE("identifier-and-id"), .sample_type = S(IDENTIFIER) | S(IP) | S(ID),
	  .in = { U64(0x77), U64(KIP), U64(0x77) },
	  .want = { EQ(sample.identifier, 0x77), EQ(sample.ip, KIP), EQ(sample.id, 0x77),
		    EQ(id.id, 0x77) } },
#define EVERYTHING_HEAD                                                                            \
	U64(0x77), U64(KIP), U32(3001), U32(3002), U64(0x123456789), U64(0x7ffd0000), U64(0x77),   \
		U64(0x76), U32(5), U32(0), U64(10007), U64(2), U64(0x1000), U64(0x2000), MARK(0),  \
		U64(0x100), U64(0x77), U64(1), U64(0x101), U64(0x78), U64(2), U64(3), MARK(1),     \
		U64(PERF_CONTEXT_USER), U64(0x401000), U64(0x401100), U32(4), MARK(2),             \
		BYTES("\xde\xad\xbe\xef", 4), U64(1), U64(9), MARK(3), U64(0x401000),              \
		U64(0x402000), U64(0x1f), U64(PERF_SAMPLE_REGS_ABI_64), MARK(4), U64(0xaa),        \
		U64(0xbb), U64(8), MARK(5), U64(0x1122334455667788), U64(8)
#define EVERYTHING_TAIL                                                                            \
	U64(0x68100142), U64(0x3), U64(PERF_SAMPLE_REGS_ABI_64), MARK(6), U64(0xcc), U64(0xdd),    \
		U64(0x12345000), U64(0x2a), U64(4096), U64(2097152), U64(8), MARK(7), U64(0x99)
#define EVERYTHING_WANT                                                                            \
	EQ(sample.identifier, 0x77), EQ(sample.ip, KIP), EQ(sample.pid, 3001),                     \
		EQ(sample.tid, 3002), EQ(sample.time, 0x123456789), EQ(sample.addr, 0x7ffd0000),   \
		EQ(sample.id, 0x77), EQ(sample.stream_id, 0x76), EQ(sample.cpu, 5),                \
		EQ(sample.period, 10007), EQ(sample.read.nr, 2), EQ(sample.read.time_enabled, 0x1000), \
		EQ(sample.read.time_running, 0x2000), EQ(sample.read.stride, 3),                   \
		AT(sample.read.raw, 0), EQ(sample.nr_callchain, 3), AT(sample.callchain, 1),       \
		EQ(sample.raw_size, 4), AT(sample.raw, 2), EQ(sample.nr_branches, 1),              \
		EQ(sample.branch_hw_idx, 9), AT(sample.branches, 3),                               \
		EQ(sample.user_abi, PERF_SAMPLE_REGS_ABI_64), AT(sample.user_regs, 4),             \
		EQ(sample.user_stack_size, 8), AT(sample.user_stack, 5),                           \
		EQ(sample.user_stack_dyn_size, 8), EQ(sample.data_src, 0x68100142),                \
		EQ(sample.transaction, 3), EQ(sample.intr_abi, PERF_SAMPLE_REGS_ABI_64),           \
		AT(sample.intr_regs, 6), EQ(sample.phys_addr, 0x12345000), EQ(sample.cgroup, 0x2a), \
		EQ(sample.data_page_size, 4096), EQ(sample.code_page_size, 2097152),               \
		EQ(sample.aux_size, 8), AT(sample.aux, 7), EQ(id.id, 0x77), EQ(id.pid, 3001)
#define EVERYTHING_ATTR                                                                            \
	.read_format = F(GROUP) | F(ID) | F(LOST) | F(TOTAL_TIME_ENABLED) | F(TOTAL_TIME_RUNNING), \
	.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX,                 \
	.regs_user = 0x5, .regs_intr = 0x3
	/* every field at once, in the manual's order */
	{ SAMPLE("everything-weight"),
	  .sample_type = (S(MAX) - 1) & ~(uint64_t)S(WEIGHT_STRUCT), EVERYTHING_ATTR,
	  .in = { EVERYTHING_HEAD, U64(333), EVERYTHING_TAIL },
	  .want = { EVERYTHING_WANT, EQ(sample.weight, 333) } },
	{ SAMPLE("everything-weight-struct"),
	  .sample_type = (S(MAX) - 1) & ~(uint64_t)S(WEIGHT), EVERYTHING_ATTR,
	  .in = { EVERYTHING_HEAD, U32(0xa1b2c3d4), U16(0x1234), U16(0x5678), EVERYTHING_TAIL },
	  .want = { EVERYTHING_WANT, EQ(sample.weight, 0xa1b2c3d4), EQ(sample.weight_var2, 0x1234),
		    EQ(sample.weight_var3, 0x5678) } },

	/* lying lengths */
	{ SAMPLE("callchain-nr-huge"), .sample_type = S(CALLCHAIN), .ret = -EBADMSG,
	  .in = { U64(UINT64_MAX), U64(KIP), U64(KIP) } },
	{ SAMPLE("callchain-nr-wraps"), .sample_type = S(CALLCHAIN), .ret = -EBADMSG,
	  .in = { U64(1ull << 61), U64(KIP), U64(KIP) } },
	{ SAMPLE("callchain-nr-one-too-many"), .sample_type = S(CALLCHAIN), .ret = -EBADMSG,
	  .in = { U64(3), U64(KIP), U64(KIP) } },
	{ SAMPLE("raw-size-huge"), .sample_type = S(RAW), .ret = -EBADMSG,
	  .in = { U32(UINT32_MAX), BYTES("abcd", 4) } },
	{ SAMPLE("raw-size-one-too-many"), .sample_type = S(RAW), .ret = -EBADMSG,
	  .in = { U32(13), BYTES(raw13, 12) } },
	{ SAMPLE("raw-no-padding"), .sample_type = S(RAW), .ret = -EBADMSG,
	  .in = { U32(5), BYTES("abcde", 5) } },
	{ SAMPLE("raw-missing"), .sample_type = S(IP) | S(RAW), .ret = -EBADMSG,
	  .in = { U64(KIP) } },
	{ SAMPLE("branch-nr-huge"), .sample_type = S(BRANCH_STACK), .ret = -EBADMSG,
	  .in = { U64(UINT64_MAX), U64(1), U64(2), U64(3) } },
	{ SAMPLE("branch-nr-wraps"), .sample_type = S(BRANCH_STACK), .ret = -EBADMSG,
	  /* 0xaaaaaaaaaaaaaaab * 24 == 8 modulo 2^64 */
	  .in = { U64(0xaaaaaaaaaaaaaaabull), U64(1), U64(2), U64(3) } },
	{ SAMPLE("branch-nr-one-too-many"), .sample_type = S(BRANCH_STACK), .ret = -EBADMSG,
	  .in = { U64(2), U64(1), U64(2), U64(3), U64(4), U64(5) } },
	{ SAMPLE("branch-hw-index-nr-one-too-many"), .sample_type = S(BRANCH_STACK),
	  .ret = -EBADMSG, .branch_sample_type = PERF_SAMPLE_BRANCH_HW_INDEX,
	  .in = { U64(2), U64(7), U64(1), U64(2), U64(3) } },
	{ SAMPLE("branch-hw-index-missing"), .sample_type = S(BRANCH_STACK), .ret = -EBADMSG,
	  .branch_sample_type = PERF_SAMPLE_BRANCH_HW_INDEX,
	  .in = { U64(0) } },
	{ SAMPLE("regs-user-too-few"), .sample_type = S(REGS_USER), .ret = -EBADMSG,
	  .regs_user = 0xffff,
	  .in = { U64(PERF_SAMPLE_REGS_ABI_64), U64(1), U64(2), U64(3) } },
	{ SAMPLE("regs-intr-all-64"), .sample_type = S(REGS_INTR), .ret = -EBADMSG,
	  .regs_intr = UINT64_MAX,
	  .in = { U64(PERF_SAMPLE_REGS_ABI_64), U64(1), U64(2), U64(3), U64(4) } },
	{ SAMPLE("stack-size-huge"), .sample_type = S(STACK_USER), .ret = -EBADMSG,
	  .in = { U64(UINT64_MAX), U64(1), U64(8) } },
	{ SAMPLE("stack-size-2^63"), .sample_type = S(STACK_USER), .ret = -EBADMSG,
	  .in = { U64(1ull << 63), U64(1), U64(8) } },
	{ SAMPLE("stack-size-one-word-too-many"), .sample_type = S(STACK_USER), .ret = -EBADMSG,
	  .in = { U64(16), U64(1), U64(8) } },
	{ SAMPLE("stack-dyn-size-above-size"), .sample_type = S(STACK_USER), .ret = -EBADMSG,
	  .in = { U64(8), U64(1), U64(16) } },
	{ SAMPLE("stack-no-dyn-size"), .sample_type = S(STACK_USER), .ret = -EBADMSG,
	  .in = { U64(8), U64(1) } },
	{ SAMPLE("read-group-nr-huge"), .sample_type = S(READ), .ret = -EBADMSG,
	  .read_format = F(GROUP),
	  .in = { U64(UINT64_MAX), U64(1), U64(2) } },
	{ SAMPLE("read-group-nr-wraps"), .sample_type = S(READ), .ret = -EBADMSG,
	  /* 0xaaaaaaaaaaaaaaab * 3 words * 8 == 8 modulo 2^64 */
	  .read_format = F(GROUP) | F(ID) | F(LOST),
	  .in = { U64(0xaaaaaaaaaaaaaaabull), U64(1), U64(2), U64(3) } },
	{ SAMPLE("read-group-nr-one-too-many"), .sample_type = S(READ), .ret = -EBADMSG,
	  .read_format = F(GROUP) | F(TOTAL_TIME_ENABLED),
	  .in = { U64(3), U64(100), U64(1), U64(2) } },
	{ SAMPLE("read-single-no-lost"), .sample_type = S(READ), .ret = -EBADMSG,
	  .read_format = F(LOST) | F(ID),
	  .in = { U64(10), U64(0x31) } },
	{ SAMPLE("aux-size-huge"), .sample_type = S(AUX), .ret = -EBADMSG,
	  .in = { U64(UINT64_MAX), U64(1) } },
	{ SAMPLE("aux-size-one-word-too-many"), .sample_type = S(AUX), .ret = -EBADMSG,
	  .in = { U64(16), U64(1) } },
	{ SAMPLE("identifier-missing"), .sample_type = S(IDENTIFIER), .ret = -EBADMSG },
	{ SAMPLE("weight-struct-missing"), .sample_type = S(DATA_SRC) | S(WEIGHT_STRUCT),
	  .ret = -EBADMSG, .in = { U64(1) } },
};

static void test_samples(void **state)
{
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(sample_rows); i++) {
		const struct row *row = &sample_rows[i];
		struct perf_event_attr a = row_attr(row, row->sample_type, false);

		bad += run_row(row, "no-sample-id-all", &a, true);
		/* sample_id_all adds no trailer to a sample */
		a.sample_id_all = 1;
		bad += run_row(row, "sample-id-all", &a, false);
	}
	assert_int_equal(bad, 0);
}

static void test_samples_truncated(void **state)
{
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(sample_rows); i++) {
		struct perf_event_attr a;

		if (sample_rows[i].ret)
			continue;
		a = row_attr(&sample_rows[i], sample_rows[i].sample_type, true);
		bad += truncate_row(&sample_rows[i], "sample-id-all", &a);
	}
	assert_int_equal(bad, 0);
}

/* Every sample_type bit of this perf_event.h has a sample row. */
static void test_every_sample_bit_has_a_row(void **state)
{
	int bad = 0;

	(void)state;
	for (uint64_t bit = 1; bit < S(MAX); bit <<= 1) {
		bool found = false;

		for (size_t i = 0; i < ARRAY_SIZE(sample_rows) && !found; i++)
			found = sample_rows[i].sample_type == bit && !sample_rows[i].ret;
		if (!found) {
			print_message("no row for sample_type bit %#llx alone\n",
				      (unsigned long long)bit);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

/*
 * STACK_USER with an odd size (the kernel rounds it up to 8; a file or a
 * fuzzer need not) leaves the fields after it unaligned. The
 * decoder may refuse the record or decode it, but must not do undefined
 * things: run in a child so that a sanitizer abort is one failed test.
 */
static void test_stack_user_unaligned(void **state)
{
	static const struct row row = {
		SAMPLE("stack-user-3-then-weight-struct"),
		.sample_type = S(STACK_USER) | S(WEIGHT_STRUCT) | S(DATA_SRC),
		.in = { U64(3), BYTES("abc", 3), U64(3), U32(0x11223344), U16(0x5566),
			U16(0x7788), U64(0x42) },
	};
	struct perf_event_attr a = row_attr(&row, row.sample_type, false);
	struct rb *r = malloc(sizeof(*r));
	struct perf_event_header *h;
	int status;
	pid_t pid;

	(void)state;
	assert_non_null(r);
	build_row(r, &row, &a);
	h = rec_alloc(r, PERF_RECORD_SAMPLE, 0, r->len, r->len);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct pcl_record rec;
		int ret = pcl_record_decode(h, r->len, &a, &rec);
		const struct pcl_sample *s = &rec.sample;

		if (ret == -EBADMSG)
			_exit(0);
		if (ret == 0 && s->user_stack_size == 3 && s->user_stack_dyn_size == 3 &&
		    s->weight == 0x11223344 && s->weight_var2 == 0x5566 &&
		    s->weight_var3 == 0x7788 && s->data_src == 0x42)
			_exit(0);
		_exit(42);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		print_message("'%s': the decoder %s\n", row.name,
			      WIFEXITED(status) && WEXITSTATUS(status) == 42
				      ? "decoded wrong values"
				      : "crashed or hit a sanitizer (see its report above)");
		dump(row.name, h, r->len);
	}
	free(h);
	free(r);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* ---- read_format: every combination, in a sample and in a READ record ---- */

static size_t build_read(struct rb *r, uint64_t fmt, uint64_t nr)
{
	size_t at;

	if (fmt & F(GROUP)) {
		rb_u64(r, nr);
		if (fmt & F(TOTAL_TIME_ENABLED))
			rb_u64(r, 0x1000);
		if (fmt & F(TOTAL_TIME_RUNNING))
			rb_u64(r, 0x2000);
		at = r->len;
		for (uint64_t i = 0; i < nr; i++) {
			rb_u64(r, 0x100 + i);
			if (fmt & F(ID))
				rb_u64(r, 0x200 + i);
			if (fmt & F(LOST))
				rb_u64(r, 0x300 + i);
		}
		return at;
	}
	at = r->len;
	rb_u64(r, 0x100);
	if (fmt & F(TOTAL_TIME_ENABLED))
		rb_u64(r, 0x1000);
	if (fmt & F(TOTAL_TIME_RUNNING))
		rb_u64(r, 0x2000);
	if (fmt & F(ID))
		rb_u64(r, 0x200);
	if (fmt & F(LOST))
		rb_u64(r, 0x300);
	return at;
}

static int check_read(const char *row, const struct pcl_read *rd, uint64_t fmt, uint64_t nr)
{
	int bad = 0;

	bad += differ(row, "read.nr", rd->nr, nr);
	bad += differ(row, "read.time_enabled", rd->time_enabled,
		      fmt & F(TOTAL_TIME_ENABLED) ? 0x1000 : 0);
	bad += differ(row, "read.time_running", rd->time_running,
		      fmt & F(TOTAL_TIME_RUNNING) ? 0x2000 : 0);
	bad += differ(row, "read.stride", (uint64_t)rd->stride,
		      1 + !!(fmt & F(ID)) + !!(fmt & F(LOST)));
	for (uint64_t i = 0; i <= nr; i++) {
		struct pcl_read_value v = pcl_read__value(rd, i, fmt);
		bool in = i < nr;

		bad += differ(row, "value", v.value, in ? 0x100 + i : 0);
		bad += differ(row, "id", v.id, in && (fmt & F(ID)) ? 0x200 + i : 0);
		bad += differ(row, "lost", v.lost, in && (fmt & F(LOST)) ? 0x300 + i : 0);
	}
	return bad;
}

static void test_read_formats(void **state)
{
	int bad = 0;

	(void)state;
	for (uint64_t fmt = 0; fmt < F(MAX); fmt++) {
		uint64_t nr = fmt & F(GROUP) ? 3 : 1;
		struct perf_event_attr a = { .size = sizeof(a), .read_format = fmt };
		struct perf_event_header *h;
		struct pcl_record rec;
		struct rb *r = malloc(sizeof(*r));
		char name[64];
		size_t at;
		int ret;

		assert_non_null(r);
		/* a sample: period, read, then a callchain to see that read ended right */
		snprintf(name, sizeof(name), "sample-read-format-%#llx", (unsigned long long)fmt);
		a.sample_type = S(PERIOD) | S(READ) | S(CALLCHAIN);
		rb_init(r);
		rb_u64(r, 0x99);
		at = build_read(r, fmt, nr);
		rb_u64(r, 1);
		rb_u64(r, 0xcafe);
		h = rec_alloc(r, PERF_RECORD_SAMPLE, 0, r->len, r->len);
		corpus_write(name, &a, h, r->len);
		ret = pcl_record_decode(h, r->len, &a, &rec);
		bad += differ_ret(name, ret, 0);
		if (!ret) {
			bad += differ(name, "period", rec.sample.period, 0x99);
			bad += check_read(name, &rec.sample.read, fmt, nr);
			bad += differ(name, "read.raw at",
				      (uint64_t)((const uint8_t *)rec.sample.read.raw - (const uint8_t *)h), at);
			bad += differ(name, "nr_callchain", rec.sample.nr_callchain, 1);
			if (rec.sample.nr_callchain == 1)
				bad += differ(name, "callchain[0]", rec.sample.callchain[0], 0xcafe);
			bad += check_bounds(name, h, &a, &rec);
		}
		free(h);
		/* the same block in a READ record, with a trailer */
		snprintf(name, sizeof(name), "read-record-format-%#llx", (unsigned long long)fmt);
		a.sample_type = S(TID) | S(TIME);
		a.sample_id_all = 1;
		rb_init(r);
		rb_u32(r, 3001);
		rb_u32(r, 3002);
		at = build_read(r, fmt, nr);
		rb_trailer(r, a.sample_type);
		h = rec_alloc(r, PERF_RECORD_READ, 0, r->len, r->len);
		corpus_write(name, &a, h, r->len);
		ret = pcl_record_decode(h, r->len, &a, &rec);
		bad += differ_ret(name, ret, 0);
		if (!ret) {
			bad += differ(name, "read.pid", rec.read.pid, 3001);
			bad += differ(name, "read.tid", rec.read.tid, 3002);
			bad += check_read(name, &rec.read.values, fmt, nr);
			bad += differ(name, "read.values.raw at",
				      (uint64_t)((const uint8_t *)rec.read.values.raw - (const uint8_t *)h),
				      at);
			bad += check_trailer(name, &rec, &a);
			bad += check_bounds(name, h, &a, &rec);
		}
		free(h);
		/* cut short anywhere: -EBADMSG */
		for (size_t size = r->len - 1; size >= 8; size--) {
			h = rec_alloc(r, PERF_RECORD_READ, 0, size, size);
			ret = pcl_record_decode(h, size, &a, &rec);
			if (ret != -EBADMSG) {
				print_message("'%s': cut to %zu bytes returned %d\n", name, size, ret);
				bad++;
			}
			free(h);
		}
		free(r);
	}
	/* no block at all: zeroes */
	{
		struct pcl_read none = { .nr = 2, .stride = 1 };
		struct pcl_read_value v = pcl_read__value(&none, 0, F(GROUP));

		bad += differ("read without raw", "value", v.value | v.id | v.lost, 0);
		v = pcl_read__value(NULL, 0, 0);
		bad += differ("NULL read", "value", v.value | v.id | v.lost, 0);
	}
	assert_int_equal(bad, 0);
}

/* ---- sizes, arguments ---- */

static void test_header_sizes(void **state)
{
	struct perf_event_attr a = { .size = sizeof(a), .sample_type = S(IP) };
	struct pcl_record rec;
	struct perf_event_header *h;
	struct rb *r = malloc(sizeof(*r));
	uint8_t *tiny;

	(void)state;
	assert_non_null(r);
	rb_init(r);
	rb_u64(r, KIP);
	h = rec_alloc(r, PERF_RECORD_SAMPLE, 0, 16, 16);
	assert_int_equal(pcl_record_decode(h, 16, &a, &rec), 0);
	assert_int_equal(rec.sample.ip, KIP);
	/* avail above size: fine, the record is what the header says */
	assert_int_equal(pcl_record_decode(h, 4096, &a, &rec), 0);
	assert_int_equal(rec.size, 16);
	/* avail below size */
	assert_int_equal(pcl_record_decode(h, 15, &a, &rec), -EINVAL);
	assert_int_equal(pcl_record_decode(h, 8, &a, &rec), -EINVAL);
	/* below a header: nothing of it may be read */
	assert_int_equal(pcl_record_decode(h, 7, &a, &rec), -EINVAL);
	assert_int_equal(pcl_record_decode(h, 0, &a, &rec), -EINVAL);
	/* arguments */
	assert_int_equal(pcl_record_decode(NULL, 16, &a, &rec), -EINVAL);
	assert_int_equal(pcl_record_decode(h, 16, NULL, &rec), -EINVAL);
	assert_int_equal(pcl_record_decode(h, 16, &a, NULL), -EINVAL);
	free(h);
	/* a 4-byte buffer: the size field at byte 6 is past it (ASan) */
	tiny = calloc(1, 4);
	assert_non_null(tiny);
	assert_int_equal(pcl_record_decode((const void *)tiny, 4, &a, &rec), -EINVAL);
	assert_int_equal(pcl_record_identifier((const void *)tiny, 4, true), 0);
	free(tiny);
	/* size 0 and size 7 headers */
	for (uint16_t size = 0; size < 8; size++) {
		h = rec_alloc(r, PERF_RECORD_SAMPLE, 0, size, 16);
		assert_int_equal(pcl_record_decode(h, 16, &a, &rec), -EINVAL);
		free(h);
	}
	/* a sample of a bare header with no fields wanted decodes to nothing */
	a.sample_type = 0;
	h = rec_alloc(r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 8, 8);
	assert_int_equal(pcl_record_decode(h, 8, &a, &rec), 0);
	assert_int_equal(rec.type, PERF_RECORD_SAMPLE);
	assert_int_equal(rec.misc, PERF_RECORD_MISC_USER);
	free(h);
	free(r);
}

/*
 * perf's own record types (64 and up: HEADER_ATTR, FINISHED_ROUND, ...) are
 * written to files by perf, never by the kernel, so they never carry a
 * sample_id_all trailer: pcl_record_identifier() says so (0 for them), and
 * the decoder must keep their whole body as unknown.data.
 */
static void test_user_types_have_no_trailer(void **state)
{
	static const struct {
		uint32_t type;
		size_t body;
	} rows[] = {
		{ 64, 16 },	/* PERF_RECORD_HEADER_ATTR-like */
		{ 68, 0 },	/* PERF_RECORD_FINISHED_ROUND: a bare header */
		{ 73, 8 },	/* PERF_RECORD_TIME_CONV-like */
		{ 0xffff, 24 },
	};
	struct perf_event_attr a = { .size = sizeof(a), .sample_type = ID_BITS, .sample_id_all = 1 };
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct rb *r = malloc(sizeof(*r));
		struct perf_event_header *h;
		struct pcl_record rec;
		char name[64];
		int ret;

		assert_non_null(r);
		snprintf(name, sizeof(name), "user-type-%u-body-%zu", rows[i].type, rows[i].body);
		rb_init(r);
		for (size_t k = 0; k < rows[i].body / 8; k++)
			rb_u64(r, 0x1111111111111111ull * (k + 1));
		h = rec_alloc(r, rows[i].type, 0, r->len, r->len);
		corpus_write(name, &a, h, r->len);
		ret = pcl_record_decode(h, r->len, &a, &rec);
		bad += differ_ret(name, ret, 0);
		if (!ret) {
			bad += differ(name, "has_id", rec.has_id, 0);
			bad += differ(name, "unknown.size", rec.unknown.size, rows[i].body);
			bad += differ(name, "unknown.data at",
				      (uint64_t)((const uint8_t *)rec.unknown.data - (const uint8_t *)h), 8);
		}
		bad += differ(name, "pcl_record_identifier", pcl_record_identifier(h, r->len, true), 0);
		if (bad)
			dump(name, h, r->len);
		free(h);
		free(r);
	}
	assert_int_equal(bad, 0);
}

/* Types the decoder does not know, below 64: the body comes back whole, in place. */
static void test_unknown_types(void **state)
{
	struct perf_event_attr a = { .size = sizeof(a), .sample_type = ID_BITS };
	int bad = 0;

	(void)state;
	for (uint32_t type = PERF_RECORD_MAX; type < 64; type += 7) {
		struct rb *r = malloc(sizeof(*r));
		struct perf_event_header *h;
		struct pcl_record rec;
		char name[64];
		int ret;

		assert_non_null(r);
		snprintf(name, sizeof(name), "unknown-type-%u", type);
		rb_init(r);
		rb_u64(r, 1);
		rb_u32(r, 2);
		h = rec_alloc(r, type, 7, r->len, r->len);
		ret = pcl_record_decode(h, r->len, &a, &rec);
		bad += differ_ret(name, ret, 0);
		if (!ret) {
			bad += differ(name, "type", rec.type, type);
			bad += differ(name, "misc", rec.misc, 7);
			bad += differ(name, "unknown.size", rec.unknown.size, 12);
			bad += differ(name, "unknown.data at",
				      (uint64_t)((const uint8_t *)rec.unknown.data - (const uint8_t *)h), 8);
			bad += differ_str(name, "type name", pcl_record_type_name(type), "UNKNOWN");
		}
		free(h);
		free(r);
	}
	assert_int_equal(bad, 0);
}

/* ---- pcl_record_identifier ---- */

static void test_identifier(void **state)
{
	struct rb *r = malloc(sizeof(*r));
	struct perf_event_header *h;

	(void)state;
	assert_non_null(r);
	/* a sample: the first word after the header, whatever sample_id_all says */
	rb_init(r);
	rb_u64(r, 0x77);
	rb_u64(r, KIP);
	h = rec_alloc(r, PERF_RECORD_SAMPLE, 0, r->len, r->len);
	assert_int_equal(pcl_record_identifier(h, r->len, false), 0x77);
	assert_int_equal(pcl_record_identifier(h, r->len, true), 0x77);
	/* size above avail, size below a header plus the id */
	assert_int_equal(pcl_record_identifier(h, r->len - 1, true), 0);
	free(h);
	h = rec_alloc(r, PERF_RECORD_SAMPLE, 0, 8, 8);
	assert_int_equal(pcl_record_identifier(h, 8, true), 0);
	free(h);
	h = rec_alloc(r, PERF_RECORD_SAMPLE, 0, 4, 24);
	assert_int_equal(pcl_record_identifier(h, 24, true), 0);
	free(h);
	assert_int_equal(pcl_record_identifier(NULL, 24, true), 0);

	/* another record: the last word of its trailer, only with sample_id_all */
	rb_init(r);
	rb_u64(r, 0x42);	/* LOST id */
	rb_u64(r, 3);		/* lost */
	rb_trailer(r, S(TID) | S(TIME) | S(IDENTIFIER));
	h = rec_alloc(r, PERF_RECORD_LOST, 0, r->len, r->len);
	assert_int_equal(pcl_record_identifier(h, r->len, true), T_ID);
	assert_int_equal(pcl_record_identifier(h, r->len, false), 0);
	assert_int_equal(pcl_record_identifier(h, r->len - 8, true), 0);
	free(h);
	/* a bare SWITCH with only the identifier */
	rb_init(r);
	rb_trailer(r, S(IDENTIFIER));
	h = rec_alloc(r, PERF_RECORD_SWITCH, 0, r->len, r->len);
	assert_int_equal(pcl_record_identifier(h, r->len, true), T_ID);
	free(h);
	h = rec_alloc(r, PERF_RECORD_SWITCH, 0, 8, 8);
	assert_int_equal(pcl_record_identifier(h, 8, true), 0);
	free(h);
	free(r);
}

/* ---- pcl_record_type_name ---- */

static void test_type_names(void **state)
{
	static const struct {
		uint32_t type;
		const char *name;
	} rows[] = {
		{ PERF_RECORD_MMAP, "MMAP" },
		{ PERF_RECORD_LOST, "LOST" },
		{ PERF_RECORD_COMM, "COMM" },
		{ PERF_RECORD_EXIT, "EXIT" },
		{ PERF_RECORD_THROTTLE, "THROTTLE" },
		{ PERF_RECORD_UNTHROTTLE, "UNTHROTTLE" },
		{ PERF_RECORD_FORK, "FORK" },
		{ PERF_RECORD_READ, "READ" },
		{ PERF_RECORD_SAMPLE, "SAMPLE" },
		{ PERF_RECORD_MMAP2, "MMAP2" },
		{ PERF_RECORD_AUX, "AUX" },
		{ PERF_RECORD_ITRACE_START, "ITRACE_START" },
		{ PERF_RECORD_LOST_SAMPLES, "LOST_SAMPLES" },
		{ PERF_RECORD_SWITCH, "SWITCH" },
		{ PERF_RECORD_SWITCH_CPU_WIDE, "SWITCH_CPU_WIDE" },
		{ PERF_RECORD_NAMESPACES, "NAMESPACES" },
		{ PERF_RECORD_KSYMBOL, "KSYMBOL" },
		{ PERF_RECORD_BPF_EVENT, "BPF_EVENT" },
		{ PERF_RECORD_CGROUP, "CGROUP" },
		{ PERF_RECORD_TEXT_POKE, "TEXT_POKE" },
		{ PERF_RECORD_AUX_OUTPUT_HW_ID, "AUX_OUTPUT_HW_ID" },
		{ 0, "UNKNOWN" },
		{ PERF_RECORD_MAX, "UNKNOWN" },
		{ 63, "UNKNOWN" },
		/* perf's own records, named as perf report --stats names them */
		{ 64, "ATTR" },
		{ PCL_RECORD_FINISHED_ROUND, "FINISHED_ROUND" },
		{ PCL_RECORD_HEADER_FEATURE, "FEATURE" },
		{ PCL_RECORD_COMPRESSED, "COMPRESSED" },
		{ PCL_RECORD_FINISHED_INIT, "FINISHED_INIT" },
		{ PCL_RECORD_FINISHED_INIT + 1, "UNKNOWN" },
		{ UINT32_MAX, "UNKNOWN" },
	};
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		char row[32];

		snprintf(row, sizeof(row), "type %u", rows[i].type);
		bad += differ_str(row, "name", pcl_record_type_name(rows[i].type), rows[i].name);
	}
	assert_int_equal(bad, 0);
}

/* ---- real records from this process's own event ---- */

static struct {
	int fd;
	struct pcl_ring *ring;
} real = { -1, NULL };

static void real_cleanup(void)
{
	pcl_ring__munmap(real.ring);
	real.ring = NULL;
	if (real.fd >= 0)
		close(real.fd);
	real.fd = -1;
}

/* Open @a on this thread, any CPU, and map 1 + 8 pages; 0, or a skip reason. */
static const char *real_open(struct perf_event_attr *a)
{
	static char why[128];

	real.fd = (int)syscall(SYS_perf_event_open, a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (real.fd < 0 && (errno == EACCES || errno == EPERM) && !a->exclude_kernel) {
		a->exclude_kernel = 1;
		a->exclude_callchain_kernel = 1;
		real.fd = (int)syscall(SYS_perf_event_open, a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	}
	if (real.fd < 0) {
		snprintf(why, sizeof(why), "perf_event_open: %s", strerror(errno));
		return why;
	}
	real.ring = pcl_ring__mmap(real.fd, 8, false);
	if (!real.ring) {
		snprintf(why, sizeof(why), "pcl_ring__mmap: %s", strerror(errno));
		real_cleanup();
		return why;
	}
	return NULL;
}

typedef int (*real_fn)(const struct perf_event_header *h, const struct pcl_record *r, void *ctx);

/* Decode every record in the ring, each from an exactly-sized copy; mismatches. */
static int real_drain(const struct perf_event_attr *a, real_fn fn, void *ctx, int *records)
{
	const struct perf_event_header *h;
	int bad = 0;

	assert_int_equal(pcl_ring__read_begin(real.ring), 0);
	while ((h = pcl_ring__next(real.ring))) {
		struct perf_event_header *copy = malloc(h->size);
		struct pcl_record rec;
		char name[64];
		int ret;

		assert_non_null(copy);
		memcpy(copy, h, h->size);
		/* a few real records as fuzz seeds */
		if (*records < 2 || h->type != PERF_RECORD_SAMPLE) {
			snprintf(name, sizeof(name), "real-%s-%s-%d",
				 a->config != PERF_COUNT_SW_DUMMY ? "samples" : a->mmap2 ? "mmap2" : "mmap",
				 pcl_record_type_name(h->type), *records);
			corpus_write(name, a, copy, copy->size);
		}
		snprintf(name, sizeof(name), "real %s record", pcl_record_type_name(h->type));
		ret = pcl_record_decode(copy, copy->size, a, &rec);
		(*records)++;
		if (ret) {
			bad += differ_ret(name, ret, 0);
			dump(name, copy, copy->size);
		} else {
			bad += check_bounds(name, copy, a, &rec);
			bad += fn(copy, &rec, ctx);
		}
		free(copy);
	}
	pcl_ring__read_end(real.ring);
	return bad;
}

static void touch_pages(int n)
{
	long ps = sysconf(_SC_PAGESIZE);
	volatile char *m = mmap(NULL, (size_t)(n * ps), PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(m != MAP_FAILED);
	for (int i = 0; i < n; i++)
		m[(long)i * ps] = (char)i;
	munmap((void *)m, (size_t)(n * ps));
}

struct sample_ctx {
	int samples, with_user, with_kernel;
};

static bool known_context(uint64_t v)
{
	return v == PERF_CONTEXT_HV || v == PERF_CONTEXT_KERNEL || v == PERF_CONTEXT_USER ||
	       v == PERF_CONTEXT_GUEST || v == PERF_CONTEXT_GUEST_KERNEL ||
	       v == PERF_CONTEXT_GUEST_USER;
}

static int on_real_sample(const struct perf_event_header *h, const struct pcl_record *r, void *ctx)
{
	struct sample_ctx *c = ctx;
	const struct pcl_sample *s = &r->sample;
	int bad = 0;

	(void)h;
	if (r->type != PERF_RECORD_SAMPLE)
		return 0;
	c->samples++;
	bad += differ("real sample", "pid", s->pid, (uint64_t)getpid());
	bad += differ("real sample", "tid", s->tid, (uint64_t)gettid());
	bad += differ("real sample", "period", s->period, 1);
	bad += differ("real sample", "id.pid", r->id.pid, (uint64_t)getpid());
	bad += differ("real sample cpu < nprocs", "cpu",
		      s->cpu < (uint32_t)sysconf(_SC_NPROCESSORS_CONF), 1);
	bad += differ("real sample time != 0", "time", s->time != 0, 1);
	bad += differ("real sample has a callchain", "nr_callchain", s->nr_callchain > 0, 1);
	if (s->nr_callchain > 0) {
		uint64_t first = s->callchain[0];

		if (first != PERF_CONTEXT_KERNEL && first != PERF_CONTEXT_USER) {
			print_message("real sample: callchain[0] = %#llx, not a KERNEL or USER marker\n",
				      (unsigned long long)first);
			bad++;
		}
	}
	for (uint64_t i = 0; i < s->nr_callchain; i++) {
		uint64_t v = s->callchain[i];

		if (v >= PERF_CONTEXT_MAX && !known_context(v)) {
			print_message("real sample: callchain[%llu] = %#llx, an unknown marker\n",
				      (unsigned long long)i, (unsigned long long)v);
			bad++;
		}
		c->with_user += v == PERF_CONTEXT_USER;
		c->with_kernel += v == PERF_CONTEXT_KERNEL;
	}
	return bad;
}

static void test_real_samples(void **state)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.sample_period = 1,
		.sample_type = S(IP) | S(TID) | S(TIME) | S(CALLCHAIN) | S(PERIOD) | S(CPU),
		.disabled = 1,
		.exclude_hv = 1,
	};
	struct sample_ctx c = { 0 };
	const char *why;
	int bad, records = 0;

	(void)state;
	why = real_open(&a);
	if (why) {
		print_message("%s\n", why);
		skip();
	}
	assert_int_equal(ioctl(real.fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	touch_pages(32);
	assert_int_equal(ioctl(real.fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	bad = real_drain(&a, on_real_sample, &c, &records);
	real_cleanup();
	print_message("# %d records, %d samples, %d with a user chain, %d with a kernel chain\n",
		      records, c.samples, c.with_user, c.with_kernel);
	assert_int_equal(bad, 0);
	assert_true(c.samples >= 16);
	assert_true(c.with_user > 0);
}

struct side_ctx {
	uint64_t id;
	const char *exe, *comm;
	pid_t child;
	size_t map_len;
	int mmaps, comms, forks, ids;
};

static int on_real_side_band(const struct perf_event_header *h, const struct pcl_record *r,
			     void *ctx)
{
	struct side_ctx *c = ctx;
	int bad = 0;
	char name[64];

	snprintf(name, sizeof(name), "real %s record", pcl_record_type_name(r->type));
	/* every record carries the event's id: first word of a sample, last of a trailer */
	bad += differ(name, "pcl_record_identifier", pcl_record_identifier(h, h->size, true), c->id);
	bad += differ(name, "id.id", r->id.id, c->id);
	c->ids++;
	if (r->type != PERF_RECORD_SAMPLE && r->type != PERF_RECORD_LOST &&
	    r->type != PERF_RECORD_LOST_SAMPLES) {
		bad += differ(name, "has_id", r->has_id, 1);
		bad += differ(name, "id.pid", r->id.pid, (uint64_t)getpid());
		bad += differ(name, "id.tid", r->id.tid, (uint64_t)gettid());
	}
	switch (r->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (r->mmap.filename && !strcmp(r->mmap.filename, c->exe) &&
		    r->mmap.len == c->map_len) {
			c->mmaps++;
			bad += differ(name, "mmap.pid", r->mmap.pid, (uint64_t)getpid());
			bad += differ(name, "mmap.pgoff", r->mmap.pgoff, 0);
			if (r->type == PERF_RECORD_MMAP2 && (r->misc & PERF_RECORD_MISC_MMAP_BUILD_ID))
				bad += differ(name, "build_id_size in 1..20",
					      r->mmap.build_id_size >= 1 && r->mmap.build_id_size <= 20, 1);
			else if (r->type == PERF_RECORD_MMAP2)
				bad += differ(name, "mmap.ino != 0", r->mmap.ino != 0, 1);
		}
		break;
	case PERF_RECORD_COMM:
		if (r->comm.comm && !strcmp(r->comm.comm, c->comm)) {
			c->comms++;
			bad += differ(name, "comm.pid", r->comm.pid, (uint64_t)getpid());
		}
		break;
	case PERF_RECORD_FORK:
		if (r->task.pid == (uint32_t)c->child) {
			c->forks++;
			bad += differ(name, "task.ppid", r->task.ppid, (uint64_t)getpid());
		}
		break;
	}
	return bad;
}

/*
 * MMAP or MMAP2 (with build ids when the kernel has them), COMM and FORK
 * records with a full sample_id_all trailer, from a dummy event.
 */
static void real_side_band(bool mmap2)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.sample_period = 1,
		.sample_type = ID_BITS,
		.sample_id_all = 1,
		.mmap = 1,
		.mmap_data = 1,
		.comm = 1,
		.task = 1,
		.mmap2 = mmap2,
		.build_id = mmap2,
		.disabled = 1,
	};
	struct side_ctx c = { .comm = "pcl-rec-test" };
	char exe[PATH_MAX], old_comm[17] = "";
	long ps = sysconf(_SC_PAGESIZE);
	const char *why;
	int bad, fd, status, records = 0;
	void *m;

	assert_non_null(realpath("/proc/self/exe", exe));
	c.exe = exe;
	c.map_len = (size_t)ps;
	why = real_open(&a);
	if (why && a.build_id) {
		a.build_id = 0;	/* kernels before 5.12 */
		why = real_open(&a);
	}
	if (why) {
		print_message("%s\n", why);
		skip();
	}
	assert_int_equal(ioctl(real.fd, PERF_EVENT_IOC_ID, &c.id), 0);
	assert_int_equal(ioctl(real.fd, PERF_EVENT_IOC_ENABLE, 0), 0);
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	m = mmap(NULL, (size_t)ps, PROT_READ, MAP_PRIVATE, fd, 0);
	assert_true(m != MAP_FAILED);
	prctl(PR_GET_NAME, old_comm);
	prctl(PR_SET_NAME, c.comm);
	fflush(stdout);
	c.child = fork();
	assert_true(c.child >= 0);
	if (c.child == 0)
		_exit(0);
	assert_int_equal(waitpid(c.child, &status, 0), c.child);
	assert_int_equal(ioctl(real.fd, PERF_EVENT_IOC_DISABLE, 0), 0);
	prctl(PR_SET_NAME, old_comm);
	munmap(m, (size_t)ps);
	close(fd);
	bad = real_drain(&a, on_real_side_band, &c, &records);
	real_cleanup();
	print_message("# %d records: %d %s of %s, %d COMM, %d FORK\n", records, c.mmaps,
		      mmap2 ? "MMAP2" : "MMAP", exe, c.comms, c.forks);
	assert_int_equal(bad, 0);
	assert_int_equal(c.mmaps, 1);
	assert_int_equal(c.comms, 1);
	assert_int_equal(c.forks, 1);
}

static void test_real_side_band_mmap(void **state)
{
	(void)state;
	real_side_band(false);
}

static void test_real_side_band_mmap2(void **state)
{
	(void)state;
	real_side_band(true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		UNIT_TEST(test_records),
		UNIT_TEST(test_records_truncated),
		UNIT_TEST(test_every_type_has_a_row),
		UNIT_TEST(test_samples),
		UNIT_TEST(test_samples_truncated),
		UNIT_TEST(test_every_sample_bit_has_a_row),
		UNIT_TEST(test_stack_user_unaligned),
		UNIT_TEST(test_read_formats),
		UNIT_TEST(test_header_sizes),
		UNIT_TEST(test_unknown_types),
		UNIT_TEST(test_user_types_have_no_trailer),
		UNIT_TEST(test_identifier),
		UNIT_TEST(test_type_names),
		UNIT_TEST(test_real_samples),
		UNIT_TEST(test_real_side_band_mmap),
		UNIT_TEST(test_real_side_band_mmap2),
	};

	unit_cleanup = real_cleanup;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
