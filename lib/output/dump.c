/* SPDX-License-Identifier: MIT */
/*
 * perf's -D (--dump-raw-trace): every record of a perf.data file in file
 * order, as perf 6.1's session.c prints it. For each record:
 *
 *   (blank line)
 *   OFFSET@FILE [SIZE]: event: TYPE
 *   .
 *   . ... raw event: size N bytes
 *   .  0000:  xx xx ... (16 bytes a line)  ascii
 *   (blank line)
 *   [CPU ]TIME OFFSET [SIZE]: PERF_RECORD_NAME details
 *
 * the details of a sample being perf's dump_sample (pid/tid, ip, period,
 * addr, then the call chain, branch stack, registers, weight, data_src,
 * phys_addr and page sizes, one line each). The "CPU TIME" prefix follows
 * the file's combined sample_type, as perf's evlist__print_tstamp does.
 * The formatter never reads the file itself: the caller gives each record.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "internal.h"

/* perf's trace_event: the record in hex, 16 bytes a line, with their characters. */
static void hexdump(FILE *fp, const uint8_t *p, size_t n)
{
	fputs(".\n", fp);
	fprintf(fp, ". ... raw event: size %zu bytes\n", n);
	for (size_t off = 0; off < n; off += 16) {
		size_t k = n - off < 16 ? n - off : 16;

		fprintf(fp, ".  %04zx: ", off);
		for (size_t i = 0; i < 16; i++) {
			if (i < k)
				fprintf(fp, " %02x", p[off + i]);
			else
				fputs("   ", fp);
		}
		fputs("  ", fp);
		for (size_t i = 0; i < 16; i++) {
			unsigned char c = i < k ? p[off + i] : ' ';

			fputc(i < k ? (c >= 0x20 && c < 0x7f ? c : '.') : ' ', fp);
		}
		fputc('\n', fp);
	}
	fputc('\n', fp);
}

static const char *reg_name(unsigned int r)
{
	static const char *const names[] = {
		"AX", "BX", "CX", "DX", "SI", "DI", "BP",  "SP",  "IP",	 "FLAGS", "CS",	 "SS",
		"DS", "ES", "FS", "GS", "R8", "R9", "R10", "R11", "R12", "R13",	  "R14", "R15",
	};
	static char xmm[8];

	if (r < ARRAY_SIZE(names))
		return names[r];
	if (r >= 32 && r < 64 && !(r & 1)) {
		snprintf(xmm, sizeof(xmm), "XMM%u", (r - 32) / 2);
		return xmm;
	}
	return "unknown";
}

static void dump_regs(FILE *fp, const char *type, uint64_t abi, const uint64_t *regs, uint64_t mask)
{
	static const char *const abis[] = { "none", "32-bit", "64-bit" };
	unsigned int i = 0;

	if (!abi || !regs)
		return; /* perf prints nothing for a sample without registers */
	fprintf(fp, "... %s regs: mask 0x%" PRIx64 " ABI %s\n", type, mask,
		abi < ARRAY_SIZE(abis) ? abis[abi] : "unknown");
	for (unsigned int r = 0; r < 64; r++)
		if (mask & (1ull << r))
			fprintf(fp, ".... %-5s 0x%016" PRIx64 "\n", reg_name(r), regs[i++]);
}

static void page_size(FILE *fp, const char *what, uint64_t size)
{
	static const char unit[] = "BKMG";
	int i = 0;

	fprintf(fp, " .. %s page size: ", what);
	if (!size) {
		fputs("N/A\n", fp);
		return;
	}
	while (size / 1024 > 1 && i < 3) {
		size /= 1024;
		i++;
	}
	fprintf(fp, "%" PRIu64 "%c\n", size, unit[i]);
}

