/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of pcl script's formatting (lib/output/script.c) and of the
 * tracepoint formats (lib/data/tracepoint.c).
 *
 * The expected lines are perf 6.1's, copied from perf script's output on
 * real recordings and cut down to synthetic records: every space counts.
 * Records, resolved frames, DSOs and symbols are built by hand here; no
 * file is read.
 */
#include "unit.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <event-parse.h>
#include <pcl/pcl.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/* ---- tracepoint formats ---- */

static const char fmt_switch[] =
	"name: sched_switch\n"
	"ID: 372\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"prev_comm=%s prev_pid=%d\", REC->prev_comm, REC->prev_pid\n";

static const char fmt_exec[] =
	"name: sched_process_exec\n"
	"ID: 365\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:pid_t old_pid;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"filename=%s pid=%d old_pid=%d\", __get_str(filename), REC->pid, "
	"REC->old_pid\n";

static const char fmt_write[] =
	"name: sys_enter_write\n"
	"ID: 840\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int fd;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:const char * buf;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:size_t count;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"fd: 0x%08lx\", ((unsigned long)(REC->fd))\n";

/* Arrays: a byte array, a length left as a macro, dynamic u64s, a __rel_loc string. */
static const char fmt_arrays[] =
	"name: arrays\n"
	"ID: 7\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:u8 addr[4];\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:int vals[NR_VALS];\toffset:12;\tsize:8;\tsigned:1;\n"
	"\tfield:__data_loc u64[] ids;\toffset:20;\tsize:4;\tsigned:0;\n"
	"\tfield:__rel_loc char[] tag;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:void * ptrs[2];\toffset:32;\tsize:16;\tsigned:0;\n"
	"\tfield:short small;\toffset:48;\tsize:2;\tsigned:1;\n"
	"\tfield:struct foo blob;\toffset:50;\tsize:3;\tsigned:0;\n"
	"\n"
	"print fmt: \"x\"\n";

struct want_field {
	const char *name, *type;
	uint32_t offset, size, elem_size, nr;
	unsigned int flags;
};

static const struct {
	const char *row, *system, *text;
	uint64_t id;
	int nr_fields;
	struct want_field f[4]; /* the first fields after the common ones */
	int first;		/* index of f[0] */
} format_rows[] = {
	{ "sched_switch",
	  "sched",
	  fmt_switch,
	  372,
	  11,
	  { { "prev_comm", "char[16]", 8, 16, 1, 16, PCL_TP_ARRAY | PCL_TP_STRING },
	    { "prev_pid", "pid_t", 24, 4, 4, 0, PCL_TP_SIGNED },
	    { "prev_prio", "int", 28, 4, 4, 0, PCL_TP_SIGNED },
	    { "prev_state", "long", 32, 8, 8, 0, PCL_TP_SIGNED } },
	  4 },
	{ "sched_process_exec",
	  "sched",
	  fmt_exec,
	  365,
	  7,
	  { { "filename", "__data_loc char[]", 8, 4, 1, 0, PCL_TP_DYNAMIC | PCL_TP_STRING },
	    { "pid", "pid_t", 12, 4, 4, 0, PCL_TP_SIGNED },
	    { "old_pid", "pid_t", 16, 4, 4, 0, PCL_TP_SIGNED } },
	  4 },
	{ "sys_enter_write",
	  "syscalls",
	  fmt_write,
	  840,
	  8,
	  { { "__syscall_nr", "int", 8, 4, 4, 0, PCL_TP_SIGNED },
	    { "fd", "unsigned int", 16, 8, 8, 0, 0 },
	    { "buf", "const char *", 24, 8, 8, 0, PCL_TP_POINTER },
	    { "count", "size_t", 32, 8, 8, 0, 0 } },
	  4 },
	{ "arrays",
	  "test",
	  fmt_arrays,
	  7,
	  8,
	  { { "addr", "u8[4]", 8, 4, 1, 4, PCL_TP_ARRAY },
	    { "vals", "int[NR_VALS]", 12, 8, 4, 2, PCL_TP_ARRAY | PCL_TP_SIGNED },
	    { "ids", "__data_loc u64[]", 20, 4, 8, 0, PCL_TP_DYNAMIC },
	    { "tag", "__rel_loc char[]", 24, 4, 1, 0,
	      PCL_TP_DYNAMIC | PCL_TP_RELATIVE | PCL_TP_STRING } },
	  1 },
};

static void test_format_parse(void **state)
{
	int bad = 0;

	(void)state;
	for (size_t r = 0; r < ARRAY_SIZE(format_rows); r++) {
		const char *row = format_rows[r].row;
		struct pcl_tp_format *f = pcl_tp_format__parse(
			format_rows[r].system, format_rows[r].text, strlen(format_rows[r].text), 8);

		if (!f) {
			print_message("'%s': parse failed: %s\n", row, pcl_last_error());
			bad++;
			continue;
		}
		bad += differ_str(row, "name", f->name, row);
		bad += differ_str(row, "system", f->system, format_rows[r].system);
		bad += differ(row, "id", f->id, format_rows[r].id);
		bad += differ(row, "nr_fields", (uint64_t)f->nr_fields,
			      (uint64_t)format_rows[r].nr_fields);
		bad += differ(row, "common_type is common", f->fields[0].flags & PCL_TP_COMMON,
			      PCL_TP_COMMON);
		for (int i = 0; i < 4 && format_rows[r].f[i].name; i++) {
			const struct want_field *w = &format_rows[r].f[i];
			const struct pcl_tp_field *g = &f->fields[format_rows[r].first + i];

			bad += differ_str(row, "field name", g->name, w->name);
			bad += differ_str(w->name, "type", g->type, w->type);
			bad += differ(w->name, "offset", g->offset, w->offset);
			bad += differ(w->name, "size", g->size, w->size);
			bad += differ(w->name, "elem_size", g->elem_size, w->elem_size);
			bad += differ(w->name, "nr", g->nr, w->nr);
			bad += differ(w->name, "flags", g->flags, w->flags);
		}
		pcl_tp_format__free(f);
	}
	assert_int_equal(bad, 0);
}

static void test_format_malformed(void **state)
{
	static const char *const texts[] = {
		"ID: 5\nformat:\n\tfield:int a;\toffset:0;\tsize:4;\tsigned:1;\n",   /* no name */
		"name: x\nformat:\n\tfield:int a;\toffset:0;\tsize:4;\tsigned:1;\n", /* no ID */
		"name: x\nID: 5\nformat:\n\tfield:int a;\tsize:4;\tsigned:1;\n",     /* no offset */
		"name: x\nID: 5\nformat:\n\tfield:;\toffset:0;\tsize:4;\tsigned:1;\n", /* no decl */
		"name: x\nID: 5\nformat:\n\tfield:int a[;\toffset:0;\tsize:4;\n", /* bad dims */
		"",
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(texts); i++) {
		struct pcl_tp_format *f = pcl_tp_format__parse("s", texts[i], strlen(texts[i]), 8);

		if (f)
			print_message("text %zu parsed, expected a failure\n", i);
		assert_null(f);
		assert_int_equal(errno, EBADMSG);
	}
	pcl_tp_format__free(NULL);
}

