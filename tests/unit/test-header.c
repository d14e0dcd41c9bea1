/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the header description (lib/output/header.c) against the
 * contract of include/pcl/header.h.
 *
 * Files are built here byte by byte (a perf.data header, attrs with ids,
 * one FINISHED_ROUND, the feature table and the sections), so that every
 * section can be anything, good or bad. The expected text of each good
 * section is what perf 6.1 printed for the same bytes. Then every good
 * section is cut at every length and has bytes flipped: the output
 * must stay whole (the lines around the feature untouched) and ASan quiet.
 * Streams (pipe mode) are built the same way. When /usr/bin/perf exists,
 * a file it records and a file pcl's writer makes are printed by both and
 * compared line for line.
 *
 * Files go to a temporary directory, removed at the end.
 */
#include "unit.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <pcl/pcl.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

static char tmpdir[64];

/* ---- bytes ---- */

struct bytes {
	char *p;
	size_t len;
	FILE *f;
};

static void b_open(struct bytes *b)
{
	b->p = NULL;
	b->len = 0;
	b->f = open_memstream(&b->p, &b->len);
	assert_non_null(b->f);
}

static void b_close(struct bytes *b)
{
	assert_int_equal(fclose(b->f), 0);
	b->f = NULL;
}

static void u32(struct bytes *b, uint32_t v)
{
	fwrite(&v, 4, 1, b->f);
}

static void u64(struct bytes *b, uint64_t v)
{
	fwrite(&v, 8, 1, b->f);
}

static void raw(struct bytes *b, const void *p, size_t n)
{
	fwrite(p, 1, n, b->f);
}

/* perf's string: u32 len (strlen + 1 rounded up to 64), the string, zeros. */
static void str(struct bytes *b, const char *s)
{
	static const char zeros[64];
	size_t olen = strlen(s) + 1, len = (olen + 63) & ~(size_t)63;

	u32(b, (uint32_t)len);
	raw(b, s, olen);
	raw(b, zeros, len - olen);
}

/* perf_event_attr (128 bytes) of a cpu-clock sampler with sample_type @st. */
static void attr_bytes(uint8_t a[128], uint64_t st)
{
	uint32_t ts[2] = { PERF_TYPE_SOFTWARE, 128 };
	uint64_t v[5] = { 0, 4000, st, PERF_FORMAT_ID | PERF_FORMAT_LOST, 1 | 1ull << 18 };

	memset(a, 0, 128);
	memcpy(a, ts, 8);
	memcpy(a + 8, v, sizeof(v));
}

/* ---- files ---- */

struct sec {
	int feat;
	const char *p;
	size_t len;
};

/*
 * A perf.data file: header, ids, @nr_attrs attrs (ids 1, 2, ... or 11, 12
 * for one), a FINISHED_ROUND, the table and the sections (sorted by feature).
 */
static char *write_file(const char *name, const struct sec *s, int n, int nr_attrs)
{
	static char path[128];
	uint64_t bits[4] = { 0 }, ids_off = 104, attrs_off, data_off, feat_off, at;
	uint64_t st = nr_attrs > 1 ? 0x147 : 0x107;
	struct bytes b;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	for (int i = 0; i < n; i++)
		bits[s[i].feat / 64] |= 1ull << (s[i].feat % 64);
	attrs_off = ids_off + (nr_attrs > 1 ? 8 * (uint64_t)nr_attrs : 16);
	data_off = attrs_off + 144 * (uint64_t)nr_attrs;
	feat_off = data_off + 8;
	b_open(&b);
	u64(&b, 0x32454c4946524550ULL);
	u64(&b, 104);
	u64(&b, 144);
	u64(&b, attrs_off);
	u64(&b, 144 * (uint64_t)nr_attrs);
	u64(&b, data_off);
	u64(&b, 8);
	u64(&b, 0);
	u64(&b, 0);
	for (int i = 0; i < 4; i++)
		u64(&b, bits[i]);
	if (nr_attrs > 1) {
		for (int i = 0; i < nr_attrs; i++)
			u64(&b, (uint64_t)i + 1);
	} else {
		u64(&b, 11);
		u64(&b, 12);
	}
	for (int i = 0; i < nr_attrs; i++) {
		uint8_t a[128];

		attr_bytes(a, st);
		raw(&b, a, 128);
		u64(&b, nr_attrs > 1 ? ids_off + 8 * (uint64_t)i : ids_off);
		u64(&b, nr_attrs > 1 ? 8 : 16);
	}
	u32(&b, PCL_RECORD_FINISHED_ROUND);
	u32(&b, 8u << 16);
	at = feat_off + 16 * (uint64_t)n;
	for (int f2 = 0; f2 < 256; f2++)
		for (int i = 0; i < n; i++)
			if (s[i].feat == f2) {
				u64(&b, at);
				u64(&b, s[i].len);
				at += s[i].len;
			}
	for (int f2 = 0; f2 < 256; f2++)
		for (int i = 0; i < n; i++)
			if (s[i].feat == f2)
				raw(&b, s[i].p, s[i].len);
	b_close(&b);
	unlink(path); /* a file truncated in place is flushed to disk on close (ext4) */
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(b.p, 1, b.len, f), b.len);
	fclose(f);
	free(b.p);
	return path;
}