/* perf's ID_INDEX details: " nr: N" and one line per id. */
static void dump_id_index(FILE *fp, const struct perf_event_header *h)
{
	const uint64_t *v = (const uint64_t *)(h + 1);
	uint64_t nr;

	if (h->size < sizeof(*h) + 8)
		return;
	nr = v[0];
	fprintf(fp, " nr: %" PRIu64 "\n", nr);
	/* each entry: id, idx, cpu, tid; never past the record's end */
	for (uint64_t i = 0; i < nr && (i + 1) * 32 + 8 <= h->size - sizeof(*h); i++) {
		const uint64_t *e = v + 1 + i * 4;

		fprintf(fp,
			" ... id: %" PRIu64 "  idx: %" PRIu64 "  cpu: %" PRId64 "  tid: %" PRId64,
			e[0], e[1], (int64_t)e[2], (int64_t)e[3]);
		if (i + 1 < nr)
			fputc('\n', fp);
	}
}

/* perf's thread_map__fprintf of a THREAD_MAP record: " nr: N thread[s]: PID, PID". */
static void dump_thread_map(FILE *fp, const struct perf_event_header *h)
{
	const uint8_t *p = (const uint8_t *)(h + 1);
	size_t avail = h->size - sizeof(*h);
	uint64_t nr;

	fputs(" nr: ", fp);
	if (avail < 8) {
		fputs("failed to get threads from event\n", fp);
		return;
	}
	memcpy(&nr, p, 8);
	if (nr > (avail - 8) / 24) {
		fputs("failed to get threads from event\n", fp);
		return;
	}
	fprintf(fp, "%d thread%s: ", (int)nr, nr > 1 ? "s" : "");
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t pid;

		memcpy(&pid, p + 8 + i * 24, 8);
		fprintf(fp, "%s%d", i ? ", " : "", (int)pid);
	}
	fputc('\n', fp);
}

/* perf's cpu_map__snprint: runs of consecutive CPUs as "A-B", joined with commas. */
static void print_cpus(FILE *fp, const int *cpu, size_t n)
{
	size_t start = 0;
	bool first = true;

	for (size_t i = 1; i <= n; i++) {
		if (i < n && (long)(i - start) == (long)cpu[i] - cpu[start])
			continue;
		if (start == i - 1)
			fprintf(fp, "%s%d", first ? "" : ",", cpu[start]);
		else
			fprintf(fp, "%s%d-%d", first ? "" : ",", cpu[start], cpu[i - 1]);
		first = false;
		start = i;
	}
}

/*
 * A CPU_MAP record's ": CPUS": its list (PERF_CPU_MAP__CPUS, u16 CPUs,
 * 0xffff for "any") or its range (PERF_CPU_MAP__RANGE_CPUS). Bit masks
 * (PERF_CPU_MAP__MASK) print no list.
 */
static void dump_cpus(FILE *fp, const uint8_t *p, size_t avail, const char *failed)
{
	size_t n = 0;
	uint16_t type, v[3];
	int cpus[512];

	if (avail < 2) {
		fputs(failed, fp);
		return;
	}
	memcpy(&type, p, 2);
	if (type == 0 && avail >= 4) { /* PERF_CPU_MAP__CPUS */
		memcpy(&v[0], p + 2, 2);
		for (size_t i = 0; i < v[0] && 4 + 2 * i + 2 <= avail && n < ARRAY_SIZE(cpus);
		     i++) {
			memcpy(&v[1], p + 4 + 2 * i, 2);
			cpus[n++] = v[1] == 0xffff ? -1 : v[1];
		}
	} else if (type == 2 &&
		   avail >= 8) { /* PERF_CPU_MAP__RANGE_CPUS: any_cpu, pad, start, end */
		memcpy(&v[1], p + 4, 2);
		memcpy(&v[2], p + 6, 2);
		if (p[2])
			cpus[n++] = -1;
		for (unsigned int c = v[1]; c <= v[2] && n < ARRAY_SIZE(cpus); c++)
			cpus[n++] = (int)c;
	}
	print_cpus(fp, cpus, n);
	fputc('\n', fp);
}