/* Print @raw with the format @text into a string. */
static char *print_raw(const char *text, const void *raw, size_t size)
{
	struct pcl_tp_format *f = pcl_tp_format__parse("s", text, strlen(text), 8);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_non_null(m);
	assert_int_equal(pcl_tp_format__fprint(f, raw, size, m), 0);
	fclose(m);
	pcl_tp_format__free(f);
	return buf;
}

static void put(uint8_t *raw, size_t off, const void *v, size_t n)
{
	memcpy(raw + off, v, n);
}

static void test_format_print(void **state)
{
	uint8_t raw[96] = { 0 };
	int32_t i32;
	int64_t i64;
	uint64_t u64;
	uint32_t loc;
	int16_t i16;
	char *s;

	(void)state;
	/* sched_switch: strings, signed values */
	put(raw, 8, "hot\0garbage", 12);
	i32 = 1234;
	put(raw, 24, &i32, 4);
	i32 = -20;
	put(raw, 28, &i32, 4);
	i64 = 1;
	put(raw, 32, &i64, 8);
	put(raw, 40, "swapper/1", 10);
	i32 = 0;
	put(raw, 56, &i32, 4);
	i32 = 120;
	put(raw, 60, &i32, 4);
	s = print_raw(fmt_switch, raw, 64);
	assert_string_equal(s, "prev_comm=hot prev_pid=1234 prev_prio=-20 prev_state=1 "
			       "next_comm=swapper/1 next_pid=0 next_prio=120");
	free(s);
	/* cut at 40 bytes: the fields past it are left out */
	s = print_raw(fmt_switch, raw, 40);
	assert_string_equal(s, "prev_comm=hot prev_pid=1234 prev_prio=-20 prev_state=1");
	free(s);

	/* sched_process_exec: a __data_loc string after the fixed fields */
	memset(raw, 0, sizeof(raw));
	loc = 20 | (10u << 16);
	put(raw, 8, &loc, 4);
	i32 = 77;
	put(raw, 12, &i32, 4);
	put(raw, 16, &i32, 4);
	put(raw, 20, "/bin/true", 10);
	s = print_raw(fmt_exec, raw, 30);
	assert_string_equal(s, "filename=/bin/true pid=77 old_pid=77");
	free(s);
	/* a location past the data */
	loc = 28 | (10u << 16);
	put(raw, 8, &loc, 4);
	s = print_raw(fmt_exec, raw, 30);
	assert_string_equal(s, "filename=? pid=77 old_pid=77");
	free(s);

	/* sys_enter_write: a pointer in hex, sizes by the format not the type */
	memset(raw, 0, sizeof(raw));
	i32 = 1;
	put(raw, 8, &i32, 4);
	u64 = 3;
	put(raw, 16, &u64, 8);
	u64 = 0x5620fafed00e;
	put(raw, 24, &u64, 8);
	u64 = 4096;
	put(raw, 32, &u64, 8);
	s = print_raw(fmt_write, raw, 40);
	assert_string_equal(s, "__syscall_nr=1 fd=3 buf=0x5620fafed00e count=4096");
	free(s);

	/* arrays */
	memset(raw, 0, sizeof(raw));
	put(raw, 8, "\x0a\x00\x00\x01", 4);
	i32 = -1;
	put(raw, 12, &i32, 4);
	i32 = 2;
	put(raw, 16, &i32, 4);
	loc = 56 | (16u << 16);
	put(raw, 20, &loc, 4);
	loc = (72 - 28) | (4u << 16); /* relative to the end of the field: 24 + 4 */
	put(raw, 24, &loc, 4);
	u64 = 0xffff888100000000ull;
	put(raw, 32, &u64, 8);
	u64 = 0;
	put(raw, 40, &u64, 8);
	i16 = -3;
	put(raw, 48, &i16, 2);
	put(raw, 50, "\x01\x02\x03", 3);
	u64 = 5;
	put(raw, 56, &u64, 8);
	u64 = 6;
	put(raw, 64, &u64, 8);
	put(raw, 72, "abc", 4);
	s = print_raw(fmt_arrays, raw, 76);
	assert_string_equal(s, "addr=[10,0,0,1] vals=[-1,2] ids=[5,6] tag=abc "
			       "ptrs=[0xffff888100000000,0x0] small=-3 blob=0x010203");
	free(s);
}

/* ---- the TRACING_DATA section ---- */

struct sect {
	uint8_t b[8192];
	size_t n;
	bool big;
};

static void sput(struct sect *s, const void *d, size_t n)
{
	memcpy(s->b + s->n, d, n);
	s->n += n;
}

static void sput32(struct sect *s, uint32_t v)
{
	if (s->big)
		v = __builtin_bswap32(v);
	sput(s, &v, 4);
}

static void sput64(struct sect *s, uint64_t v)
{
	if (s->big)
		v = __builtin_bswap64(v);
	sput(s, &v, 8);
}

static void sblob(struct sect *s, const char *text)
{
	sput64(s, strlen(text));
	sput(s, text, strlen(text));
}

/* A section as perf writes it: sched (2 formats) and syscalls (1), plus an ftrace one. */
static void build_section(struct sect *s, bool big)
{
	static const uint8_t magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	uint8_t b;

	memset(s, 0, sizeof(*s));
	s->big = big;
	sput(s, magic, sizeof(magic));
	sput(s, "0.6", 4);
	b = big;
	sput(s, &b, 1);
	b = 8;
	sput(s, &b, 1);
	sput32(s, 4096);
	sput(s, "header_page", 12);
	sblob(s, "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n");
	sput(s, "header_event", 13);
	sblob(s, "# compressed entry header\n");
	sput32(s, 1);
	/* with the common fields, which libtraceevent takes from the lowest id */
	sblob(s, "name: function\nID: 1\nformat:\n"
		 "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		 "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		 "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n\n"
		 "print fmt: \" %ps\", (void *)REC->ip\n");
	sput32(s, 2);
	sput(s, "sched", 6);
	sput32(s, 2);
	sblob(s, fmt_switch);
	sblob(s, fmt_exec);
	sput(s, "syscalls", 9);
	sput32(s, 1);
	sblob(s, fmt_write);
	sput32(s, 0); /* kallsyms */
	sput32(s, 0); /* printk */
	sput64(s, 0); /* saved cmdlines */
}

