/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the PMU registry (lib/pmu): look-ups of the kernel PMUs
 * under /sys/bus/event_source/devices, iteration, format fields and
 * pcl_pmu_format_encode(), sysfs aliases, and user-space sources registered
 * with pcl_pmu_register() as the parser sees them.
 *
 * The registry is process-global, so the fake sources are registered once,
 * by the group setup, and every test looks them up by name.
 */
#include "unit.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "internal.h"

#define SYSFS_PMUS "/sys/bus/event_source/devices"

/* ---- the fake user-space sources ---- */

static int fake_event_init(struct pcl_pmu *pmu, struct perf_event_attr *attr)
{
	(void)pmu;
	return attr->config >= 1 && attr->config <= 2 ? 0 : -ENOENT;
}

static int fake_add(struct pcl_counter *c)
{
	c->fd = -1;
	return 0;
}

static int fake_read(struct pcl_counter *c, struct pcl_count *out)
{
	out->val = c->attr->config * 10;
	out->ena = out->run = 1;
	out->id = 0;
	return 0;
}

static const struct pcl_pmu_ops fake_ops = {
	.sz = sizeof(struct pcl_pmu_ops),
	.event_init = fake_event_init,
	.add = fake_add,
	.read = fake_read,
};

/* Given unsorted: the registry sorts aliases by name. */
static const struct pcl_pmu_alias test_aliases[] = {
	{ "ev2", "config=2", "widgets", 0.5, "the second" },
	{ "ev1", "config=1", NULL, 0, "the first" },
};

static const struct pcl_pmu_alias test2_aliases[] = {
	{ "ev9", "config=1", NULL, 0, NULL },
};

static int test_ctx;

static struct pcl_pmu_desc test_desc = {
	.sz = sizeof(struct pcl_pmu_desc),
	.name = "test",
	.ops = &fake_ops,
	.aliases = test_aliases,
	.nr_aliases = 2,
	.bare_names = true,
	.ctx = &test_ctx,
};

static struct pcl_pmu_desc test2_desc = {
	.sz = sizeof(struct pcl_pmu_desc),
	.name = "test2",
	.ops = &fake_ops,
	.aliases = test2_aliases,
	.nr_aliases = 1,
	.bare_names = false,
};

static struct pcl_pmu *test_pmu, *test2_pmu;

static int register_fakes(void **state)
{
	(void)state;
	test_pmu = pcl_pmu_register(&test_desc);
	test2_pmu = pcl_pmu_register(&test2_desc);
	return test_pmu && test2_pmu ? 0 : -1;
}

/* ---- look-ups ---- */

struct builtin_case {
	const char *name;
	uint32_t type;
};

static const struct builtin_case builtin_cases[] = {
	{ "software", PERF_TYPE_SOFTWARE },
	{ "tracepoint", PERF_TYPE_TRACEPOINT },
	{ "breakpoint", PERF_TYPE_BREAKPOINT },
};

static void test_find_builtin(void **state)
{
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(builtin_cases); i++) {
		const struct builtin_case *c = &builtin_cases[i];
		struct pcl_pmu *pmu = pcl_pmu__find(c->name), *by_type;

		if (!pmu) {
			print_message("'%s' not found\n", c->name);
			bad++;
			continue;
		}
		by_type = pcl_pmu__find_by_type(c->type);
		bad += differ(c->name, "type", pcl_pmu__type(pmu), c->type);
		bad += differ(c->name, "find_by_type", (uintptr_t)by_type, (uintptr_t)pmu);
		bad += differ_str(c->name, "name", pcl_pmu__name(pmu), c->name);
		bad += differ(c->name, "is_kernel", pcl_pmu__is_kernel(pmu), 1);
		bad += differ(c->name, "ops", (uintptr_t)pcl_pmu__ops(pmu),
			      (uintptr_t)&pmu_kernel_ops);
	}
	assert_int_equal(bad, 0);
	assert_ptr_equal(pmu_software(), pcl_pmu__find("software"));
	assert_ptr_equal(pmu_tracepoint(), pcl_pmu__find("tracepoint"));
	assert_ptr_equal(pmu_breakpoint(), pcl_pmu__find("breakpoint"));
}

