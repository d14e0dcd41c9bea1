/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the flame graph writer (lib/output/flamegraph.c) against
 * include/pcl/export.h: profiles are built by hand through pcl_profile__add
 * from made-up threads, symbols and frames (no machine, no file), drawn
 * into a memstream, and the SVG text is checked: the frames drawn, their
 * colours and tooltips, the layout of icicle against flame, the frames too
 * narrow to draw, escaping, and the errors.
 *
 * Stacks are written outermost first, "main;outer;leaf", as folded stacks
 * are; every frame is a user frame of a symbol named after it, except
 * names starting with "k_", which are kernel frames.
 */
#include "unit.h"

#include <stdbool.h>
#include <stdlib.h>
#include <pcl/analysis.h>
#include <pcl/export.h>
#include <pcl/machine.h>
#include <pcl/profile.h>
#include <pcl/symbol.h>

#define MAX_SYMS  32
#define MAX_DEPTH 16

/* "k_" functions are the kernel's. */
static struct pcl_dso kernel_dso = { .name = "[kernel.kallsyms]", .short_name = "[kernel.kallsyms]",
				     .kind = PCL_DSO_KERNEL };
static struct pcl_map kernel_map = { .start = 0, .end = UINT64_MAX, .dso = &kernel_dso };

/* Symbols live as long as the test: the profile points at them. */
static struct fx {
	struct pcl_symbol syms[MAX_SYMS];
	char names[MAX_SYMS][128];
	size_t nr_syms;
	struct pcl_thread thread;
	struct pcl_profile *p, *base;
	char *out;
	size_t outlen;
} fx;

static void cleanup(void)
{
	pcl_profile__free(fx.p);
	pcl_profile__free(fx.base);
	free(fx.out);
	memset(&fx, 0, sizeof(fx));
}

static const struct pcl_symbol *sym(const char *name)
{
	for (size_t i = 0; i < fx.nr_syms; i++)
		if (!strcmp(fx.names[i], name))
			return &fx.syms[i];
	assert_true(fx.nr_syms < MAX_SYMS);
	snprintf(fx.names[fx.nr_syms], sizeof(fx.names[0]), "%s", name);
	fx.syms[fx.nr_syms] =
		(struct pcl_symbol){ 0x1000 * (fx.nr_syms + 1), 0x1000 * (fx.nr_syms + 2),
				     fx.names[fx.nr_syms] };
	return &fx.syms[fx.nr_syms++];
}

/* Add @n samples of the folded stack @stack ("main;outer;leaf") to @p. */
static void add(struct pcl_profile *p, const char *stack, unsigned int n)
{
	struct pcl_frame chain[MAX_DEPTH];
	const char *names[MAX_DEPTH];
	char buf[512], *save = NULL;
	size_t depth = 0;

	snprintf(buf, sizeof(buf), "%s", stack);
	for (char *t = strtok_r(buf, ";", &save); t; t = strtok_r(NULL, ";", &save)) {
		assert_true(depth < MAX_DEPTH);
		names[depth++] = t;
	}
	/* the chain is callee first */
	for (size_t i = 0; i < depth; i++) {
		const struct pcl_symbol *s = sym(names[depth - 1 - i]);

		bool k = !strncmp(s->name, "k_", 2);

		chain[i] = (struct pcl_frame){ .ip = s->start,
					       .addr = s->start,
					       .map = k ? &kernel_map : NULL,
					       .sym = s,
					       .level = k ? 'k' : '.' };
	}
	struct pcl_resolved rs = {
		.thread = &fx.thread, .ip = chain[0], .chain = chain, .nr_chain = depth
	};
	for (unsigned int i = 0; i < n; i++)
		assert_int_equal(pcl_profile__add(p, &rs, 0, UINT32_MAX, 1000), 0);
}

static struct pcl_profile *profile(void)
{
	struct pcl_profile *p = pcl_profile__new(NULL);

	assert_non_null(p);
	fx.thread = (struct pcl_thread){ .pid = 42, .tid = 42, .comm = "work" };
	return p;
}

/* Draw @p with @o into fx.out; the writer's return value. */
static int draw(const struct pcl_profile *p, const struct pcl_export_opts *o)
{
	FILE *fp;
	int ret;

	free(fx.out);
	fx.out = NULL;
	fp = open_memstream(&fx.out, &fx.outlen);
	assert_non_null(fp);
	ret = pcl_export_flamegraph(fp, p, o);
	assert_int_equal(fclose(fp), 0);
	return ret;
}