static void test_tracing_data(void **state)
{
	struct sect s;

	(void)state;
	for (int big = 0; big <= 1; big++) {
		struct pcl_tracepoints *t;
		const struct pcl_tp_format *f;

		build_section(&s, big);
		t = pcl_tracepoints__parse(s.b, s.n);
		assert_non_null(t);
		assert_int_equal(pcl_tracepoints__count(t), 3);
		/* in id order */
		assert_int_equal(pcl_tracepoints__at(t, 0)->id, 365);
		assert_int_equal(pcl_tracepoints__at(t, 2)->id, 840);
		assert_null(pcl_tracepoints__at(t, 3));
		f = pcl_tracepoints__find(t, 372);
		assert_non_null(f);
		assert_string_equal(f->system, "sched");
		assert_string_equal(f->name, "sched_switch");
		f = pcl_tracepoints__find(t, 840);
		assert_non_null(f);
		assert_string_equal(f->system, "syscalls");
		assert_null(pcl_tracepoints__find(t, 1)); /* ftrace's own: not kept */
		assert_null(pcl_tracepoints__find(t, 999));
		pcl_tracepoints__free(t);
	}
	/* cut anywhere inside the formats: no crash; cut inside the header: an error */
	build_section(&s, false);
	for (size_t n = 0; n < s.n; n++) {
		uint8_t *copy = malloc(n ? n : 1);
		struct pcl_tracepoints *t;

		memcpy(copy, s.b, n);
		t = pcl_tracepoints__parse(copy, n);
		if (n < 100)
			assert_null(t);
		pcl_tracepoints__free(t);
		free(copy);
	}
	/* a bad magic */
	s.b[3] = 'x';
	assert_null(pcl_tracepoints__parse(s.b, s.n));
	assert_int_equal(errno, EBADMSG);
	assert_null(pcl_tracepoints__find(NULL, 1));
	pcl_tracepoints__free(NULL);
}

/* ---- lines ---- */

static struct pcl_dso dso_hot = { .name = "/work/hot", .short_name = "hot", .kind = PCL_DSO_USER };
static struct pcl_dso dso_libc = { .name = "/usr/lib/x86_64-linux-gnu/libc.so.6",
				   .short_name = "libc.so.6",
				   .kind = PCL_DSO_USER };
static struct pcl_dso dso_kernel = { .name = "[kernel.kallsyms]",
				     .short_name = "[kernel.kallsyms]",
				     .kind = PCL_DSO_KERNEL };
static struct pcl_map map_hot = { 0x561d45608000, 0x561d45609000, 0x1000, 5, 2, &dso_hot };
static struct pcl_map map_libc = { 0x7f26df2d2000, 0x7f26df428000, 0x26000, 5, 2, &dso_libc };
static struct pcl_map map_kernel = { 0xffffffff81000000, 0xffffffff82000000, 0, 5, 2, &dso_kernel };
static const struct pcl_symbol sym_leaf = { 0x1189, 0x11b0, "hot_leaf" };
static const struct pcl_symbol sym_main = { 0x1227, 0x1280, "main" };
static const struct pcl_symbol sym_start = { 0x271d0, 0x27290, "__libc_start_call_main" };
static const struct pcl_symbol sym_vfs = { 0xffffffff816bb3c0, 0xffffffff816bb500, "vfs_write" };
static struct pcl_thread thr_hot = { .pid = 9459, .tid = 9459, .comm = "hot" };

static const struct pcl_frame fr_leaf = { 0x561d456081a0, 0x11a0, &map_hot, &sym_leaf, '.' };
static const struct pcl_frame fr_main = { 0x561d45608267, 0x1267, &map_hot, &sym_main, '.' };
static const struct pcl_frame fr_start = { 0x7f26df2f924a, 0x2724a, &map_libc, &sym_start, '.' };
static const struct pcl_frame fr_vfs = { 0xffffffff816bb456, 0xffffffff816bb456, &map_kernel,
					 &sym_vfs, 'k' };
static const struct pcl_frame fr_nosym = { 0x561d45608400, 0x1400, &map_hot, NULL, '.' };
static const struct pcl_frame fr_nomap = { 0, 0, NULL, NULL, '.' };

#define ST_DEFAULT (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)

static struct pcl_data_attr make_attr(uint32_t type, uint64_t config, uint64_t sample_type,
				      const char *name)
{
	struct pcl_data_attr a = { .name = name };

	a.attr.type = type;
	a.attr.size = sizeof(a.attr);
	a.attr.config = config;
	a.attr.sample_type = sample_type;
	a.attr.sample_period = 1001001;
	a.attr.sample_id_all = 1;
	return a;
}

static struct pcl_record make_sample(const struct pcl_data_attr *a, uint64_t ip)
{
	struct pcl_record r = { .type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_USER };

	r.sample.sample_type = a->attr.sample_type;
	r.sample.ip = ip;
	r.sample.pid = r.sample.tid = 9459;
	r.sample.time = 7524333569123ull;
	r.sample.period = 1001001;
	r.sample.cpu = 1;
	return r;
}

static const struct pcl_data_attr *const *one(const struct pcl_data_attr *a)
{
	static const struct pcl_data_attr *p[1];

	p[0] = a;
	return p;
}

/* The text pcl_script__sample prints for one sample, after -F @fields (NULL: defaults). */
static char *sample_line(const struct pcl_script_opts *o, const char *fields,
			 const struct pcl_data_attr *a, const struct pcl_record *r,
			 const struct pcl_resolved *res, int *setup_ret)
{
	struct pcl_script *s = pcl_script__new(o);
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	int ret;

	assert_non_null(s);
	if (fields)
		assert_int_equal(pcl_script__parse_fields(s, fields, NULL), 0);
	ret = pcl_script__setup(s, one(a), 1, false);
	if (setup_ret)
		*setup_ret = ret;
	else
		assert_int_equal(ret, 0);
	m = open_memstream(&buf, &len);
	assert_non_null(m);
	if (!ret)
		assert_int_equal(pcl_script__sample(s, m, a, r, res), 0);
	fclose(m);
	pcl_script__free(s);
	return buf;
}