static void dump_cpu_map(FILE *fp, const struct perf_event_header *h)
{
	fputs(": ", fp);
	dump_cpus(fp, (const uint8_t *)(h + 1), h->size - sizeof(*h),
		  "failed to get cpumap from event\n");
}

/* perf_event__fprintf_event_update: the event's id, then its unit, scale, name or CPUs. */
static void dump_event_update(FILE *fp, const struct perf_event_header *h)
{
	const uint8_t *p = (const uint8_t *)(h + 1);
	size_t avail = h->size - sizeof(*h);
	uint64_t type, id;
	double scale;

	if (avail < 16) {
		fputc('\n', fp);
		return;
	}
	memcpy(&type, p, 8);
	memcpy(&id, p + 8, 8);
	fprintf(fp, "\n... id:    %" PRIu64 "\n", id);
	p += 16;
	avail -= 16;
	switch (type) {
	case 0: /* PERF_EVENT_UPDATE__UNIT */
	case 2: /* PERF_EVENT_UPDATE__NAME */
		fprintf(fp, "... %s  %.*s\n",
			type ? "name:" : "unit:", (int)strnlen((const char *)p, avail),
			(const char *)p);
		break;
	case 1: /* PERF_EVENT_UPDATE__SCALE */
		if (avail < 8)
			break;
		memcpy(&scale, p, 8);
		fprintf(fp, "... scale: %f\n", scale);
		break;
	case 3: /* PERF_EVENT_UPDATE__CPUS */
		fputs("... ", fp);
		dump_cpus(fp, p, avail, "failed to get cpus\n");
		break;
	default:
		fputs("... unknown type\n", fp);
		break;
	}
}

/* perf's sample_read__printf. */
static void dump_read(FILE *fp, const struct pcl_read *r, uint64_t rf)
{
	fputs("... sample_read:\n", fp);
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
		fprintf(fp, "...... time enabled %016" PRIx64 "\n", r->time_enabled);
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
		fprintf(fp, "...... time running %016" PRIx64 "\n", r->time_running);
	if (rf & PERF_FORMAT_GROUP)
		fprintf(fp, ".... group nr %" PRIu64 "\n", r->nr);
	for (uint64_t i = 0; i < r->nr && (i == 0 || (rf & PERF_FORMAT_GROUP)); i++) {
		struct pcl_read_value v = pcl_read__value(r, i, rf);

		fprintf(fp, "..... id %016" PRIx64 ", value %016" PRIx64, v.id, v.value);
		if (rf & PERF_FORMAT_LOST)
			fprintf(fp, ", lost %" PRIu64, v.lost);
		fputc('\n', fp);
	}
}

/*
 * Where a sample's PERF_SAMPLE_STACK_USER size word is in its record
 * (perf shows it): past the header and every field before it.
 */
static uint64_t stack_user_offset(const struct perf_event_attr *a, const struct pcl_sample *s)
{
	static const uint64_t words = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				      PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
				      PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	uint64_t st = a->sample_type, off = sizeof(struct perf_event_header);
	uint64_t rf = a->read_format;

	off += 8 * (uint64_t)__builtin_popcountll(st & words);
	if (st & PERF_SAMPLE_READ) {
		uint64_t times = 8 * (!!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
				      !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING));

		if (rf & PERF_FORMAT_GROUP)
			off += 8 + times + s->read.nr * (uint64_t)s->read.stride * 8;
		else
			off += times + (uint64_t)s->read.stride * 8;
	}
	if (st & PERF_SAMPLE_CALLCHAIN)
		off += 8 + 8 * s->nr_callchain;
	if (st & PERF_SAMPLE_RAW)
		off += 4 + s->raw_size;
	if (st & PERF_SAMPLE_BRANCH_STACK)
		off += 8 + ((a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) ? 8 : 0) +
		       s->nr_branches * sizeof(struct perf_branch_entry);
	if (st & PERF_SAMPLE_REGS_USER)
		off += 8 +
		       (s->user_abi ? 8 * (uint64_t)__builtin_popcountll(a->sample_regs_user) : 0);
	return off;
}

