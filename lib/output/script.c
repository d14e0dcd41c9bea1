/* SPDX-License-Identifier: MIT */
/*
 * perf script's lines (contract in include/pcl/script.h), laid out as
 * perf 6.1's builtin-script.c and util/evsel_fprintf.c lay them out:
 *
 *   COMM TID [CPU] TIME: PERIOD EVENT: [payload] IP SYM+OFF (DSO)
 *
 * each piece "%16s ", "%5d ", "[%03d] ", "%12s: ", "%10llu ", "%*s: ",
 * then ' ' and "%16llx" for the ip; with a call chain the line ends after
 * "EVENT: " and each frame follows as "\t%16llx SYM+OFF (DSO)", then a
 * blank line, and COMM is not padded. In a frame, a user-space DSO's
 * address is the DSO-relative one (perf 6.1 prints the binary offset
 * there), the kernel's is the ip; the sample's own line shows the ip.
 *
 * Field settlement follows perf: defaults per class of event, edited by
 * -F (parse_fields), then checked against the first event of each class
 * (setup): what the samples lack is dropped from the defaults, and is an
 * error when the user asked for it by name.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include "internal.h"
#include "analysis/srcpos.h"
#include "output/script-int.h"

#define DEFAULT_MAX_STACK 127 /* perf's PERF_MAX_STACK_DEPTH */

/* Fields of perf 6.1 that pcl knows. */
static const struct {
	const char *name;
	uint64_t bit; /* 0: perf has it, pcl does not print it */
} field_names[] = {
	{ "comm", PCL_SCRIPT_COMM },
	{ "tid", PCL_SCRIPT_TID },
	{ "pid", PCL_SCRIPT_PID },
	{ "time", PCL_SCRIPT_TIME },
	{ "cpu", PCL_SCRIPT_CPU },
	{ "event", PCL_SCRIPT_EVENT },
	{ "trace", PCL_SCRIPT_TRACE },
	{ "ip", PCL_SCRIPT_IP },
	{ "sym", PCL_SCRIPT_SYM },
	{ "dso", PCL_SCRIPT_DSO },
	{ "addr", PCL_SCRIPT_ADDR },
	{ "symoff", PCL_SCRIPT_SYMOFF },
	{ "period", PCL_SCRIPT_PERIOD },
	{ "misc", PCL_SCRIPT_MISC },
	{ "srcline", PCL_SCRIPT_SRCLINE },
	{ "iregs", PCL_SCRIPT_IREGS },
	{ "uregs", PCL_SCRIPT_UREGS },
	{ "brstack", PCL_SCRIPT_BRSTACK },
	{ "brstacksym", PCL_SCRIPT_BRSTACKSYM },
	{ "flags", 0 }, /* no field of a class: apply_field turns the column on or off */
	{ "data_src", PCL_SCRIPT_DATA_SRC },
	{ "weight", PCL_SCRIPT_WEIGHT },
	{ "bpf-output", PCL_SCRIPT_BPF_OUTPUT },
	{ "brstackinsn", PCL_SCRIPT_BRSTACKINSN },
	{ "brstackinsnlen", PCL_SCRIPT_BRSTACKINSNLEN },
	{ "brstackoff", PCL_SCRIPT_BRSTACKOFF },
	{ "callindent", PCL_SCRIPT_CALLINDENT },
	{ "insn", PCL_SCRIPT_INSN },
	{ "insnlen", PCL_SCRIPT_INSNLEN },
	{ "synth", PCL_SCRIPT_QUIET },
	{ "phys_addr", PCL_SCRIPT_PHYS_ADDR },
	{ "metric", PCL_SCRIPT_QUIET },
	{ "srccode", PCL_SCRIPT_SRCCODE },
	{ "ipc", PCL_SCRIPT_QUIET },
	{ "tod", PCL_SCRIPT_TOD },
	{ "data_page_size", PCL_SCRIPT_DATA_PAGE_SIZE },
	{ "code_page_size", PCL_SCRIPT_CODE_PAGE_SIZE },
	{ "ins_lat", PCL_SCRIPT_INS_LAT },
	{ "machine_pid", PCL_SCRIPT_QUIET },
	{ "vcpu", PCL_SCRIPT_QUIET },
};

#define F_SAMPLE_DEFAULT                                                                           \
	(PCL_SCRIPT_COMM | PCL_SCRIPT_TID | PCL_SCRIPT_CPU | PCL_SCRIPT_TIME | PCL_SCRIPT_EVENT |  \
	 PCL_SCRIPT_IP | PCL_SCRIPT_SYM | PCL_SCRIPT_SYMOFF | PCL_SCRIPT_DSO)

/* what perf's classes other than sw and trace cannot show */
#define F_INVALID (PCL_SCRIPT_TRACE | PCL_SCRIPT_BPF_OUTPUT)

static const struct {
	const char *opt_name; /* "-F NAME:" */
	const char *desc;     /* for messages */
	uint64_t fields, invalid;
} class_defaults[PCL_SCRIPT_NR_CLASSES] = {
	[PCL_SCRIPT_HW] = { "hw", "hardware", F_SAMPLE_DEFAULT | PCL_SCRIPT_PERIOD, F_INVALID },
	[PCL_SCRIPT_SW] = { "sw", "software",
			    F_SAMPLE_DEFAULT | PCL_SCRIPT_PERIOD | PCL_SCRIPT_BPF_OUTPUT,
			    PCL_SCRIPT_TRACE },
	[PCL_SCRIPT_TRACEPT] = { "trace", "tracepoint",
				 PCL_SCRIPT_COMM | PCL_SCRIPT_TID | PCL_SCRIPT_CPU |
					 PCL_SCRIPT_TIME | PCL_SCRIPT_EVENT | PCL_SCRIPT_TRACE,
				 0 },
	[PCL_SCRIPT_HW_CACHE] = { NULL, "hardware-cache", F_SAMPLE_DEFAULT | PCL_SCRIPT_PERIOD,
				  F_INVALID },
	[PCL_SCRIPT_RAW] = { "raw", "raw",
			     F_SAMPLE_DEFAULT | PCL_SCRIPT_PERIOD | PCL_SCRIPT_ADDR |
				     PCL_SCRIPT_DATA_SRC | PCL_SCRIPT_WEIGHT |
				     PCL_SCRIPT_PHYS_ADDR | PCL_SCRIPT_DATA_PAGE_SIZE |
				     PCL_SCRIPT_CODE_PAGE_SIZE | PCL_SCRIPT_INS_LAT,
			     F_INVALID },
	[PCL_SCRIPT_BREAK] = { "break", "breakpoint", F_SAMPLE_DEFAULT | PCL_SCRIPT_PERIOD,
			       F_INVALID },
	[PCL_SCRIPT_SYNTH] = { "synth", "synth", F_SAMPLE_DEFAULT, F_INVALID },
	[PCL_SCRIPT_OTHER] = { NULL, "other PMU", F_SAMPLE_DEFAULT | PCL_SCRIPT_PERIOD, F_INVALID },
};