/* The line of the frame of @name (the @nth one drawn, from 0) in fx.out, or NULL. */
static const char *frame(const char *name, int nth, char *buf, size_t len)
{
	char key[256];
	const char *s = fx.out, *e;

	snprintf(key, sizeof(key), "<g class=\"frame\" data-name=\"%s\">", name);
	while ((s = strstr(s, key)) && nth--)
		s += strlen(key);
	if (!s)
		return NULL;
	e = strchr(s, '\n');
	snprintf(buf, len, "%.*s", (int)(e ? e - s : (ptrdiff_t)strlen(s)), s);
	return buf;
}

/* The number in attribute @attr of the rect in the frame line @line. */
static double attr_num(const char *line, const char *attr)
{
	char key[64];
	const char *s;

	snprintf(key, sizeof(key), " %s=\"", attr);
	s = strstr(strstr(line, "<rect"), key);
	assert_non_null(s);
	return strtod(s + strlen(key), NULL);
}

/* The fill's three channels. */
static void fill(const char *line, unsigned int rgb[3])
{
	const char *s = strstr(line, "fill=\"rgb(");

	assert_non_null(s);
	assert_int_equal(sscanf(s, "fill=\"rgb(%u,%u,%u)", &rgb[0], &rgb[1], &rgb[2]), 3);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *s = hay; (s = strstr(s, needle)); s += strlen(needle))
		n++;
	return n;
}

static void test_basic(void **state)
{
	struct pcl_export_opts o = { .sz = sizeof(o), .event = "cpu-clock" };
	char buf[2048];
	const char *l;

	(void)state;
	fx.p = profile();
	add(fx.p, "main;outer;hot_leaf", 80);
	add(fx.p, "main;warm_helper", 20);
	add(fx.p, "main;k_entry;k_work", 1);
	pcl_profile__finish(fx.p);
	assert_int_equal(draw(fx.p, &o), 0);

	assert_non_null(strstr(fx.out, "<?xml"));
	assert_non_null(strstr(fx.out, "</svg>\n"));
	assert_non_null(strstr(fx.out, ">Flame Graph</text>"));
	assert_non_null(strstr(fx.out, "cpu-clock: 101 samples"));
	assert_non_null(strstr(fx.out, "id=\"reset\""));
	assert_non_null(strstr(fx.out, "id=\"search\""));
	assert_non_null(strstr(fx.out, "id=\"details\""));
	/* one frame per node: all, the comm, main, outer, hot_leaf, warm_helper, k_entry, k_work */
	assert_int_equal(count(fx.out, "<g class=\"frame\""), 8);
	/* nothing outside the document but the SVG namespace */
	assert_int_equal(count(fx.out, "http"), 1);
	assert_non_null(strstr(fx.out, "xmlns=\"http://www.w3.org/2000/svg\""));

	l = frame("all", 0, buf, sizeof(buf));
	assert_non_null(l);
	assert_float_equal(attr_num(l, "width"), 1180, 0.001);
	assert_float_equal(attr_num(l, "x"), 10, 0.001);
	assert_non_null(strstr(l, "<title>all (101 samples, 100.00%)</title>"));

	l = frame("hot_leaf", 0, buf, sizeof(buf));
	assert_non_null(l);
	assert_non_null(strstr(l, "<title>hot_leaf (80 samples, 79.21%)</title>"));
	assert_float_equal(attr_num(l, "width"), 1180.0 * 80 / 101, 0.01);
	assert_non_null(strstr(l, ">hot_leaf</text>"));

	/* the same name, the same colour, in any graph; kernel frames in another hue */
	{
		unsigned int user[3], kern[3];

		fill(frame("warm_helper", 0, buf, sizeof(buf)), user);
		assert_true(user[0] >= 205 && user[2] <= 55);
		fill(frame("k_work", 0, buf, sizeof(buf)), kern);
		assert_true(kern[0] < 205 && kern[1] >= 170);
	}
}

static bool teal(const unsigned int c[3])
{
	return c[0] < 120 && c[1] >= 170 && c[2] >= 160;
}

/*
 * Kernel code is teal, and only kernel code: a user frame no symbol covers,
 * in no map, of a sample taken in the kernel (perf gives it the sample's
 * level, 'k') is grey; the kernel's own unknown code is teal. A name has
 * one colour wherever it is drawn.
 */