/* A stream: header, HEADER_ATTR, HEADER_FEATURE records in the given order, a round. */
static char *write_stream(const char *name, const struct sec *s, int n)
{
	static char path[128];
	uint8_t a[128];
	struct bytes b;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	b_open(&b);
	u64(&b, 0x32454c4946524550ULL);
	u64(&b, 16);
	attr_bytes(a, 0x107);
	u32(&b, PCL_RECORD_HEADER_ATTR);
	u32(&b, (8u + 128 + 16) << 16);
	raw(&b, a, 128);
	u64(&b, 11);
	u64(&b, 12);
	for (int i = 0; i < n; i++) {
		size_t pad = (8 - s[i].len % 8) % 8;

		u32(&b, PCL_RECORD_HEADER_FEATURE);
		u32(&b, (uint32_t)(16 + s[i].len + pad) << 16);
		u64(&b, (uint64_t)s[i].feat);
		raw(&b, s[i].p, s[i].len);
		raw(&b, "\0\0\0\0\0\0\0", pad);
	}
	u32(&b, PCL_RECORD_FINISHED_ROUND);
	u32(&b, 8u << 16);
	b_close(&b);
	unlink(path); /* a file truncated in place is flushed to disk on close (ext4) */
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(b.p, 1, b.len, f), b.len);
	fclose(f);
	free(b.p);
	return path;
}

/* pcl_header__print of @path into a string; *ret gets its return value. */
static char *header_text(const char *path, unsigned int flags, int *ret)
{
	struct pcl_data_reader *r = pcl_data_reader__open(path);
	char *s = NULL;
	size_t len = 0;
	FILE *m;

	assert_non_null(r);
	m = open_memstream(&s, &len);
	assert_non_null(m);
	*ret = pcl_header__print(m, r, path, flags);
	fclose(m);
	pcl_data_reader__close(r);
	return s;
}

/* The feature lines of a header: after "# feat offset" (and "#" in a stream), before "# missing".
 */
static char *features_part(const char *text, bool pipe)
{
	const char *a = strstr(text, "# feat offset    : "), *e;

	assert_non_null(a);
	a = strchr(a, '\n') + 1;
	if (pipe) {
		assert_true(!strncmp(a, "# ========\n#\n", 13));
		a += 13;
		e = a + strlen(a);
	} else {
		e = strstr(a, "# missing features: ");
		assert_non_null(e);
	}
	return strndup(a, (size_t)(e - a));
}

/* ---- the sections, good ---- */

typedef void (*build_fn)(struct bytes *b);

static void s_hostname(struct bytes *b)
{
	str(b, "host");
}

static void s_nrcpus(struct bytes *b)
{
	u32(b, 4);
	u32(b, 2);
}

static void s_total_mem(struct bytes *b)
{
	u64(b, 1234);
}

static void s_cmdline(struct bytes *b)
{
	static const char *const v[] = { "/usr/bin/perf", "record", "-e", "it's", "a 'b' c", "" };

	u32(b, ARRAY_SIZE(v));
	for (unsigned int i = 0; i < ARRAY_SIZE(v); i++)
		str(b, v[i]);
}

/* EVENT_DESC of one attr with every field set, named "every", ids 1, 2, 3. */
static void s_event_all(struct bytes *b)
{
	uint8_t a[128];
	uint32_t u32s[2] = { 3, 2 };				/* wakeup_events, bp_type */
	uint64_t u64s[4] = { 0x10, 0x20, (1 << 19) - 1, 0xff }; /* config1, 2, branch, regs */
	uint32_t stack[2] = { 8192, (uint32_t)-1 };		/* sample_stack_user, clockid */
	uint64_t intr = 3, sig = 77, config = 0xabc;
	uint64_t v[4] = { 0x1ffffff & ~(1ull << 17), 0x1f, (1ull << 38) - 1 };
	uint32_t aux[2] = { 4, 127 }, aux_ss = 9;

	attr_bytes(a, 0);
	memcpy(a + 8, &config, 8);
	memcpy(a + 24, v, 8);
	memcpy(a + 32, v + 1, 8);
	memcpy(a + 40, v + 2, 8);
	memcpy(a + 48, u32s, 8);
	memcpy(a + 56, u64s, 32);
	memcpy(a + 88, stack, 8);
	memcpy(a + 96, &intr, 8);
	memcpy(a + 104, aux, 4);
	memcpy(a + 108, &aux[1], 2);
	memcpy(a + 112, &aux_ss, 4);
	memcpy(a + 120, &sig, 8);
	u32(b, 1);
	u32(b, 128);
	raw(b, a, 128);
	u32(b, 3);
	str(b, "every");
	u64(b, 1);
	u64(b, 2);
	u64(b, 3);
}

/* sample_type with only TRANSACTION, which perf has no name for: it repeats the period. */
static void s_event_trans(struct bytes *b)
{
	uint8_t a[128];
	uint64_t period = 55;

	attr_bytes(a, 1u << 17);
	memcpy(a + 16, &period, 8);
	u32(b, 1);
	u32(b, 128);
	raw(b, a, 128);
	u32(b, 0);
	str(b, "t");
}

/* Three events, the second of size 0: perf's list ends there. */
static void s_event_size0(struct bytes *b)
{
	uint8_t a[128];

	u32(b, 3);
	u32(b, 128);
	for (int i = 0; i < 3; i++) {
		attr_bytes(a, 0x107);
		if (i == 1)
			memset(a + 4, 0, 4);
		raw(b, a, 128);
		u32(b, 1);
		str(b, i == 0 ? "a" : i == 1 ? "b" : "c");
		u64(b, (uint64_t)i + 1);
	}
}

/* Attrs of 64 bytes: the rest reads as zero. */
static void s_event_sz64(struct bytes *b)
{
	uint8_t a[128];

	u32(b, 1);
	u32(b, 64);
	attr_bytes(a, 0x107);
	raw(b, a, 64);
	u32(b, 1);
	str(b, "a");
	u64(b, 1);
}

static void s_event_reserved(struct bytes *b)
{
	uint8_t a[128];

	attr_bytes(a, 0x107);
	a[40 + 5] = 1; /* flag bit 40: reserved */
	u32(b, 1);
	u32(b, 128);
	raw(b, a, 128);
	u32(b, 0);
	str(b, "r");
}