PCL_API struct pcl_script *pcl_script__new(const struct pcl_script_opts *opts)
{
	struct pcl_script *s = calloc(1, sizeof(*s));

	if (!s)
		return pcl_err_null(ENOMEM, "pcl_script__new: out of memory");
	if (opts_copy(&s->o, opts, "pcl_script_opts") < 0) {
		free(s);
		return pcl_err_null(EINVAL, NULL);
	}
	if (!s->o.max_stack)
		s->o.max_stack = DEFAULT_MAX_STACK;
	for (int i = 0; i < PCL_SCRIPT_NR_CLASSES; i++) {
		s->cls[i].fields = class_defaults[i].fields;
		s->cls[i].invalid = class_defaults[i].invalid;
	}
	s->use_callchain = !s->o.hide_call_graph;
	return s;
}

PCL_API void pcl_script__free(struct pcl_script *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->nr_attrs; i++)
		free(s->attrs[i].name);
	free(s->attrs);
	free(s->buf.p);
	srcpos_cache__free(s->srcpos);
	script_src_code_free(s->srccode);
	script_insn_fetch_free(s->insn);
	free(s);
}

PCL_API void pcl_script__set_tracepoints(struct pcl_script *s, const struct pcl_tracepoints *tp)
{
	if (s)
		s->tracepoints = tp;
}

PCL_API void pcl_script__set_symbols(struct pcl_script *s, struct pcl_symbols *symbols)
{
	if (s)
		s->symbols = symbols;
}

PCL_API void pcl_script__set_resolver(struct pcl_script *s, struct pcl_resolver *r)
{
	if (s)
		s->resolver = r;
}

PCL_API void pcl_script__set_native_arch(struct pcl_script *s, bool native)
{
	if (s)
		s->native = native;
}

PCL_API int pcl_script__set_clock_data(struct pcl_script *s, const void *data, size_t len)
{
	uint32_t version;

	if (!s)
		return pcl_err(EINVAL, "pcl_script__set_clock_data: invalid argument");
	s->clock = false;
	if (!data)
		return 0;
	/* u32 version (1), u32 clockid, u64 time of day, u64 clockid time, in ns */
	if (len < 24 || (memcpy(&version, data, 4), version != 1))
		return pcl_err(EBADMSG, "bad CLOCK_DATA section (%zu bytes)", len);
	memcpy(&s->tod_ns, (const uint8_t *)data + 8, 8);
	memcpy(&s->clockid_ns, (const uint8_t *)data + 16, 8);
	s->clock = true;
	return 0;
}

PCL_API enum pcl_script_class pcl_script_class_of(const struct perf_event_attr *attr)
{
	/* perf's PERF_TYPE_SYNTH: INT_MAX + 1 */
	if (attr->type == (uint32_t)INT32_MAX + 1u)
		return PCL_SCRIPT_SYNTH;
	return attr->type < PERF_TYPE_MAX ? (enum pcl_script_class)attr->type : PCL_SCRIPT_OTHER;
}

PCL_API uint64_t pcl_script__fields(const struct pcl_script *s, enum pcl_script_class cls)
{
	return s && (unsigned int)cls < PCL_SCRIPT_NR_CLASSES ? s->cls[cls].fields : 0;
}

/* ---- -F ---- */

enum change { CH_DEFAULT, CH_SET, CH_ADD, CH_REMOVE };

static void edit(struct class_fields *c, uint64_t bit, enum change ch, bool track_user)
{
	if (ch == CH_REMOVE) {
		c->fields &= ~bit;
		if (track_user) {
			c->user_set_fields &= ~bit;
			c->user_unset_fields |= bit;
		}
	} else {
		c->fields |= bit;
		if (track_user) {
			c->user_set_fields |= bit;
			c->user_unset_fields &= ~bit;
		}
	}
	c->user_set = true;
	c->wildcard_set = true;
}

/* One field token of -F, for every class (@cls < 0) or one. */
static int apply_field(struct pcl_script *s, int cls, const char *tok, enum change ch, FILE *warn)
{
	size_t i;

	/* perf's "flags": for every event, whatever its class, with no check of the samples */
	if (!strcmp(tok, "flags")) {
		s->print_flags = ch != CH_REMOVE;
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(field_names); i++)
		if (!strcmp(tok, field_names[i].name))
			break;
	if (i == ARRAY_SIZE(field_names))
		return pcl_err(EINVAL, "invalid field '%s' in -F", tok);
	if (!strcmp(tok, "metric"))
		s->want_metric = ch != CH_REMOVE;
	if (!strcmp(tok, "synth"))
		s->want_synth = ch != CH_REMOVE;
	if (!field_names[i].bit) {
		if (ch == CH_REMOVE)
			return 0; /* removing what pcl never prints is no error */
		return pcl_err(ENOTSUP, "field '%s' of perf script is not supported by pcl", tok);
	}
	if (cls < 0) {
		bool first = true;

		/* perf warns once per class; one line says it all */
		for (int j = 0; j < PCL_SCRIPT_NR_CLASSES; j++) {
			if (!(s->cls[j].invalid & field_names[i].bit)) {
				edit(&s->cls[j], field_names[i].bit, ch, true);
				continue;
			}
			if (!warn)
				continue;
			if (first)
				fprintf(warn, "pcl: warning: -F: '%s' is not valid for %s", tok,
					class_defaults[j].desc);
			else
				fprintf(warn, ", %s", class_defaults[j].desc);
			first = false;
		}
		if (!first)
			fprintf(warn, " events; ignored for them\n");
		return 0;
	}
	if (s->cls[cls].invalid & field_names[i].bit)
		return pcl_err(EINVAL, "field '%s' is not valid for %s events", tok,
			       class_defaults[cls].desc);
	edit(&s->cls[cls], field_names[i].bit, ch, false);
	return 0;
}

/* "hw:", "sw:", ... of -F: the class, or -1 for a name perf does not know. */
static int class_by_name(const char *name)
{
	for (int j = 0; j < PCL_SCRIPT_NR_CLASSES; j++)
		if (class_defaults[j].opt_name && !strcmp(name, class_defaults[j].opt_name))
			return j;
	return -1;
}

/* Set up for a list: reset the class(es) unless the list edits with +/-. */
static int start_list(struct pcl_script *s, char *str, char **list, int *cls, FILE *warn)
{
	char *colon = strchr(str, ':');

	*cls = -1;
	if (colon) {
		*colon = '\0';
		*list = colon + 1;
		*cls = class_by_name(str);
		if (*cls < 0)
			return pcl_err(EINVAL,
				       "invalid event type '%s' in -F (hw, sw, trace, raw, "
				       "break or synth)",
				       str);
		if (s->cls[*cls].user_set && warn)
			fprintf(warn,
				"pcl: warning: -F: overriding the earlier fields of %s events\n",
				class_defaults[*cls].desc);
		/* perf looks for any '+' or '-', even inside a name such as bpf-output */
		if (strpbrk(*list, "+-"))
			return 0;
		s->cls[*cls].fields = 0;
		s->cls[*cls].user_set = true;
		s->cls[*cls].wildcard_set = false;
		return 0;
	}
	*list = str;
	if (!*str)
		return pcl_err(EINVAL, "-F: cannot set fields to 'none' for all event types");
	if (strpbrk(str, "+-"))
		return 0;
	for (int j = 0; j < PCL_SCRIPT_NR_CLASSES; j++) {
		if (s->cls[j].user_set && warn) {
			fprintf(warn,
				"pcl: warning: -F: overriding the earlier fields of all events\n");
			break;
		}
	}
	for (int j = 0; j < PCL_SCRIPT_NR_CLASSES; j++) {
		s->cls[j].fields = 0;
		s->cls[j].user_set = true;
		s->cls[j].wildcard_set = true;
	}
	return 0;
}

