/* SPDX-License-Identifier: MIT */
/*
 * The metric formula evaluator on made-up event values (no PMU needed: this
 * is arithmetic), its errors, the event names it finds in a formula, the
 * scale units, and the invariants of the metric table: sorted names, every
 * formula's events in its CPU's event list, perf 6.1's 13 metrics in 6
 * groups for AMD family 25, and no metrics for a CPU the table lacks.
 */
#include <math.h>
#include <stdlib.h>
#include <pcl/pcl.h>
#include "event/metrics.h"
#include "unit.h"

static const struct {
	const char *name;
	double value;
} vars[] = {
	{ "a", 10 },
	{ "b", 4 },
	{ "zero", 0 },
	{ "l2_pf_hit_l2", 1000 },
	{ "ic_tag_hit_miss.instruction_cache_miss", 25 },
	{ "ic_tag_hit_miss.all", 200 },
	{ "x_1", 2.5 },
};

static int lookup(void *ctx, const char *name, double *v)
{
	(void)ctx;
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		if (!strcmp(vars[i].name, name)) {
			*v = vars[i].value;
			return 0;
		}
	}
	return -ENOENT;
}

static void test_eval(void **state)
{
	static const struct {
		const char *expr;
		double want;
	} rows[] = {
		{ "a + b", 14 },
		{ "a - b - 1", 5 },  /* left to right */
		{ "a * b + 2", 42 }, /* * before + */
		{ "2 + a * b", 42 },
		{ "(2 + a) * b", 48 },
		{ "a / b", 2.5 },
		{ "a / b / 5", 0.5 }, /* left to right */
		{ "-a + b", -6 },
		{ "a * -b", -40 },
		{ "--a", 10 },
		{ "1e3 + 0.5", 1000.5 },
		{ "3e-5 * l2_pf_hit_l2", 0.03 },
		{ "d_ratio(a, b)", 2.5 },
		{ "d_ratio(a, zero)", 0 }, /* perf's d_ratio: 0, not an error */
		{ "d_ratio(ic_tag_hit_miss.instruction_cache_miss, ic_tag_hit_miss.all)", 0.125 },
		{ "min(a, b) + max(a, b)", 14 },
		{ "(x_1 * 16) / b", 10 },
		{ "  a\t+\nb ", 14 },
		{ "((((a))))", 10 },
	};
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		double got = NAN;
		int ret = pcl_metric_expr_eval(rows[i].expr, lookup, NULL, &got);

		if (ret || fabs(got - rows[i].want) > 1e-9 * fmax(1, fabs(rows[i].want))) {
			print_error("'%s': ret %d, got %g, want %g\n", rows[i].expr, ret, got,
				    rows[i].want);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

static void test_eval_errors(void **state)
{
	static const struct {
		const char *expr;
		int want;
	} rows[] = {
		{ "", -EINVAL },
		{ "a +", -EINVAL },
		{ "(a + b", -EINVAL },
		{ "a b", -EINVAL },
		{ "a + b)", -EINVAL },
		{ "d_ratio(a)", -EINVAL },
		{ "d_ratio(a, b, a)", -EINVAL },
		{ "nosuchfn(a, b)", -EINVAL },
		{ "a / zero", -EDOM },
		{ "a / (b - 4)", -EDOM },
		{ "unknown_event + 1", -ENOENT },
		{ "a $ b", -EINVAL },
		/* unclosed at the very end: the parser must stop at the NUL */
		{ "(", -EINVAL },
		{ "((a", -EINVAL },
		{ "d_ratio(a,", -EINVAL },
		{ "min(", -EINVAL },
		{ "-", -EINVAL },
	};
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		double got = 12345;
		int ret = pcl_metric_expr_eval(rows[i].expr, lookup, NULL, &got);

		if (ret != rows[i].want || got != 12345) {
			print_error("'%s': ret %d (want %d), out %g (want untouched)\n",
				    rows[i].expr, ret, rows[i].want, got);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

struct names {
	char buf[512];
	int n;
};

static int collect(void *ctx, const char *name)
{
	struct names *nm = ctx;

	snprintf(nm->buf + strlen(nm->buf), sizeof(nm->buf) - strlen(nm->buf), "%s%s",
		 nm->n++ ? " " : "", name);
	return 0;
}

static void test_events(void **state)
{
	struct names nm = { "", 0 };

	(void)state;
	assert_int_equal(pcl_metric_expr_events("d_ratio(ex_ret_brn_misp, ex_ret_brn) * 3e-5 + "
						"max(ex_ret_brn, a.b.c) / 16",
						collect, &nm),
			 0);
	/* functions and numbers (3e-5 is not an event 'e') left out; each name once */
	assert_string_equal(nm.buf, "ex_ret_brn_misp ex_ret_brn a.b.c");
}

static void test_scale(void **state)
{
	double s;
	const char *u;

	(void)state;
	assert_int_equal(pcl_metric_scale("100%", &s, &u), 0);
	assert_true(s == 100);
	assert_string_equal(u, "%");
	assert_int_equal(pcl_metric_scale("3e-5MiB", &s, &u), 0);
	assert_true(fabs(s - 3e-5) < 1e-15);
	assert_string_equal(u, "MiB");
	assert_int_equal(pcl_metric_scale("1core clocks", &s, &u), 0);
	assert_true(s == 1);
	assert_string_equal(u, "core clocks");
	assert_int_equal(pcl_metric_scale(NULL, &s, &u), 0);
	assert_true(s == 1);
	assert_string_equal(u, "");
	assert_int_equal(pcl_metric_scale("MiB", &s, &u), -EINVAL);
}

static int in_events(void *ctx, const char *name)
{
	const struct metric_cpu *c = ctx;

	for (size_t i = 0; i < c->nr_events; i++)
		if (!strcmp(c->events[i].name, name))
			return 0;
	print_error("%s: event '%s' of a formula is not in the event list\n", c->name, name);
	return -ENOENT;
}

static int one(void *ctx, const char *name, double *v)
{
	(void)ctx;
	(void)name;
	*v = 1;
	return 0;
}

/* Every entry of the table: sorted, each formula parses, each event known. */
static void test_table(void **state)
{
	(void)state;
	assert_true(metric_cpu_table_size() > 0);
	for (size_t t = 0; t < metric_cpu_table_size(); t++) {
		const struct metric_cpu *c = metric_cpu_entry(t);

		for (size_t i = 0; i < c->nr_metrics; i++) {
			const struct pcl_metric *m = &c->metrics[i];
			double v, s;
			const char *u;

			if (i)
				assert_true(strcmp(c->metrics[i - 1].name, m->name) < 0);
			assert_non_null(m->group);
			assert_non_null(m->desc);
			assert_int_equal(pcl_metric_expr_events(m->expr, in_events, (void *)c), 0);
			assert_int_equal(pcl_metric_expr_eval(m->expr, one, NULL, &v), 0);
			assert_int_equal(pcl_metric_scale(m->scale_unit, &s, &u), 0);
		}
	}
}

/* perf 6.1 on AMD family 25: 13 metrics in 6 groups; other CPUs: none. */
static void test_this_cpu(void **state)
{
	static const char *const groups[] = { "branch_prediction", "data_fabric", "decoder",
					      "l2_cache",	   "l3_cache",	  "tlb" };
	const struct pcl_metric *m;
	int n = 0, seen[6] = { 0 };

	(void)state;
	assert_null(metric_cpu_match("GenuineIntel", 6, 85));
	assert_null(metric_cpu_match("AuthenticAMD", 23, 49));
	assert_non_null(metric_cpu_match("AuthenticAMD", 25, 17));
	/* PCL_CPUID is read once, at the first use (main sets it) */
	assert_string_equal(pcl_metric_table(), "AMD family 19h");
	for (; (m = pcl_metrics(n)); n++)
		for (int g = 0; g < 6; g++)
			seen[g] += !strcmp(m->group, groups[g]);
	assert_int_equal(n, 13);
	for (int g = 0; g < 6; g++)
		assert_true(seen[g] > 0);
	m = pcl_metric__find("branch_misprediction_ratio");
	assert_non_null(m);
	assert_string_equal(m->expr, "d_ratio(ex_ret_brn_misp, ex_ret_brn)");
	assert_null(pcl_metric__find("branch_misprediction"));
}

/* On a Zen 4 (what libpfm4 4.13 makes of family 25 model 16-31): libpfm's codes are the PPR's. */
static void test_named_events(void **state)
{
	static const struct {
		const char *name;
		uint64_t config;
	} rows[] = {
		{ "ex_ret_brn", 0xc2 },
		{ "l2_pf_hit_l2", 0xff70 },
		{ "l2_request_g1.all_no_prefetch", 0xf960 },
		{ "l2_cache_req_stat.ic_dc_miss_in_l2", 0x0964 },
		{ "ic_tag_hit_miss.instruction_cache_miss", 0x10000188eull },
		{ "op_cache_hit_miss.all_op_cache_accesses", 0x20000078full },
		{ "bp_l1_tlb_miss_l2_tlb_miss", 0x0f85 },
	};
	char line[256];
	FILE *f = fopen("/proc/cpuinfo", "r");
	int family = -1, model = -1, bad = 0;

	(void)state;
	while (f && fgets(line, sizeof(line), f) && (family < 0 || model < 0)) {
		if (!strncmp(line, "cpu family", 10))
			family = atoi(strchr(line, ':') + 1);
		else if (!strncmp(line, "model\t", 6))
			model = atoi(strchr(line, ':') + 1);
	}
	if (f)
		fclose(f);
	if (family != 25 || model < 16 || model > 31) {
		print_message("skip: not an AMD family 25 model 16-31 (Zen 4)\n");
		skip();
	}
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct pcl_events list = { 0 };
		struct pcl_parse_error err;
		int ret = pcl_parse_events(&list, rows[i].name, &err);

		if (ret < 0 || list.nr != 1 || list.ev[0].attr.type != PERF_TYPE_RAW ||
		    list.ev[0].attr.config != rows[i].config) {
			print_error("%s: ret %d, type %u config %#llx (want raw %#llx)\n",
				    rows[i].name, ret, list.nr ? list.ev[0].attr.type : 0,
				    list.nr ? (unsigned long long)list.ev[0].attr.config : 0ull,
				    (unsigned long long)rows[i].config);
			bad++;
		}
		pcl_events__clear(&list);
	}
	/* each core event's libpfm spec and its core PMU codes (the fallback) agree */
	for (size_t i = 0; i < metric_this_cpu()->nr_events; i++) {
		const struct metric_event *me = &metric_this_cpu()->events[i];
		const char *raw = strstr(me->spec, "|cpu/event=");
		unsigned long long ev = 0, umask = 0, want;
		struct pcl_events list = { 0 };
		struct pcl_parse_error err;

		if (!raw)
			continue;
		assert_true(sscanf(raw, "|cpu/event=%llx,umask=%llx", &ev, &umask) >= 1);
		/* AMD's PerfEvtSel: event bits 0-7 and 32-35, unit mask 8-15 */
		want = (ev & 0xff) | ((ev >> 8) << 32) | (umask << 8);
		if (pcl_parse_events(&list, me->name, &err) < 0 || list.ev[0].attr.config != want) {
			print_error("%s: libpfm gives %#llx, the table's codes %#llx\n", me->name,
				    list.nr ? (unsigned long long)list.ev[0].attr.config : 0ull,
				    want);
			bad++;
		}
		pcl_events__clear(&list);
	}
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eval),	     cmocka_unit_test(test_eval_errors),
		cmocka_unit_test(test_events),	     cmocka_unit_test(test_scale),
		cmocka_unit_test(test_table),	     cmocka_unit_test(test_this_cpu),
		cmocka_unit_test(test_named_events),
	};

	setenv("PCL_CPUID", "AuthenticAMD-25-17", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