/* Every PMU sysfs lists is in the registry with the type sysfs gives. */
static void test_find_every_sysfs_pmu(void **state)
{
	DIR *d = opendir(SYSFS_PMUS);
	struct dirent *de;
	int bad = 0, n = 0;

	(void)state;
	if (!d) {
		print_message("no %s on this machine\n", SYSFS_PMUS);
		skip();
	}
	while ((de = readdir(d))) {
		char path[512];
		long long type;
		struct pcl_pmu *pmu;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), SYSFS_PMUS "/%s/type", de->d_name);
		if (read_int_file(path, &type))
			continue;
		n++;
		pmu = pcl_pmu__find(de->d_name);
		if (!pmu) {
			print_message("sysfs PMU '%s' not in the registry\n", de->d_name);
			bad++;
			continue;
		}
		bad += differ(de->d_name, "type", pcl_pmu__type(pmu), (uint64_t)type);
		bad += differ(de->d_name, "is_kernel", pcl_pmu__is_kernel(pmu), 1);
	}
	closedir(d);
	assert_true(n > 0);
	assert_int_equal(bad, 0);
}

static void test_find_missing(void **state)
{
	(void)state;
	errno = 0;
	assert_null(pcl_pmu__find("no-such-pmu"));
	assert_int_equal(errno, ENOENT);
	errno = 0;
	assert_null(pcl_pmu__find(""));
	assert_int_equal(errno, ENOENT);
	errno = 0;
	assert_null(pcl_pmu__find(NULL));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(pcl_pmu__find_by_type(0x3fffffff));
	assert_int_equal(errno, ENOENT);
	/* accessors accept NULL */
	assert_null(pcl_pmu__name(NULL));
	assert_int_equal(pcl_pmu__type(NULL), 0);
	assert_false(pcl_pmu__is_kernel(NULL));
	assert_null(pcl_pmu__ctx(NULL));
	assert_null(pcl_pmu__ops(NULL));
	assert_int_equal(pcl_pmu__nr_aliases(NULL), -EINVAL);
	assert_null(pcl_pmu__alias(NULL, 0));
	assert_null(pcl_pmu__find_alias(NULL, "x"));
	assert_int_equal(pcl_pmu__nr_formats(NULL), -EINVAL);
	assert_null(pcl_pmu__format(NULL, 0));
	assert_null(pcl_pmu__find_format(NULL, "x"));
}

static void test_iterate_sorted(void **state)
{
	struct pcl_pmu *pmu = NULL, *prev = NULL;
	bool saw_software = false, saw_tool = false, saw_test = false;
	int n = 0;

	(void)state;
	while ((pmu = pcl_pmu__next(pmu))) {
		const char *name = pcl_pmu__name(pmu);

		assert_non_null(name);
		if (prev && strcmp(pcl_pmu__name(prev), name) >= 0)
			fail_msg("'%s' listed after '%s'", name, pcl_pmu__name(prev));
		/* the hidden entries behind PERF_TYPE_HARDWARE and _HW_CACHE are not listed */
		if (pcl_pmu__type(pmu) == PERF_TYPE_HARDWARE)
			fail_msg("hidden hardware entry '%s' listed", name);
		if (pcl_pmu__type(pmu) == PERF_TYPE_HW_CACHE)
			fail_msg("hidden hw_cache entry '%s' listed", name);
		saw_software |= !strcmp(name, "software");
		saw_tool |= !strcmp(name, "tool");
		saw_test |= pmu == test_pmu;
		prev = pmu;
		assert_true(++n < 10000);
	}
	assert_true(saw_software);
	assert_true(saw_tool);
	assert_true(saw_test);
}

/* ---- format fields ---- */

struct encode_case {
	const char *what;
	uint64_t mask, value, before, after;
	int ret;
};

static const struct encode_case encode_cases[] = {
	{ "contiguous low", 0xff, 0x3c, 0, 0x3c, 0 },
	{ "contiguous shifted", 0xff00, 0x12, 0, 0x1200, 0 },
	{ "top bits", 0xffull << 56, 0xab, 0, 0xabull << 56, 0 },
	{ "split 0-7,32-35", 0xf000000ffull, 0x123, 0, 0x100000023ull, 0 },
	{ "split, all ones", 0xf000000ffull, 0xfff, 0, 0xf000000ffull, 0 },
	{ "split, overflow", 0xf000000ffull, 0x1000, 0x5, 0x5, -ERANGE },
	{ "byte overflow", 0xff, 0x100, 0, 0, -ERANGE },
	{ "single bits", (1ull << 3) | (1ull << 9) | (1ull << 63), 0x5, 0,
	  (1ull << 3) | (1ull << 63), 0 },
	{ "single bits, overflow", (1ull << 3) | (1ull << 9) | (1ull << 63), 0x8, 0, 0, -ERANGE },
	{ "full mask", ~0ull, ~0ull, 0, ~0ull, 0 },
	{ "full mask, zero", ~0ull, 0, 0x1234, 0, 0 },
	{ "empty mask, zero", 0, 0, 0x77, 0x77, 0 },
	{ "empty mask, one", 0, 1, 0x77, 0x77, -ERANGE },
	{ "keeps other bits", 0xff, 0x1, 0xffff0000ffff0000ull, 0xffff0000ffff0001ull, 0 },
	{ "clears its bits", 0xf0, 0, 0xff, 0x0f, 0 },
	{ "one bit field", 0x1, 1, 0, 1, 0 },
	{ "one bit field, 2", 0x1, 2, 0, 0, -ERANGE },
	{ "32-bit field, 2^32", 0xffffffff00000000ull, 0x100000000ull, 0, 0, -ERANGE },
};

