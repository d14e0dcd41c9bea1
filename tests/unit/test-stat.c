/* SPDX-License-Identifier: MIT */
/*
 * The stat output layer on counts this VM cannot produce: a user-space PMU
 * registered through pcl_pmu_register() returns chosen val/ena/run, so the
 * multiplexing column, <not counted>, the CSV/JSON fields, repeat noise and
 * the derived metrics are checked against perf 6.1's layout exactly.
 */
#include <stdlib.h>
#include <pcl/pcl.h>
#include "output/stat-metrics.h"
#include "unit.h"

static struct pcl_count fake_value[4];
static uint64_t fake_step = 100; /* fakestat/mux/ grows by this each run */

static int fake_add(struct pcl_counter *c)
{
	c->fd = -1;
	return 0;
}

static int fake_read(struct pcl_counter *c, struct pcl_count *out)
{
	*out = fake_value[c->attr->config & 3];
	return 0;
}

static const struct pcl_pmu_ops fake_ops = {
	.sz = sizeof(struct pcl_pmu_ops),
	.add = fake_add,
	.read = fake_read,
};

static const struct pcl_pmu_alias fake_aliases[] = {
	{ "mux", "config=1", NULL, 1.0, "multiplexed half the time" },
	{ "idle", "config=2", NULL, 1.0, "never scheduled" },
	{ "joules", "config=3", "Joules", 0.5, "scaled, with a unit" },
};

static struct pcl_evlist *open_fake(const char *events)
{
	static bool registered;
	struct pcl_pmu_desc d = {
		.sz = sizeof(d), .name = "fakestat", .ops = &fake_ops, .aliases = fake_aliases,
		.nr_aliases = 3,
	};
	struct pcl_target t = { .sz = sizeof(t), .tid = NULL };
	struct pcl_evlist *el;
	struct pcl_parse_error err;
	char self[32];

	if (!registered) {
		assert_non_null(pcl_pmu_register(&d));
		registered = true;
	}
	snprintf(self, sizeof(self), "%d", (int)getpid());
	t.tid = self;
	el = pcl_evlist__new();
	assert_non_null(el);
	assert_true(pcl_evlist__add(el, events, &err) > 0);
	assert_int_equal(pcl_evlist__open(el, &t, NULL), 0);
	return el;
}

/* Print one run of @el with @cfg into a string (caller frees). */
static char *print_run(struct pcl_evlist *el, struct pcl_stat_config *cfg, int runs)
{
	struct pcl_stat *st;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cfg->sz = sizeof(*cfg);
	cfg->target_desc = "'fake'";
	cfg->run_count = runs;
	st = pcl_stat__new(cfg, el);
	assert_non_null(st);
	for (int r = 0; r < runs; r++) {
		fake_value[1].val = 1000 + fake_step * (uint64_t)r;
		assert_int_equal(pcl_evlist__read(el), 0);
		assert_int_equal(pcl_stat__add_run(st, 1000000000ull, 0.5, 0.25), 0);
	}
	assert_int_equal(pcl_stat__print(st, f), 0);
	fclose(f);
	pcl_stat__free(st);
	return buf;
}

static void set_fakes(void)
{
	fake_value[1] = (struct pcl_count){ .val = 1000, .ena = 2000, .run = 1000 };
	fake_value[2] = (struct pcl_count){ .val = 0, .ena = 2000, .run = 0 };
	fake_value[3] = (struct pcl_count){ .val = 10, .ena = 100, .run = 100 };
}

static void test_std_layout(void **state)
{
	struct pcl_stat_config cfg = { 0 };
	struct pcl_evlist *el;
	char *out;

	(void)state;
	set_fakes();
	el = open_fake("fakestat/mux/,fakestat/idle/,fakestat/joules/");
	out = print_run(el, &cfg, 1);
	print_message("%s", out);
	/* 1000 counted in half the time: scaled to 2000, share printed like perf */
	assert_non_null(strstr(out, "              2000      fakestat/mux/"));
	assert_non_null(strstr(out, "  (50.00%)\n"));
	/* value(18) unit(4) name(-25) then 35 blanks, as perf pads a row that did not count */
	assert_non_null(strstr(out, "     <not counted>      fakestat/idle/           " 
				    "                                   \n"));
	/* scale 0.5 and the alias unit: a fractional scale prints two decimals, as perf's */
	assert_non_null(strstr(out, "              5.00 Joules fakestat/joules/"));
	assert_non_null(strstr(out, "\n Performance counter stats for 'fake':\n\n"));
	assert_non_null(strstr(out, "\n       1.000000000 seconds time elapsed\n\n"));
	free(out);
	pcl_evlist__free(el);
}