PCL_API int pcl_script__parse_fields(struct pcl_script *s, const char *spec, FILE *warn)
{
	enum change ch = CH_DEFAULT;
	char *str, *list, *tok, *save = NULL;
	int cls, ret;

	if (!s || !spec)
		return pcl_err(EINVAL, "pcl_script__parse_fields: invalid argument");
	str = strdup(spec);
	if (!str)
		return pcl_err(ENOMEM, "pcl_script__parse_fields: out of memory");
	ret = start_list(s, str, &list, &cls, warn);
	for (tok = ret ? NULL : strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		enum change now = *tok == '+' ? CH_ADD : *tok == '-' ? CH_REMOVE : CH_SET;

		if ((now == CH_SET && ch != CH_SET && ch != CH_DEFAULT) ||
		    (now != CH_SET && ch == CH_SET)) {
			ret = pcl_err(EINVAL,
				      "-F '%s': cannot mix +field or -field with a list "
				      "of fields",
				      spec);
			break;
		}
		ch = now;
		ret = apply_field(s, cls, now == CH_SET ? tok : tok + 1, now, warn);
		if (ret)
			break;
	}
	free(str);
	return ret;
}

/* ---- event names ---- */

/* perf's evsel__add_modifiers: ":ukh", "ppp", "H"/"G" for what the attr excludes. */
static void add_modifiers(const struct perf_event_attr *a, char *buf, size_t size)
{
	size_t r = strlen(buf), colon = 0;
	bool exclude_guest_default = false;

#define MOD(excl, c)                                                                               \
	do {                                                                                       \
		if (!(excl) && r + 2 < size) {                                                     \
			if (!colon)                                                                \
				colon = ++r;                                                       \
			buf[r++] = (c);                                                            \
		}                                                                                  \
	} while (0)

	if (a->exclude_kernel || a->exclude_user || a->exclude_hv) {
		MOD(a->exclude_kernel, 'k');
		MOD(a->exclude_user, 'u');
		MOD(a->exclude_hv, 'h');
		exclude_guest_default = true;
	}
	if (a->precise_ip) {
		if (!colon && r + 1 < size)
			colon = ++r;
		for (unsigned int i = 0; i < a->precise_ip && r + 1 < size; i++)
			buf[r++] = 'p';
		exclude_guest_default = true;
	}
	if (a->exclude_host || a->exclude_guest == exclude_guest_default) {
		MOD(a->exclude_host, 'H');
		MOD(a->exclude_guest, 'G');
	}
#undef MOD
	buf[r < size ? r : size - 1] = '\0';
	if (colon)
		buf[colon - 1] = ':';
}

/* perf's evsel__hw_names */
static const char *const hw_names[] = {
	[PERF_COUNT_HW_CPU_CYCLES] = "cycles",
	[PERF_COUNT_HW_INSTRUCTIONS] = "instructions",
	[PERF_COUNT_HW_CACHE_REFERENCES] = "cache-references",
	[PERF_COUNT_HW_CACHE_MISSES] = "cache-misses",
	[PERF_COUNT_HW_BRANCH_INSTRUCTIONS] = "branches",
	[PERF_COUNT_HW_BRANCH_MISSES] = "branch-misses",
	[PERF_COUNT_HW_BUS_CYCLES] = "bus-cycles",
	[PERF_COUNT_HW_STALLED_CYCLES_FRONTEND] = "stalled-cycles-frontend",
	[PERF_COUNT_HW_STALLED_CYCLES_BACKEND] = "stalled-cycles-backend",
	[PERF_COUNT_HW_REF_CPU_CYCLES] = "ref-cycles",
};

PCL_API const char *pcl_script_event_name(const struct pcl_data_attr *a,
					  const struct pcl_tracepoints *tp, char *buf, size_t size)
{
	const struct perf_event_attr *at = &a->attr;
	const struct pcl_event_name *n;
	const struct pcl_tp_format *f;

	if (!size)
		return buf;
	if (a->name && a->name[0]) {
		snprintf(buf, size, "%s", a->name);
		return buf;
	}
	switch (at->type) {
	case PERF_TYPE_TRACEPOINT:
		f = pcl_tracepoints__find(tp, at->config);
		if (f)
			snprintf(buf, size, "%s:%s", f->system, f->name);
		else
			snprintf(buf, size, "unknown tracepoint %" PRIu64, (uint64_t)at->config);
		return buf;
	case PERF_TYPE_HARDWARE:
		if (at->config < ARRAY_SIZE(hw_names) && hw_names[at->config])
			snprintf(buf, size, "%s", hw_names[at->config]);
		else
			snprintf(buf, size, "unknown-hardware");
		break;
	case PERF_TYPE_SOFTWARE:
	case PERF_TYPE_HW_CACHE:
		snprintf(buf, size,
			 at->type == PERF_TYPE_SOFTWARE ? "unknown-software"
							: "unknown-ext-hardware-cache-type");
		/* perf 6.1's evsel__sw_names end at dummy: bpf-output has no name there */
		for (int i = 0;
		     (n = pcl_event_names(i)) &&
		     !(at->type == PERF_TYPE_SOFTWARE && at->config >= PERF_COUNT_SW_BPF_OUTPUT);
		     i++) {
			if (n->type == at->type && n->config == at->config) {
				snprintf(buf, size, "%s", n->name);
				break;
			}
		}
		break;
	case PERF_TYPE_RAW:
		snprintf(buf, size, "raw 0x%" PRIx64, (uint64_t)at->config);
		break;
	case PERF_TYPE_BREAKPOINT:
		snprintf(buf, size, "mem:0x%" PRIx64, (uint64_t)at->bp_addr);
		break;
	default:
		snprintf(buf, size, "unknown attr type: %u", at->type);
		return buf;
	}
	add_modifiers(at, buf, size);
	return buf;
}

/* ---- setup ---- */

static bool has_callchain(const struct pcl_data_attr *a)
{
	return a && (a->attr.sample_type & PERF_SAMPLE_CALLCHAIN);
}

static const char *field_name(uint64_t bit)
{
	for (size_t i = 0; i < ARRAY_SIZE(field_names); i++)
		if (field_names[i].bit == bit)
			return field_names[i].name;
	return "?";
}

/* perf's evsel__check_stype: drop a default field the samples lack, refuse a named one. */
static int check_stype(struct pcl_script *s, int cls, const char *ev, uint64_t st, uint64_t bit,
		       const char *what, uint64_t field)
{
	struct class_fields *c = &s->cls[cls];
	uint64_t named;

	if (!(c->fields & field) || (st & bit))
		return 0;
	named = c->user_set_fields & field;
	if (named)
		return pcl_err(EINVAL,
			       "samples of event '%s' have no %s (not recorded): cannot print "
			       "field '%s'",
			       ev, what, field_name(named & -named));
	c->fields &= ~field;
	return 0;
}