static void str_list(struct bytes *b, const char *const *v, uint32_t n)
{
	u32(b, n);
	for (uint32_t i = 0; i < n; i++)
		str(b, v[i]);
}

static void s_topo_die(struct bytes *b)
{
	static const char *const sock[] = { "0-3" }, *const thr[] = { "0-1", "2-3" };

	str_list(b, sock, 1);
	str_list(b, thr, 2);
	for (uint32_t c = 0; c < 4; c++) {
		u32(b, c);
		u32(b, 0);
	}
	str_list(b, sock, 1);
	for (int c = 0; c < 4; c++)
		u32(b, 0);
}

static void s_topo_old(struct bytes *b)
{
	static const char *const sock[] = { "0-3" }, *const thr[] = { "0-1", "2-3" };

	str_list(b, sock, 1);
	str_list(b, thr, 2);
}

static void s_numa(struct bytes *b)
{
	static const char *const cpus[] = { "0-1,3", "", "5,2,3,4,9" };
	static const uint64_t mem[][2] = { { 100, 50 }, { 7, 8 }, { 1, 2 } };

	u32(b, 3);
	for (uint32_t i = 0; i < 3; i++) {
		u32(b, i);
		u64(b, mem[i][0]);
		u64(b, mem[i][1]);
		str(b, cpus[i]);
	}
}

static void s_pmu_mappings(struct bytes *b)
{
	u32(b, 3);
	u32(b, 7);
	str(b, "cpu");
	u32(b, 0);
	str(b, "zero");
	u32(b, 4294967295u);
	str(b, "max");
}

static void s_cache(struct bytes *b)
{
	u32(b, 1);
	u32(b, 2);
	u32(b, 1);
	u32(b, 64);
	u32(b, 64);
	u32(b, 8);
	str(b, "Data");
	str(b, "32K");
	str(b, "0-1");
	u32(b, 3);
	u32(b, 64);
	u32(b, 1);
	u32(b, 16);
	str(b, "Unified");
	str(b, "123456789K");
	str(b, "0-255");
}

static void s_sample_time(struct bytes *b)
{
	u64(b, 5000123456ull);
	u64(b, 4000000000ull); /* before the first: perf's duration wraps */
}

static void s_mem_topology(struct bytes *b)
{
	u64(b, 1);
	u64(b, 0x8000000);
	u64(b, 2);
	u64(b, 0);
	u64(b, 0);
	u64(b, 200);
	u64(b, 0xffffffffff00ffull);
	u64(b, 0xff00ff00ff00ff00ull);
	u64(b, 0xff);
	u64(b, 0);
	u64(b, 1);
	u64(b, 0);
	u64(b, 3);
	u64(b, 5);
}

static void s_clockid(struct bytes *b)
{
	u64(b, 1);
}

static void s_compressed(struct bytes *b)
{
	u32(b, 1);
	u32(b, 1);
	u32(b, 3);
	u32(b, 4);
	u32(b, 100);
}

static void s_cpu_pmu_caps(struct bytes *b)
{
	u32(b, 2);
	str(b, "branches");
	str(b, "32");
	str(b, "max_precise");
	str(b, "0");
}

static void s_clock_data(struct bytes *b)
{
	u32(b, 1);
	u32(b, 4);
	u64(b, 1700000000123456789ull);
	u64(b, 12345678901ull);
}

static void s_hybrid(struct bytes *b)
{
	u32(b, 2);
	str(b, "cpu_core");
	str(b, "0-7");
	str(b, "cpu_atom");
	str(b, "8-15");
}

static void s_pmu_caps(struct bytes *b)
{
	u32(b, 2);
	u32(b, 1);
	str(b, "a");
	str(b, "b");
	str(b, "ibs_op");
	u32(b, 0);
	str(b, "empty");
}

/* A BTF blob: int, a func proto, and FUNCs named @a and @b (type ids 3 and 4). */
static void btf_blob(struct bytes *b, const char *fa, const char *fb)
{
	char strs[64];
	size_t la = strlen(fa) + 1, lb = strlen(fb) + 1, sl = 5 + la + lb;
	uint32_t t[] = { 1, 1u << 24,		4,	   32, 0, 13u << 24, 1, 5, 12u << 24,
			 2, (uint32_t)(5 + la), 12u << 24, 2 };
	uint16_t magic = 0xeb9f;
	uint8_t vf[2] = { 1, 0 };

	memcpy(strs, "\0int\0", 5);
	memcpy(strs + 5, fa, la);
	memcpy(strs + 5 + la, fb, lb);
	raw(b, &magic, 2);
	raw(b, vf, 2);
	u32(b, 24);
	u32(b, 0);
	u32(b, sizeof(t));
	u32(b, sizeof(t));
	u32(b, (uint32_t)sl);
	raw(b, t, sizeof(t));
	raw(b, strs, sl);
}

/* One bpf_prog_info: @n subprograms at 0x1000, 0x2000, tags 01.., 02..; FUNC types 3, 4. */
static void bpf_prog(struct bytes *b, uint32_t id, const char *name, uint32_t n, uint32_t btf_id)
{
	uint8_t info[232] = { 0 };
	uint64_t off[4] = { 0, 8 * n, 12 * n, 20 * n }; /* ksyms, lens, tags, func info */
	uint32_t v;

	memcpy(info + 4, &id, 4);
	memcpy(info + 64, name, strlen(name));
	memcpy(info + 104, &n, 4);
	memcpy(info + 108, &n, 4);
	memcpy(info + 112, &off[0], 8);
	memcpy(info + 120, &off[1], 8);
	memcpy(info + 128, &btf_id, 4);
	v = btf_id ? 8 : 0;
	memcpy(info + 132, &v, 4);
	memcpy(info + 136, &off[3], 8);
	memcpy(info + 144, &n, 4);
	memcpy(info + 180, &n, 4);
	memcpy(info + 184, &off[2], 8);
	u32(b, 232);
	u32(b, 28 * n);
	u64(b, 1u << 3 | 1u << 4 | 1u << 5 | 1u << 8);
	raw(b, info, 232);
	for (uint32_t i = 0; i < n; i++)
		u64(b, 0x1000 * (i + 1));
	for (uint32_t i = 0; i < n; i++)
		u32(b, 5 + i);
	for (uint32_t i = 0; i < n; i++)
		for (int k = 0; k < 8; k++)
			raw(b, &(uint8_t){ (uint8_t)(i + 1) }, 1);
	for (uint32_t i = 0; i < n; i++) {
		u32(b, 10 * i);
		u32(b, 3 + i);
	}
}