static void test_sample_lines(void **state)
{
	static const struct pcl_frame chain[] = { fr_leaf, fr_main, fr_start };
	static const struct pcl_frame kchain[] = { fr_vfs, fr_start, fr_nomap };
	struct pcl_data_attr a =
		make_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, ST_DEFAULT, "cpu-clock:ppp");
	struct pcl_data_attr ac = make_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
					    ST_DEFAULT | PERF_SAMPLE_CPU, "cpu-clock");
	struct pcl_data_attr ag = make_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
					    ST_DEFAULT | PERF_SAMPLE_CALLCHAIN, "cpu-clock:ppp");
	struct pcl_record r = make_sample(&a, fr_leaf.ip);
	struct pcl_record rg = make_sample(&ag, fr_leaf.ip);
	struct pcl_resolved res = { &thr_hot, fr_leaf, NULL, 0 };
	struct pcl_resolved resg = { &thr_hot, fr_leaf, chain, 3 };
	struct pcl_script_opts o = { .sz = sizeof(o) };
	const struct {
		const char *row, *fields;
		const struct pcl_data_attr *a;
		const struct pcl_resolved *res;
		const char *want;
	} rows[] = {
		{ "default", NULL, &a, &res,
		  "             hot  9459  7524.333569:    1001001 cpu-clock:ppp:      "
		  "561d456081a0 "
		  "hot_leaf+0x17 (/work/hot)\n" },
		{ "with cpu", NULL, &ac, &res,
		  "             hot  9459 [001]  7524.333569:    1001001 cpu-clock:      "
		  "561d456081a0 hot_leaf+0x17 (/work/hot)\n" },
		{ "call chain", NULL, &ag, &resg,
		  "hot  9459  7524.333569:    1001001 cpu-clock:ppp: \n"
		  "\t            11a0 hot_leaf+0x17 (/work/hot)\n"
		  "\t            1267 main+0x40 (/work/hot)\n"
		  "\t           2724a __libc_start_call_main+0x7a "
		  "(/usr/lib/x86_64-linux-gnu/libc.so.6)\n\n" },
		{ "pid,tid", "+pid", &a, &res,
		  "             hot  9459/9459   7524.333569:    1001001 cpu-clock:ppp:      "
		  "561d456081a0 hot_leaf+0x17 (/work/hot)\n" },
		{ "pid only", "+pid,-tid", &a, &res,
		  "             hot  9459  7524.333569:    1001001 cpu-clock:ppp:      "
		  "561d456081a0 hot_leaf+0x17 (/work/hot)\n" },
		{ "no symoff", "pid,ip,sym,dso", &a, &res,
		  " 9459      561d456081a0 hot_leaf (/work/hot)\n" },
		{ "start only", "comm,pid,tid,time", &a, &res,
		  "             hot  9459/9459   7524.333569: \n" },
		{ "no ip: no sym", "comm,sym", &a, &res, "             hot \n" },
		{ "misc", "misc,comm,ip", &a, &res, "             hot U          561d456081a0\n" },
		{ "period event", "ip,sym,event,period", &a, &res,
		  "   1001001 cpu-clock:ppp:      561d456081a0 hot_leaf\n" },
		{ "-period", "-period", &a, &res,
		  "             hot  9459  7524.333569: cpu-clock:ppp:      561d456081a0 "
		  "hot_leaf+0x17 (/work/hot)\n" },
		{ "sw: none", "sw:", &a, &res, "" },
		{ "chain without ip", "comm,tid", &ag, &resg, "             hot  9459 \n" },
		{ "chain, sym only", "comm,ip,sym", &ag, &resg,
		  "hot \n\t            11a0 hot_leaf\n\t            1267 main\n"
		  "\t           2724a __libc_start_call_main\n\n" },
	};
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct pcl_record rr = make_sample(rows[i].a, fr_leaf.ip);
		char *got = sample_line(&o, rows[i].fields, rows[i].a, &rr, rows[i].res, NULL);

		bad += differ_str(rows[i].row, "line", got, rows[i].want);
		free(got);
	}
	/* kernel frames raw, [unknown] frames, a frame in a DSO without a symbol */
	{
		struct pcl_resolved rk = { &thr_hot, fr_vfs, kchain, 3 };
		char *got = sample_line(&o, NULL, &ag, &rg, &rk, NULL);

		bad += differ_str("kernel chain", "line", got,
				  "hot  9459  7524.333569:    1001001 cpu-clock:ppp: \n"
				  "\tffffffff816bb456 vfs_write+0x96 ([kernel.kallsyms])\n"
				  "\t           2724a __libc_start_call_main+0x7a "
				  "(/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
				  "\t               0 [unknown] ([unknown])\n\n");
		free(got);
	}
	{
		struct pcl_resolved rn = { &thr_hot, fr_nosym, NULL, 0 };
		struct pcl_record rn_rec = make_sample(&a, fr_nosym.ip);
		char *got = sample_line(&o, NULL, &a, &rn_rec, &rn, NULL);

		bad += differ_str(
			"no symbol", "line", got,
			"             hot  9459  7524.333569:    1001001 cpu-clock:ppp:      "
			"561d45608400 [unknown] (/work/hot)\n");
		free(got);
	}
	/* -G: no chain, comm padded again; --max-stack 1; --ns */
	{
		struct pcl_script_opts og = { .sz = sizeof(og), .hide_call_graph = true };
		char *got = sample_line(&og, NULL, &ag, &r, &resg, NULL);

		bad += differ_str(
			"-G", "line", got,
			"             hot  9459  7524.333569:    1001001 cpu-clock:ppp:      "
			"561d456081a0 hot_leaf+0x17 (/work/hot)\n");
		free(got);
		og = (struct pcl_script_opts){ .sz = sizeof(og), .max_stack = 1, .ns = true };
		got = sample_line(&og, NULL, &ag, &rg, &resg, NULL);
		bad += differ_str("max-stack 1, ns", "line", got,
				  "hot  9459  7524.333569123:    1001001 cpu-clock:ppp: \n"
				  "\t            11a0 hot_leaf+0x17 (/work/hot)\n\n");
		free(got);
	}
	/* no PERIOD in the samples (record -c): perf shows the attr's period */
	{
		struct pcl_data_attr np =
			make_attr(PERF_TYPE_SOFTWARE, 0,
				  PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME, "cpu-clock");
		struct pcl_record rp = make_sample(&np, fr_leaf.ip);
		char *got;

		np.attr.sample_period = 200000;
		rp.sample.period = 0;
		got = sample_line(&o, NULL, &np, &rp, &res, NULL);
		bad += differ_str("attr period", "line", got,
				  "             hot  9459  7524.333569:     200000 cpu-clock:      "
				  "561d456081a0 hot_leaf+0x17 (/work/hot)\n");
		free(got);
	}
	assert_int_equal(bad, 0);
}

static void test_tracepoint_line(void **state)
{
	struct sect sec;
	struct pcl_tracepoints *tp;
	struct pcl_data_attr a =
		make_attr(PERF_TYPE_TRACEPOINT, 365,
			  PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
				  PERF_SAMPLE_RAW | PERF_SAMPLE_PERIOD,
			  "");
	struct pcl_data_attr w = make_attr(PERF_TYPE_TRACEPOINT, 840, a.attr.sample_type,
					   "syscalls:sys_enter_write");
	const struct pcl_data_attr *attrs[] = { &a, &w };
	struct pcl_record r = make_sample(&a, 0xffffffff8139be59);
	struct pcl_resolved res = { &thr_hot, fr_vfs, NULL, 0 };
	uint8_t raw[32] = { 0 };
	uint32_t loc = 20 | (10u << 16);
	int32_t pid = 10543;
	struct pcl_script *s;
	char *buf = NULL, name[64];
	size_t len = 0;
	FILE *m;

	(void)state;
	build_section(&sec, false);
	tp = pcl_tracepoints__parse(sec.b, sec.n);
	assert_non_null(tp);
	raw[0] = 365 & 0xff; /* common_type: libtraceevent finds the format by it */
	raw[1] = 365 >> 8;
	memcpy(raw + 8, &loc, 4);
	memcpy(raw + 12, &pid, 4);
	memcpy(raw + 16, &pid, 4);
	memcpy(raw + 20, "/bin/true", 10);
	r.sample.raw = raw;
	r.sample.raw_size = 30;
	/* the name comes from the formats when the file has none */
	assert_string_equal(pcl_script_event_name(&a, tp, name, sizeof(name)),
			    "sched:sched_process_exec");
	s = pcl_script__new(NULL);
	assert_non_null(s);
	pcl_script__set_tracepoints(s, tp);
	assert_int_equal(pcl_script__setup(s, attrs, 2, false), 0);
	m = open_memstream(&buf, &len);
	assert_int_equal(pcl_script__sample(s, m, &a, &r, &res), 0);
	assert_int_equal(pcl_script__parse_fields(s, "trace:comm,tid,trace,ip", NULL), 0);
	assert_int_equal(pcl_script__sample(s, m, &a, &r, &res), 0);
	fclose(m);
	assert_string_equal(buf,
			    "             hot  9459 [001]  7524.333569: "
			    "sched:sched_process_exec: filename=/bin/true pid=10543 "
			    "old_pid=10543\n"
			    "             hot  9459 filename=/bin/true pid=10543 old_pid=10543 "
			    "ffffffff8139be59\n");
	free(buf);
	pcl_script__free(s);
	pcl_tracepoints__free(tp);
}