static void test_kernel_colour(void **state)
{
	static const struct pcl_symbol k_sys = { 0xffffffff81000000ull, 0xffffffff81000100ull,
						 "k_sys" };
	static const struct pcl_symbol usr = { 0x1000, 0x1100, "user_fn" };
	struct pcl_frame chain[3];
	struct pcl_resolved rs = { .chain = chain, .nr_chain = 3 };
	unsigned int c[3], c2[3];
	char buf[2048];

	(void)state;
	fx.p = profile();
	rs.thread = &fx.thread;
	/* kernel [unknown] <- k_sys <- [unknown] at 0 (the end of a user chain) */
	chain[0] = (struct pcl_frame){ .ip = 0xffffffff81234567ull, .map = &kernel_map,
				       .level = 'k' };
	chain[1] = (struct pcl_frame){ .ip = k_sys.start, .map = &kernel_map, .sym = &k_sys,
				       .level = 'k' };
	chain[2] = (struct pcl_frame){ .ip = 0, .level = 'k' };
	rs.ip = chain[0];
	assert_int_equal(pcl_profile__add(fx.p, &rs, 0, UINT32_MAX, 1), 0);
	/* user_fn <- k_sys again, deeper: the same colour */
	chain[0] = (struct pcl_frame){ .ip = k_sys.start, .map = &kernel_map, .sym = &k_sys,
				       .level = 'k' };
	chain[1] = (struct pcl_frame){ .ip = usr.start, .sym = &usr, .level = '.' };
	rs.ip = chain[0];
	rs.nr_chain = 2;
	assert_int_equal(pcl_profile__add(fx.p, &rs, 0, UINT32_MAX, 1), 0);
	pcl_profile__finish(fx.p);
	assert_int_equal(draw(fx.p, NULL), 0);

	/* the outermost [unknown] is user code: grey, not teal */
	fill(frame("[unknown]", 0, buf, sizeof(buf)), c);
	assert_false(teal(c));
	assert_int_equal(c[0], 200);
	assert_int_equal(c[1], 200);
	assert_int_equal(c[2], 200);
	/* the innermost one is the kernel's: teal */
	fill(frame("[unknown]", 1, buf, sizeof(buf)), c);
	assert_true(teal(c));
	fill(frame("k_sys", 0, buf, sizeof(buf)), c);
	fill(frame("k_sys", 1, buf, sizeof(buf)), c2);
	assert_true(teal(c));
	assert_memory_equal(c, c2, sizeof(c));
	fill(frame("user_fn", 0, buf, sizeof(buf)), c);
	assert_false(teal(c));
	cleanup();
}

/* Root at the bottom by default, at the top with icicle; the same frames. */
static void test_icicle(void **state)
{
	struct pcl_export_opts o = { .sz = sizeof(o) };
	char buf[2048], *flame;
	double root_y, leaf_y;

	(void)state;
	fx.p = profile();
	add(fx.p, "main;outer;hot_leaf", 8);
	add(fx.p, "main;warm_helper", 2);
	pcl_profile__finish(fx.p);

	assert_int_equal(draw(fx.p, &o), 0);
	root_y = attr_num(frame("all", 0, buf, sizeof(buf)), "y");
	leaf_y = attr_num(frame("hot_leaf", 0, buf, sizeof(buf)), "y");
	assert_true(root_y > leaf_y);
	flame = strdup(fx.out);
	assert_non_null(flame);

	o.icicle = true;
	assert_int_equal(draw(fx.p, &o), 0);
	assert_string_not_equal(flame, fx.out);
	free(flame);
	assert_true(attr_num(frame("all", 0, buf, sizeof(buf)), "y") <
		    attr_num(frame("hot_leaf", 0, buf, sizeof(buf)), "y"));
	assert_float_equal(attr_num(frame("all", 0, buf, sizeof(buf)), "y"), leaf_y, 0.001);
	assert_float_equal(attr_num(frame("hot_leaf", 0, buf, sizeof(buf)), "y"), root_y, 0.001);
	assert_non_null(strstr(fx.out, "icicle: true"));
}