static void test_format_encode(void **state)
{
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(encode_cases); i++) {
		const struct encode_case *c = &encode_cases[i];
		uint64_t config = c->before;
		int ret = pcl_pmu_format_encode(c->mask, c->value, &config);

		bad += differ(c->what, "return", (uint64_t)(int64_t)ret, (uint64_t)(int64_t)c->ret);
		bad += differ(c->what, "config", config, c->after);
	}
	assert_int_equal(bad, 0);
}

struct format_case {
	const char *pmu, *field;
	int config;
	uint64_t mask;
};

static const struct format_case format_cases[] = {
	{ "uprobe", "retprobe", 0, 0x1 },
	{ "uprobe", "ref_ctr_offset", 0, 0xffffffff00000000ull },
	{ "kprobe", "retprobe", 0, 0x1 },
	{ "msr", "event", 0, ~0ull },
};

static void test_sysfs_formats(void **state)
{
	int bad = 0, checked = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(format_cases); i++) {
		const struct format_case *c = &format_cases[i];
		struct pcl_pmu *pmu = pcl_pmu__find(c->pmu);
		const struct pcl_pmu_format *f;

		if (!pmu) {
			print_message("no '%s' PMU here, row not checked\n", c->pmu);
			continue;
		}
		checked++;
		f = pcl_pmu__find_format(pmu, c->field);
		if (!f) {
			print_message("'%s/%s': no such format field\n", c->pmu, c->field);
			bad++;
			continue;
		}
		bad += differ_str(c->field, "name", f->name, c->field);
		bad += differ(c->field, "config word", (uint64_t)f->config, (uint64_t)c->config);
		bad += differ(c->field, "mask", f->mask, c->mask);
		if (pcl_pmu__find_format(pmu, "no_such_field"))
			bad++;
	}
	if (!checked) {
		print_message("none of uprobe, kprobe, msr exists here\n");
		skip();
	}
	assert_int_equal(bad, 0);
}

static int count_dir(const char *path, bool skip_meta)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		const char *dot = strrchr(de->d_name, '.');

		if (de->d_name[0] == '.')
			continue;
		if (skip_meta && dot &&
		    (!strcmp(dot, ".scale") || !strcmp(dot, ".unit") || !strcmp(dot, ".per-pkg") ||
		     !strcmp(dot, ".snapshot")))
			continue;
		n++;
	}
	closedir(d);
	return n;
}

/* Every kernel PMU: as many formats and aliases as sysfs has files, formats well-formed. */
static void test_sysfs_counts(void **state)
{
	struct pcl_pmu *pmu = NULL;
	int bad = 0;

	(void)state;
	while ((pmu = pcl_pmu__next(pmu))) {
		const char *name = pcl_pmu__name(pmu);
		char path[512];

		if (!pcl_pmu__is_kernel(pmu))
			continue;
		snprintf(path, sizeof(path), SYSFS_PMUS "/%s/format", name);
		bad += differ(name, "nr_formats", (uint64_t)pcl_pmu__nr_formats(pmu),
			      (uint64_t)count_dir(path, false));
		snprintf(path, sizeof(path), SYSFS_PMUS "/%s/events", name);
		bad += differ(name, "nr_aliases", (uint64_t)pcl_pmu__nr_aliases(pmu),
			      (uint64_t)count_dir(path, true));
		for (int i = 0; i < pcl_pmu__nr_formats(pmu); i++) {
			const struct pcl_pmu_format *f = pcl_pmu__format(pmu, i);

			if (!f || !f->name || f->config < 0 || f->config > 3 || !f->mask) {
				print_message("'%s': bad format %d\n", name, i);
				bad++;
			}
		}
		assert_null(pcl_pmu__format(pmu, pcl_pmu__nr_formats(pmu)));
		assert_null(pcl_pmu__format(pmu, -1));
	}
	assert_int_equal(bad, 0);
}