static int check_attr(struct pcl_script *s, int cls, int idx)
{
	const struct pcl_data_attr *a = s->attrs[idx].a;
	const char *ev = s->attrs[idx].name;
	uint64_t st = a->attr.sample_type;
	uint64_t f;
	int ret;

	if ((ret = check_stype(s, cls, ev, st, PERF_SAMPLE_IP, "IP", PCL_SCRIPT_IP)) ||
	    (ret = check_stype(s, cls, ev, st, PERF_SAMPLE_ADDR, "ADDR", PCL_SCRIPT_ADDR)) ||
	    (ret = check_stype(s, cls, ev, st, PERF_SAMPLE_DATA_SRC, "DATA_SRC",
			       PCL_SCRIPT_DATA_SRC)) ||
	    (ret = check_stype(s, cls, ev, st, PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT,
			       "WEIGHT", PCL_SCRIPT_WEIGHT)))
		return ret;
	f = s->cls[cls].fields;
	if ((f & PCL_SCRIPT_SYM) && !(st & (PERF_SAMPLE_IP | PERF_SAMPLE_ADDR)))
		return pcl_err(EINVAL,
			       "-F sym: the samples of '%s' have neither an ip nor an "
			       "address to find symbols for",
			       ev);
	if ((f & PCL_SCRIPT_SYMOFF) && !(f & PCL_SCRIPT_SYM))
		return pcl_err(EINVAL, "-F symoff needs the sym field as well");
	if ((f & (PCL_SCRIPT_SRCLINE | PCL_SCRIPT_SRCCODE)) && !(f & PCL_SCRIPT_IP))
		return pcl_err(EINVAL, "-F srcline needs the ip field as well: no address to "
				       "find a source line for");
	if ((f & PCL_SCRIPT_DSO) && !(st & (PERF_SAMPLE_IP | PERF_SAMPLE_ADDR)))
		return pcl_err(EINVAL,
			       "-F dso: the samples of '%s' have neither an ip nor an "
			       "address to find a DSO for",
			       ev);
	if ((ret = check_stype(s, cls, ev, st, PERF_SAMPLE_TID, "TID",
			       PCL_SCRIPT_TID | PCL_SCRIPT_PID)) ||
	    (ret = check_stype(s, cls, ev, st, PERF_SAMPLE_TIME, "TIME", PCL_SCRIPT_TIME)) ||
	    (ret = check_stype(s, cls, ev, st, PERF_SAMPLE_CPU, "CPU", PCL_SCRIPT_CPU)) ||
	    (ret = check_stype(s, cls, ev, st, PERF_SAMPLE_REGS_INTR, "IREGS", PCL_SCRIPT_IREGS)) ||
	    (ret = check_stype(s, cls, ev, st, PERF_SAMPLE_REGS_USER, "UREGS", PCL_SCRIPT_UREGS)) ||
	    (ret = check_stype(s, cls, ev, st, PERF_SAMPLE_PHYS_ADDR, "PHYS_ADDR",
			       PCL_SCRIPT_PHYS_ADDR)) ||
	    (ret = check_stype(s, cls, ev, st, PERF_SAMPLE_DATA_PAGE_SIZE, "DATA_PAGE_SIZE",
			       PCL_SCRIPT_DATA_PAGE_SIZE)) ||
	    (ret = check_stype(s, cls, ev, st, PERF_SAMPLE_CODE_PAGE_SIZE, "CODE_PAGE_SIZE",
			       PCL_SCRIPT_CODE_PAGE_SIZE)) ||
	    (ret = check_stype(s, cls, ev, st, PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT_STRUCT",
			       PCL_SCRIPT_INS_LAT)))
		return ret;
	return 0;
}

static int add_attrs(struct pcl_script *s, const struct pcl_data_attr *const *attrs, int nr)
{
	struct named_attr *na;
	char name[256];

	if (nr <= s->nr_attrs)
		return 0;
	na = realloc(s->attrs, sizeof(*na) * (size_t)nr);
	if (!na)
		return -ENOMEM;
	s->attrs = na;
	for (int i = s->nr_attrs; i < nr; i++) {
		int len;

		na[i].a = attrs[i];
		na[i].name =
			strdup(pcl_script_event_name(attrs[i], s->tracepoints, name, sizeof(name)));
		if (!na[i].name)
			return -ENOMEM;
		s->nr_attrs = i + 1;
		len = (int)strlen(na[i].name);
		if (len > s->name_width)
			s->name_width = len;
	}
	return 0;
}

/* Fields perf adds for call chains: file mode, to tracepoints; pipe mode, per first event. */
static void callchain_fields(struct pcl_script *s, bool pipe)
{
	uint64_t combined = 0;
	bool seen[PCL_SCRIPT_NR_CLASSES] = { false };

	if (!s->use_callchain)
		return;
	if (!pipe) {
		if (s->cls[PCL_SCRIPT_TRACEPT].user_set)
			return;
		for (int i = 0; i < s->nr_attrs; i++) {
			if (s->attrs[i].a->attr.type == PERF_TYPE_TRACEPOINT &&
			    has_callchain(s->attrs[i].a)) {
				s->cls[PCL_SCRIPT_TRACEPT].fields |=
					PCL_SCRIPT_IP | PCL_SCRIPT_SYM | PCL_SCRIPT_SYMOFF |
					PCL_SCRIPT_DSO;
				return;
			}
		}
		return;
	}
	for (int i = 0; i < s->nr_attrs; i++) {
		int c = pcl_script_class_of(&s->attrs[i].a->attr);
		struct class_fields *cf = &s->cls[c];

		combined |= s->attrs[i].a->attr.sample_type;
		if (seen[c])
			continue;
		seen[c] = true;
		if (combined & PERF_SAMPLE_CALLCHAIN) {
			cf->fields |= ~cf->user_unset_fields & PCL_SCRIPT_IP;
			cf->fields |= ~cf->user_unset_fields & PCL_SCRIPT_SYM;
		}
	}
}