/* A record's fixed fields, @n bytes of them, or false when it is too short. */
static bool body(const struct perf_event_header *h, void *out, size_t n)
{
	if (h->size < sizeof(*h) + n)
		return false;
	memcpy(out, h + 1, n);
	return true;
}

/* A NUL-terminated string at @off of the record's body, cut at its end. */
static void body_str(FILE *fp, const struct perf_event_header *h, size_t off)
{
	const char *p = (const char *)(h + 1) + off;
	size_t avail = h->size - sizeof(*h);

	if (off <= avail)
		fprintf(fp, "%.*s", (int)strnlen(p, avail - off), p);
}

static void namespaces(FILE *fp, const struct perf_event_header *h)
{
	static const char *const names[] = { "net", "uts", "ipc", "pid", "user", "mnt", "cgroup" };
	struct {
		uint32_t pid, tid;
		uint64_t nr;
	} ns;
	const uint8_t *link = (const uint8_t *)(h + 1) + 16;

	uint32_t n;

	if (!body(h, &ns, sizeof(ns)))
		return;
	fprintf(fp, " %d/%d - nr_namespaces: %u\n\t\t[", (int32_t)ns.pid, (int32_t)ns.tid,
		(uint32_t)ns.nr);
	/* the entries the record holds, whatever its count says */
	n = (uint32_t)ns.nr;
	if (n > (h->size - sizeof(*h) - 16) / 16)
		n = (uint32_t)((h->size - sizeof(*h) - 16) / 16);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t dev, ino;

		memcpy(&dev, link + 16 * i, 8);
		memcpy(&ino, link + 16 * i + 8, 8);
		if (i && i % 4 == 0)
			fputs("\n\t\t ", fp);
		fprintf(fp, "%u/%s: %" PRIu64 "/%#" PRIx64 "%s", i,
			i < ARRAY_SIZE(names) ? names[i] : "UNKNOWN", dev, ino,
			i + 1 != n ? ", " : "]\n");
	}
}

/* perf's text_poke_printer: "            Old bytes: xx xx", 16 a line. */
static void poke_bytes(FILE *fp, const char *what, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!(i & 15))
			fprintf(fp, "            %s bytes:", what);
		fprintf(fp, " %02x", p[i]);
		if ((i & 15) == 15 || i == n - 1)
			fputc('\n', fp);
	}
}

static void text_poke(FILE *fp, const struct pcl_dump_record *d)
{
	const struct perf_event_header *h = d->hdr;
	struct {
		uint64_t addr;
		uint16_t old_len, new_len;
	} tp;
	const uint8_t *bytes = (const uint8_t *)(h + 1) + 12;
	size_t avail = h->size - sizeof(*h);
	uint64_t off;
	const char *sym;

	if (!body(h, &tp, 12))
		return;
	fprintf(fp, " %" PRIx64 " ", tp.addr);
	if (d->kernel_sym && (sym = d->kernel_sym(d->ctx, tp.addr, &off)))
		fprintf(fp, "%s+0x%" PRIx64, sym, off);
	fprintf(fp, " old len %u new len %u\n", tp.old_len, tp.new_len);
	if (12 + (size_t)tp.old_len + tp.new_len > avail)
		return;
	poke_bytes(fp, "Old", bytes, tp.old_len);
	poke_bytes(fp, "New", bytes + tp.old_len, tp.new_len);
}

/*
 * The details perf prints after the name of a kernel record it has no
 * perf_event__fprintf for in script.c's set (LOST, THROTTLE, READ, AUX,
 * ...); true when @h's type is one of them.
 */