/* ---- sysfs aliases ---- */

static void test_sysfs_alias_msr_tsc(void **state)
{
	struct pcl_pmu *msr = pcl_pmu__find("msr");
	const struct pcl_pmu_alias *a;

	(void)state;
	if (!msr || !pcl_pmu__find_alias(msr, "tsc")) {
		print_message("no msr PMU with a 'tsc' alias on this machine\n");
		skip();
	}
	a = pcl_pmu__find_alias(msr, "tsc");
	assert_string_equal(a->name, "tsc");
	assert_string_equal(a->terms, "event=0x00");
	assert_null(a->unit);
	assert_true(a->scale == 1.0 || a->scale == 0);
	assert_null(pcl_pmu__find_alias(msr, "no_such_alias"));
	assert_null(pcl_pmu__find_alias(msr, NULL));
}

static void test_sysfs_aliases_sorted(void **state)
{
	struct pcl_pmu *pmu = NULL;

	(void)state;
	while ((pmu = pcl_pmu__next(pmu))) {
		int n = pcl_pmu__nr_aliases(pmu);

		for (int i = 0; i < n; i++) {
			const struct pcl_pmu_alias *a = pcl_pmu__alias(pmu, i);

			assert_non_null(a);
			assert_non_null(a->name);
			assert_non_null(a->terms);
			assert_ptr_equal(pcl_pmu__find_alias(pmu, a->name), a);
			if (i && strcmp(pcl_pmu__alias(pmu, i - 1)->name, a->name) >= 0)
				fail_msg("%s: alias '%s' after '%s'", pcl_pmu__name(pmu), a->name,
					 pcl_pmu__alias(pmu, i - 1)->name);
		}
		assert_null(pcl_pmu__alias(pmu, n));
		assert_null(pcl_pmu__alias(pmu, -1));
	}
}