static void test_tracepoint_callchain(void **state)
{
	static const struct pcl_frame chain[] = { fr_start };
	struct pcl_data_attr a =
		make_attr(PERF_TYPE_TRACEPOINT, 840,
			  PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
				  PERF_SAMPLE_RAW | PERF_SAMPLE_CALLCHAIN,
			  "syscalls:sys_enter_write");
	struct pcl_record r = make_sample(&a, fr_start.ip);
	struct pcl_resolved res = { &thr_hot, fr_start, chain, 1 };
	struct pcl_script_opts o = { .sz = sizeof(o) };
	char *got;

	(void)state;
	r.sample.raw = NULL;
	got = sample_line(&o, NULL, &a, &r, &res, NULL);
	/* no formats: no payload; call chains add ip, sym, symoff and dso */
	assert_string_equal(got, "hot  9459 [001]  7524.333569: syscalls:sys_enter_write: \n"
				 "\t           2724a __libc_start_call_main+0x7a "
				 "(/usr/lib/x86_64-linux-gnu/libc.so.6)\n\n");
	free(got);
}

/* ---- printing through libtraceevent ---- */

#define COMMON_FIELDS                                                                              \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"                     \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"                     \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"             \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"                                 \
	"\n"

/*
 * What perf's print fmts use: a string that lives in the printk formats
 * (rcu:rcu_utilization), a %pS (kmem:kfree's call_site), __print_symbolic
 * (irq:softirq_entry), __print_flags (kmem's gfp_flags) and an array
 * element (raw_syscalls:sys_enter).
 */
static const char fmt_misc[] =
	"name: misc\nID: 901\nformat:\n" COMMON_FIELDS
	"\tfield:const char * s;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long ip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int vec;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long flags;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long args[2];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\n"
	"print fmt: \"%s ip=%pS vec=%u [action=%s] flags=%s (%lx, %lx)\", REC->s, (void *)REC->ip, "
	"REC->vec, __print_symbolic(REC->vec, { 0, \"HI\" }, { 9, \"RCU\" }), "
	"__print_flags(REC->flags, \"|\", { 1, \"A\" }, { 4, \"C\" }), REC->args[0], "
	"REC->args[1]\n";

/* A print fmt libtraceevent cannot follow: a helper it does not know. */
static const char fmt_odd[] = "name: odd\nID: 902\nformat:\n" COMMON_FIELDS
			      "\tfield:int v;\toffset:8;\tsize:4;\tsigned:1;\n"
			      "\n"
			      "print fmt: \"v=%d\", __no_such_helper(REC->v)\n";

/*
 * Print fmts pcl keeps from libtraceevent and prints field by field: an
 * element of a field the format does not have (libtraceevent 1.7 crashes
 * on it; found by fuzz-tracing), and an expression cut short (a longer
 * cut one, in fuzz/corpus/tracing/print-cut-expression, crashes it too).
 */
static const char fmt_no_field[] =
	"name: nofield\nID: 903\nformat:\n" COMMON_FIELDS
	"\tfield:unsigned long args[2];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\n"
	"print fmt: \"f=%s\", __print_flags(REC->irgs[1], \"|\", { 1, \"A\" })\n";
static const char fmt_cut[] = "name: cut\nID: 904\nformat:\n" COMMON_FIELDS
			      "\tfield:long state;\toffset:8;\tsize:8;\tsigned:1;\n"
			      "\n"
			      "print fmt: \"s=%s\", (REC->state & ((((0x00000000 | 0x0000\n";

/* A tab in the format string (maple_tree's), which libtraceevent 1.7 refuses. */
static const char fmt_tab[] = "name: tab\nID: 905\nformat:\n" COMMON_FIELDS
			      "\tfield:unsigned long v;\toffset:8;\tsize:8;\tsigned:0;\n"
			      "\n"
			      "print fmt: \"a\tb=%lu\", REC->v\n";

/* A section of system "test" with @fmts, and @printk as its printk formats. */
static void build_test_section(struct sect *s, const char *const *fmts, int n, const char *printk)
{
	static const uint8_t magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	uint8_t b[2] = { 0, 8 };

	memset(s, 0, sizeof(*s));
	sput(s, magic, sizeof(magic));
	sput(s, "0.6", 4);
	sput(s, b, 2);
	sput32(s, 4096);
	sput(s, "header_page", 12);
	sblob(s, "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		 "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n");
	sput(s, "header_event", 13);
	sblob(s, "# compressed entry header\n");
	sput32(s, 0);
	sput32(s, 1);
	sput(s, "test", 5);
	sput32(s, (uint32_t)n);
	for (int i = 0; i < n; i++)
		sblob(s, fmts[i]);
	sput32(s, 0); /* kallsyms */
	sput32(s, (uint32_t)strlen(printk));
	sput(s, printk, strlen(printk));
	sput64(s, 0); /* saved cmdlines */
}

static const char *resolve_do_thing(void *ctx, uint64_t *addr, const char **mod)
{
	(void)ctx;
	if (*addr < 0xffffffff81001000ull || *addr >= 0xffffffff81001100ull)
		return NULL;
	*addr = 0xffffffff81001000ull;
	*mod = NULL;
	return "do_thing";
}

/* What pcl_tracepoints__fprint prints for @raw of @id; the return value in *ret. */
static char *tep_text(const struct pcl_tracepoints *t, uint64_t id, const void *raw, size_t n,
		      int *ret)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	*ret = pcl_tracepoints__fprint(t, id, 0, raw, n, m);
	fclose(m);
	return buf;
}