static void test_csv_json(void **state)
{
	struct pcl_stat_config cfg = { .format = PCL_STAT_CSV, .csv_sep = ";" };
	struct pcl_evlist *el;
	char *out;

	(void)state;
	set_fakes();
	el = open_fake("fakestat/mux/,fakestat/idle/");
	out = print_run(el, &cfg, 1);
	print_message("%s", out);
	assert_string_equal(out, "2000;;fakestat/mux/;1000;50.00;;\n"
				 "<not counted>;;fakestat/idle/;0;0.00;;\n");
	free(out);
	cfg = (struct pcl_stat_config){ .format = PCL_STAT_JSON };
	out = print_run(el, &cfg, 1);
	print_message("%s", out);
	assert_non_null(strstr(out, "{\"counter-value\" : \"2000.000000\", \"unit\" : \"\", "
				    "\"event\" : \"fakestat/mux/\", \"event-runtime\" : 1000, "
				    "\"pcnt-running\" : 50.00, \"metric-value\" : 0.000000, "
				    "\"metric-unit\" : \"\"}\n"));
	assert_non_null(strstr(out, "\"counter-value\" : \"<not counted>\""));
	free(out);
	pcl_evlist__free(el);
}

static void test_repeat_noise(void **state)
{
	struct pcl_stat_config cfg = { 0 };
	struct pcl_evlist *el;
	char *out;

	(void)state;
	set_fakes();
	el = open_fake("fakestat/mux/");
	/* runs give 2000, 2200, 2400: mean 2200, stddev of the mean 115.47 = 5.25% */
	out = print_run(el, &cfg, 3);
	print_message("%s", out);
	assert_non_null(strstr(out, "              2200      fakestat/mux/"));
	assert_non_null(strstr(out, "  ( +-  5.25% )  (50.00%)\n"));
	assert_non_null(strstr(out, "for 'fake' (3 runs):"));
	free(out);
	cfg = (struct pcl_stat_config){ .format = PCL_STAT_CSV };
	out = print_run(el, &cfg, 3);
	assert_string_equal(out, "2200,,fakestat/mux/,5.25%,1000,50.00,,\n");
	free(out);
	pcl_evlist__free(el);
}

/* A mean over runs prints as a whole count, as perf keeps counts in u64, in every format. */
static void test_repeat_whole_counts(void **state)
{
	struct pcl_stat_config cfg = { 0 };
	struct pcl_evlist *el;
	char *out;

	(void)state;
	set_fakes();
	fake_value[1].ena = fake_value[1].run = 1000;
	fake_step = 1;
	el = open_fake("fakestat/mux/");
	/* runs give 1000, 1001, 1002, 1003: mean 1001.5, stddev of the mean 0.65 = 0.06% */
	out = print_run(el, &cfg, 4);
	print_message("%s", out);
	assert_non_null(strstr(out, "\n              1001      fakestat/mux/"));
	assert_null(strstr(out, "1001.50"));
	assert_non_null(strstr(out, "  ( +-  0.06% )\n"));
	free(out);
	cfg = (struct pcl_stat_config){ .format = PCL_STAT_CSV };
	out = print_run(el, &cfg, 4);
	assert_string_equal(out, "1001,,fakestat/mux/,0.06%,1000,100.00,,\n");
	free(out);
	cfg = (struct pcl_stat_config){ .format = PCL_STAT_JSON };
	out = print_run(el, &cfg, 4);
	print_message("%s", out);
	assert_non_null(strstr(out, "{\"counter-value\" : \"1001.000000\", "));
	free(out);
	fake_step = 100;
	pcl_evlist__free(el);
}

static struct pcl_event hw(uint32_t type, uint64_t config)
{
	struct pcl_event ev = { .attr = { .type = type, .config = config }, .scale = 1.0 };

	return ev;
}