/* A .scale / .unit pair next to an alias in sysfs ends up in the alias and in parsed events. */
static int check_scaled_alias(const char *pmu_name, const char *alias, const char *dir)
{
	char path[768], buf[128], spec[256];
	struct pcl_pmu *pmu = pcl_pmu__find(pmu_name);
	const struct pcl_pmu_alias *a = pmu ? pcl_pmu__find_alias(pmu, alias) : NULL;
	struct pcl_events l = { 0 };
	double scale;
	int bad = 0;

	if (!a) {
		print_message("'%s/%s' not loaded\n", pmu_name, alias);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/%s.scale", dir, alias);
	if (read_small_file(path, buf, sizeof(buf)) <= 0)
		return 0;
	scale = strtod(buf, NULL);
	if (a->scale != scale) {
		print_message("'%s/%s': scale %g, sysfs says %g\n", pmu_name, alias, a->scale,
			      scale);
		bad++;
	}
	snprintf(path, sizeof(path), "%s/%s.unit", dir, alias);
	if (read_small_file(path, buf, sizeof(buf)) > 0)
		bad += differ_str(alias, "unit", a->unit, buf);
	snprintf(spec, sizeof(spec), "%s/%s/", pmu_name, alias);
	if (pcl_parse_events(&l, spec, NULL) != 1) {
		print_message("'%s' does not parse\n", spec);
		return bad + 1;
	}
	bad += l.ev[0].scale != scale;
	bad += differ_str(spec, "event unit", l.ev[0].unit, a->unit);
	pcl_events__clear(&l);
	return bad;
}

static void test_sysfs_alias_scale_unit(void **state)
{
	DIR *d = opendir(SYSFS_PMUS);
	struct dirent *de;
	int found = 0, bad = 0;

	(void)state;
	while (d && (de = readdir(d))) {
		char dir[512];
		DIR *ed;
		struct dirent *e;

		if (de->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof(dir), SYSFS_PMUS "/%s/events", de->d_name);
		ed = opendir(dir);
		while (ed && (e = readdir(ed))) {
			char alias[256];
			size_t len = strlen(e->d_name);

			if (len <= 6 || strcmp(e->d_name + len - 6, ".scale"))
				continue;
			snprintf(alias, sizeof(alias), "%.*s", (int)(len - 6), e->d_name);
			found++;
			bad += check_scaled_alias(de->d_name, alias, dir);
		}
		if (ed)
			closedir(ed);
	}
	if (d)
		closedir(d);
	if (!found) {
		print_message("no PMU alias with a .scale file on this machine (power/energy-* "
			      "has them on bare metal)\n");
		skip();
	}
	assert_int_equal(bad, 0);
}

/* ---- user-space sources ---- */

static void test_register_fake(void **state)
{
	const struct pcl_pmu_alias *a;

	(void)state;
	assert_non_null(test_pmu);
	assert_string_equal(pcl_pmu__name(test_pmu), "test");
	assert_true(pcl_pmu__type(test_pmu) >= PCL_PMU_TYPE_USER_BASE);
	assert_false(pcl_pmu__is_kernel(test_pmu));
	assert_ptr_equal(pcl_pmu__ctx(test_pmu), &test_ctx);
	/* the registry keeps its own copy of the ops, at the library's size */
	assert_ptr_equal(pcl_pmu__ops(test_pmu)->read, fake_ops.read);
	assert_int_equal(pcl_pmu__ops(test_pmu)->sz, sizeof(struct pcl_pmu_ops));
	assert_ptr_equal(pcl_pmu__find("test"), test_pmu);
	assert_ptr_equal(pcl_pmu__find_by_type(pcl_pmu__type(test_pmu)), test_pmu);
	assert_int_not_equal(pcl_pmu__type(test_pmu), pcl_pmu__type(test2_pmu));
	assert_true(pcl_pmu__type(test2_pmu) >= PCL_PMU_TYPE_USER_BASE);
	assert_int_equal(pcl_pmu__nr_formats(test_pmu), 0);
	assert_int_equal(pcl_pmu__nr_aliases(test_pmu), 2);
	assert_string_equal(pcl_pmu__alias(test_pmu, 0)->name, "ev1");
	assert_string_equal(pcl_pmu__alias(test_pmu, 1)->name, "ev2");
	a = pcl_pmu__find_alias(test_pmu, "ev2");
	assert_non_null(a);
	assert_string_equal(a->terms, "config=2");
	assert_string_equal(a->unit, "widgets");
	assert_true(a->scale == 0.5);
	assert_null(pcl_pmu__find_alias(test_pmu, "ev3"));
	/* the tool source registers the same way */
	assert_non_null(pcl_pmu__find("tool"));
	assert_false(pcl_pmu__is_kernel(pcl_pmu__find("tool")));
	assert_int_equal(pcl_pmu__nr_aliases(pcl_pmu__find("tool")), 3);
}

struct fake_parse_case {
	const char *spec;
	const char *pmu;
	uint64_t config;
	double scale;
	const char *unit;
	unsigned int exclude_kernel;
};

static const struct fake_parse_case fake_parse_cases[] = {
	{ "test/ev1/", "test", 1, 1.0, NULL, 0 },
	{ "ev1", "test", 1, 1.0, NULL, 0 },
	{ "test/ev2/", "test", 2, 0.5, "widgets", 0 },
	{ "ev2", "test", 2, 0.5, "widgets", 0 },
	{ "test/config=2/", "test", 2, 1.0, NULL, 0 },
	{ "test/ev1/u", "test", 1, 1.0, NULL, 1 },
	{ "ev1:u", "test", 1, 1.0, NULL, 1 },
	{ "test2/ev9/", "test2", 1, 1.0, NULL, 0 },
};

static int check_fake_parse(const struct fake_parse_case *c)
{
	struct pcl_events l = { 0 };
	struct pcl_parse_error err;
	struct pcl_pmu *pmu = pcl_pmu__find(c->pmu);
	int ret = pcl_parse_events(&l, c->spec, &err), bad = 0;

	if (ret < 0 || l.nr != 1) {
		print_message("'%s': %d (%s)\n", c->spec, ret, err.msg);
		pcl_events__clear(&l);
		return 1;
	}
	bad += differ(c->spec, "pmu", (uintptr_t)l.ev[0].pmu, (uintptr_t)pmu);
	bad += differ(c->spec, "type", l.ev[0].attr.type, pcl_pmu__type(pmu));
	bad += differ(c->spec, "config", l.ev[0].attr.config, c->config);
	bad += differ(c->spec, "scale x 1000", (uint64_t)(l.ev[0].scale * 1000),
		      (uint64_t)(c->scale * 1000));
	bad += differ_str(c->spec, "unit", l.ev[0].unit, c->unit);
	bad += differ_str(c->spec, "name", l.ev[0].name, c->spec);
	bad += differ(c->spec, "exclude_kernel", l.ev[0].attr.exclude_kernel, c->exclude_kernel);
	pcl_events__clear(&l);
	return bad;
}

static void test_parse_fake(void **state)
{
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(fake_parse_cases); i++)
		bad += check_fake_parse(&fake_parse_cases[i]);
	assert_int_equal(bad, 0);
}