static void s_bpf_prog_info(struct bytes *b)
{
	u32(b, 3);
	bpf_prog(b, 30, "c", 1, 0);
	bpf_prog(b, 19, "x", 2, 7);
	bpf_prog(b, 30, "dup", 1, 0);
}

static void s_bpf_btf(struct bytes *b)
{
	struct bytes blob;

	b_open(&blob);
	btf_blob(&blob, "main_fn", "helper");
	b_close(&blob);
	u32(b, 1);
	u32(b, 7);
	u32(b, (uint32_t)blob.len);
	raw(b, blob.p, blob.len);
	free(blob.p);
}

static void s_empty(struct bytes *b)
{
	(void)b;
}

struct good {
	const char *name;
	int feat;
	build_fn build;
	const char *want;     /* perf 6.1's lines for it, with -I */
	const char *fallback; /* what a file whose section does not read prints */
};

static const struct good goods[] = {
	{ "hostname", PCL_FEAT_HOSTNAME, s_hostname, "# hostname : host\n",
	  "# hostname : (null)\n" },
	{ "nrcpus", PCL_FEAT_NRCPUS, s_nrcpus, "# nrcpus online : 2\n# nrcpus avail : 4\n",
	  "# nrcpus online : 0\n# nrcpus avail : 0\n" },
	{ "total_mem", PCL_FEAT_TOTAL_MEM, s_total_mem, "# total memory : 1234 kB\n",
	  "# total memory : 0 kB\n" },
	{ "cmdline", PCL_FEAT_CMDLINE, s_cmdline,
	  "# cmdline : /usr/bin/perf record -e it\\'s a \\'b\\' c  \n", "# cmdline : \n" },
	{ "event_all", PCL_FEAT_EVENT_DESC, s_event_all,
	  "# event : name = every, , id = { 1, 2, 3 }, type = 1, size = 128, config = 0xabc, { "
	  "sample_period, sample_freq } = 4000, sample_type = "
	  "IP|TID|TIME|ADDR|READ|CALLCHAIN|ID|CPU|PERIOD|STREAM_ID|RAW|BRANCH_STACK|REGS_USER|"
	  "STACK_USER|IDENTIFIER|REGS_INTR|DATA_SRC|WEIGHT|PHYS_ADDR|AUX|CGROUP|DATA_PAGE_SIZE|"
	  "CODE_PAGE_SIZE|WEIGHT_STRUCT, read_format = "
	  "TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING|ID|GROUP|LOST, disabled = 1, inherit = 1, "
	  "pinned = 1, exclusive = 1, exclude_user = 1, exclude_kernel = 1, exclude_hv = 1, "
	  "exclude_idle = 1, mmap = 1, comm = 1, freq = 1, inherit_stat = 1, enable_on_exec = 1, "
	  "task = 1, watermark = 1, precise_ip = 3, mmap_data = 1, sample_id_all = 1, "
	  "exclude_host = 1, exclude_guest = 1, exclude_callchain_kernel = 1, "
	  "exclude_callchain_user = 1, mmap2 = 1, comm_exec = 1, use_clockid = 1, "
	  "context_switch = 1, write_backward = 1, namespaces = 1, ksymbol = 1, bpf_event = 1, "
	  "aux_output = 1, cgroup = 1, text_poke = 1, build_id = 1, inherit_thread = 1, "
	  "remove_on_exec = 1, sigtrap = 1, { wakeup_events, wakeup_watermark } = 3, bp_type = "
	  "2, { bp_addr, config1 } = 0x10, { bp_len, config2 } = 0x20, branch_sample_type = "
	  "USER|KERNEL|HV|ANY|ANY_CALL|ANY_RETURN|IND_CALL|ABORT_TX|IN_TX|NO_TX|COND|CALL_STACK|"
	  "IND_JUMP|CALL|NO_FLAGS|NO_CYCLES|TYPE_SAVE|HW_INDEX|PRIV_SAVE, sample_regs_user = "
	  "0xff, sample_stack_user = 8192, clockid = -1, sample_regs_intr = 0x3, aux_watermark = "
	  "4, sample_max_stack = 127, aux_sample_size = 9, sig_data = 77\n",
	  "# event desc: not available or unable to read\n" },
	{ "event_trans", PCL_FEAT_EVENT_DESC, s_event_trans,
	  "# event : name = t, , type = 1, size = 128, { sample_period, sample_freq } = 55, "
	  "sample_type = 55, read_format = ID|LOST, disabled = 1, sample_id_all = 1\n",
	  "# event desc: not available or unable to read\n" },
	{ "event_size0", PCL_FEAT_EVENT_DESC, s_event_size0,
	  "# event : name = a, , id = { 1 }, type = 1, size = 128, { sample_period, sample_freq } "
	  "= 4000, sample_type = IP|TID|TIME|PERIOD, read_format = ID|LOST, disabled = 1, "
	  "sample_id_all = 1\n",
	  "# event desc: not available or unable to read\n" },
	{ "event_sz64", PCL_FEAT_EVENT_DESC, s_event_sz64,
	  "# event : name = a, , id = { 1 }, type = 1, size = 128, { sample_period, sample_freq } "
	  "= 4000, sample_type = IP|TID|TIME|PERIOD, read_format = ID|LOST, disabled = 1, "
	  "sample_id_all = 1\n",
	  "# event desc: not available or unable to read\n" },
	{ "event_reserved", PCL_FEAT_EVENT_DESC, s_event_reserved,
	  "# event desc: not available or unable to read\n",
	  "# event desc: not available or unable to read\n" },
	{ "topo_die", PCL_FEAT_CPU_TOPOLOGY, s_topo_die,
	  "# sibling sockets : 0-3\n# sibling dies    : 0-3\n# sibling threads : 0-1\n"
	  "# sibling threads : 2-3\n# CPU 0: Core ID 0, Die ID 0, Socket ID 0\n"
	  "# CPU 1: Core ID 1, Die ID 0, Socket ID 0\n# CPU 2: Core ID 2, Die ID 0, Socket ID 0\n"
	  "# CPU 3: Core ID 3, Die ID 0, Socket ID 0\n",
	  "# Core ID and Socket ID information is not available\n" },
	{ "topo_old", PCL_FEAT_CPU_TOPOLOGY, s_topo_old,
	  "# sibling sockets : 0-3\n# sibling threads : 0-1\n# sibling threads : 2-3\n"
	  "# Core ID and Socket ID information is not available\n",
	  "# Core ID and Socket ID information is not available\n" },
	{ "numa", PCL_FEAT_NUMA_TOPOLOGY, s_numa,
	  "# node0 meminfo  : total = 100 kB, free = 50 kB\n# node0 cpu list : 0-1,3\n"
	  "# node1 meminfo  : total = 7 kB, free = 8 kB\n# node1 cpu list : -1\n"
	  "# node2 meminfo  : total = 1 kB, free = 2 kB\n# node2 cpu list : 2-5,9\n",
	  "" },
	{ "pmu_mappings", PCL_FEAT_PMU_MAPPINGS, s_pmu_mappings,
	  "# pmu mappings: cpu = 7, zero = 0, max = 4294967295\n",
	  "# pmu mappings: not available\n" },
	{ "cache", PCL_FEAT_CACHE, s_cache,
	  "# CPU cache info:\n#  L1 Data                 32K [0-1]\n"
	  "#  L3 Unified         123456789K [0-255]\n",
	  "# CPU cache info:\n" },
	{ "sample_time", PCL_FEAT_SAMPLE_TIME, s_sample_time,
	  "# time of first sample : 5.000123\n# time of last sample : 4.000000\n"
	  "# sample duration : 18446744072709.426 ms\n",
	  "# time of first sample : 0.000000\n# time of last sample : 0.000000\n"
	  "# sample duration :      0.000 ms\n" },
	{ "mem_topology", PCL_FEAT_MEM_TOPOLOGY, s_mem_topology,
	  "# memory nodes (nr 2, block size 0x8000000):\n"
	  "#    0 [11G]: 0-7,16-55,72-79,88-95,104-111,120-135\n#    1 [256M]: 0,2\n",
	  "# memory nodes (nr 0, block size 0x0):\n" },
	{ "clockid", PCL_FEAT_CLOCKID, s_clockid, "# clockid frequency: 1000 MHz\n",
	  "# clockid frequency: 0 MHz\n" },
	{ "compressed", PCL_FEAT_COMPRESSED, s_compressed,
	  "# compressed : Zstd, level = 3, ratio = 4\n",
	  "# compressed : Unknown, level = 0, ratio = 0\n" },
	{ "cpu_pmu_caps", PCL_FEAT_CPU_PMU_CAPS, s_cpu_pmu_caps,
	  "# cpu pmu capabilities: branches=32, max_precise=0\n",
	  "# cpu pmu capabilities: not available\n" },
	{ "clock_data", PCL_FEAT_CLOCK_DATA, s_clock_data,
	  "# clockid: monotonic_raw (4)\n# reference time: 2023-11-14 22:13:20.123456 = "
	  "1700000000.123456 (TOD) = 12.345678901 (monotonic_raw)\n",
	  "# reference time disabled\n" },
	{ "hybrid", PCL_FEAT_HYBRID_TOPOLOGY, s_hybrid,
	  "# hybrid cpu system:\n# cpu_core cpu list : 0-7\n# cpu_atom cpu list : 8-15\n",
	  "# hybrid cpu system:\n" },
	{ "pmu_caps", PCL_FEAT_PMU_CAPS, s_pmu_caps,
	  "# ibs_op pmu capabilities: a=b\n# empty pmu capabilities: not available\n", "" },
	{ "bpf_prog_info", PCL_FEAT_BPF_PROG_INFO, s_bpf_prog_info,
	  "# bpf_prog_info 19:\n# \tsub_prog 0: bpf_prog_0101010101010101_F addr 0x1000 size 5\n"
	  "# \tsub_prog 1: bpf_prog_0202020202020202_F addr 0x2000 size 6\n"
	  "# bpf_prog_info 30: bpf_prog_0101010101010101_c addr 0x1000 size 5\n",
	  "" },
	{ "bpf_btf", PCL_FEAT_BPF_BTF, s_bpf_btf, "# btf info of id 7\n", "" },
	{ "branch_stack", PCL_FEAT_BRANCH_STACK, s_empty, "# contains samples with branch stack\n",
	  "# contains samples with branch stack\n" },
	{ "stat", PCL_FEAT_STAT, s_empty, "# contains stat data\n", "# contains stat data\n" },
	{ "build_id", PCL_FEAT_BUILD_ID, s_empty, "", "" },
};