/* Metrics: each row explained by another row of the same aggregation, as perf's shadow stats. */
static void test_metrics(void **state)
{
	struct stat_shadow sh = { 0 };
	struct pcl_stat_metric m;
	struct pcl_event clock = hw(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	struct pcl_event cyc = hw(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	struct pcl_event ins = hw(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	struct pcl_event br = hw(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS);
	struct pcl_event brm = hw(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES);
	struct pcl_event l1 = hw(PERF_TYPE_HW_CACHE, 0);
	struct pcl_event l1m = hw(PERF_TYPE_HW_CACHE, 0x10000);
	struct pcl_event pf = hw(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);

	(void)state;
	sh.wall_ns = 2e9;
	/* nothing to compare with yet: no metric */
	assert_int_equal(stat_metric(&sh, &pf, 100, &m), 0);
	assert_int_equal(stat_metric(&sh, &ins, 100, &m), 0);
	stat_shadow_add(&sh, &clock, 1e9);
	stat_shadow_add(&sh, &cyc, 3e9);
	stat_shadow_add(&sh, &br, 1000);
	stat_shadow_add(&sh, &l1, 400);
	assert_int_equal(stat_metric(&sh, &clock, 1e9, &m), 1);
	assert_true(m.value == 0.5);
	assert_string_equal(m.unit, "CPUs utilized");
	assert_int_equal(stat_metric(&sh, &cyc, 3e9, &m), 1);
	assert_true(m.value == 3.0);
	assert_string_equal(m.unit, "GHz");
	assert_int_equal(stat_metric(&sh, &ins, 6e9, &m), 1);
	assert_true(m.value == 2.0);
	assert_string_equal(m.unit, "insn per cycle");
	assert_int_equal(stat_metric(&sh, &brm, 25, &m), 1);
	assert_true(m.value == 2.5);
	assert_string_equal(m.unit, "of all branches");
	assert_int_equal(stat_metric(&sh, &l1m, 100, &m), 1);
	assert_true(m.value == 25.0);
	assert_string_equal(m.unit, "of all L1-dcache accesses");
	/* rates scale to K/M/G per second of task-clock */
	assert_int_equal(stat_metric(&sh, &pf, 500, &m), 1);
	assert_string_equal(m.unit, "/sec");
	assert_int_equal(stat_metric(&sh, &pf, 1500, &m), 1);
	assert_string_equal(m.unit, "K/sec");
	assert_true(m.value == 1.5);
	assert_int_equal(stat_metric(&sh, &pf, 2.5e9, &m), 1);
	assert_string_equal(m.unit, "G/sec");
}

/* -M formula metrics on counts the fake PMU gives: arithmetic, scale units, layouts. */
static char *print_with_metrics(struct pcl_evlist *el, struct pcl_stat_config *cfg)
{
	static const char *const ab[] = { "a", "b" }, *const idle[] = { "i" };
	static const int i01[] = { 0, 1 }, i2[] = { 2 };
	struct pcl_stat *st;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cfg->sz = sizeof(*cfg);
	cfg->target_desc = "'fake'";
	st = pcl_stat__new(cfg, el);
	assert_non_null(st);
	/* mux reads 2000 (1000 in half the time), joules 5 (10 x 0.5) */
	assert_int_equal(pcl_stat__add_metric(st, "ratio", "a / b * 2", NULL, ab, i01, 2), 0);
	assert_int_equal(pcl_stat__add_metric(st, "share", "d_ratio(b, a)", "100%", ab, i01, 2), 0);
	/* 'share' goes on joules' row (mux has 'ratio'); 'again' finds both taken: own line */
	assert_int_equal(pcl_stat__add_metric(st, "again", "a + b", "1e-3K", ab, i01, 2), 0);
	assert_int_equal(pcl_stat__add_metric(st, "idle_m", "i * 2", NULL, idle, i2, 1), 0);
	assert_int_equal(pcl_stat__add_metric(st, "bad", "a", NULL, idle, (const int[]){ 7 }, 1),
			 -EINVAL);
	assert_int_equal(pcl_evlist__read(el), 0);
	assert_int_equal(pcl_stat__add_run(st, 1000000000ull, 0.5, 0.25), 0);
	assert_int_equal(pcl_stat__print(st, f), 0);
	fclose(f);
	pcl_stat__free(st);
	return buf;
}

static void test_user_metrics(void **state)
{
	struct pcl_stat_config cfg = { 0 };
	struct pcl_evlist *el;
	char *out;

	(void)state;
	set_fakes();
	el = open_fake("fakestat/mux/,fakestat/joules/,fakestat/idle/");
	out = print_with_metrics(el, &cfg);
	print_message("%s", out);
	/* 2000 / 5 * 2, perf's "%8.2f name" */
	assert_non_null(strstr(out, "fakestat/mux/                    #   800.00 ratio"));
	/* 5 / 2000 x 100, "%8.1f unit  name" for a scale unit */
	assert_non_null(strstr(out, "Joules fakestat/joules/                 #      0.2 %  share"));
	/* (2000 + 5) x 1e-3 on a line of its own */
	assert_non_null(strstr(out, "#      2.0 K  again\n"));
	/* an event that did not count: the metric says so, with its name */
	assert_non_null(strstr(out, "<not counted>      fakestat/idle/                   # <not counted> idle_m"));
	free(out);

	cfg = (struct pcl_stat_config){ .format = PCL_STAT_CSV };
	out = print_with_metrics(el, &cfg);
	print_message("%s", out);
	assert_non_null(strstr(out, ",fakestat/mux/,1000,50.00,800.00,ratio\n"));
	assert_non_null(strstr(out, ",,,,,2.0,K  again\n"));
	assert_non_null(strstr(out, "<not counted>,,fakestat/idle/,0,0.00,<not counted>,idle_m\n"));
	free(out);

	cfg = (struct pcl_stat_config){ .metric_only = true };
	out = print_with_metrics(el, &cfg);
	print_message("%s", out);
	/* the columns in event order: mux's two metrics, then joules', then idle's */
	assert_non_null(strstr(out, "           ratio        K  again        %  share          idle_m\n"));
	assert_non_null(strstr(out, "          800.00             2.0             0.2   <not counted>\n"));
	free(out);
	pcl_evlist__free(el);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_std_layout),
		cmocka_unit_test(test_csv_json),
		cmocka_unit_test(test_repeat_noise),
		cmocka_unit_test(test_repeat_whole_counts),
		cmocka_unit_test(test_metrics),
		cmocka_unit_test(test_user_metrics),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