static void test_parse_fake_invalid(void **state)
{
	static const char *const bad_specs[] = {
		"test/ev3/",		/* no such alias */
		"test/config=5/",	/* event_init refuses it */
		"test/umask=1/",	/* no format fields */
		"ev9",			/* test2 has bare_names off */
	};
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad_specs); i++) {
		struct pcl_events l = { 0 };
		struct pcl_parse_error err;
		int ret = pcl_parse_events(&l, bad_specs[i], &err);

		if (ret >= 0 || l.nr) {
			print_message("'%s': parsed, expected an error\n", bad_specs[i]);
			bad++;
		} else if (ret != -ENOENT) {
			print_message("'%s': %d, expected -ENOENT (%s)\n", bad_specs[i], ret,
				      err.msg);
			bad++;
		}
		pcl_events__clear(&l);
	}
	assert_int_equal(bad, 0);
}

static void test_register_duplicate(void **state)
{
	struct pcl_pmu_desc d = test_desc;

	(void)state;
	errno = 0;
	assert_null(pcl_pmu_register(&d));
	assert_int_equal(errno, EEXIST);
	/* a kernel PMU's name is taken too */
	d.name = "software";
	errno = 0;
	assert_null(pcl_pmu_register(&d));
	assert_int_equal(errno, EEXIST);
	d.name = "tool";
	errno = 0;
	assert_null(pcl_pmu_register(&d));
	assert_int_equal(errno, EEXIST);
	/* the first registration is untouched */
	assert_ptr_equal(pcl_pmu__find("test"), test_pmu);
	assert_ptr_equal(pcl_pmu__ops(pcl_pmu__find("software")), &pmu_kernel_ops);
}

static const struct pcl_pmu_ops ops_no_add = {
	.sz = sizeof(struct pcl_pmu_ops),
	.read = fake_read,
};

static const struct pcl_pmu_ops ops_no_read = {
	.sz = sizeof(struct pcl_pmu_ops),
	.add = fake_add,
};

/* sz covers no function: add and read are taken as NULL (older ops are accepted) */
static const struct pcl_pmu_ops ops_small = {
	.sz = 8,
	.add = fake_add,
	.read = fake_read,
};

static void test_register_invalid(void **state)
{
	struct pcl_pmu_desc d;
	const struct {
		const char *what;
		size_t sz;
		const char *name;
		const struct pcl_pmu_ops *ops;
	} rows[] = {
		{ "sz 0", 0, "inval", &fake_ops },
		{ "sz below sizeof(size_t)", sizeof(size_t) - 1, "inval", &fake_ops },
		{ "no name", sizeof(d), NULL, &fake_ops },
		{ "empty name", sizeof(d), "", &fake_ops },
		{ "no ops", sizeof(d), "inval", NULL },
		{ "no add", sizeof(d), "inval", &ops_no_add },
		{ "no read", sizeof(d), "inval", &ops_no_read },
		{ "ops without read in sz", sizeof(d), "inval", &ops_small },
	};
	int bad = 0;

	(void)state;
	errno = 0;
	assert_null(pcl_pmu_register(NULL));
	assert_int_equal(errno, EINVAL);
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct pcl_pmu *pmu;

		memset(&d, 0, sizeof(d));
		d.sz = rows[i].sz;
		d.name = rows[i].name;
		d.ops = rows[i].ops;
		errno = 0;
		pmu = pcl_pmu_register(&d);
		bad += differ(rows[i].what, "pmu", (uintptr_t)pmu, 0);
		bad += differ(rows[i].what, "errno", (uint64_t)errno, EINVAL);
	}
	assert_int_equal(bad, 0);
	assert_null(pcl_pmu__find("inval"));
}

/* Registration from several threads at once: each name registered exactly once. */
static void *register_loop(void *arg)
{
	static const struct pcl_pmu_ops ops = { .sz = sizeof(ops), .add = fake_add,
						.read = fake_read };
	long ok = 0;

	for (int i = 0; i < 20; i++) {
		/*
		 * Same text in every thread, each in its own buffer: a buffer shared
		 * between threads would be rewritten (a data race: snprintf may
		 * clear it first) while another thread's registration reads it.
		 */
		static __thread char names[20][16];
		struct pcl_pmu_desc d = { .sz = sizeof(d), .ops = &ops };

		snprintf(names[i], sizeof(names[i]), "thr%02d", i);
		d.name = names[i];
		ok += pcl_pmu_register(&d) != NULL;
	}
	(void)arg;
	return (void *)ok;
}