PCL_API int pcl_script__setup(struct pcl_script *s, const struct pcl_data_attr *const *attrs,
			      int nr, bool pipe)
{
	int ret;

	if (!s || (nr && !attrs) || nr < 0)
		return pcl_err(EINVAL, "pcl_script__setup: invalid argument");
	ret = add_attrs(s, attrs, nr);
	if (ret)
		return ret;
	for (int c = 0; c < PCL_SCRIPT_NR_CLASSES; c++) {
		bool seen = false;

		for (int i = 0; i < s->nr_attrs; i++) {
			const struct perf_event_attr *a = &s->attrs[i].a->attr;

			if ((int)pcl_script_class_of(a) != c)
				continue;
			seen = true;
			if (pipe && !a->sample_type)
				continue;
			if (s->cls[c].fields && (ret = check_attr(s, c, i)))
				return ret;
			break;
		}
		/* perf: "-F hw:" (no field) for a file without hardware events is an error */
		if (!seen && !pipe && s->cls[c].user_set && !s->cls[c].wildcard_set &&
		    c != PCL_SCRIPT_SYNTH)
			return pcl_err(EINVAL, "-F %s: the file has no %s events",
				       class_defaults[c].opt_name ? class_defaults[c].opt_name
								  : "?",
				       class_defaults[c].desc);
	}
	for (int c = 0; c < PCL_SCRIPT_NR_CLASSES; c++) {
		uint64_t any = 0;

		if (!(s->cls[c].fields & (PCL_SCRIPT_BRSTACKINSN | PCL_SCRIPT_BRSTACKINSNLEN)))
			continue;
		for (int i = 0; i < s->nr_attrs; i++)
			any |= s->attrs[i].a->attr.branch_sample_type;
		if (!(any & PERF_SAMPLE_BRANCH_ANY))
			return pcl_err(EINVAL, "-F brstackinsn: the branch stacks are not of all "
					       "branches (record them with perf record -b: pcl record has no -b)");
	}
	for (int i = 0; i < s->nr_attrs && !s->clock; i++)
		if (s->cls[pcl_script_class_of(&s->attrs[i].a->attr)].fields & PCL_SCRIPT_TOD)
			return pcl_err(EINVAL,
				       "cannot print the 'tod' field: the file has no clock "
				       "data; record with -k/--clockid");
	for (int i = 0; i < s->nr_attrs; i++) {
		const struct perf_event_attr *a = &s->attrs[i].a->attr;

		/* what perf prints there, pcl does not compute: say so, print nothing wrong */
		if (s->want_metric && a->type == PERF_TYPE_HARDWARE &&
		    (a->sample_type & PERF_SAMPLE_READ) && (a->read_format & PERF_FORMAT_GROUP))
			return pcl_err(ENOTSUP,
				       "-F metric: the metrics of hardware event groups "
				       "(event '%s') are not supported by pcl",
				       s->attrs[i].name);
		if (s->want_synth && pcl_script_class_of(a) == PCL_SCRIPT_SYNTH)
			return pcl_err(ENOTSUP,
				       "-F synth: the payloads of synthesized events "
				       "(event '%s') are not supported by pcl",
				       s->attrs[i].name);
	}
	s->use_callchain = !s->o.hide_call_graph;
	if (!pipe && s->use_callchain) {
		bool any = false;

		for (int i = 0; i < s->nr_attrs; i++)
			any |= has_callchain(s->attrs[i].a);
		s->use_callchain = any;
	}
	callchain_fields(s, pipe);
	return 0;
}

/* The name of @a, from the table setup made (perf's evsel__name). */
static const char *attr_name(struct pcl_script *s, const struct pcl_data_attr *a)
{
	if (s->last < s->nr_attrs && s->attrs[s->last].a == a)
		return s->attrs[s->last].name;
	for (int i = 0; i < s->nr_attrs; i++) {
		if (s->attrs[i].a == a) {
			s->last = i;
			return s->attrs[i].name;
		}
	}
	return a->name && a->name[0] ? a->name : "[unknown]";
}

/* ---- lines ---- */

struct start {
	const char *comm;
	bool unpadded; /* the line is followed by a call chain */
	int32_t pid, tid;
	uint32_t cpu;
	uint64_t time;
	uint16_t misc;
	uint32_t type; /* the record's */
};

static void print_misc(struct sbuf *b, uint16_t misc, uint32_t type)
{
	size_t start = b->len;
	int n;

#define HAS(m) ((misc & PERF_RECORD_MISC_##m) == PERF_RECORD_MISC_##m)
	if (HAS(KERNEL))
		sb_putc(b, 'K');
	if (HAS(USER))
		sb_putc(b, 'U');
	if (HAS(HYPERVISOR))
		sb_putc(b, 'H');
	if (HAS(GUEST_KERNEL))
		sb_putc(b, 'G');
	if (HAS(GUEST_USER))
		sb_putc(b, 'g');
	switch (type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (HAS(MMAP_DATA))
			sb_putc(b, 'M');
		break;
	case PERF_RECORD_COMM:
		if (HAS(COMM_EXEC))
			sb_putc(b, 'E');
		break;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		if (HAS(SWITCH_OUT)) {
			sb_putc(b, 'S');
			if (misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT)
				sb_putc(b, 'p');
		}
		break;
	default:
		break;
	}
#undef HAS
	/* perf: fprintf("%*s", 6 - n, " "): at least the one space */
	n = (int)(b->len - start);
	sb_spaces(b, n < 5 ? (size_t)(6 - n) : 1);
}

static void print_time(struct pcl_script *s, struct sbuf *b, uint64_t t)
{
	char tmp[32];

	if (s->o.reltime) {
		if (!s->initial_time)
			s->initial_time = t;
		t -= s->initial_time;
	} else if (s->o.deltatime) {
		uint64_t prev = s->previous_time;

		s->previous_time = t;
		t = prev ? t - prev : 0;
	}
	if (s->o.ns) {
		/* "%5lu.%09llu: " */
		sb_u64(b, t / 1000000000, 5);
		sb_putc(b, '.');
		sb_num(b, t % 1000000000, false, false, 9, false, true);
		sb_put(b, ": ", 2);
		return;
	}
	/* "%12s: " of "%lu.%06lu" */
	{
		size_t nd = digits(tmp + sizeof(tmp), t / 1000000000, false);

		if (nd + 7 < 12)
			sb_spaces(b, 12 - (nd + 7));
		sb_put(b, tmp + sizeof(tmp) - nd, nd);
		sb_putc(b, '.');
		sb_num(b, t % 1000000000 / 1000, false, false, 6, false, true);
		sb_put(b, ": ", 2);
	}
}

/* perf's tod_scnprintf: the sample's time of day, local, to the micro- or nanosecond. */
static void print_tod(struct pcl_script *s, struct sbuf *b, uint64_t t)
{
	uint64_t tod = s->tod_ns;
	char date[64];
	struct tm tm;
	time_t sec;

	if (t > s->clockid_ns)
		tod += t - s->clockid_ns;
	else
		tod -= s->clockid_ns - t;
	sec = (time_t)(tod / 1000000000);
	if (!localtime_r(&sec, &tm)) {
		sb_put(b, "failed ", 7);
		return;
	}
	strftime(date, sizeof(date), "%F %H:%M:%S", &tm);
	if (s->o.ns)
		sb_printf(b, "%s.%09lu ", date, (unsigned long)(tod % 1000000000));
	else
		sb_printf(b, "%s.%06lu ", date, (unsigned long)(tod % 1000000000 / 1000));
}

/* perf_sample__fprintf_start: comm, pid/tid, cpu, misc, tod, time. */
static void print_start(struct pcl_script *s, struct sbuf *b, uint64_t f, const struct start *st)
{
	if (f & PCL_SCRIPT_COMM) {
		sb_rjust(b, st->comm, st->unpadded ? 0 : 16);
		sb_putc(b, ' ');
	}
	if ((f & PCL_SCRIPT_PID) && (f & PCL_SCRIPT_TID)) {
		sb_int(b, st->pid, 5, false);
		sb_putc(b, '/');
		sb_int(b, st->tid, 5, true);
		sb_putc(b, ' ');
	} else if (f & (PCL_SCRIPT_PID | PCL_SCRIPT_TID)) {
		sb_int(b, (f & PCL_SCRIPT_PID) ? st->pid : st->tid, 5, false);
		sb_putc(b, ' ');
	}
	if (f & PCL_SCRIPT_CPU) {
		/* "[%03d] " */
		int32_t cpu = (int32_t)st->cpu;

		sb_putc(b, '[');
		sb_num(b, cpu < 0 ? 0 - (uint64_t)cpu : (uint64_t)cpu, cpu < 0, false, 3, false,
		       true);
		sb_put(b, "] ", 2);
	}
	if (f & PCL_SCRIPT_MISC)
		print_misc(b, st->misc, st->type);
	if (f & PCL_SCRIPT_TOD)
		print_tod(s, b, st->time);
	if (f & PCL_SCRIPT_TIME)
		print_time(s, b, st->time);
}