static void test_tracepoint_tep(void **state)
{
	static const char *const fmts[] = { fmt_misc, fmt_odd, fmt_write, fmt_no_field, fmt_cut,
					    fmt_tab };
	struct sect sec;
	struct pcl_tracepoints *t;
	uint8_t raw[56] = { 0 };
	uint64_t v;
	uint32_t vec = 9;
	int ret;
	char *got;

	(void)state;
	build_test_section(&sec, fmts, 6,
			   "0xffffffff8281a5a4 : \"Start context switch\"\n"
			   "0xffffffff8281a591 : \"End context switch\"\n");
	t = pcl_tracepoints__parse(sec.b, sec.n);
	assert_non_null(t);
	assert_int_equal(pcl_tracepoints__count(t), 6);
	assert_int_equal(pcl_tracepoints__nr_unformatted(t), 3); /* odd, nofield, cut */
	v = 901;
	memcpy(raw, &v, 2);
	v = 0xffffffff8281a591ull;
	memcpy(raw + 8, &v, 8);
	v = 0xffffffff81001010ull;
	memcpy(raw + 16, &v, 8);
	memcpy(raw + 24, &vec, 4);
	v = 5;
	memcpy(raw + 32, &v, 8);
	v = 0x7ffd1234;
	memcpy(raw + 40, &v, 8);
	v = 0x2400;
	memcpy(raw + 48, &v, 8);
	/* without a resolver, a kernel function is its address */
	got = tep_text(t, 901, raw, sizeof(raw), &ret);
	assert_int_equal(ret, 0);
	assert_string_equal(got, "End context switch ip=0xffffffff81001010 vec=9 [action=RCU] "
				 "flags=A|C (7ffd1234, 2400)");
	free(got);
	assert_int_equal(pcl_tracepoints__set_func_resolver(t, resolve_do_thing, NULL), 0);
	got = tep_text(t, 901, raw, sizeof(raw), &ret);
	assert_int_equal(ret, 0);
	assert_string_equal(got, "End context switch ip=do_thing+0x10 vec=9 [action=RCU] "
				 "flags=A|C (7ffd1234, 2400)");
	free(got);
	/* a record cut short: what is missing reads as zeros, never past the record */
	got = tep_text(t, 901, raw, 20, &ret);
	assert_int_equal(ret, 0);
	free(got);
	/* the print fmt libtraceevent could not follow: the caller falls back */
	got = tep_text(t, 902, raw, sizeof(raw), &ret);
	assert_int_equal(ret, -ENOENT);
	free(got);
	got = tep_text(t, 903, raw, sizeof(raw), &ret);
	assert_int_equal(ret, -ENOENT);
	free(got);
	got = tep_text(t, 904, raw, sizeof(raw), &ret);
	assert_int_equal(ret, -ENOENT);
	free(got);
	got = tep_text(t, 12345, raw, sizeof(raw), &ret);
	assert_int_equal(ret, -ENOENT);
	free(got);
	v = 840;
	memcpy(raw, &v, 2);
	v = 3;
	memcpy(raw + 16, &v, 8);
	got = tep_text(t, 840, raw, 40, &ret);
	assert_int_equal(ret, 0);
	assert_string_equal(got, "fd: 0x00000003");
	free(got);
	v = 905;
	memcpy(raw, &v, 2);
	v = 3;
	memcpy(raw + 8, &v, 8);
	got = tep_text(t, 905, raw, 16, &ret);
	assert_int_equal(ret, 0);
	assert_string_equal(got, "a\tb=3");
	free(got);
	pcl_tracepoints__free(t);
	assert_int_equal(pcl_tracepoints__nr_unformatted(NULL), 0);
	assert_int_equal(pcl_tracepoints__set_func_resolver(NULL, NULL, NULL), -EINVAL);
}

/* The script line of a tracepoint whose format libtraceevent cannot follow: name=value. */
static void test_tracepoint_fallback_line(void **state)
{
	static const char *const fmts[] = { fmt_odd };
	struct pcl_data_attr a =
		make_attr(PERF_TYPE_TRACEPOINT, 902, PERF_SAMPLE_TID | PERF_SAMPLE_RAW, "test:odd");
	struct pcl_record r = make_sample(&a, 0);
	struct pcl_resolved res = { &thr_hot, fr_nomap, NULL, 0 };
	struct pcl_script_opts o = { .sz = sizeof(o) };
	struct pcl_script *s;
	struct pcl_tracepoints *t;
	struct sect sec;
	uint8_t raw[12] = { 0x86, 0x03 };
	int32_t v = -7;
	char *buf = NULL;
	size_t len = 0;
	FILE *m;

	(void)state;
	build_test_section(&sec, fmts, 1, "");
	t = pcl_tracepoints__parse(sec.b, sec.n);
	assert_non_null(t);
	memcpy(raw + 8, &v, 4);
	r.sample.raw = raw;
	r.sample.raw_size = sizeof(raw);
	s = pcl_script__new(&o);
	assert_non_null(s);
	pcl_script__set_tracepoints(s, t);
	assert_int_equal(pcl_script__setup(s, one(&a), 1, false), 0);
	m = open_memstream(&buf, &len);
	assert_int_equal(pcl_script__sample(s, m, &a, &r, &res), 0);
	/* a task's last switch, after it was unhashed: tid -1, shown as perf's ":-1" */
	r.sample.pid = r.sample.tid = (uint32_t)-1;
	assert_int_equal(pcl_script__sample(s, m, &a, &r, &res), 0);
	fclose(m);
	assert_string_equal(buf, "             hot  9459 test:odd: v=-7\n"
				 "             :-1    -1 test:odd: v=-7\n");
	free(buf);
	pcl_script__free(s);
	pcl_tracepoints__free(t);
}

static char captured[1024];

static int capture(enum pcl_print_level level, const char *fmt, va_list ap)
{
	size_t n = strlen(captured);

	(void)level;
	vsnprintf(captured + n, sizeof(captured) - n, fmt, ap);
	return 0;
}

/* libtraceevent's own messages reach the print callback, not stderr. */
static void test_tracepoint_tep_messages(void **state)
{
	static const char *const fmts[] = { fmt_odd };
	pcl_print_fn_t old = pcl_set_print(capture);
	struct pcl_tracepoints *t;
	struct sect sec;

	(void)state;
	captured[0] = '\0';
	tep_set_loglevel(TEP_LOG_ALL);
	build_test_section(&sec, fmts, 1, "");
	t = pcl_tracepoints__parse(sec.b, sec.n);
	tep_set_loglevel(TEP_LOG_CRITICAL);
	pcl_set_print(old);
	assert_non_null(t);
	pcl_tracepoints__free(t);
	assert_non_null(strstr(captured, "libtraceevent"));
	assert_non_null(strstr(captured, "odd"));
}