static struct sec build(build_fn fn, int feat, struct bytes *b)
{
	b_open(b);
	fn(b);
	b_close(b);
	return (struct sec){ feat, b->p, b->len };
}

static bool hidden(int feat)
{
	return feat == PCL_FEAT_CPU_TOPOLOGY || feat == PCL_FEAT_NUMA_TOPOLOGY ||
	       feat == PCL_FEAT_CACHE || feat == PCL_FEAT_MEM_TOPOLOGY ||
	       feat == PCL_FEAT_HYBRID_TOPOLOGY;
}

/* CPU_TOPOLOGY has one id per CPU of NRCPUS: its rows come with that section. */
#define NRCPUS_TEXT "# nrcpus online : 2\n# nrcpus avail : 4\n"

static bool topo(const struct good *g)
{
	return g->feat == PCL_FEAT_CPU_TOPOLOGY;
}

/* Each good section alone: perf's text with -I, "info available" or the same without. */
static void test_good_sections(void **state)
{
	int bad = 0;

	(void)state;
	for (unsigned int i = 0; i < ARRAY_SIZE(goods); i++) {
		const struct good *g = &goods[i];
		struct bytes b, nb;
		struct sec s[2] = { build(g->build, g->feat, &b),
				    build(s_nrcpus, PCL_FEAT_NRCPUS, &nb) };
		char *path = write_file(g->name, s, topo(g) ? 2 : 1, 1), *text, *part, want[256];
		int ret;

		text = header_text(path, PCL_HEADER_FULL, &ret);
		part = features_part(text, false);
		if (topo(g))
			memmove(part, part + strlen(NRCPUS_TEXT),
				strlen(part + strlen(NRCPUS_TEXT)) + 1);
		bad += differ(g->name, "ret", (uint64_t)ret, 0);
		bad += differ_str(g->name, "text with -I", part, g->want);
		free(part);
		free(text);
		text = header_text(path, 0, &ret);
		part = features_part(text, false);
		if (topo(g))
			memmove(part, part + strlen(NRCPUS_TEXT),
				strlen(part + strlen(NRCPUS_TEXT)) + 1);
		if (hidden(g->feat))
			snprintf(want, sizeof(want), "# %s info available, use -I to display\n",
				 pcl_header__feature_name(g->feat));
		bad += differ_str(g->name, "text", part, hidden(g->feat) ? want : g->want);
		free(part);
		free(text);
		free(b.p);
		free(nb.p);
	}
	assert_int_equal(bad, 0);
}