const char *script_dso_name(const struct pcl_map *map)
{
	return map && map->dso ? map->dso->name : "[unknown]";
}

/* SYM+OFF of a resolved address, or [unknown]. */
void script_print_sym(struct sbuf *b, const struct pcl_frame *fr, uint64_t f)
{
	if (!fr->sym) {
		sb_put(b, "[unknown]", 9);
		return;
	}
	sb_puts(b, fr->sym->name);
	if (f & PCL_SCRIPT_SYMOFF) {
		sb_put(b, "+0x", 3);
		sb_hex(b, fr->addr - fr->sym->start, 0);
	}
}

static void print_dso(struct sbuf *b, const struct pcl_map *map)
{
	sb_put(b, " (", 2);
	sb_puts(b, script_dso_name(map));
	sb_putc(b, ')');
}

/* perf's "\n  FILE:LINE" after a frame or the ip; nothing where perf prints nothing. */
static void print_srcline(struct pcl_script *s, struct sbuf *b, const struct pcl_frame *fr)
{
	const char *str;

	if (!s->srcpos && !(s->srcpos = srcpos_cache__new(s->symbols, s->o.full_source_path))) {
		b->oom = true;
		return;
	}
	str = srcpos_cache__get(s->srcpos, fr, SRCPOS_SCRIPT);
	if (!str) {
		b->oom = true;
		return;
	}
	if (str[0]) {
		sb_put(b, "\n  ", 3);
		sb_puts(b, str);
	}
}

static void print_frame(struct pcl_script *s, struct sbuf *b, const struct pcl_frame *fr,
			uint64_t f)
{
	const struct pcl_dso *dso = fr->map ? fr->map->dso : NULL;
	/* perf 6.1 shows a user-space DSO's frames at their offset in it */
	bool rel = dso && dso->kind != PCL_DSO_KERNEL && dso->kind != PCL_DSO_MODULE;

	sb_putc(b, '\t');
	sb_hex(b, rel ? fr->addr : fr->ip, 16);
	if (f & PCL_SCRIPT_SYM) {
		sb_putc(b, ' ');
		script_print_sym(b, fr, f);
	}
	/* an inlined function's frame says so instead of naming the DSO */
	if ((f & PCL_SCRIPT_DSO) && !fr->inlined)
		print_dso(b, fr->map);
	if (f & PCL_SCRIPT_SRCLINE)
		print_srcline(s, b, fr);
	if (fr->inlined)
		sb_puts(b, " (inlined)");
	sb_putc(b, '\n');
}

/*
 * perf discards a whole call chain with a context marker it does not know
 * (thread__resolve_callchain: "invalid callchain context"): the kernel
 * writes such chains now and then, ending them with -1.
 */
static bool chain_discarded(const struct pcl_sample *sm, size_t max)
{
	size_t real = 0;

	for (uint64_t i = 0; i < sm->nr_callchain && real < max; i++) {
		uint64_t ip = sm->callchain[i];

		if (ip < PERF_CONTEXT_MAX)
			real++;
		else if (ip != PERF_CONTEXT_HV && ip != PERF_CONTEXT_KERNEL &&
			 ip != PERF_CONTEXT_USER)
			return true;
	}
	return false;
}

static void print_ip(struct pcl_script *s, struct sbuf *b, uint64_t f, const struct pcl_record *rec,
		     const struct pcl_resolved *res, bool chain)
{
	sb_putc(b, chain ? '\n' : ' ');
	if (chain) {
		size_t max = s->o.max_stack < 0 ? 0 : (size_t)s->o.max_stack;
		size_t n = res->nr_chain < max ? res->nr_chain : max;

		if (chain_discarded(&rec->sample, max))
			n = 0;
		for (size_t i = 0; i < n; i++)
			print_frame(s, b, &res->chain[i], f);
		return;
	}
	sb_hex(b, rec->sample.ip, 16);
	if (f & PCL_SCRIPT_SYM) {
		sb_putc(b, ' ');
		script_print_sym(b, &res->ip, f);
	}
	if (f & PCL_SCRIPT_DSO)
		print_dso(b, res->ip.map);
	if (f & PCL_SCRIPT_SRCLINE)
		print_srcline(s, b, &res->ip);
}

/*
 * A tracepoint's payload: through the FILE, after what the line has so far;
 * its print fmt through libtraceevent, as perf prints it, or its fields one
 * by one where libtraceevent could not parse the format.
 */
static int print_trace(struct pcl_script *s, FILE *out, const struct pcl_data_attr *attr,
		       const struct pcl_sample *sm)
{
	const struct pcl_tp_format *fmt = pcl_tracepoints__find(s->tracepoints, attr->attr.config);
	int cpu = (sm->sample_type & PERF_SAMPLE_CPU) ? (int)sm->cpu : -1;
	int ret;

	if (!fmt)
		return 0;
	ret = sb_flush(&s->buf, out);
	if (ret)
		return ret;
	ret = pcl_tracepoints__fprint(s->tracepoints, attr->attr.config, cpu, sm->raw, sm->raw_size,
				      out);
	return ret == -ENOENT ? pcl_tp_format__fprint(fmt, sm->raw, sm->raw_size, out) : ret;
}

/* ---- what a sample carries besides its ip ---- */

static bool kernel_mode(uint16_t misc)
{
	uint16_t m = misc & PERF_RECORD_MISC_CPUMODE_MASK;

	return m == PERF_RECORD_MISC_KERNEL || m == PERF_RECORD_MISC_GUEST_KERNEL;
}

/* perf's thread__find_map_fb: in the sample's space, else in the address's own. */
void script_resolve_addr(struct pcl_script *s, struct pcl_thread *t, uint16_t misc, uint64_t addr,
			 struct pcl_frame *fr)
{
	bool k = kernel_mode(misc), ak = addr >= KERNEL_START;

	memset(fr, 0, sizeof(*fr));
	fr->ip = fr->addr = addr;
	if (!s->resolver)
		return;
	pcl_resolver__frame(s->resolver, t, k, addr, fr);
	if (!fr->map && ak != k)
		pcl_resolver__frame(s->resolver, t, ak, addr, fr);
}

/* perf's sample_addr_correlates_sym: the addr is a code or data address worth a name. */
static bool addr_has_sym(const struct perf_event_attr *a)
{
	if (a->type == PERF_TYPE_SOFTWARE)
		return a->config == PERF_COUNT_SW_PAGE_FAULTS ||
		       a->config == PERF_COUNT_SW_PAGE_FAULTS_MIN ||
		       a->config == PERF_COUNT_SW_PAGE_FAULTS_MAJ;
	/* perf's is_bts_event: every branch instruction, its target in addr */
	return a->type == PERF_TYPE_HARDWARE && (a->config & PERF_COUNT_HW_BRANCH_INSTRUCTIONS) &&
	       a->sample_period == 1;
}

static bool is_bts(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_HARDWARE && addr_has_sym(a);
}