static void test_fields_errors(void **state)
{
	static const struct {
		const char *spec;
		int ret;
	} rows[] = {
		{ "comm,-tid", -EINVAL },  { "+tid,comm", -EINVAL }, { "bogus", -EINVAL },
		{ "brstackinsn", 0 },    { "sw:trace", -EINVAL },  { "foo:comm", -EINVAL },
		{ "", -EINVAL },	   { "comm,tid", 0 },	     { "+pid,-period", 0 },
		{ "trace:comm,trace", 0 }, { "-brstack", 0 },	     { "hw:", 0 },  { "+srcline", 0 },
	};
	struct pcl_data_attr a = make_attr(PERF_TYPE_SOFTWARE, 0, ST_DEFAULT, "cpu-clock");
	struct pcl_data_attr ac =
		make_attr(PERF_TYPE_SOFTWARE, 0, ST_DEFAULT | PERF_SAMPLE_CPU, "cpu-clock");
	int bad = 0, ret;
	char *warn = NULL;
	size_t wlen = 0;
	FILE *w;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct pcl_script *s = pcl_script__new(NULL);

		bad += differ(rows[i].spec, "ret",
			      (uint64_t)pcl_script__parse_fields(s, rows[i].spec, NULL),
			      (uint64_t)rows[i].ret);
		pcl_script__free(s);
	}
	/* defaults drop what the samples lack; named fields are an error */
	{
		struct pcl_script *s = pcl_script__new(NULL);

		assert_int_equal(pcl_script__setup(s, one(&a), 1, false), 0);
		bad += differ("default", "sw fields", pcl_script__fields(s, PCL_SCRIPT_SW),
			      PCL_SCRIPT_COMM | PCL_SCRIPT_TID | PCL_SCRIPT_TIME |
				      PCL_SCRIPT_EVENT | PCL_SCRIPT_IP | PCL_SCRIPT_SYM |
				      PCL_SCRIPT_SYMOFF | PCL_SCRIPT_DSO | PCL_SCRIPT_PERIOD |
				      PCL_SCRIPT_BPF_OUTPUT);
		pcl_script__free(s);
		s = pcl_script__new(NULL);
		assert_int_equal(pcl_script__parse_fields(s, "comm,cpu", NULL), 0);
		ret = pcl_script__setup(s, one(&a), 1, false);
		bad += differ("comm,cpu", "setup", (uint64_t)ret, (uint64_t)-EINVAL);
		if (!strstr(pcl_last_error(), "'cpu'"))
			bad++, print_message("message: %s\n", pcl_last_error());
		pcl_script__free(s);
		/* perf: a class's own list does not make its fields named ones */
		s = pcl_script__new(NULL);
		assert_int_equal(pcl_script__parse_fields(s, "sw:comm,cpu", NULL), 0);
		bad += differ("sw:comm,cpu", "setup",
			      (uint64_t)pcl_script__setup(s, one(&a), 1, false), 0);
		bad += differ("sw:comm,cpu", "fields", pcl_script__fields(s, PCL_SCRIPT_SW),
			      PCL_SCRIPT_COMM);
		pcl_script__free(s);
		s = pcl_script__new(NULL);
		assert_int_equal(pcl_script__parse_fields(s, "comm,cpu", NULL), 0);
		bad += differ("cpu present", "setup",
			      (uint64_t)pcl_script__setup(s, one(&ac), 1, false), 0);
		pcl_script__free(s);
		/* an emptied class the file does not have: perf's "events do not exist" */
		s = pcl_script__new(NULL);
		assert_int_equal(pcl_script__parse_fields(s, "hw:", NULL), 0);
		bad += differ("hw: on sw", "setup", (uint64_t)pcl_script__setup(s, one(&a), 1, false),
			      (uint64_t)-EINVAL);
		pcl_script__free(s);
		s = pcl_script__new(NULL);
		assert_int_equal(pcl_script__parse_fields(s, "hw:comm", NULL), 0);
		bad += differ("hw:comm on sw", "setup",
			      (uint64_t)pcl_script__setup(s, one(&a), 1, false), 0);
		pcl_script__free(s);
		s = pcl_script__new(NULL);
		assert_int_equal(pcl_script__parse_fields(s, "comm,symoff", NULL), 0);
		bad += differ("symoff alone", "setup",
			      (uint64_t)pcl_script__setup(s, one(&a), 1, false), (uint64_t)-EINVAL);
		pcl_script__free(s);
	}
	/* warnings go where the caller says */
	{
		struct pcl_script *s = pcl_script__new(NULL);

		w = open_memstream(&warn, &wlen);
		assert_int_equal(pcl_script__parse_fields(s, "comm,tid,trace", w), 0);
		assert_int_equal(pcl_script__parse_fields(s, "sw:comm", w), 0);
		fclose(w);
		assert_string_equal(warn,
				    "pcl: warning: -F: 'trace' is not valid for hardware, "
				    "software, hardware-cache, raw, breakpoint, synth, other PMU "
				    "events; ignored for them\n"
				    "pcl: warning: -F: overriding the earlier fields of software "
				    "events\n");
		free(warn);
		pcl_script__free(s);
	}
	assert_int_equal(bad, 0);
}

static void test_event_names(void **state)
{
	/* perf's evsel__add_modifiers, for files that do not name their events */
	static const struct {
		uint32_t type;
		uint64_t config;
		unsigned int precise, excl_kernel, excl_user, excl_hv, excl_guest, excl_host;
		const char *want;
	} rows[] = {
		{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 3, 0, 0, 0, 1, 0, "cpu-clock:pppH" },
		{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 0, 0, 0, 0, 0, 0, "cpu-clock:HG" },
		{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0, 0, 0, 0, 1, 0, "task-clock" },
		{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, 0, 0, 0, 0, 0, 0, "dummy:HG" },
		{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, 1, 0, 1, 1, 0, "cycles:uH" },
		{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 1, 0, 1, 1, 1, 0,
		  "instructions:kpH" },
		{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0, 0, 0, 0, 0, 1,
		  "instructions:G" },
		{ PERF_TYPE_RAW, 0x1a8, 0, 0, 0, 0, 1, 0, "raw 0x1a8" },
		{ 42, 7, 0, 0, 0, 0, 0, 0, "unknown attr type: 42" },
	};
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct pcl_data_attr a = make_attr(rows[i].type, rows[i].config, ST_DEFAULT, NULL);
		char buf[64];

		a.attr.precise_ip = rows[i].precise;
		a.attr.exclude_kernel = rows[i].excl_kernel;
		a.attr.exclude_user = rows[i].excl_user;
		a.attr.exclude_hv = rows[i].excl_hv;
		a.attr.exclude_guest = rows[i].excl_guest;
		a.attr.exclude_host = rows[i].excl_host;
		bad += differ_str(rows[i].want, "name",
				  pcl_script_event_name(&a, NULL, buf, sizeof(buf)), rows[i].want);
	}
	assert_int_equal(bad, 0);
}