static void test_register_threads(void **state)
{
	pthread_t t[4];
	long total = 0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		assert_int_equal(pthread_create(&t[i], NULL, register_loop, NULL), 0);
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		void *ret;

		assert_int_equal(pthread_join(t[i], &ret), 0);
		total += (long)ret;
	}
	assert_int_equal(total, 20);
	for (int i = 0; i < 20; i++) {
		char name[16];

		snprintf(name, sizeof(name), "thr%02d", i);
		assert_non_null(pcl_pmu__find(name));
	}
}

/*
 * ---- a fake sysfs ----
 *
 * This machine's PMUs have no .scale/.unit aliases and few format fields, so
 * the sysfs loader is also checked on crafted files: a child process in its
 * own mount namespace mounts a tmpfs over /sys/bus/event_source/devices,
 * fills it, and re-executes this binary with --fake-sysfs, which then sees
 * only the fake PMUs (the registry reads sysfs once per process).
 */

static const char *const fake_files[][2] = {
	{ "fakepmu/type", "1234\n" },
	{ "fakepmu/format/event", "config:0-7\n" },
	{ "fakepmu/format/umask", "config:8-15\n" },
	{ "fakepmu/format/split", "config1:0-3,32-35\n" },
	{ "fakepmu/format/flag", "config2:10\n" },
	{ "fakepmu/format/bad_word", "config9:0-3\n" },
	{ "fakepmu/format/bad_range", "config:9-3\n" },
	{ "fakepmu/format/bad_text", "garbage\n" },
	{ "fakepmu/events/energy-pkg", "event=0x02\n" },
	{ "fakepmu/events/energy-pkg.scale", "2.3283064365386962890625e-10\n" },
	{ "fakepmu/events/energy-pkg.unit", "Joules\n" },
	{ "fakepmu/events/cycles-t", "event=0x3c,umask=0x1\n" },
	{ "fakepmu/events/split-ev", "split=0x12\n" },
	{ "plainpmu/type", "1235\n" },
	{ "notype/format/event", "config:0-7\n" },
};

/* In the forked child: own mount namespace, fake sysfs, re-exec. Exit 77 when impossible. */
static void fake_sysfs_exec(void)
{
	char *argv[] = { "test-pmu", "--fake-sysfs", NULL };

	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("tmpfs", SYSFS_PMUS, "tmpfs", 0, "mode=0755"))
		_exit(77);
	for (size_t i = 0; i < ARRAY_SIZE(fake_files); i++)
		if (unit_write_file(SYSFS_PMUS, fake_files[i][0], fake_files[i][1]))
			_exit(78);
	execv("/proc/self/exe", argv);
	_exit(79);
}

/* Parse one spec that must give one event; returns it in @l. */
static int fake_parse(struct pcl_events *l, const char *spec)
{
	struct pcl_parse_error err;
	int ret;

	memset(l, 0, sizeof(*l));
	ret = pcl_parse_events(l, spec, &err);
	if (ret < 0 || l->nr != 1) {
		print_message("'%s': %d (%s)\n", spec, ret, err.msg);
		pcl_events__clear(l);
		return 1;
	}
	return 0;
}

struct fake_sysfs_case {
	const char *spec;
	uint64_t config, config1, config2;
	const char *unit;
	bool scaled;
};

static const struct fake_sysfs_case fake_sysfs_cases[] = {
	{ "fakepmu/energy-pkg/", 0x02, 0, 0, "Joules", true },
	{ "energy-pkg", 0x02, 0, 0, "Joules", true },
	{ "fakepmu/cycles-t/", 0x13c, 0, 0, NULL, false },
	{ "fakepmu/split-ev/", 0, 0x100000002ull, 0, NULL, false },
	{ "fakepmu/event=0x3c,umask=0x1,split=0x12,flag/", 0x13c, 0x100000002ull, 1ull << 10,
	  NULL, false },
	{ "fakepmu/cycles-t,umask=3/", 0x33c, 0, 0, NULL, false },
};

static int fake_sysfs_parse_checks(uint32_t type)
{
	int bad = 0;

	for (size_t i = 0; i < ARRAY_SIZE(fake_sysfs_cases); i++) {
		const struct fake_sysfs_case *c = &fake_sysfs_cases[i];
		struct pcl_events l;

		if (fake_parse(&l, c->spec)) {
			bad++;
			continue;
		}
		bad += differ(c->spec, "type", l.ev[0].attr.type, type);
		bad += differ(c->spec, "config", l.ev[0].attr.config, c->config);
		bad += differ(c->spec, "config1", l.ev[0].attr.config1, c->config1);
		bad += differ(c->spec, "config2", l.ev[0].attr.config2, c->config2);
		bad += differ_str(c->spec, "unit", l.ev[0].unit, c->unit);
		bad += differ(c->spec, "scaled", l.ev[0].scale != 1.0, c->scaled);
		pcl_events__clear(&l);
	}
	return bad;
}