/* The addr field: "%16llx", then its symbol and DSO where perf names them. */
static void print_addr(struct pcl_script *s, struct sbuf *b, uint64_t f,
		       const struct pcl_data_attr *attr, const struct pcl_record *rec,
		       const struct pcl_resolved *res)
{
	struct pcl_frame fr;

	sb_hex(b, rec->sample.addr, 16);
	if (!addr_has_sym(&attr->attr))
		return;
	script_resolve_addr(s, res->thread, rec->misc, rec->sample.addr, &fr);
	if (f & PCL_SCRIPT_SYM) {
		sb_putc(b, ' ');
		script_print_sym(b, &fr, f);
	}
	if (f & PCL_SCRIPT_DSO)
		print_dso(b, fr.map);
}

/* perf's layout of a branch-trace event (every branch, period 1): FROM => TO. */
static void print_bts(struct pcl_script *s, struct sbuf *b, uint64_t f,
		      const struct pcl_data_attr *attr, const struct pcl_record *rec,
		      const struct pcl_resolved *res, bool chain)
{
	unsigned int cls = pcl_script_class_of(&attr->attr);

	/* no thread stack without a decoder's call/return flags: only the DSO */
	if ((f & PCL_SCRIPT_CALLINDENT) && (f & PCL_SCRIPT_DSO) &&
	    !(f & (PCL_SCRIPT_IP | PCL_SCRIPT_ADDR))) {
		script_print_paren_dso(b, &res->ip);
		sb_putc(b, '\t');
	}
	if (f & PCL_SCRIPT_IP)
		print_ip(s, b, f & ~PCL_SCRIPT_SRCLINE, rec, res, chain);
	if ((f & PCL_SCRIPT_ADDR) ||
	    ((rec->sample.sample_type & PERF_SAMPLE_ADDR) && !s->cls[cls].user_set)) {
		sb_put(b, " => ", 4);
		print_addr(s, b, f, attr, rec, res);
	}
	if ((f & PCL_SCRIPT_IP) && (f & PCL_SCRIPT_SRCLINE) && !chain)
		print_srcline(s, b, &res->ip);
	if (f & (PCL_SCRIPT_INSN | PCL_SCRIPT_INSNLEN))
		script_print_insn(s, b, f, rec, res);
	if (f & (PCL_SCRIPT_BRSTACKINSN | PCL_SCRIPT_BRSTACKINSNLEN))
		script_print_brstackinsn(s, b, f, rec, res);
}

PCL_API int pcl_script__sample(struct pcl_script *s, FILE *out, const struct pcl_data_attr *attr,
			       const struct pcl_record *rec, const struct pcl_resolved *res)
{
	const struct pcl_sample *sm = &rec->sample;
	struct sbuf *b;
	uint64_t f;
	struct start st;
	bool chain;
	int ret = 0;

	if (!s || !out || !attr || !rec || !res)
		return pcl_err(EINVAL, "pcl_script__sample: invalid argument");
	b = &s->buf;
	f = s->cls[pcl_script_class_of(&attr->attr)].fields;
	if (!f)
		return 0;
	chain = s->use_callchain && has_callchain(attr);
	/*
	 * A task's last events after it was unhashed (its final sched_switch)
	 * carry pid and tid -1: perf's thread for tid -1 is ":-1", where the
	 * machine gives the idle task.
	 */
	st = (struct start){
		.comm = res->thread && !((sm->sample_type & PERF_SAMPLE_TID) &&
					 (int32_t)sm->tid == -1)
				? res->thread->comm
				: ":-1",
		.unpadded = (f & PCL_SCRIPT_IP) && chain,
		.pid = (sm->sample_type & PERF_SAMPLE_TID) ? (int32_t)sm->pid : -1,
		.tid = (sm->sample_type & PERF_SAMPLE_TID) ? (int32_t)sm->tid : -1,
		.cpu = sm->cpu,
		.time = sm->time,
		.misc = rec->misc,
		.type = PERF_RECORD_SAMPLE,
	};
	print_start(s, b, f, &st);
	if (f & PCL_SCRIPT_PERIOD) {
		sb_u64(b,
		       (sm->sample_type & PERF_SAMPLE_PERIOD) ? sm->period
							      : (uint64_t)attr->attr.sample_period,
		       10);
		sb_putc(b, ' ');
	}
	if (f & PCL_SCRIPT_EVENT) {
		sb_rjust(b, attr_name(s, attr), s->name_width);
		sb_put(b, ": ", 2);
	}
	if (s->print_flags)
		sb_spaces(b, 24); /* "  %-21s " of no flags: files carry none */
	chain = chain && (sm->sample_type & PERF_SAMPLE_CALLCHAIN);
	if (is_bts(&attr->attr)) {
		print_bts(s, b, f, attr, rec, res, chain);
		goto end;
	}
	if ((f & PCL_SCRIPT_TRACE) && (sm->sample_type & PERF_SAMPLE_RAW) && sm->raw &&
	    attr->attr.type == PERF_TYPE_TRACEPOINT)
		ret = print_trace(s, out, attr, sm);
	if (f & PCL_SCRIPT_ADDR)
		print_addr(s, b, f, attr, rec, res);
	if (f & PCL_SCRIPT_DATA_SRC)
		script_print_data_src(s, b, sm->data_src);
	if (f & PCL_SCRIPT_WEIGHT)
		sb_u64(b, sm->weight, 16);
	if (f & PCL_SCRIPT_INS_LAT)
		sb_u64(b, (uint16_t)sm->weight_var2, 16);
	if (f & PCL_SCRIPT_IP)
		print_ip(s, b, f, rec, res, chain);
	if (f & PCL_SCRIPT_IREGS)
		script_print_regs(b, sm->intr_abi, sm->intr_regs, attr->attr.sample_regs_intr);
	if (f & PCL_SCRIPT_UREGS)
		script_print_regs(b, sm->user_abi, sm->user_regs, attr->attr.sample_regs_user);
	if (f & PCL_SCRIPT_BRSTACK)
		script_print_brstack(s, b, f, PCL_SCRIPT_BRSTACK, rec, res);
	else if (f & PCL_SCRIPT_BRSTACKSYM)
		script_print_brstack(s, b, f, PCL_SCRIPT_BRSTACKSYM, rec, res);
	else if (f & PCL_SCRIPT_BRSTACKOFF)
		script_print_brstack(s, b, f, PCL_SCRIPT_BRSTACKOFF, rec, res);
	if ((f & PCL_SCRIPT_BPF_OUTPUT) && attr->attr.type == PERF_TYPE_SOFTWARE &&
	    attr->attr.config == PERF_COUNT_SW_BPF_OUTPUT && (sm->sample_type & PERF_SAMPLE_RAW))
		script_print_bpf_output(b, sm);
	if (f & (PCL_SCRIPT_INSN | PCL_SCRIPT_INSNLEN))
		script_print_insn(s, b, f, rec, res);
	if (f & (PCL_SCRIPT_BRSTACKINSN | PCL_SCRIPT_BRSTACKINSNLEN))
		script_print_brstackinsn(s, b, f, rec, res);
	if (f & PCL_SCRIPT_PHYS_ADDR)
		sb_hex(b, sm->phys_addr, 16);
	if (f & PCL_SCRIPT_DATA_PAGE_SIZE)
		script_print_page_size(b, sm->data_page_size);
	if (f & PCL_SCRIPT_CODE_PAGE_SIZE)
		script_print_page_size(b, sm->code_page_size);
end:
	sb_putc(b, '\n');
	if ((f & PCL_SCRIPT_SRCCODE) && (f & PCL_SCRIPT_IP))
		script_print_srccode(s, b, res);
	if (!ret)
		ret = sb_flush(b, out);
	b->len = 0;
	return ret;
}