static bool kernel_details(FILE *fp, const struct pcl_dump_record *d)
{
	const struct perf_event_header *h = d->hdr;
	uint64_t v[4] = { 0 };
	uint32_t u[2];
	uint64_t id = UINT64_MAX;

	switch (h->type) {
	case PERF_RECORD_LOST:
		if (body(h, v, 16))
			fprintf(fp, ": id:%" PRIu64 ": lost:%" PRIu64 "\n", v[0], v[1]);
		return true;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		/* perf script handles them silently, perf report not at all */
		if (d->report)
			fputs(": unhandled!\n", fp);
		return true;
	case PERF_RECORD_READ:
		if (body(h, u, 8) && body(h, v, 16)) {
			char name[256] = "[unknown]";

			if (d->attr)
				pcl_script_event_name(d->attr, NULL, name, sizeof(name));
			fprintf(fp, ": %d %d %s %" PRIu64 "\n", (int32_t)u[0], (int32_t)u[1], name,
				v[1]);
		}
		if (!d->report)
			fputs(": unhandled!\n", fp);
		return true;
	case PERF_RECORD_AUX:
		if (body(h, v, 24))
			fprintf(fp,
				" offset: %#" PRIx64 " size: %#" PRIx64 " flags: %#" PRIx64
				" [%s%s%s]\n",
				v[0], v[1], v[2], (v[2] & PERF_AUX_FLAG_TRUNCATED) ? "T" : "",
				(v[2] & PERF_AUX_FLAG_OVERWRITE) ? "O" : "",
				(v[2] & PERF_AUX_FLAG_PARTIAL) ? "P" : "");
		return true;
	case PERF_RECORD_ITRACE_START:
		if (body(h, u, 8))
			fprintf(fp, " pid: %u tid: %u\n", u[0], u[1]);
		return true;
	case PERF_RECORD_LOST_SAMPLES:
		/* the id is the sample's, from the trailer: -1 without one */
		if (d->rec && d->rec->has_id && (d->sample_type & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER)))
			id = d->rec->id.id;
		if (body(h, v, 8))
			fprintf(fp, ": id:%" PRIu64 ": lost samples :%" PRIu64 "\n", id, v[0]);
		return true;
	case PERF_RECORD_NAMESPACES:
		namespaces(fp, h);
		return true;
	case PERF_RECORD_KSYMBOL: {
		struct {
			uint64_t addr;
			uint32_t len;
			uint16_t type, flags;
		} k;

		if (body(h, &k, sizeof(k))) {
			fprintf(fp, " addr %" PRIx64 " len %u type %u flags 0x%x name ", k.addr, k.len,
				k.type, k.flags);
			body_str(fp, h, sizeof(k));
			fputc('\n', fp);
		}
		return true;
	}
	case PERF_RECORD_BPF_EVENT: {
		struct {
			uint16_t type, flags;
			uint32_t id;
		} b;

		if (body(h, &b, sizeof(b)))
			fprintf(fp, " type %u, flags %u, id %u\n", b.type, b.flags, b.id);
		return true;
	}
	case PERF_RECORD_CGROUP:
		if (body(h, v, 8)) {
			fprintf(fp, " cgroup: %" PRIu64 " ", v[0]);
			body_str(fp, h, 8);
			fputc('\n', fp);
		}
		return true;
	case PERF_RECORD_TEXT_POKE:
		text_poke(fp, d);
		return true;
	case PERF_RECORD_AUX_OUTPUT_HW_ID:
		if (body(h, v, 8))
			fprintf(fp, " hw_id: %#" PRIx64 "\n", v[0]);
		return true;
	default:
		return false;
	}
}