/* The frame around the features: perf's lines, and the missing features named. */
static void test_frame(void **state)
{
	struct bytes b;
	struct sec s = build(s_hostname, PCL_FEAT_HOSTNAME, &b);
	char *path = write_file("frame", &s, 1, 1), *text, when[64];
	struct stat st;
	int ret;

	(void)state;
	assert_int_equal(stat(path, &st), 0);
	assert_non_null(ctime_r(&st.st_mtime, when));
	text = header_text(path, 0, &ret);
	assert_int_equal(ret, 0);
	assert_true(!strncmp(text, "# ========\n# captured on    : ", 30));
	assert_true(!strncmp(text + 30, when, strlen(when)));
	assert_non_null(strstr(text, "# header version : 1\n# data offset    : 264\n"
				     "# data size      : 8\n# feat offset    : 272\n"
				     "# hostname : host\n# missing features: TRACING_DATA BUILD_ID "
				     "OSRELEASE VERSION ARCH NRCPUS "));
	assert_non_null(strstr(text, " HYBRID_TOPOLOGY PMU_CAPS \n# ========\n#\n"));
	assert_string_equal(strstr(text, "# ========\n#\n"), "# ========\n#\n");
	free(text);
	free(b.p);
	assert_string_equal(pcl_header__feature_name(PCL_FEAT_CPU_TOPOLOGY), "CPU_TOPOLOGY");
	assert_null(pcl_header__feature_name(0));
	assert_null(pcl_header__feature_name(32));
	assert_int_equal(pcl_header__print(NULL, NULL, NULL, 0), -EINVAL);
}

/*
 * A group over three events (leader 0 of 2 members, named) and an event
 * named from its attr when EVENT_DESC is absent.
 */
static void test_groups(void **state)
{
	static const struct {
		const char *name;
		uint32_t nr_groups, g[2][2]; /* leader, members */
		const char *gname[2];
		const char *want;
	} rows[] = {
		{ "named", 1, { { 0, 2 } }, { "mygroup" }, "# group: mygroup{ev0,ev1}\n" },
		{ "anon",
		  2,
		  { { 0, 2 }, { 2, 1 } },
		  { "{anon_group}", "g2" },
		  "# group: {ev0,ev1}\n" },
		{ "bad leader", 1, { { 5, 2 } }, { "x" }, "" },
		{ "overlap", 2, { { 0, 3 }, { 1, 2 } }, { "x", "y" }, "" },
		{ "too long", 1, { { 1, 3 } }, { "x" }, "" },
	};
	int bad = 0;

	(void)state;
	for (unsigned int i = 0; i < ARRAY_SIZE(rows); i++) {
		struct bytes ed, gd;
		struct sec s[2];
		uint8_t a[128];
		char *path, *text, *part, *g;
		int ret;

		b_open(&ed);
		u32(&ed, 3);
		u32(&ed, 128);
		for (int k = 0; k < 3; k++) {
			char n[8];

			attr_bytes(a, 0x107);
			raw(&ed, a, 128);
			u32(&ed, 1);
			snprintf(n, sizeof(n), "ev%d", k);
			str(&ed, n);
			u64(&ed, (uint64_t)k + 1);
		}
		b_close(&ed);
		b_open(&gd);
		u32(&gd, rows[i].nr_groups);
		for (uint32_t k = 0; k < rows[i].nr_groups; k++) {
			str(&gd, rows[i].gname[k]);
			u32(&gd, rows[i].g[k][0]);
			u32(&gd, rows[i].g[k][1]);
		}
		b_close(&gd);
		s[0] = (struct sec){ PCL_FEAT_EVENT_DESC, ed.p, ed.len };
		s[1] = (struct sec){ PCL_FEAT_GROUP_DESC, gd.p, gd.len };
		path = write_file("group", s, 2, 3);
		text = header_text(path, 0, &ret);
		part = features_part(text, false);
		g = strstr(part, "# group");
		bad += differ_str(rows[i].name, "group", g ? g : "", rows[i].want);
		free(part);
		free(text);
		free(ed.p);
		free(gd.p);
	}
	assert_int_equal(bad, 0);
}