/* Side-band records: their lines as perf prints them. */
static void test_event_lines(void **state)
{
	struct pcl_data_attr a = make_attr(PERF_TYPE_SOFTWARE, 0, ST_DEFAULT, "cpu-clock:ppp");
	struct pcl_data_attr ac =
		make_attr(PERF_TYPE_SOFTWARE, 0,
			  ST_DEFAULT | PERF_SAMPLE_CPU | PERF_SAMPLE_CALLCHAIN, "cpu-clock");
	struct pcl_script_opts o = { .sz = sizeof(o),
				     .show_task_events = true,
				     .show_mmap_events = true,
				     .show_switch_events = true,
				     .show_lost_events = true };
	struct pcl_machine *mach = pcl_machine__new();
	struct pcl_record comm = { .type = PERF_RECORD_COMM,
				   .misc = PERF_RECORD_MISC_COMM_EXEC,
				   .has_id = true,
				   .id = { 9459, 9459, 7524332563000ull, 0, 0, 0, 0 } };
	struct pcl_record mmap2 = { .type = PERF_RECORD_MMAP2,
				    .misc = PERF_RECORD_MISC_USER,
				    .has_id = true,
				    .id = { 9459, 9459, 7524332597000ull, 0, 0, 0, 0 } };
	struct pcl_record kmap = { .type = PERF_RECORD_MMAP,
				   .misc = PERF_RECORD_MISC_KERNEL,
				   .has_id = true };
	struct pcl_record fork = { .type = PERF_RECORD_FORK,
				   .has_id = true,
				   .id = { 9459, 9460, 7524332600000ull, 0, 0, 1, 0 } };
	struct pcl_record sw = { .type = PERF_RECORD_SWITCH_CPU_WIDE,
				 .misc = PERF_RECORD_MISC_SWITCH_OUT,
				 .has_id = true,
				 .id = { 9459, 9459, 7582383922000ull, 0, 0, 1, 0 } };
	struct pcl_record swin = { .type = PERF_RECORD_SWITCH,
				   .has_id = true,
				   .id = { 9459, 9459, 7582383922000ull, 0, 0, 1, 0 } };
	struct pcl_record lost = { .type = PERF_RECORD_LOST, .has_id = true };
	struct pcl_record exit_nid = { .type = PERF_RECORD_EXIT };
	struct pcl_data_attr old = make_attr(PERF_TYPE_SOFTWARE, 0, ST_DEFAULT, "cpu-clock");
	struct pcl_script *s;
	char *buf = NULL;
	size_t len = 0;
	FILE *m;

	(void)state;
	assert_non_null(mach);
	pcl_machine__thread(mach, 0, 0)->comm = pcl_machine__intern(mach, "swapper");
	comm.comm.pid = comm.comm.tid = 9459;
	comm.comm.comm = "hot";
	assert_int_equal(pcl_machine__process(mach, &comm), 0);
	mmap2.mmap.pid = mmap2.mmap.tid = 9459;
	mmap2.mmap.addr = 0x561d45608000;
	mmap2.mmap.len = 0x1000;
	mmap2.mmap.pgoff = 0x1000;
	mmap2.mmap.maj = 0xfe;
	mmap2.mmap.ino = 5310601;
	mmap2.mmap.ino_generation = 2148202423u;
	mmap2.mmap.prot = PROT_READ | PROT_EXEC;
	mmap2.mmap.flags = MAP_PRIVATE;
	mmap2.mmap.filename = "/work/hot";
	kmap.mmap.pid = (uint32_t)-1;
	kmap.mmap.tid = 0;
	kmap.mmap.addr = 0xffffffff81000000;
	kmap.mmap.len = 0x120bb08;
	kmap.mmap.pgoff = 0xffffffff81000000;
	kmap.mmap.filename = "[kernel.kallsyms]_text";
	fork.task.pid = 9459;
	fork.task.tid = 9460;
	fork.task.ppid = 9459;
	fork.task.ptid = 9459;
	sw.context_switch.next_prev_pid = 0;
	sw.context_switch.next_prev_tid = 0;
	lost.lost.lost = 12;
	exit_nid.task.pid = exit_nid.task.tid = 9459;
	exit_nid.task.ppid = exit_nid.task.ptid = 1;
	exit_nid.task.time = 7524400000000ull;
	assert_int_equal(pcl_machine__process(mach, &fork), 0);

	s = pcl_script__new(&o);
	assert_int_equal(pcl_script__setup(s, one(&a), 1, false), 0);
	m = open_memstream(&buf, &len);
	assert_int_equal(pcl_script__event(s, m, &a, &kmap, mach), 1);
	assert_int_equal(pcl_script__event(s, m, &a, &comm, mach), 1);
	assert_int_equal(pcl_script__event(s, m, &a, &mmap2, mach), 1);
	assert_int_equal(pcl_script__event(s, m, &a, &fork, mach), 1);
	assert_int_equal(pcl_script__event(s, m, &a, &swin, mach), 1);
	assert_int_equal(pcl_script__event(s, m, &a, &lost, mach), 1);
	assert_int_equal(pcl_script__event(s, m, NULL, &lost, mach), 1);
	old.attr.sample_id_all = 0;
	assert_int_equal(pcl_script__event(s, m, &old, &exit_nid, mach), 1);
	fclose(m);
	assert_string_equal(
		buf,
		"         swapper     0     0.000000: PERF_RECORD_MMAP -1/0: "
		"[0xffffffff81000000(0x120bb08) @ 0xffffffff81000000]: x [kernel.kallsyms]_text\n"
		"             hot  9459  7524.332563: PERF_RECORD_COMM exec: hot:9459/9459\n"
		"             hot  9459  7524.332597: PERF_RECORD_MMAP2 9459/9459: "
		"[0x561d45608000(0x1000) @ 0x1000 fe:00 5310601 2148202423]: r-xp /work/hot\n"
		"             hot  9460  7524.332600: PERF_RECORD_FORK(9459:9460):(9459:9459)\n"
		"             hot  9459  7582.383922: PERF_RECORD_SWITCH IN         \n"
		"         swapper     0     0.000000: PERF_RECORD_LOST lost 12\n"
		"PERF_RECORD_LOST lost 12\n"
		"             hot  9459  7524.400000: PERF_RECORD_EXIT(9459:9459):(1:1)\n");
	free(buf);
	pcl_script__free(s);

	/* a file with CPUs and call chains: [cpu], unpadded comm, the switch's other task */
	s = pcl_script__new(&o);
	assert_int_equal(pcl_script__setup(s, one(&ac), 1, false), 0);
	buf = NULL;
	m = open_memstream(&buf, &len);
	assert_int_equal(pcl_script__event(s, m, &ac, &sw, mach), 1);
	mmap2.misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
	mmap2.mmap.build_id_size = 4;
	memcpy(mmap2.mmap.build_id, "\x12\x34\xab\xcd", 4);
	assert_int_equal(pcl_script__event(s, m, &ac, &mmap2, mach), 1);
	fclose(m);
	assert_string_equal(buf, "hot  9459 [001]  7582.383922: PERF_RECORD_SWITCH_CPU_WIDE OUT  "
				 "        next pid/tid:     0/0    \n"
				 "hot  9459 [000]  7524.332597: PERF_RECORD_MMAP2 9459/9459: "
				 "[0x561d45608000(0x1000) @ 0x1000 <1234abcd>]: r-xp /work/hot\n");
	free(buf);
	pcl_script__free(s);

	/* not asked for: nothing */
	s = pcl_script__new(NULL);
	assert_int_equal(pcl_script__setup(s, one(&a), 1, false), 0);
	buf = NULL;
	m = open_memstream(&buf, &len);
	assert_int_equal(pcl_script__event(s, m, &a, &comm, mach), 0);
	assert_int_equal(pcl_script__event(s, m, &a, &mmap2, mach), 0);
	fclose(m);
	assert_string_equal(buf, "");
	free(buf);
	pcl_script__free(s);
	pcl_machine__free(mach);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		UNIT_TEST(test_format_parse),
		UNIT_TEST(test_format_malformed),
		UNIT_TEST(test_format_print),
		UNIT_TEST(test_tracing_data),
		UNIT_TEST(test_sample_lines),
		UNIT_TEST(test_tracepoint_line),
		UNIT_TEST(test_tracepoint_callchain),
		UNIT_TEST(test_fields_errors),
		UNIT_TEST(test_event_names),
		UNIT_TEST(test_event_lines),
		UNIT_TEST(test_tracepoint_tep),
		UNIT_TEST(test_tracepoint_fallback_line),
		UNIT_TEST(test_tracepoint_tep_messages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