/* The details of perf's own records (ID_INDEX, THREAD_MAP, ...), as perf script or report. */
static void user_details(FILE *fp, const struct pcl_dump_record *d)
{
	const struct perf_event_header *h = d->hdr;

	switch (h->type) {
	case PCL_RECORD_FINISHED_INIT:
		fputs(": unhandled!\n", fp);
		break;
	case PCL_RECORD_ID_INDEX:
		dump_id_index(fp, h);
		fputc('\n', fp);
		break;
	case PCL_RECORD_EVENT_UPDATE:
		dump_event_update(fp, h);
		break;
	case PCL_RECORD_THREAD_MAP:
	case PCL_RECORD_CPU_MAP:
		if (h->type == PCL_RECORD_THREAD_MAP)
			dump_thread_map(fp, h);
		else
			dump_cpu_map(fp, h);
		/* perf report has no handler for them, perf script has */
		if (d->report)
			fputs(": unhandled!\n", fp);
		break;
	default:
		fputc('\n', fp);
		break;
	}
}

/* perf's dump_sample. */
static void dump_sample(FILE *fp, const struct perf_event_attr *a, const struct pcl_record *rec)
{
	const struct pcl_sample *s = &rec->sample;
	uint64_t st = a->sample_type;

	fprintf(fp, "(IP, 0x%x): %d/%d: %#" PRIx64 " period: %" PRIu64 " addr: %#" PRIx64 "\n",
		rec->misc, (int32_t)s->pid, (int32_t)s->tid, s->ip, s->period, s->addr);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		fprintf(fp, "... FP chain: nr:%" PRIu64 "\n", s->nr_callchain);
		for (uint64_t i = 0; i < s->nr_callchain; i++)
			fprintf(fp, "..... %2d: %016" PRIx64 "\n", (int)i, s->callchain[i]);
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		bool callstack = a->branch_sample_type & PERF_SAMPLE_BRANCH_CALL_STACK;

		fprintf(fp, "... branch %s: nr:%" PRIu64 "\n", callstack ? "callstack" : "stack",
			s->nr_branches);
		for (uint64_t i = 0; i < s->nr_branches; i++) {
			const struct perf_branch_entry *e = &s->branches[i];

			if (callstack)
				fprintf(fp, "..... %2" PRIu64 ": %016" PRIx64 "\n", i,
					(uint64_t)e->from);
			else
				fprintf(fp,
					"..... %2" PRIu64 ": %016" PRIx64 " -> %016" PRIx64
					" %hu cycles %s%s%s%s %x %s\n",
					i, (uint64_t)e->from, (uint64_t)e->to,
					(unsigned short)e->cycles, e->mispred ? "M" : " ",
					e->predicted ? "P" : " ", e->abort ? "A" : " ",
					e->in_tx ? "T" : " ", (unsigned int)e->reserved,
					script_branch_type(e));
		}
	}
	if (st & PERF_SAMPLE_REGS_USER)
		dump_regs(fp, "user", s->user_abi, s->user_regs, a->sample_regs_user);
	if (st & PERF_SAMPLE_REGS_INTR)
		dump_regs(fp, "intr", s->intr_abi, s->intr_regs, a->sample_regs_intr);
	if (st & PERF_SAMPLE_STACK_USER)
		fprintf(fp, "... ustack: size %" PRIu64 ", offset 0x%x\n",
			s->user_stack_size ? s->user_stack_dyn_size : 0,
			(unsigned int)stack_user_offset(a, s));
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) {
		fprintf(fp, "... weight: %" PRIu64, s->weight);
		if (st & PERF_SAMPLE_WEIGHT_STRUCT)
			fprintf(fp, ",0x%x,0x0", (unsigned int)(uint16_t)s->weight_var2);
		fputc('\n', fp);
	}
	if (st & PERF_SAMPLE_DATA_SRC)
		fprintf(fp, " . data_src: 0x%" PRIx64 "\n", s->data_src);
	if (st & PERF_SAMPLE_PHYS_ADDR)
		fprintf(fp, " .. phys_addr: 0x%" PRIx64 "\n", s->phys_addr);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		page_size(fp, "data", s->data_page_size);
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		page_size(fp, "code", s->code_page_size);
	if (st & PERF_SAMPLE_TRANSACTION)
		fprintf(fp, "... transaction: %" PRIx64 "\n", s->transaction);
	if (st & PERF_SAMPLE_READ)
		dump_read(fp, &s->read, a->read_format);
}