/* Grown frames red, shrunk blue, unchanged white, new ones grown; tooltips give the points. */
static void test_differential(void **state)
{
	struct pcl_export_opts o = { .sz = sizeof(o), .title = "Before and after" };
	unsigned int rgb[3];
	char buf[2048];
	const char *l;

	(void)state;
	fx.base = profile();
	add(fx.base, "main;grow", 2);
	add(fx.base, "main;shrink", 6);
	add(fx.base, "main;steady", 2);
	add(fx.base, "main;gone", 10);
	pcl_profile__finish(fx.base);
	fx.p = profile();
	add(fx.p, "main;grow", 10);
	add(fx.p, "main;shrink", 4);
	add(fx.p, "main;steady", 2);
	add(fx.p, "main;fresh", 4);
	pcl_profile__finish(fx.p);
	o.base = fx.base;
	assert_int_equal(draw(fx.p, &o), 0);

	assert_non_null(strstr(fx.out, ">Before and after (differential)</text>"));
	assert_non_null(strstr(fx.out, "red grew, blue shrank"));
	assert_null(frame("gone", 0, buf, sizeof(buf)));

	/* grow: 10% of the base, 50% now */
	l = frame("grow", 0, buf, sizeof(buf));
	assert_non_null(l);
	assert_non_null(strstr(l, "<title>grow (10 samples, 50.00%; +40.00 points)</title>"));
	fill(l, rgb);
	assert_int_equal(rgb[0], 255);
	assert_true(rgb[1] < 255 && rgb[1] == rgb[2]);
	/* the largest change has the deepest shade */
	assert_int_equal(rgb[1], 55);

	/* shrink: 30% to 20% */
	l = frame("shrink", 0, buf, sizeof(buf));
	assert_non_null(strstr(l, "; -10.00 points)</title>"));
	fill(l, rgb);
	assert_int_equal(rgb[2], 255);
	assert_true(rgb[0] < 255 && rgb[0] == rgb[1] && rgb[0] > 55);

	/* steady: 10% both times */
	l = frame("steady", 0, buf, sizeof(buf));
	assert_non_null(strstr(l, "; +0.00 points)</title>"));
	fill(l, rgb);
	assert_true(rgb[0] == 255 && rgb[1] == 255 && rgb[2] == 255);

	/* fresh: only in the new profile, 20% */
	l = frame("fresh", 0, buf, sizeof(buf));
	assert_non_null(strstr(l, "; +20.00 points)</title>"));
	fill(l, rgb);
	assert_true(rgb[0] == 255 && rgb[1] < 255);

	/* the same profile against itself: all white */
	o.base = fx.p;
	assert_int_equal(draw(fx.p, &o), 0);
	assert_int_equal(count(fx.out, "fill=\"rgb(255,255,255)\""),
			 count(fx.out, "<g class=\"frame\""));
}

/* Frames under min_width pixels are left out, and what they call. */
static void test_min_width(void **state)
{
	struct pcl_export_opts o = { .sz = sizeof(o) };
	char buf[2048];

	(void)state;
	fx.p = profile();
	add(fx.p, "main;big", 20000);
	add(fx.p, "main;tiny;tinier", 1); /* 0.06 pixels */
	pcl_profile__finish(fx.p);
	assert_int_equal(draw(fx.p, &o), 0);
	assert_non_null(frame("big", 0, buf, sizeof(buf)));
	assert_null(frame("tiny", 0, buf, sizeof(buf)));
	assert_null(frame("tinier", 0, buf, sizeof(buf)));

	o.min_width = 0.01;
	assert_int_equal(draw(fx.p, &o), 0);
	assert_non_null(frame("tiny", 0, buf, sizeof(buf)));
	assert_non_null(frame("tinier", 0, buf, sizeof(buf)));

	/* a wide minimum keeps only the wide frames: all, work, main, big */
	o.min_width = 200;
	assert_int_equal(draw(fx.p, &o), 0);
	assert_non_null(frame("big", 0, buf, sizeof(buf)));
	assert_null(frame("tiny", 0, buf, sizeof(buf)));
	assert_int_equal(count(fx.out, "<g class=\"frame\""), 4);
}