/* ---- side-band records ---- */

static bool shown(const struct pcl_script *s, uint32_t type)
{
	switch (type) {
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		return s->o.show_task_events;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return s->o.show_mmap_events;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		return s->o.show_switch_events;
	case PERF_RECORD_LOST:
		return s->o.show_lost_events;
	default:
		return false;
	}
}

static void print_mmap2(struct sbuf *b, const struct pcl_record *rec)
{
	sb_printf(b, " %d/%d: [%#" PRIx64 "(%#" PRIx64 ") @ %#" PRIx64, (int32_t)rec->mmap.pid,
		  (int32_t)rec->mmap.tid, rec->mmap.addr, rec->mmap.len, rec->mmap.pgoff);
	if (rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		int n = rec->mmap.build_id_size <= 20 ? rec->mmap.build_id_size : 20;

		sb_put(b, " <", 2);
		for (int i = 0; i < n; i++)
			sb_num(b, rec->mmap.build_id[i], false, true, 2, false, true);
		sb_putc(b, '>');
	} else {
		sb_printf(b, " %02x:%02x %" PRIu64 " %" PRIu64, rec->mmap.maj, rec->mmap.min,
			  rec->mmap.ino, rec->mmap.ino_generation);
	}
	sb_printf(b, "]: %c%c%c%c %s\n", (rec->mmap.prot & PROT_READ) ? 'r' : '-',
		  (rec->mmap.prot & PROT_WRITE) ? 'w' : '-',
		  (rec->mmap.prot & PROT_EXEC) ? 'x' : '-',
		  (rec->mmap.flags & MAP_SHARED) ? 's' : 'p', rec->mmap.filename);
}

static void print_switch(struct sbuf *b, const struct pcl_record *rec)
{
	bool sw_out = rec->misc & PERF_RECORD_MISC_SWITCH_OUT;
	const char *in_out = !sw_out						  ? "IN         "
			     : !(rec->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) ? "OUT        "
										  : "OUT preempt";

	if (rec->type == PERF_RECORD_SWITCH) {
		sb_printf(b, " %s\n", in_out);
		return;
	}
	sb_printf(b, " %s  %s pid/tid: %5d/%-5d\n", in_out, sw_out ? "next" : "prev",
		  (int32_t)rec->context_switch.next_prev_pid,
		  (int32_t)rec->context_switch.next_prev_tid);
}

/* perf_event__fprintf: "PERF_RECORD_NAME" and the record's own fields. */
static void print_record(struct sbuf *b, const struct pcl_record *rec)
{
	sb_printf(b, "PERF_RECORD_%s", pcl_record_type_name(rec->type));
	switch (rec->type) {
	case PERF_RECORD_COMM:
		sb_printf(b, "%s: %s:%d/%d\n",
			  (rec->misc & PERF_RECORD_MISC_COMM_EXEC) ? " exec" : "", rec->comm.comm,
			  (int32_t)rec->comm.pid, (int32_t)rec->comm.tid);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		sb_printf(b, "(%d:%d):(%d:%d)\n", (int32_t)rec->task.pid, (int32_t)rec->task.tid,
			  (int32_t)rec->task.ppid, (int32_t)rec->task.ptid);
		break;
	case PERF_RECORD_MMAP:
		sb_printf(b, " %d/%d: [%#" PRIx64 "(%#" PRIx64 ") @ %#" PRIx64 "]: %c %s\n",
			  (int32_t)rec->mmap.pid, (int32_t)rec->mmap.tid, rec->mmap.addr,
			  rec->mmap.len, rec->mmap.pgoff,
			  (rec->misc & PERF_RECORD_MISC_MMAP_DATA) ? 'r' : 'x', rec->mmap.filename);
		break;
	case PERF_RECORD_MMAP2:
		print_mmap2(b, rec);
		break;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		print_switch(b, rec);
		break;
	case PERF_RECORD_LOST:
		sb_printf(b, " lost %" PRIu64 "\n", rec->lost.lost);
		break;
	default:
		sb_putc(b, '\n');
		break;
	}
}

bool script_record_text(FILE *fp, const struct pcl_record *rec)
{
	struct sbuf b = { 0 };
	bool ok;

	switch (rec->type) {
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
	case PERF_RECORD_LOST:
		break;
	default:
		return false;
	}
	print_record(&b, rec);
	ok = !b.oom;
	if (ok)
		fwrite(b.p, 1, b.len, fp);
	free(b.p);
	return ok;
}

/* The pid and tid a side-band record is about, and its own timestamp (FORK, EXIT). */
static void record_task(const struct pcl_record *rec, int32_t *pid, int32_t *tid, uint64_t *time)
{
	*time = 0;
	switch (rec->type) {
	case PERF_RECORD_COMM:
		*pid = (int32_t)rec->comm.pid;
		*tid = (int32_t)rec->comm.tid;
		return;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		*pid = (int32_t)rec->task.pid;
		*tid = (int32_t)rec->task.tid;
		*time = rec->task.time;
		return;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		*pid = (int32_t)rec->mmap.pid;
		*tid = (int32_t)rec->mmap.tid;
		return;
	default:
		/* perf takes the sample's: the trailer's, -1 without one */
		*pid = *tid = -1;
		return;
	}
}

PCL_API int pcl_script__event(struct pcl_script *s, FILE *out, const struct pcl_data_attr *attr,
			      const struct pcl_record *rec, struct pcl_machine *m)
{
	struct pcl_thread *t = NULL;
	bool has_tid;
	int32_t pid, tid;
	uint64_t time;
	struct start st = { 0 };
	int ret;

	if (!s || !out || !rec)
		return pcl_err(EINVAL, "pcl_script__event: invalid argument");
	if (!shown(s, rec->type))
		return 0;
	record_task(rec, &pid, &tid, &time);
	has_tid = rec->has_id && attr && (attr->attr.sample_type & PERF_SAMPLE_TID);
	if (pid == -1 && tid == -1 && has_tid) {
		pid = (int32_t)rec->id.pid;
		tid = (int32_t)rec->id.tid;
	}
	if (tid != -1 && m)
		t = pcl_machine__thread(m, pid, tid);
	if (attr) {
		uint64_t f = s->cls[pcl_script_class_of(&attr->attr)].fields;

		st.comm = t ? t->comm : ":-1";
		st.unpadded = (f & PCL_SCRIPT_IP) && s->use_callchain && has_callchain(attr);
		st.misc = rec->misc;
		st.type = rec->type;
		if (!attr->attr.sample_id_all) {
			st.cpu = 0;
			st.time = time;
			st.pid = pid;
			st.tid = tid;
		} else {
			st.pid = has_tid ? (int32_t)rec->id.pid : -1;
			st.tid = has_tid ? (int32_t)rec->id.tid : -1;
			st.cpu = rec->has_id ? rec->id.cpu : (uint32_t)-1;
			st.time = rec->has_id ? rec->id.time : (uint64_t)-1;
		}
		print_start(s, &s->buf, f, &st);
	}
	print_record(&s->buf, rec);
	ret = sb_flush(&s->buf, out);
	return ret ? ret : 1;
}