PCL_API int pcl_dump__record(FILE *fp, const struct pcl_dump_record *d)
{
	const struct perf_event_header *h;
	uint64_t cpu = 0, time = 0;
	bool have = false;

	if (!fp || !d || !d->hdr)
		return pcl_err(EINVAL, "pcl_dump__record: invalid argument");
	h = d->hdr;
	fprintf(fp, "\n%#" PRIx64 "@%s [%#x]: event: %u\n", d->offset, d->path ? d->path : "",
		h->size, h->type);
	hexdump(fp, (const uint8_t *)h, h->size);
	if (d->rec && h->type == PERF_RECORD_SAMPLE) {
		cpu = d->rec->sample.cpu;
		time = d->rec->sample.time;
		have = true;
	} else if (d->rec && d->rec->has_id) {
		cpu = d->rec->id.cpu;
		time = d->rec->id.time;
		have = true;
	}
	if (h->type != PERF_RECORD_SAMPLE && h->type < PCL_RECORD_USER_TYPE_START &&
	    !d->sample_id_all) {
		fputs("-1 -1 ", fp);
	} else {
		if (!have)
			cpu = time = 0;
		if (d->sample_type & PERF_SAMPLE_CPU)
			fprintf(fp, "%u ", (uint32_t)cpu);
		if (d->sample_type & PERF_SAMPLE_TIME)
			fprintf(fp, "%" PRIu64 " ", time);
	}
	fprintf(fp, "%#" PRIx64 " [%#x]: ", d->offset, h->size);
	if (h->type == PERF_RECORD_SAMPLE && d->rec && d->attr) {
		fputs("PERF_RECORD_SAMPLE", fp);
		dump_sample(fp, &d->attr->attr, d->rec);
	} else if (d->rec && h->type != PERF_RECORD_LOST && script_record_text(fp, d->rec)) {
		/* as perf script's side-band lines: COMM, FORK, EXIT, MMAP, MMAP2, SWITCH */
	} else {
		fprintf(fp, "PERF_RECORD_%s", pcl_record_type_name(h->type));
		if (h->type >= PCL_RECORD_USER_TYPE_START)
			user_details(fp, d);
		else if (!kernel_details(fp, d))
			fputc('\n', fp);
	}
	return ferror(fp) ? pcl_err(EIO, "cannot write the dump") : 0;
}

PCL_API int pcl_dump__stats(FILE *fp, const uint64_t *nr, size_t nr_types, const char *const *names,
			    const uint64_t *samples, int nr_events)
{
	uint64_t total = 0;

	if (!fp || (!nr && nr_types) || (nr_events > 0 && (!names || !samples)))
		return pcl_err(EINVAL, "pcl_dump__stats: invalid argument");
	for (size_t i = 1; i < nr_types; i++)
		total += nr[i];
	fputs("Aggregated stats:\n", fp);
	/* perf's counters are 32-bit: print them as perf does */
	fprintf(fp, "%16s events: %10d\n", "TOTAL", (int)(uint32_t)total);
	for (size_t i = 1; i < nr_types; i++) {
		const char *name = pcl_record_type_name((uint32_t)i);

		if (!nr[i] || !strcmp(name, "UNKNOWN"))
			continue;
		fprintf(fp, "%16s events: %10d  (%4.1f%%)\n", name, (int)(uint32_t)nr[i],
			100.0 * (double)(uint32_t)nr[i] / (double)(uint32_t)total);
	}
	for (int i = 0; i < nr_events; i++) {
		if (!samples[i])
			continue;
		fprintf(fp, "%s stats:\n", names[i]);
		fprintf(fp, "%16s events: %10d\n", "SAMPLE", (int)(uint32_t)samples[i]);
	}
	return ferror(fp) ? pcl_err(EIO, "cannot write the dump") : 0;
}