/*
 * Every good section cut at every length and with each byte flipped: no
 * crash (ASan), a return of 0, the frame intact, and for a cut the
 * feature's text is what perf prints when the section does not read.
 */
static void test_malformed(void **state)
{
	int bad = 0;

	(void)state;
	for (unsigned int i = 0; i < ARRAY_SIZE(goods); i++) {
		const struct good *g = &goods[i];
		struct bytes b;
		struct sec s = build(g->build, g->feat, &b);

		for (size_t cut = 0; cut <= s.len; cut++) {
			struct sec c = { g->feat, s.p, cut };
			char *path = write_file("cut", &c, 1, 1), *text, *part;
			int ret;

			text = header_text(path, PCL_HEADER_FULL, &ret);
			part = features_part(text, false);
			bad += differ(g->name, "ret of a cut section", (uint64_t)ret, 0);
			/* a cut topology may read as an older layout */
			if (g->feat != PCL_FEAT_CPU_TOPOLOGY &&
			    strcmp(part, cut == s.len ? g->want : g->fallback))
				bad += differ_str(g->name, "cut section", part,
						  cut == s.len ? g->want : g->fallback);
			free(part);
			free(text);
		}
		/* flips: the first bytes, then every 4th */
		for (size_t at = 0; at < s.len; at += at < 8 ? 1 : 4) {
			char *p = malloc(s.len), *path, *text, *part;
			struct sec c = { g->feat, p, s.len };
			int ret;

			assert_non_null(p);
			memcpy(p, s.p, s.len);
			p[at] ^= (char)(0x80 | at);
			path = write_file("flip", &c, 1, 1);
			text = header_text(path, PCL_HEADER_FULL, &ret);
			part = features_part(text, false); /* asserts the frame */
			bad += differ(g->name, "ret of a flipped section", (uint64_t)ret, 0);
			free(part);
			free(text);
			free(p);
		}
		free(b.p);
	}
	assert_int_equal(bad, 0);
}

/* A cut section of a hidden feature still says "info available", as perf. */
static void test_hidden_bad(void **state)
{
	struct sec s = { PCL_FEAT_NUMA_TOPOLOGY, "\1\0\0", 3 };
	char *path = write_file("hidden", &s, 1, 1), *text, *part;
	int ret;

	(void)state;
	text = header_text(path, 0, &ret);
	part = features_part(text, false);
	assert_string_equal(part, "# NUMA_TOPOLOGY info available, use -I to display\n");
	free(part);
	free(text);
	text = header_text(path, PCL_HEADER_FULL, &ret);
	part = features_part(text, false);
	assert_string_equal(part, "");
	free(part);
	free(text);
}

/* A header listing sections past the end of the file: perf prints no feature at all. */
static void test_cut_table(void **state)
{
	struct bytes b;
	struct sec s = build(s_hostname, PCL_FEAT_HOSTNAME, &b);
	char *path = write_file("cuttable", &s, 1, 1), *text, *part;
	int ret;

	(void)state;
	assert_int_equal(truncate(path, 272 + 8), 0);
	text = header_text(path, 0, &ret);
	part = features_part(text, false);
	assert_int_equal(ret, 0);
	assert_string_equal(part, "");
	assert_non_null(strstr(text, "# missing features: TRACING_DATA BUILD_ID OSRELEASE "));
	free(part);
	free(text);
	/* the table is there, the section is not: perf's empty value */
	assert_int_equal(truncate(path, 272 + 16), 0);
	text = header_text(path, 0, &ret);
	part = features_part(text, false);
	assert_string_equal(part, "# hostname : (null)\n");
	free(part);
	free(text);
	free(b.p);
}

/* ---- streams ---- */

/*
 * A stream prints its frame first, then the features in order, with no
 * "missing features"; a section perf cannot process ends it with -EBADMSG,
 * except EVENT_DESC (perf's note). Hidden ones say "info available" only
 * when they read; BRANCH_STACK, STAT and DIR_FORMAT print nothing.
 */