/* Runs in the re-executed child; the exit status is the number of mismatches. */
static int fake_sysfs_checks(void)
{
	struct pcl_pmu *pmu = pcl_pmu__find("fakepmu");
	const struct pcl_pmu_format *f;
	const struct pcl_pmu_alias *a;
	struct pcl_events l = { 0 };
	int bad = 0;

	if (!pmu) {
		print_message("fake sysfs: 'fakepmu' not found\n");
		return 1;
	}
	bad += differ("fakepmu", "type", pcl_pmu__type(pmu), 1234);
	bad += differ("fakepmu", "nr_formats (bad ones skipped)",
		      (uint64_t)pcl_pmu__nr_formats(pmu), 4);
	f = pcl_pmu__find_format(pmu, "split");
	bad += differ("split", "config word", f ? (uint64_t)f->config : 99, 1);
	bad += differ("split", "mask", f ? f->mask : 0, 0xf0000000full);
	f = pcl_pmu__find_format(pmu, "flag");
	bad += differ("flag", "mask", f ? f->mask : 0, 1ull << 10);
	bad += differ("flag", "config word", f ? (uint64_t)f->config : 99, 2);
	bad += differ("fakepmu", "nr_aliases (.scale/.unit are not aliases)",
		      (uint64_t)pcl_pmu__nr_aliases(pmu), 3);
	a = pcl_pmu__find_alias(pmu, "energy-pkg");
	bad += differ_str("energy-pkg", "unit", a ? a->unit : NULL, "Joules");
	bad += differ("energy-pkg", "scale * 2^32",
		      a ? (uint64_t)(a->scale * 4294967296.0 + 0.5) : 0, 1);
	a = pcl_pmu__find_alias(pmu, "cycles-t");
	bad += differ_str("cycles-t", "terms", a ? a->terms : NULL, "event=0x3c,umask=0x1");
	bad += differ_str("cycles-t", "unit", a ? a->unit : "x", NULL);
	bad += differ("plainpmu", "found", pcl_pmu__find("plainpmu") != NULL, 1);
	bad += differ("notype", "found", pcl_pmu__find("notype") != NULL, 0);
	bad += differ("software", "type", pcl_pmu__type(pcl_pmu__find_by_type(1)), 1);
	bad += fake_sysfs_parse_checks(1234);
	bad += differ("fakepmu/umask=0x100/", "return",
		      (uint64_t)(int64_t)pcl_parse_events(&l, "fakepmu/umask=0x100/", NULL),
		      (uint64_t)(int64_t)-ERANGE);
	bad += differ_str("energy-pgk", "suggestion", pcl_event_suggest("energy-pgk"),
			  "energy-pkg");
	pcl_events__clear(&l);
	return bad;
}

static void test_fake_sysfs(void **state)
{
	pid_t pid;
	int status;

	(void)state;
	fflush(stdout);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		fake_sysfs_exec();
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77) {
		print_message("cannot mount a tmpfs over %s in a new mount namespace (not root?)\n",
			      SYSFS_PMUS);
		skip();
	}
	if (WEXITSTATUS(status))
		fail_msg("fake sysfs child: %d mismatches (or set-up error 78/79)",
			 WEXITSTATUS(status));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		UNIT_TEST(test_find_builtin),
		UNIT_TEST(test_find_every_sysfs_pmu),
		UNIT_TEST(test_find_missing),
		UNIT_TEST(test_iterate_sorted),
		UNIT_TEST(test_format_encode),
		UNIT_TEST(test_sysfs_formats),
		UNIT_TEST(test_sysfs_counts),
		UNIT_TEST(test_sysfs_alias_msr_tsc),
		UNIT_TEST(test_sysfs_aliases_sorted),
		UNIT_TEST(test_sysfs_alias_scale_unit),
		UNIT_TEST(test_register_fake),
		UNIT_TEST(test_parse_fake),
		UNIT_TEST(test_parse_fake_invalid),
		UNIT_TEST(test_register_duplicate),
		UNIT_TEST(test_register_invalid),
		UNIT_TEST(test_register_threads),
		UNIT_TEST(test_fake_sysfs),
	};

	if (argc > 1 && !strcmp(argv[1], "--fake-sysfs"))
		return fake_sysfs_checks();

	return cmocka_run_group_tests(tests, register_fakes, NULL);
}