/* Names are escaped everywhere; long ones are cut with "..." in the label only. */
static void test_names(void **state)
{
	struct pcl_export_opts o = { .sz = sizeof(o), .width = 200, .title = "<x & y>" };
	char buf[2048];
	const char *l;

	(void)state;
	fx.p = profile();
	add(fx.p, "main;a<b>&\"c'", 5);
	add(fx.p, "main;a_very_long_function_name_that_does_not_fit_anywhere", 5);
	pcl_profile__finish(fx.p);
	assert_int_equal(draw(fx.p, &o), 0);
	assert_null(strstr(fx.out, "a<b>"));
	assert_non_null(strstr(fx.out, ">&lt;x &amp; y&gt;</text>"));
	l = frame("a&lt;b&gt;&amp;&quot;c&#39;", 0, buf, sizeof(buf));
	assert_non_null(l);
	assert_non_null(
		strstr(l, "<title>a&lt;b&gt;&amp;&quot;c&#39; (5 samples, 50.00%)</title>"));
	/* 90 pixels: 11 characters, 8 of the name and "..." */
	l = frame("a_very_long_function_name_that_does_not_fit_anywhere", 0, buf, sizeof(buf));
	assert_non_null(l);
	assert_non_null(strstr(l, ">a_very_l...</text>"));
	assert_non_null(strstr(l, "<title>a_very_long_function_name_that_does_not_fit_anywhere ("));
}

/*
 * A million samples, ten thousand of them in functions of their own: those
 * are too narrow to draw, and the document stays the size of four frames.
 */
static void test_size(void **state)
{
	enum { NR_TINY = 10000 };
	struct pcl_symbol *tiny = calloc(NR_TINY, sizeof(*tiny));
	char(*names)[16] = calloc(NR_TINY, sizeof(*names));
	const struct pcl_symbol *big = sym("big"), *main_sym = sym("main");
	struct pcl_frame chain[2] = {
		{ .ip = big->start, .addr = big->start, .sym = big, .level = '.' },
		{ .ip = main_sym->start, .addr = main_sym->start, .sym = main_sym, .level = '.' },
	};
	struct pcl_resolved rs = { .thread = &fx.thread, .chain = chain, .nr_chain = 2 };

	(void)state;
	assert_non_null(tiny);
	assert_non_null(names);
	fx.p = profile();
	for (unsigned int i = 0; i < 1000000 - NR_TINY; i++)
		assert_int_equal(pcl_profile__add(fx.p, &rs, 0, UINT32_MAX, 1), 0);
	for (unsigned int i = 0; i < NR_TINY; i++) {
		snprintf(names[i], sizeof(names[i]), "tiny%u", i);
		tiny[i] =
			(struct pcl_symbol){ 0x100000 + i * 16, 0x100000 + i * 16 + 16, names[i] };
		chain[0] = (struct pcl_frame){
			.ip = tiny[i].start, .addr = tiny[i].start, .sym = &tiny[i], .level = '.'
		};
		assert_int_equal(pcl_profile__add(fx.p, &rs, 0, UINT32_MAX, 1), 0);
	}
	pcl_profile__finish(fx.p);
	assert_int_equal(draw(fx.p, NULL), 0);
	free(tiny);
	free(names);
	assert_non_null(strstr(fx.out, "<title>big (990000 samples, 99.00%)</title>"));
	assert_int_equal(count(fx.out, "<g class=\"frame\""), 4);
	if (fx.outlen > 20000)
		fail_msg("%zu bytes for 4 frames", fx.outlen);
}

static void test_empty_and_errors(void **state)
{
	struct pcl_export_opts o = { .sz = sizeof(o), .width = 50 };
	FILE *fp;

	(void)state;
	fx.p = profile();
	pcl_profile__finish(fx.p);
	/* no samples: a document that says so, with no frame */
	assert_int_equal(draw(fx.p, NULL), 0);
	assert_non_null(strstr(fx.out, ">no samples</text>"));
	assert_int_equal(count(fx.out, "<g class=\"frame\""), 0);
	assert_non_null(strstr(fx.out, "</svg>\n"));

	assert_int_equal(draw(fx.p, &o), -EINVAL);
	assert_non_null(strstr(pcl_last_error(), "width"));

	pcl_profile__free(fx.p);
	fx.p = profile();
	add(fx.p, "main;f", 3);
	pcl_profile__finish(fx.p);
	fp = fopen("/dev/full", "w");
	if (!fp) {
		print_message("no /dev/full: write errors not tested\n");
		return;
	}
	setvbuf(fp, NULL, _IONBF, 0);
	assert_int_equal(pcl_export_flamegraph(fp, fx.p, NULL), -EIO);
	fclose(fp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		UNIT_TEST(test_basic),
		UNIT_TEST(test_kernel_colour),
		UNIT_TEST(test_icicle),
		UNIT_TEST(test_differential),
		UNIT_TEST(test_min_width),
		UNIT_TEST(test_names),
		UNIT_TEST(test_size),
		UNIT_TEST(test_empty_and_errors),
	};

	unit_cleanup = cleanup;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
