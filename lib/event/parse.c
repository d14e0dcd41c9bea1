/* SPDX-License-Identifier: MIT */
/*
 * perf's event syntax parsed into perf_event_attr (the forms are listed in
 * include/pcl/event.h).
 *
 * The spec is split at top-level commas, which are those outside "{...}"
 * groups and outside the "pmu/terms/" slashes. Each item is then one of:
 * a group, a breakpoint (mem:), a PMU event (name/terms/), a tracepoint
 * (sys:name, globs allowed), or a name (generic, cache, raw, or an alias of
 * any PMU), each followed by optional modifiers. "x:y" is a name with
 * modifiers when x is a known event and y is made of modifier letters;
 * otherwise it is a tracepoint.
 *
 * Parsing is all-or-nothing: events go to a staging list and are appended
 * to the caller's list only when the whole spec parsed.
 */
#include <ctype.h>
#include <dirent.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/hw_breakpoint.h>
#include "internal.h"
#include "event/metrics.h"
#include "event/names.h"
#include "event/pfm.h"
#include "probe/probe.h"

struct parser {
	const char *spec;
	struct pcl_events *out;
	struct pcl_parse_error *err;
};

static int perr(struct parser *p, int err, const char *tok, size_t toklen, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int perr(struct parser *p, int err, const char *tok, size_t toklen, const char *fmt, ...)
{
	struct pcl_parse_error *e = p->err;
	char msg[192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (e) {
		memset(e, 0, sizeof(*e));
		e->pos = tok ? (int)(tok - p->spec) : -1;
		if (tok)
			snprintf(e->token, sizeof(e->token), "%.*s", (int)toklen, tok);
		snprintf(e->msg, sizeof(e->msg), "%s", msg);
	}
	return pcl_err(err, "%s", msg);
}

static void set_hint(struct parser *p, const char *hint)
{
	if (p->err && hint)
		snprintf(p->err->hint, sizeof(p->err->hint), "%s", hint);
}

static struct pcl_event *new_event(struct parser *p)
{
	struct pcl_events *l = p->out;
	struct pcl_event *ev;

	if (grow_array((void **)&l->ev, &l->alloc, l->nr + 1, sizeof(*l->ev)))
		return NULL;
	ev = &l->ev[l->nr];
	memset(ev, 0, sizeof(*ev));
	ev->attr.size = sizeof(ev->attr);
	ev->leader = l->nr;
	ev->scale = 1.0;
	l->nr++;
	return ev;
}

static bool is_mod_string(const char *s, size_t len)
{
	int np = 0;

	if (!len)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (!strchr("ukhGHpPSDIWe", s[i]))
			return false;
		if (s[i] == 'p' && ++np > 3)
			return false;
		/* like perf, every letter but p at most once: "cycles:uu" is a typo */
		if (s[i] != 'p' && memchr(s + i + 1, s[i], len - i - 1))
			return false;
	}
	return true;
}

/*
 * Apply modifier letters the way perf 6.1 does: the first of u/k/h excludes
 * all three privilege levels and each letter then re-includes its own;
 * G/H do the same for guest and host. Events exclude the guest by default
 * (perf on a host); G re-includes it, and u or p exclude it again unless
 * G or H chose.
 */
static void apply_mods(struct pcl_event *ev, const char *s, size_t len)
{
	struct perf_event_attr *a = &ev->attr;
	size_t have = strlen(ev->modifiers);
	int eu = a->exclude_user, ek = a->exclude_kernel, eh = a->exclude_hv;
	int eH = a->exclude_host, eG = a->exclude_guest;
	int exclude = eu | ek | eh, exclude_GH = strpbrk(ev->modifiers, "GH") != NULL;

	for (size_t i = 0; i < len; i++) {
		switch (s[i]) {
		case 'u':
		case 'k':
		case 'h':
			if (!exclude)
				exclude = eu = ek = eh = 1;
			if (!exclude_GH && s[i] == 'u')
				eG = 1;
			if (s[i] == 'u')
				eu = 0;
			else if (s[i] == 'k')
				ek = 0;
			else
				eh = 0;
			break;
		case 'G':
		case 'H':
			if (!exclude_GH)
				exclude_GH = eG = eH = 1;
			if (s[i] == 'G')
				eG = 0;
			else
				eH = 0;
			break;
		case 'p':
			if (a->precise_ip < 3)
				a->precise_ip++;
			if (!exclude_GH)
				eG = 1; /* precise sampling needs exclude_guest */
			break;
		case 'P':
			a->precise_ip = 3;
			break;
		case 'S':
			a->sample_type |= PERF_SAMPLE_READ;
			break;
		case 'D':
			a->pinned = 1;
			break;
		case 'I':
			a->exclude_idle = 1;
			break;
		case 'e':
			a->exclusive = 1;
			break;
		case 'W':
			ev->weak_group = true;
			break;
		}
	}
	snprintf(ev->modifiers + have, sizeof(ev->modifiers) - have, "%.*s", (int)len, s ? s : "");
	a->exclude_user = eu;
	a->exclude_kernel = ek;
	a->exclude_hv = eh;
	a->exclude_host = eH;
	a->exclude_guest = eG;
}

static void set_name(struct pcl_event *ev, const char *s, size_t len)
{
	snprintf(ev->name, sizeof(ev->name), "%.*s", (int)len, s);
}

static bool is_raw(const char *s, size_t len)
{
	size_t i = 1;

	if (len < 2 || s[0] != 'r')
		return false;
	if (len > 3 && s[1] == '0' && s[2] == 'x')
		i = 3;
	for (; i < len; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

static int parse_pmu_event(struct parser *p, const char *s, size_t plen, size_t close,
			   struct pcl_event *ev);

/* A core PMU event encoded by libpfm4: counted by the hardware PMU as raw events are. */
static int named_core(struct pcl_event *ev, const char *spec)
{
	uint64_t config[3];
	uint32_t type;
	int ret = pfm_encode(spec, &type, config);

	if (ret)
		return ret;
	ev->attr.type = type;
	ev->attr.config = config[0];
	ev->attr.config1 = config[1];
	ev->attr.config2 = config[2];
	ev->pmu = pcl_pmu__find_by_type(ev->attr.type);
	if (!ev->pmu)
		ev->pmu = pmu_hardware();
	return ev->pmu ? 0 : -ENOENT;
}

/*
 * One spec of a named event: a libpfm name, or "pmu/terms/". 0 when it
 * encoded @ev; -ENOENT when this machine cannot use it (libpfm does not
 * know the name for this CPU model, or the PMU is not there), and
 * *@absent_pmu set in the second case.
 */
static int resolve_spec(struct parser *p, struct pcl_event *ev, const char *spec, size_t len,
			bool *absent_pmu)
{
	const char *slash = memchr(spec, '/', len);
	char buf[256];

	if (len >= sizeof(buf))
		return -ENOENT;
	memcpy(buf, spec, len);
	buf[len] = '\0';
	if (!slash)
		return named_core(ev, buf) ? -ENOENT : 0;
	buf[slash - spec] = '\0';
	if (!pcl_pmu__find(buf)) {
		*absent_pmu = true;
		return -ENOENT;
	}
	/* parsed in place: the table's strings live for the program */
	return parse_pmu_event(p, spec, (size_t)(slash - spec), len - 1, ev);
}

/*
 * A named hardware event: this CPU's metric events by perf's name
 * ("l2_pf_hit_l2", "ic_tag_hit_miss.instruction_cache_miss"), by the first
 * of its '|'-separated specs this machine can use; else any event libpfm4
 * knows for this CPU ("RETIRED_INSTRUCTIONS").
 */
static int resolve_named(struct parser *p, struct pcl_event *ev, const char *name,
			 const char *tok)
{
	const struct metric_event *me = metric_event_find(name);
	bool absent_pmu = false;
	int ret;

	if (!me) {
		ret = named_core(ev, name);
		if (ret && ret != -ENOENT)
			return perr(p, -ret, tok, strlen(name), "%s", pcl_last_error());
		return ret;
	}
	for (const char *spec = me->spec; *spec;) {
		size_t len = strcspn(spec, "|");

		ret = resolve_spec(p, ev, spec, len, &absent_pmu);
		if (ret != -ENOENT)
			return ret;
		spec += len + (spec[len] == '|');
	}
	if (!absent_pmu)
		return perr(p, EINVAL, tok, strlen(name),
			    "event '%s' has no encoding libpfm4 knows on this CPU ('%s')", name,
			    me->spec);
	/*
	 * Its PMU (the core PMU in a VM, an L3 or data fabric PMU) is not on
	 * this machine: an event type no PMU has, so that opening it fails
	 * and it shows <not supported>, never another PMU counting something
	 * else in its place.
	 */
	ev->attr.type = PCL_TYPE_ABSENT_PMU;
	ev->attr.config = 0;
	ev->pmu = pmu_hardware() ? pmu_hardware() : pmu_software();
	return 0;
}

/* A name without PMU or colon: generic, cache, raw, a PMU alias, or a named hardware event. */
static int resolve_name(struct parser *p, struct pcl_event *ev, const char *s, size_t len)
{
	char name[128];
	const struct pcl_event_name *g;
	const struct pcl_pmu_alias *alias;
	struct pcl_pmu *pmu;
	uint64_t config;
	int ret;

	if (len >= sizeof(name))
		return -ENOENT;
	memcpy(name, s, len);
	name[len] = '\0';
	if ((g = generic_event_lookup(name))) {
		ev->attr.type = g->type;
		ev->attr.config = g->config;
		ev->pmu = pcl_pmu__find_by_type(g->type);
		return 0;
	}
	ret = cache_event_parse(name, &config);
	if (ret == 0) {
		ev->attr.type = PERF_TYPE_HW_CACHE;
		ev->attr.config = config;
		ev->pmu = pcl_pmu__find_by_type(PERF_TYPE_HW_CACHE);
		return 0;
	}
	if (ret == -EOPNOTSUPP)
		return perr(p, EINVAL, s, len, "cache event '%s' is not a valid combination", name);
	if (is_raw(name, len)) {
		ev->attr.type = PERF_TYPE_RAW;
		ev->attr.config = strtoull(name + 1, NULL, 16);
		ev->pmu = pcl_pmu__find_by_type(PERF_TYPE_RAW);
		if (!ev->pmu)
			ev->pmu = pmu_hardware();
		return 0;
	}
	pmu = pmu_find_alias_anywhere(name, &alias);
	if (pmu)
		return -EAGAIN; /* caller re-parses as pmu/alias/ */
	/* errors point at the name in the spec, not at this copy of it */
	return resolve_named(p, ev, name, s);
}

static int parse_u64(const char *s, size_t len, uint64_t *v)
{
	char buf[32], *end;

	if (!len || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	*v = strtoull(buf, &end, 0);
	return errno || *end || buf[0] == '-' ? -EINVAL : 0;
}

static int apply_terms(struct parser *p, struct pcl_event *ev, const char *terms, size_t tlen,
		       bool from_alias);

/* perf's largest user stack copy (a sample's size is 16 bits) */
#define STACK_SIZE_MAX 65528U
/* the user registers a DWARF unwinder needs (x86-64: all but the segments) */
#define DWARF_REGS_USER 0xff0fffULL

/*
 * "call-graph=fp" or "call-graph=dwarf": this
 * event's call chains, whatever record's -g says for the others (the
 * session adds its own bits to these, it never takes them away).
 */
static int apply_call_graph(struct parser *p, struct perf_event_attr *a, const char *t, size_t len,
			    const char *val, size_t vlen)
{
	if (vlen == 2 && !memcmp(val, "fp", 2)) {
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		return 0;
	}
	if (vlen == 5 && !memcmp(val, "dwarf", 5)) {
		/* the user stack's size: the stack-size= term, else record's */
		a->sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
				  PERF_SAMPLE_STACK_USER;
		a->sample_regs_user |= DWARF_REGS_USER;
		a->exclude_callchain_user = 1;
		return 0;
	}
	if (vlen == 3 && !memcmp(val, "lbr", 3))
		return perr(p, EOPNOTSUPP, t, len,
			    "term 'call-graph=lbr' is not supported by pcl (no LBR on this path)");
	if ((vlen == 2 && !memcmp(val, "no", 2)) || (vlen == 4 && !memcmp(val, "none", 4)))
		return perr(p, EOPNOTSUPP, t, len,
			    "term 'call-graph=no' is not supported by pcl: leave -g off instead");
	return perr(p, EINVAL, t, len, "bad value '%.*s' for term 'call-graph' (fp or dwarf)",
		    (int)vlen, val);
}

static int apply_term(struct parser *p, struct pcl_event *ev, const char *t, size_t len,
		      bool from_alias)
{
	struct perf_event_attr *a = &ev->attr;
	const char *eq = memchr(t, '=', len);
	size_t klen = eq ? (size_t)(eq - t) : len;
	const char *val = eq ? eq + 1 : NULL;
	size_t vlen = eq ? len - klen - 1 : 0;
	char key[64];
	uint64_t v = 1;
	const struct pcl_pmu_format *f;
	const struct pcl_pmu_alias *alias;
	/* perf's terms that change nothing a counter or a sample holds */
	static const char *const ignored[] = { "metric-id" };
	/* perf's terms pcl does not apply per event: refused, never ignored */
	static const char *const refused[] = {
		"inherit",  "no-inherit", "overwrite",	     "no-overwrite",  "percore",
		"aux-output", "aux-sample-size", "branch_type", "driver-config",
	};

	if (!klen || klen >= sizeof(key))
		return perr(p, EINVAL, t, len, "bad term '%.*s'", (int)len, t);
	memcpy(key, t, klen);
	key[klen] = '\0';
	if (!strcmp(key, "name")) {
		if (!vlen)
			return perr(p, EINVAL, t, len, "term 'name' needs a value");
		snprintf(ev->name, sizeof(ev->name), "%.*s", (int)vlen, val);
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(ignored); i++)
		if (!strcmp(key, ignored[i]))
			return 0;
	for (size_t i = 0; i < ARRAY_SIZE(refused); i++)
		if (!strcmp(key, refused[i]))
			return perr(p, EOPNOTSUPP, t, len, "term '%s' is not supported by pcl", key);
	if (!strcmp(key, "call-graph"))
		return apply_call_graph(p, a, t, len, val, vlen);
	if (!strcmp(key, "time")) {
		if (eq && (parse_u64(val, vlen, &v) || v > 1))
			return perr(p, EINVAL, t, len, "bad value for term 'time' (0 or 1)");
		if (!v)
			return perr(p, EOPNOTSUPP, t, len,
				    "term 'time=0' is not supported by pcl: samples always carry the time");
		return 0;
	}
	if (eq && parse_u64(val, vlen, &v))
		return perr(p, EINVAL, val, vlen, "bad value '%.*s' for term '%s'", (int)vlen, val,
			    key);
	if (!strcmp(key, "config"))
		a->config = v;
	else if (!strcmp(key, "config1"))
		a->config1 = v;
	else if (!strcmp(key, "config2"))
		a->config2 = v;
#ifdef PERF_ATTR_SIZE_VER8
	else if (!strcmp(key, "config3"))
		a->config3 = v;
#endif
	else if (!strcmp(key, "period"))
		a->sample_period = v;
	else if (!strcmp(key, "max-stack")) {
		/* as in perf, a frame limit asks for the call chain too */
		if (!eq || v > UINT16_MAX)
			return perr(p, EINVAL, t, len, "bad value for term 'max-stack' (0..65535)");
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		a->sample_max_stack = (uint16_t)v;
	} else if (!strcmp(key, "stack-size")) {
		if (!eq || !v || v > STACK_SIZE_MAX)
			return perr(p, EINVAL, t, len, "bad value for term 'stack-size' (1..%u)",
				    STACK_SIZE_MAX);
		a->sample_stack_user = (uint32_t)((v + 7) & ~7ULL);
	}
	else if (!strcmp(key, "freq")) {
		a->sample_freq = v;
		a->freq = 1;
	} else if ((f = pcl_pmu__find_format(ev->pmu, key))) {
		__u64 *word[] = { &a->config, &a->config1, &a->config2, NULL };
		uint64_t cfg;

#ifdef PERF_ATTR_SIZE_VER8
		word[3] = &a->config3;
#endif
		if (!word[f->config])
			return perr(p, EOPNOTSUPP, t, len, "term '%s' needs config3", key);
		cfg = *word[f->config];
		if (pcl_pmu_format_encode(f->mask, v, &cfg))
			return perr(p, ERANGE, t, len, "value of term '%s' too big for its field",
				    key);
		*word[f->config] = cfg;
	} else if (!eq && !from_alias && (alias = pcl_pmu__find_alias(ev->pmu, key))) {
		if (alias->unit)
			ev->unit = alias->unit;
		if (alias->scale)
			ev->scale = alias->scale;
		return apply_terms(p, ev, alias->terms, strlen(alias->terms), true);
	} else {
		return perr(p, ENOENT, t, len, "unknown term '%s' for PMU '%s'", key,
			    pcl_pmu__name(ev->pmu));
	}
	return 0;
}

static int apply_terms(struct parser *p, struct pcl_event *ev, const char *terms, size_t tlen,
		       bool from_alias)
{
	const char *s = terms, *end = terms + tlen;

	while (s < end) {
		const char *c = memchr(s, ',', (size_t)(end - s));
		size_t len = c ? (size_t)(c - s) : (size_t)(end - s);
		int ret;

		while (len && isspace((unsigned char)*s)) {
			s++;
			len--;
		}
		while (len && isspace((unsigned char)s[len - 1]))
			len--;
		if (len) {
			ret = apply_term(p, ev, s, len, from_alias);
			if (ret)
				return ret;
		}
		if (!c)
			break;
		s = c + 1;
	}
	return 0;
}

static const char *closest_pmu(const char *name)
{
	static __thread char best[64];
	int bestd = 3;
	struct pcl_pmu *pmu = NULL;

	best[0] = '\0';
	while ((pmu = pcl_pmu__next(pmu))) {
		int d = edit_distance(name, pcl_pmu__name(pmu), bestd - 1);

		if (d < bestd) {
			bestd = d;
			snprintf(best, sizeof(best), "%s", pcl_pmu__name(pmu));
		}
	}
	return best[0] ? best : NULL;
}

/* "pmu/terms/" with the slashes at s[plen] and s[close]. */
/* A generic ("cpu-clock") or cache ("L1-dcache-loads") event's name. */
static bool is_legacy_name(const char *name)
{
	uint64_t config;

	return generic_event_lookup(name) || cache_event_parse(name, &config) == 0;
}

static int parse_pmu_event(struct parser *p, const char *s, size_t plen, size_t close,
			   struct pcl_event *ev)
{
	char pname[64];
	struct pcl_pmu *pmu;
	int ret;

	if (!plen || plen >= sizeof(pname))
		return perr(p, EINVAL, s, plen + 1, "bad PMU name in '%.*s'", (int)close + 1, s);
	memcpy(pname, s, plen);
	pname[plen] = '\0';
	pmu = pcl_pmu__find(pname);
	if (!pmu && is_legacy_name(pname)) {
		/* perf's "cpu-clock/period=1000/": a generic or cache event with terms */
		ret = resolve_name(p, ev, s, plen);
		return ret ? ret : apply_terms(p, ev, s + plen + 1, close - plen - 1, false);
	}
	if (!pmu) {
		const char *hint = closest_pmu(pname);

		ret = perr(p, ENOENT, s, plen, "PMU '%s' not found%s%s%s", pname,
			   hint ? "; did you mean '" : "", hint ? hint : "", hint ? "'?" : "");
		set_hint(p, hint);
		return ret;
	}
	ev->pmu = pmu;
	ev->attr.type = pcl_pmu__type(pmu);
	ret = apply_terms(p, ev, s + plen + 1, close - plen - 1, false);
	if (ret)
		return ret;
	if (pcl_pmu__ops(pmu)->event_init) {
		ret = pcl_pmu__ops(pmu)->event_init(pmu, &ev->attr);
		if (ret)
			return perr(p, -ret, s, close + 1, "PMU '%s' does not know event '%.*s'",
				    pname, (int)(close + 1), s);
	}
	return 0;
}

static int unknown_event(struct parser *p, const char *s, size_t len)
{
	char name[128];
	const char *hint;
	int ret;

	snprintf(name, sizeof(name), "%.*s", (int)len, s);
	hint = pcl_event_suggest(name);
	ret = perr(p, ENOENT, s, len, "event '%s' not found%s%s%s", name,
		   hint ? "; did you mean '" : "", hint ? hint : "", hint ? "'?" : "");
	set_hint(p, hint); /* after perr(), which resets the error */
	return ret;
}

static int tracepoint_open_id(const char *tfs, const char *sys, const char *name, uint64_t *id)
{
	char path[512];
	long long v;
	int ret;

	snprintf(path, sizeof(path), "%s/events/%s/%s/id", tfs, sys, name);
	ret = read_int_file(path, &v);
	if (ret)
		return ret;
	*id = (uint64_t)v;
	return 0;
}

/*
 * The "ID:" line of a tracepoint's format file. ftrace's own events
 * (ftrace:bprint, ftrace:funcgraph_entry ...) have a format but no id file:
 * perf lists only events with an id, yet takes a named one's id from its
 * format, so perf stat prints it <not supported> (the kernel refuses it
 * with EINVAL) and perf record fails. Reading the same id does the same.
 */
static int tracepoint_format_id(const char *tfs, const char *sys, const char *name, uint64_t *id)
{
	char path[512], buf[256], *end;
	const char *line;
	int ret;

	snprintf(path, sizeof(path), "%s/events/%s/%s/format", tfs, sys, name);
	ret = read_small_file(path, buf, sizeof(buf));
	if (ret < 0)
		return ret;
	line = strstr(buf, "\nID: ");
	if (!line)
		return -ENOENT;
	*id = strtoull(line + 5, &end, 10);
	return end == line + 5 ? -ENOENT : 0;
}

int tracepoint_id(const char *sys, const char *name, uint64_t *id)
{
	const char *tfs = pcl_tracefs(true);

	if (!tfs)
		return -ENOENT;
	return tracepoint_open_id(tfs, sys, name, id);
}

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static int add_tracepoint(struct parser *p, const char *sys, const char *name, const char *mods,
			  size_t mlen, uint64_t id)
{
	struct pcl_event *ev = new_event(p);

	if (!ev)
		return -ENOMEM;
	ev->attr.type = PERF_TYPE_TRACEPOINT;
	ev->attr.config = id;
	ev->attr.sample_period = 1;
	ev->pmu = pmu_tracepoint();
	snprintf(ev->name, sizeof(ev->name), "%s:%s%s%.*s", sys, name, mlen ? ":" : "", (int)mlen,
		 mods);
	apply_mods(ev, mods, mlen);
	return 0;
}

/* Every tracepoint matching sys:name (either may be a glob). */
static int parse_tracepoint(struct parser *p, const char *tok, size_t toklen, const char *sys,
			    const char *name, const char *mods, size_t mlen)
{
	const char *tfs = pcl_tracefs(true);
	char path[512];
	DIR *sd, *nd;
	struct dirent *se, *ne;
	int found = 0, ret = 0;
	uint64_t id;

	if (!tfs && errno == EACCES)
		return perr(p, EACCES, tok, toklen,
			    "tracepoint '%s:%s': this user may not read tracefs (run as root, or "
			    "make /sys/kernel/tracing readable)",
			    sys, name);
	if (!tfs)
		return perr(p, ENOENT, tok, toklen,
			    "tracepoint '%s:%s': tracefs is not mounted (mount -t tracefs nodev "
			    "/sys/kernel/tracing)",
			    sys, name);
	if (!has_glob(sys) && !has_glob(name)) {
		ret = tracepoint_open_id(tfs, sys, name, &id);
		if (ret == -ENOENT)
			ret = tracepoint_format_id(tfs, sys, name, &id);
		if (ret == -EACCES || ret == -EPERM)
			return perr(p, EACCES, tok, toklen,
				    "tracepoint '%s:%s': no permission to read tracefs", sys, name);
		if (ret)
			return unknown_event(p, tok, toklen);
		return add_tracepoint(p, sys, name, mods, mlen, id);
	}
	snprintf(path, sizeof(path), "%s/events", tfs);
	sd = opendir(path);
	if (!sd)
		return perr(p, -errno ? errno : ENOENT, tok, toklen, "cannot read '%s'", path);
	while (!ret && (se = readdir(sd))) {
		if (se->d_name[0] == '.' || fnmatch(sys, se->d_name, 0))
			continue;
		snprintf(path, sizeof(path), "%s/events/%s", tfs, se->d_name);
		nd = opendir(path);
		if (!nd)
			continue;
		while (!ret && (ne = readdir(nd))) {
			if (ne->d_name[0] == '.' || fnmatch(name, ne->d_name, 0) ||
			    tracepoint_open_id(tfs, se->d_name, ne->d_name, &id))
				continue;
			ret = add_tracepoint(p, se->d_name, ne->d_name, mods, mlen, id);
			found++;
		}
		closedir(nd);
	}
	closedir(sd);
	if (!ret && !found)
		return perr(p, ENOENT, tok, toklen, "no tracepoint matches '%s:%s'", sys, name);
	return ret;
}

/* mem:ADDR[/LEN][:rwx] or mem:ADDR[:rwx][/LEN], then [:mods] */
static int parse_breakpoint(struct parser *p, const char *s, size_t len)
{
	const char *q = s + 4, *end = s + len, *num = q;
	struct pcl_event *ev;
	uint64_t addr, blen = 0;
	int bp_type = 0;
	const char *mods = NULL;
	size_t mlen = 0;

	while (q < end && *q != ':' && *q != '/')
		q++;
	if (parse_u64(num, (size_t)(q - num), &addr))
		return perr(p, EINVAL, num, (size_t)(q - num), "bad breakpoint address '%.*s'",
			    (int)(q - num), num);
	while (q < end) {
		const char *f = ++q;

		while (q < end && *q != ':' && *q != '/')
			q++;
		if (f[-1] == '/') {
			if (blen || parse_u64(f, (size_t)(q - f), &blen) ||
			    (blen != 1 && blen != 2 && blen != 4 && blen != 8))
				return perr(p, EINVAL, f, (size_t)(q - f),
					    "bad breakpoint length '%.*s' (1, 2, 4 or 8)",
					    (int)(q - f), f);
		} else if (!bp_type && !mods && q > f && strspn(f, "rwx") >= (size_t)(q - f)) {
			for (const char *c = f; c < q; c++)
				bp_type |= *c == 'r'   ? HW_BREAKPOINT_R
					   : *c == 'w' ? HW_BREAKPOINT_W
						       : HW_BREAKPOINT_X;
		} else if (!mods && q == end && is_mod_string(f, (size_t)(q - f))) {
			mods = f;
			mlen = (size_t)(q - f);
		} else {
			return perr(p, EINVAL, f, (size_t)(q - f),
				    "bad breakpoint access '%.*s' (r, w, x or a mix)", (int)(q - f),
				    f);
		}
	}
	if (!bp_type)
		bp_type = HW_BREAKPOINT_R | HW_BREAKPOINT_W;
	if ((bp_type & HW_BREAKPOINT_X) && (bp_type & HW_BREAKPOINT_RW))
		return perr(p, EINVAL, s, len, "breakpoint '%.*s' cannot mix x with r or w",
			    (int)len, s);
	if (!blen)
		blen = bp_type == HW_BREAKPOINT_X ? sizeof(long) : HW_BREAKPOINT_LEN_4;
	ev = new_event(p);
	if (!ev)
		return -ENOMEM;
	ev->attr.type = PERF_TYPE_BREAKPOINT;
	ev->attr.bp_type = (uint32_t)bp_type;
	ev->attr.bp_addr = addr;
	ev->attr.bp_len = blen;
	ev->attr.sample_period = 1;
	ev->pmu = pmu_breakpoint();
	set_name(ev, s, len);
	apply_mods(ev, mods, mlen);
	return 0;
}

/*
 * u:BIN:FUNC[+OFF][%return][/terms/][:mods]: the uprobe PMU opened directly, as
 * perf_event_open(2) describes (config1 the path, config2 the file offset,
 * the retprobe format bit for %return): no tracefs event is made, so
 * nothing is left to clean up. BIN is resolved as pcl probe -x does.
 */
static int parse_uprobe(struct parser *p, const char *s, size_t len)
{
	char spec[1024], bin[4096], *func, *mods = NULL, *pct, *plus, *last, *terms;
	const struct pcl_pmu_format *fmt;
	struct pcl_pmu *pmu;
	struct pcl_event *ev;
	uint64_t off, add = 0;
	const char *path;
	bool ret = false;

	if (len >= sizeof(spec))
		return perr(p, EINVAL, s, len, "uprobe '%.*s' is too long", (int)len, s);
	snprintf(spec, sizeof(spec), "%.*s", (int)len - 2, s + 2);
	func = strchr(spec, ':');
	if (!func || func == spec || !func[1])
		return perr(p, EINVAL, s, len, "bad uprobe '%.*s' (u:BIN:FUNC[%%return])", (int)len, s);
	*func++ = '\0';
	/* FUNC/terms/[mods], as an event's terms */
	terms = strchr(func, '/');
	if (terms) {
		char *close = strchr(terms + 1, '/');

		if (!close)
			return perr(p, EINVAL, s, len, "uprobe '%.*s': terms not closed with '/'",
				    (int)len, s);
		*terms++ = '\0';
		*close = '\0';
		if (close[1] == ':' && !close[2])
			return perr(p, EINVAL, s, len, "uprobe '%.*s': no modifier after ':'", (int)len,
				    s);
		if (close[1] == ':')
			close++;
		if (close[1] && !is_mod_string(close + 1, strlen(close + 1)))
			return perr(p, EINVAL, s, len, "uprobe '%.*s': bad modifier '%s'", (int)len,
				    s, close + 1);
		if (close[1])
			mods = close + 1;
	}
	last = strrchr(func, ':');
	if (!terms && last && last > func && last[-1] != ':' &&
	    is_mod_string(last + 1, strlen(last + 1))) {
		*last = '\0';
		mods = last + 1;
	}
	pct = strchr(func, '%');
	if (pct) {
		if (strcmp(pct, "%return"))
			return perr(p, EINVAL, s, len, "bad uprobe '%.*s': only %%return may follow FUNC",
				    (int)len, s);
		*pct = '\0';
		ret = true;
	}
	plus = strchr(func, '+');
	if (plus) {
		if (parse_u64(plus + 1, strlen(plus + 1), &add))
			return perr(p, EINVAL, s, len, "bad uprobe offset '%s'", plus + 1);
		*plus = '\0';
	}
	if (!*func)
		return perr(p, EINVAL, s, len, "bad uprobe '%.*s': no function", (int)len, s);
	pmu = pcl_pmu__find("uprobe");
	if (!pmu)
		return perr(p, ENOENT, s, len,
			    "uprobe '%.*s': this kernel has no uprobe PMU "
			    "(/sys/bus/event_source/devices/uprobe)",
			    (int)len, s);
	if (probe_resolve_bin(spec, bin, sizeof(bin)))
		return perr(p, ENOENT, s, len, "uprobe '%.*s': %s", (int)len, s, pcl_last_error());
	if (probe_func_offset(bin, func, add, plus != NULL, &off))
		return perr(p, ENOENT, s, len, "uprobe '%.*s': %s", (int)len, s, pcl_last_error());
	path = probe_intern(bin);
	if (!path)
		return -ENOMEM;
	ev = new_event(p);
	if (!ev)
		return -ENOMEM;
	ev->attr.type = pcl_pmu__type(pmu);
	ev->attr.config1 = (uint64_t)(uintptr_t)path;
	ev->attr.config2 = off;
	ev->attr.sample_period = 1;
	ev->pmu = pmu;
	if (ret) {
		uint64_t cfg = 0;

		fmt = pcl_pmu__find_format(pmu, "retprobe");
		if (fmt && fmt->config == 0 && !pcl_pmu_format_encode(fmt->mask, 1, &cfg))
			ev->attr.config |= cfg;
		else
			return perr(p, ENOTSUP, s, len,
				    "uprobe '%.*s': the uprobe PMU has no retprobe format bit",
				    (int)len, s);
	}
	set_name(ev, s, len);
	apply_mods(ev, mods, mods ? strlen(mods) : 0);
	return terms ? apply_terms(p, ev, terms, strlen(terms), false) : 0;
}

/* Find the slash that closes "pmu/" at s[open], or 0. */
static size_t closing_slash(const char *s, size_t len, size_t open)
{
	for (size_t i = open + 1; i < len; i++)
		if (s[i] == '/')
			return i;
	return 0;
}

static size_t ident_len(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && (isalnum((unsigned char)s[i]) || strchr("_-.", s[i])))
		i++;
	return i;
}

/* "pmu/terms/[:]mods" with the slashes at s[id] and s[close]. */
static int parse_pmu_item(struct parser *p, const char *s, size_t len, size_t id, size_t close)
{
	const char *mods = s + close + 1;
	size_t mlen = len - close - 1;
	struct pcl_event *ev;
	int ret;

	if (mlen && *mods == ':') {
		mods++;
		mlen--;
	}
	if (mlen && !is_mod_string(mods, mlen))
		return perr(p, EINVAL, mods, mlen, "bad modifier '%.*s'", (int)mlen, mods);
	if (!(ev = new_event(p)))
		return -ENOMEM;
	ret = parse_pmu_event(p, s, id, close, ev);
	if (ret)
		return ret;
	if (!ev->name[0])
		set_name(ev, s, len);
	apply_mods(ev, mods, mlen);
	return 0;
}

/* A bare alias of some PMU ("tsc", "duration_time"): as pmu/alias/. */
static int resolve_alias(struct parser *p, struct pcl_event *ev, const char *s, size_t nlen)
{
	const struct pcl_pmu_alias *alias;
	char name[128];
	int ret;

	snprintf(name, sizeof(name), "%.*s", (int)nlen, s);
	ev->pmu = pmu_find_alias_anywhere(name, &alias);
	ev->attr.type = pcl_pmu__type(ev->pmu);
	ret = apply_term(p, ev, name, nlen, false);
	if (!ret && pcl_pmu__ops(ev->pmu)->event_init &&
	    pcl_pmu__ops(ev->pmu)->event_init(ev->pmu, &ev->attr))
		ret = unknown_event(p, s, nlen);
	return ret;
}

/*
 * "sys:name/terms/[:mods]" (perf's -e probe_libc:inet_pton/max-stack=3/):
 * the tracepoint, then the terms applied to each event it matched.
 */
static int parse_tracepoint_terms(struct parser *p, const char *s, size_t len, const char *colon,
				  const char *slash)
{
	const char *close = memchr(slash + 1, '/', len - (size_t)(slash + 1 - s));
	const char *mods = close ? close + 1 : NULL;
	size_t mlen = close ? len - (size_t)(mods - s) : 0;
	size_t slen = (size_t)(colon - s), nlen = (size_t)(slash - colon - 1);
	char sys[128], name[256];
	int first = p->out->nr, ret;

	if (!close || !slen || !nlen || slen >= sizeof(sys) || nlen >= sizeof(name) ||
	    memchr(colon + 1, ':', nlen))
		return perr(p, EINVAL, s, len, "bad tracepoint '%.*s'", (int)len, s);
	if (mlen && *mods == ':') {
		mods++;
		mlen--;
	}
	if (mlen && !is_mod_string(mods, mlen))
		return perr(p, EINVAL, mods, mlen, "bad modifier '%.*s'", (int)mlen, mods);
	snprintf(sys, sizeof(sys), "%.*s", (int)slen, s);
	snprintf(name, sizeof(name), "%.*s", (int)nlen, colon + 1);
	ret = parse_tracepoint(p, s, len, sys, name, mlen ? mods : NULL, mlen);
	for (int i = first; !ret && i < p->out->nr; i++)
		ret = apply_terms(p, &p->out->ev[i], slash + 1, (size_t)(close - slash - 1), false);
	return ret;
}

/* "sys:name[:mods]" with the first colon at @colon. */
static int parse_tracepoint_item(struct parser *p, const char *s, size_t len, const char *colon)
{
	char sys[128], name[256];
	const char *n = colon + 1, *c2 = memchr(n, ':', len - (size_t)(n - s));
	size_t nlen = c2 ? (size_t)(c2 - n) : len - (size_t)(n - s);
	size_t mlen = c2 ? len - (size_t)(c2 + 1 - s) : 0;

	if ((size_t)(colon - s) >= sizeof(sys) || nlen >= sizeof(name) || !nlen || colon == s ||
	    memchr(s, '/', len))
		return perr(p, EINVAL, s, len, "bad tracepoint '%.*s'", (int)len, s);
	if (c2 && !is_mod_string(c2 + 1, mlen))
		return perr(p, EINVAL, c2 + 1, mlen, "bad modifier '%.*s'", (int)mlen, c2 + 1);
	snprintf(sys, sizeof(sys), "%.*s", (int)(colon - s), s);
	snprintf(name, sizeof(name), "%.*s", (int)nlen, n);
	return parse_tracepoint(p, s, len, sys, name, c2 ? c2 + 1 : NULL, mlen);
}

/* One event (not a group). */
static int parse_one(struct parser *p, const char *s, size_t len)
{
	size_t id = ident_len(s, len), close, nlen, mlen;
	struct pcl_event *ev;
	const char *colon;
	int ret;

	if (!len)
		return perr(p, EINVAL, s, 0, "empty event");
	if (len > 4 && !strncmp(s, "mem:", 4))
		return parse_breakpoint(p, s, len);
	if (len > 2 && !strncmp(s, "u:", 2))
		return parse_uprobe(p, s, len);
	if (id < len && s[id] == '/' && (close = closing_slash(s, len, id)))
		return parse_pmu_item(p, s, len, id, close);
	colon = memchr(s, ':', len);
	nlen = colon ? (size_t)(colon - s) : len;
	mlen = colon ? len - nlen - 1 : 0;
	if (!(ev = new_event(p)))
		return -ENOMEM;
	ret = resolve_name(p, ev, s, nlen);
	if (ret == -EAGAIN)
		ret = resolve_alias(p, ev, s, nlen);
	if (ret == 0) {
		if (colon && !is_mod_string(colon + 1, mlen))
			return perr(p, EINVAL, colon + 1, mlen, "bad modifier '%.*s' on '%.*s'",
				    (int)mlen, colon + 1, (int)nlen, s);
		set_name(ev, s, len);
		apply_mods(ev, colon ? colon + 1 : NULL, mlen);
		return 0;
	}
	if (ret != -ENOENT)
		return ret;
	p->out->nr--; /* not a name: drop the event we reserved */
	if (colon && memchr(colon, '/', len - nlen))
		return parse_tracepoint_terms(p, s, len, colon,
					      memchr(colon, '/', len - nlen));
	if (colon)
		return parse_tracepoint_item(p, s, len, colon);
	return unknown_event(p, s, len);
}

/*
 * Whether the slash at @s[@n] of a "u:BIN:FUNC..." item opens FUNC's terms:
 * BIN (which may hold slashes) is closed by a colon, and no slash came
 * after it.
 */
static bool uprobe_terms_at(const char *s, size_t n)
{
	const char *bin_end = memchr(s + 2, ':', n - 2);

	return bin_end && !memchr(bin_end, '/', n - (size_t)(bin_end - s));
}

/* Length of the next top-level item of s[0..len). */
static size_t item_len(const char *s, size_t len)
{
	int depth = 0;
	bool slash = false;
	size_t i;

	for (i = 0; i < len; i++) {
		char c = s[i];

		if (slash) {
			if (c == '/')
				slash = false;
		} else if (c == '{') {
			depth++;
		} else if (c == '}') {
			depth--;
		} else if (c == '/') {
			/* a slash after an identifier opens pmu terms, unless in mem:ADDR/LEN */
			size_t start = i;

			while (start && s[start - 1] != ',' && s[start - 1] != '{')
				start--;
			/* "a, b/terms/": the item starts after the blanks */
			while (start < i && isspace((unsigned char)s[start]))
				start++;
			size_t il = ident_len(s + start, i - start);

			/* ... as does one after a tracepoint's "sys:name" */
			if (il < i - start && s[start + il] == ':' && il &&
			    ident_len(s + start + il + 1, i - start - il - 1) == i - start - il - 1)
				il = i - start;
			if (strncmp(s + start, "mem:", 4) && strncmp(s + start, "u:", 2) &&
			    il == i - start)
				slash = true;
			/* u:BIN:FUNC/terms/: BIN may be a path; a slash after FUNC opens terms */
			if (!strncmp(s + start, "u:", 2) && uprobe_terms_at(s + start, i - start))
				slash = true;
		} else if (c == ',' && depth == 0) {
			break;
		}
	}
	return i;
}

static void trim(const char **s, size_t *len)
{
	while (*len && isspace((unsigned char)**s)) {
		(*s)++;
		(*len)--;
	}
	while (*len && isspace((unsigned char)(*s)[*len - 1]))
		(*len)--;
}

/*
 * perf on a host excludes the guest from an event given without modifiers;
 * an event with its own modifiers gets exclusion from them alone (u and p
 * exclude the guest, k and h do not). Group modifiers come after this.
 */
static void default_exclude_guest(struct parser *p, int idx)
{
	struct pcl_event *ev = &p->out->ev[idx];

	if (!ev->modifiers[0])
		ev->attr.exclude_guest = 1;
}

static int parse_group(struct parser *p, const char *s, size_t len)
{
	const char *close = NULL, *mods = NULL, *q;
	size_t mlen = 0, inner_len;
	int first = p->out->nr, ret;

	for (q = s + len; q > s; q--) {
		if (q[-1] == '}') {
			close = q - 1;
			break;
		}
	}
	if (!close)
		return perr(p, EINVAL, s, len, "group '%.*s' is not closed with '}'", (int)len, s);
	if (close + 1 < s + len) {
		mods = close + 1;
		mlen = (size_t)(s + len - mods);
		if (*mods != ':' || !is_mod_string(mods + 1, mlen - 1))
			return perr(p, EINVAL, mods, mlen, "bad group modifier '%.*s'", (int)mlen,
				    mods);
		mods++;
		mlen--;
	}
	q = s + 1;
	inner_len = (size_t)(close - q);
	if (!inner_len)
		return perr(p, EINVAL, s, len, "empty group");
	while (inner_len) {
		size_t il = item_len(q, inner_len);
		const char *it = q;
		size_t tl = il;

		trim(&it, &tl);
		if (tl && *it == '{')
			return perr(p, EINVAL, it, tl, "groups cannot nest");
		int before = p->out->nr;

		ret = parse_one(p, it, tl);
		if (ret)
			return ret;
		for (int i = before; i < p->out->nr; i++)
			default_exclude_guest(p, i);
		q += il;
		inner_len -= il;
		if (inner_len) {
			q++;
			inner_len--;
			if (!inner_len)
				return perr(p, EINVAL, q, 0, "trailing ',' in group");
		}
	}
	for (int i = first; i < p->out->nr; i++) {
		struct pcl_event *ev = &p->out->ev[i];

		ev->leader = first;
		/* perf names members as typed: the group's modifiers do not show */
		apply_mods(ev, mods, mlen);
	}
	p->out->ev[first].nr_members = p->out->nr - first;
	return 0;
}

/*
 * Append modifier letters to a name so that it parses back: after the
 * event's own modifiers, after a PMU event's closing slash, else after ':'.
 */
void event_name_add_mods(struct pcl_event *ev, const char *mods, size_t mlen)
{
	size_t nl = strlen(ev->name);
	bool glue = ev->modifiers[0] || (nl && ev->name[nl - 1] == '/');

	snprintf(ev->name + nl, sizeof(ev->name) - nl, "%s%.*s", glue ? "" : ":", (int)mlen, mods);
}

PCL_API int pcl_parse_events(struct pcl_events *list, const char *spec, struct pcl_parse_error *err)
{
	struct pcl_events staged = { 0 };
	struct parser p = { .spec = spec, .out = &staged, .err = err };
	const char *s = spec;
	size_t len;
	int ret = 0;

	if (err) {
		memset(err, 0, sizeof(*err));
		err->pos = -1;
	}
	if (!list || !spec)
		return pcl_err(EINVAL, "pcl_parse_events: invalid argument");
	len = strlen(spec);
	if (!len)
		return perr(&p, EINVAL, spec, 0, "empty event list");
	while (len) {
		size_t il = item_len(s, len);
		const char *it = s;
		size_t tl = il;

		trim(&it, &tl);
		if (!tl) {
			ret = perr(&p, EINVAL, it, 0, "empty event in list");
			goto out;
		}
		if (*it == '{') {
			ret = parse_group(&p, it, tl);
		} else {
			int first = staged.nr;

			ret = parse_one(&p, it, tl);
			for (int i = first; !ret && i < staged.nr; i++)
				default_exclude_guest(&p, i);
		}
		if (ret)
			goto out;
		s += il;
		len -= il;
		if (len) {
			s++;
			len--;
			if (!len) {
				ret = perr(&p, EINVAL, s, 0, "trailing ',' in event list");
				goto out;
			}
		}
	}
	/* commit: append with leader indices rebased */
	if (grow_array((void **)&list->ev, &list->alloc, list->nr + staged.nr, sizeof(*list->ev))) {
		ret = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < staged.nr; i++) {
		list->ev[list->nr + i] = staged.ev[i];
		list->ev[list->nr + i].leader += list->nr;
	}
	list->nr += staged.nr;
	ret = staged.nr;
out:
	free(staged.ev);
	return ret;
}

PCL_API void pcl_events__clear(struct pcl_events *list)
{
	if (!list)
		return;
	free(list->ev);
	memset(list, 0, sizeof(*list));
}