static void test_stream(void **state)
{
	struct bytes b[4];
	struct sec s[8];
	char *path, *text, *part;
	int ret;

	(void)state;
	s[0] = build(s_hostname, PCL_FEAT_HOSTNAME, &b[0]);
	s[1] = build(s_nrcpus, PCL_FEAT_NRCPUS, &b[1]);
	s[2] = build(s_topo_die, PCL_FEAT_CPU_TOPOLOGY, &b[2]);
	s[3] = (struct sec){ PCL_FEAT_BRANCH_STACK, "", 0 };
	s[4] = (struct sec){ PCL_FEAT_STAT, "", 0 };
	s[5] = build(s_sample_time, PCL_FEAT_SAMPLE_TIME, &b[3]);
	path = write_stream("stream", s, 6);
	text = header_text(path, PCL_HEADER_READ_STREAM, &ret);
	if (ret)
		print_message("%s\n%s", pcl_last_error(), text);
	assert_int_equal(ret, 0);
	assert_null(strstr(text, "missing"));
	part = features_part(text, true);
	assert_string_equal(part, "# hostname : host\n# nrcpus online : 2\n# nrcpus avail : 4\n"
				  "# CPU_TOPOLOGY info available, use -I to display\n"
				  "# time of first sample : 5.000123\n"
				  "# time of last sample : 4.000000\n"
				  "# sample duration : 18446744072709.426 ms\n");
	free(part);
	free(text);

	/* a bad EVENT_DESC is a note; a bad CACHE ends the stream */
	s[2] = (struct sec){ PCL_FEAT_EVENT_DESC, "\1\0\0\0", 4 };
	s[3] = (struct sec){ PCL_FEAT_CACHE, "\2\0\0\0\0\0\0\0", 8 };
	path = write_stream("stream-bad", s, 6);
	text = header_text(path, PCL_HEADER_READ_STREAM, &ret);
	assert_int_equal(ret, -EBADMSG);
	assert_non_null(strstr(pcl_last_error(), "CACHE"));
	part = features_part(text, true);
	assert_string_equal(part, "# hostname : host\n# nrcpus online : 2\n# nrcpus avail : 4\n"
				  "# event desc: not available or unable to read\n");
	free(part);
	free(text);

	/* the features before the first data record are there once the reader is open */
	text = header_text(path, 0, &ret);
	assert_int_equal(ret, -EBADMSG);
	part = features_part(text, true);
	assert_string_equal(part, "# hostname : host\n# nrcpus online : 2\n# nrcpus avail : 4\n"
				  "# event desc: not available or unable to read\n");
	assert_non_null(strstr(text, "# data offset    : 0\n# data size      : 0\n"));
	free(part);
	free(text);
	for (int i = 0; i < 4; i++)
		free(b[i].p);
}

/* ---- against perf ---- */

static bool have_perf(void)
{
	return access("/usr/bin/perf", X_OK) == 0;
}

/* Run @cmd and return its stdout. */
static char *run(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	char *s = NULL;
	size_t len = 0, n;
	char buf[4096];
	FILE *m = open_memstream(&s, &len);

	assert_non_null(p);
	assert_non_null(m);
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
		fwrite(buf, 1, n, m);
	pclose(p);
	fclose(m);
	return s;
}

static void compare_with_perf(const char *path, const char *what)
{
	for (int full = 0; full < 2; full++) {
		char cmd[512], *want, *got;
		int ret;

		snprintf(cmd, sizeof(cmd),
			 "/usr/bin/perf report --header-only %s -i %s 2>/dev/null",
			 full ? "-I" : "", path);
		want = run(cmd);
		got = header_text(path,
				  full ? PCL_HEADER_FULL | PCL_HEADER_READ_STREAM
				       : PCL_HEADER_READ_STREAM,
				  &ret);
		assert_int_equal(ret, 0);
		if (strcmp(got, want))
			print_message("%s%s: pcl:\n%s\nperf:\n%s\n", what, full ? " -I" : "", got,
				      want);
		assert_string_equal(got, want);
		free(want);
		free(got);
	}
}

/* A file perf records (file and pipe mode), printed by both. */
static void test_perf_file(void **state)
{
	char path[128], cmd[512];

	(void)state;
	if (!have_perf()) {
		print_message("no /usr/bin/perf\n");
		skip();
	}
	snprintf(path, sizeof(path), "%s/perf.data", tmpdir);
	snprintf(cmd, sizeof(cmd),
		 "/usr/bin/perf record -q -g -e cpu-clock,task-clock -o %s -- true "
		 ">/dev/null 2>&1",
		 path);
	if (system(cmd)) {
		print_message("perf record failed\n");
		skip();
	}
	compare_with_perf(path, "perf record");
	snprintf(cmd, sizeof(cmd),
		 "/usr/bin/perf record -q -o - -- true 2>/dev/null > %s/pipe.data", tmpdir);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/pipe.data", tmpdir);
	compare_with_perf(path, "perf record -o -");
}

/* A file pcl's writer makes with the host's features, printed by both. */
static void test_pcl_file(void **state)
{
	char path[128], *argv[] = { "pcl", "record", "--", "it's", NULL };
	struct pcl_data_attr a = { 0 };
	uint64_t ids[2] = { 5, 6 };
	struct pcl_data_writer *w;

	(void)state;
	if (!have_perf()) {
		print_message("no /usr/bin/perf\n");
		skip();
	}
	snprintf(path, sizeof(path), "%s/pcl.data", tmpdir);
	a.attr.type = PERF_TYPE_SOFTWARE;
	a.attr.size = sizeof(a.attr);
	a.attr.sample_period = 4000;
	a.attr.freq = 1;
	a.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a.attr.sample_id_all = 1;
	a.name = "cpu-clock";
	a.ids = ids;
	a.nr_ids = 2;
	w = pcl_data_writer__create(path, &a, 1);
	assert_non_null(w);
	assert_int_equal(pcl_data_writer__add_host_features(w, 4, argv), 0);
	assert_int_equal(pcl_data_writer__finish_round(w), 0);
	assert_int_equal(pcl_data_writer__close(w), 0);
	compare_with_perf(path, "pcl's writer");
}

static int setup(void **state)
{
	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	/* many small files: memory (/dev/shm) when there is one */
	snprintf(tmpdir, sizeof(tmpdir), "%s/pcl-test-header-XXXXXX",
		 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	char p[512];

	(void)state;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", tmpdir, e->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(tmpdir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		UNIT_TEST(test_good_sections), UNIT_TEST(test_frame),
		UNIT_TEST(test_groups),	       UNIT_TEST(test_malformed),
		UNIT_TEST(test_hidden_bad),    UNIT_TEST(test_cut_table),
		UNIT_TEST(test_stream),	       UNIT_TEST(test_perf_file),
		UNIT_TEST(test_pcl_file),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
