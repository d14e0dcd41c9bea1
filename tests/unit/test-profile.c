/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of profiles and merged trees (lib/analysis/profile.c) and of
 * the folded-stacks writer (lib/output/folded.c), against
 * include/pcl/profile.h and include/pcl/export.h.
 *
 * Samples are hand-made resolved samples over two DSOs: "app" with main,
 * foo, bar and "libx" with its own "foo" (a same-named function elsewhere),
 * and threads 10 and 11 of command "a" and thread 20 of command "b".
 */
#include "unit.h"

#include <stdlib.h>
#include <unistd.h>
#include <pcl/export.h>
#include <pcl/profile.h>
#include <pcl/symbol.h>

static struct pcl_dso app = { .name = "/usr/bin/app", .short_name = "app" };
static struct pcl_dso libx = { .name = "/usr/lib/libx.so", .short_name = "libx.so" };
static struct pcl_map app_map = { .start = 0x400000, .end = 0x500000, .dso = &app };
static struct pcl_map libx_map = { .start = 0x7f0000, .end = 0x800000, .dso = &libx };
static const struct pcl_symbol s_main = { 0x1000, 0x1100, "main" };
static const struct pcl_symbol s_foo = { 0x1100, 0x1200, "foo" };
static const struct pcl_symbol s_bar = { 0x1200, 0x1300, "bar" };
static const struct pcl_symbol s_xfoo = { 0x100, 0x200, "foo" };
static struct pcl_thread t10 = { .pid = 10, .tid = 10, .comm = "a" };
static struct pcl_thread t11 = { .pid = 10, .tid = 11, .comm = "a" };
static struct pcl_thread t20 = { .pid = 20, .tid = 20, .comm = "b" };

static struct pcl_frame fr(const struct pcl_symbol *s)
{
	struct pcl_map *m = s == &s_xfoo ? &libx_map : &app_map;

	return (struct pcl_frame){ .ip = m->start + (s ? s->start : 0x50), .map = m, .sym = s,
				   .level = '.' };
}

/* Give samples chain ids (as a resolver does: one per distinct chain). */
static bool use_ids;

/* Add a sample of @thread with chain @syms (callee first; NULL: an unknown frame in app). */
static void add(struct pcl_profile *p, struct pcl_thread *t, uint64_t time, uint64_t period,
		int n, const struct pcl_symbol *const *syms)
{
	struct pcl_frame chain[8];
	struct pcl_resolved rs = { .thread = t, .chain = chain, .nr_chain = (size_t)n };
	uint64_t id = 1469598103934665603ULL;

	for (int i = 0; i < n; i++) {
		chain[i] = fr(syms[i]);
		id = (id ^ (uintptr_t)syms[i]) * 1099511628211ULL;
	}
	rs.ip = chain[0];
	rs.chain_id = use_ids ? id | 1 : 0;
	assert_int_equal(pcl_profile__add(p, &rs, time, 0, period), 0);
}

#define ADD(p, t, time, period, ...)                                                      \
	do {                                                                              \
		const struct pcl_symbol *const s_[] = { __VA_ARGS__ };                    \
		add(p, t, time, period, (int)(sizeof(s_) / sizeof(s_[0])), s_);           \
	} while (0)

/* The fixture's samples: 8 of them, 3 threads, in a profile made with @o. */
static struct pcl_profile *fixture_opts(const struct pcl_profile_opts *o)
{
	struct pcl_profile *p = pcl_profile__new(o);

	assert_non_null(p);
	ADD(p, &t10, 500, 10, &s_bar, &s_foo, &s_main);
	ADD(p, &t10, 100, 10, &s_bar, &s_foo, &s_main);
	ADD(p, &t10, 300, 10, &s_bar, &s_foo, &s_main);
	ADD(p, &t10, 200, 30, &s_foo, &s_main);
	ADD(p, &t11, 150, 10, &s_bar, &s_foo, &s_main);
	ADD(p, &t11, 250, 10, &s_bar, &s_foo, &s_main);
	ADD(p, &t20, 50, 5, &s_xfoo, &s_main);
	ADD(p, &t20, 60, 5, NULL, &s_main);
	pcl_profile__finish(p);
	return p;
}

static struct pcl_profile *fixture(bool timeline)
{
	struct pcl_profile_opts o = { .sz = sizeof(o), .timeline = timeline };

	return fixture_opts(&o);
}

static void test_tables(void **state)
{
	struct pcl_profile *p = fixture(false);
	const struct pcl_profile_func *f;
	const struct pcl_profile_node *nd;
	const struct pcl_profile_stack *st;
	const struct pcl_profile_thread *th;
	size_t nf, nn, ns, nt;

	(void)state;
	f = pcl_profile__funcs(p, &nf);
	nd = pcl_profile__nodes(p, &nn);
	st = pcl_profile__stacks(p, &ns);
	th = pcl_profile__threads(p, &nt);
	/* main, foo, bar and an unknown frame of app; libx's foo */
	assert_int_equal(nf, 5);
	assert_string_equal(f[0].name, "main");
	assert_ptr_equal(f[0].dso, &app);
	assert_int_equal(f[0].start, 0x1000);
	assert_string_equal(f[3].name, "foo");
	assert_ptr_equal(f[3].dso, &libx);
	assert_string_equal(f[4].name, "[unknown]");
	/* root, main, main>foo, main>foo>bar, main>libx foo, main>unknown */
	assert_int_equal(nn, 6);
	assert_int_equal(nd[0].depth, 0);
	assert_int_equal(nd[3].parent, 2);
	assert_int_equal(nd[3].depth, 3);
	assert_int_equal(nd[3].func, 2);
	assert_int_equal(nt, 3);
	assert_int_equal(th[1].tid, 11);
	assert_string_equal(th[2].comm, "b");
	/* per thread and stack, sorted by thread then node */
	assert_int_equal(ns, 5);
	assert_int_equal(st[0].thread, 0);
	assert_int_equal(st[0].node, 2);
	assert_int_equal(st[0].count, 1);
	assert_int_equal(st[0].period, 30);
	assert_int_equal(st[1].node, 3);
	assert_int_equal(st[1].count, 3);
	assert_int_equal(st[2].thread, 1);
	assert_int_equal(st[2].count, 2);
	assert_int_equal(pcl_profile__nr_samples(p), 8);
	assert_int_equal(pcl_profile__total_period(p), 90);
	assert_int_equal(pcl_profile__time_first(p), 50);
	assert_int_equal(pcl_profile__time_last(p), 500);
	/* no timeline asked: no samples kept */
	pcl_profile__samples(p, &ns);
	assert_int_equal(ns, 0);
	assert_int_equal(pcl_profile__add_switch(p, &t10, 5, true, false), 0);
	pcl_profile__switches(p, &ns);
	assert_int_equal(ns, 0);
	pcl_profile__free(p);
}

static void test_timeline(void **state)
{
	struct pcl_profile_opts o = { .sz = sizeof(o), .timeline = true };
	struct pcl_profile *p = pcl_profile__new(&o);
	const struct pcl_profile_sample *s;
	const struct pcl_profile_switch *sw;
	size_t n;

	(void)state;
	assert_non_null(p);
	ADD(p, &t10, 300, 1, &s_main);
	ADD(p, &t11, 100, 1, &s_foo, &s_main);
	ADD(p, &t10, 200, 1, &s_main);
	assert_int_equal(pcl_profile__add_switch(p, &t10, 250, true, true), 0);
	assert_int_equal(pcl_profile__add_switch(p, &t10, 120, false, false), 0);
	pcl_profile__finish(p);
	s = pcl_profile__samples(p, &n);
	assert_int_equal(n, 3);
	assert_int_equal(s[0].time, 100);
	assert_int_equal(s[0].thread, 1);
	assert_int_equal(s[0].node, 2);
	assert_int_equal(s[2].time, 300);
	assert_int_equal(s[2].cpu, 0);
	sw = pcl_profile__switches(p, &n);
	assert_int_equal(n, 2);
	assert_int_equal(sw[0].time, 120);
	assert_false(sw[0].out);
	assert_true(sw[1].out);
	assert_true(sw[1].preempt);
	pcl_profile__free(p);
}

static void test_flame(void **state)
{
	struct pcl_profile *p = fixture(false);
	struct pcl_flame f;
	uint32_t a, b, main_a, foo, bar, x;

	(void)state;
	assert_int_equal(pcl_flame__build(&f, p, false, -1), 0);
	assert_int_equal(f.nodes[0].total, 8);
	assert_string_equal(f.nodes[0].name, "all");
	a = pcl_flame__child(&f, 0, "a");
	b = pcl_flame__child(&f, 0, "b");
	assert_true(a && b);
	/* children in name order: a before b */
	assert_int_equal(f.nodes[0].first, a);
	assert_int_equal(f.nodes[a].next, b);
	assert_int_equal(f.nodes[a].func, UINT32_MAX);
	assert_int_equal(f.nodes[a].total, 6);
	main_a = pcl_flame__child(&f, a, "main");
	foo = pcl_flame__child(&f, main_a, "foo");
	bar = pcl_flame__child(&f, foo, "bar");
	assert_int_equal(f.nodes[foo].total, 6);
	assert_int_equal(f.nodes[foo].self, 1);
	assert_int_equal(f.nodes[bar].self, 5);
	assert_int_equal(f.nodes[bar].depth, 4);
	assert_int_equal(f.max_depth, 4);
	assert_int_equal(pcl_flame__child(&f, bar, "main"), 0);
	/* libx's foo and app's unknown frame under b: "[unknown]" sorts before "foo" */
	x = pcl_flame__child(&f, b, "main");
	assert_string_equal(f.nodes[f.nodes[x].first].name, "[unknown]");
	assert_string_equal(f.nodes[f.nodes[f.nodes[x].first].next].name, "foo");
	pcl_flame__free(&f);

	/* periods, and one thread */
	assert_int_equal(pcl_flame__build(&f, p, true, -1), 0);
	assert_int_equal(f.nodes[0].total, 90);
	pcl_flame__free(&f);
	assert_int_equal(pcl_flame__build(&f, p, false, 1), 0);
	assert_int_equal(f.nodes[0].total, 2);
	assert_int_equal(pcl_flame__child(&f, 0, "b"), 0);
	pcl_flame__free(&f);
	pcl_profile__free(p);
}

/*
 * Folded stacks are what `perf script | stackcollapse-perf.pl` gives: the
 * periods summed (by_period or not), an unsymbolized frame named by its
 * DSO's base name in brackets, lines in byte order.
 */
static void test_folded(void **state)
{
	struct pcl_profile *p = fixture(false);
	struct pcl_export_opts o = { .sz = sizeof(o) };
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(fp);
	assert_int_equal(pcl_export_folded(fp, p, &o), 0);
	fclose(fp);
	assert_string_equal(buf, "a;main;foo 30\n"
				 "a;main;foo;bar 50\n"
				 "b;main;[app] 5\n"
				 "b;main;foo 5\n");
	free(buf);
	pcl_profile__free(p);
}

/*
 * stackcollapse-perf.pl's rules (FlameGraph), each on a crafted stack with
 * the line the script gives for what perf script prints of it.
 */
static void test_folded_rules(void **state)
{
	static struct pcl_dso llvm = { .name = "/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1",
				       .short_name = "libLLVM-14.so.1" };
	static struct pcl_dso kern = { .name = "[kernel.kallsyms]",
				       .short_name = "[kernel.kallsyms]",
				       .kind = PCL_DSO_KERNEL };
	static struct pcl_map llvm_map = { .start = 0x10000, .end = 0x20000, .dso = &llvm };
	static struct pcl_map kern_map = { .start = 0xffff0000, .end = 0xffffffff, .dso = &kern };
	static const struct pcl_symbol cxx = { 0x1000, 0x1100,
					       "ns::Klass::run(int, char const*) const" };
	static const struct pcl_symbol anon = { 0x1100, 0x1200,
						"(anonymous namespace)::hidden(int)" };
	static const struct pcl_symbol inanon = { 0x1200, 0x1300,
						  "a::(anonymous namespace)::f(long)" };
	static const struct pcl_symbol gom = { 0x1300, 0x1400, "net/http.(*Client).Do" };
	static const struct pcl_symbol odd = { 0x1400, 0x1500, "x;y\"z'" };
	static const struct pcl_symbol inl = { 0x1500, 0x1600, "outer->inner" };
	static const struct pcl_symbol jv = { 0x1600, 0x1700,
					      "Lorg/mozilla/Ctx;.call(Lorg/Act;)V" };
	static struct pcl_thread tw = { .pid = 7, .tid = 8, .comm = "V8 Worker" };
	static struct pcl_thread tj = { .pid = 9, .tid = 9, .comm = "java" };
	struct pcl_profile *p = pcl_profile__new(NULL);
	struct pcl_frame c[6];
	struct pcl_resolved rs = { .chain = c };
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;

	(void)state;
	assert_non_null(p);
	/* unknown frames: in a DSO, in the kernel's, in no map; C++ names; unequal periods */
	c[0] = (struct pcl_frame){ .ip = 0x10500, .map = &llvm_map, .level = '.' };
	c[1] = (struct pcl_frame){ .ip = 0x401000, .map = &app_map, .sym = &cxx, .level = '.' };
	c[2] = (struct pcl_frame){ .ip = 0x401100, .map = &app_map, .sym = &anon, .level = '.' };
	c[3] = (struct pcl_frame){ .ip = 0x401200, .map = &app_map, .sym = &inanon, .level = '.' };
	c[4] = (struct pcl_frame){ .ip = 0x1234, .level = '.' };
	rs.thread = &tw;
	rs.nr_chain = 5;
	rs.ip = c[0];
	assert_int_equal(pcl_profile__add(p, &rs, 0, 0, 1000), 0);
	assert_int_equal(pcl_profile__add(p, &rs, 0, 0, 2500), 0);
	c[0] = (struct pcl_frame){ .ip = 0xffff1000, .map = &kern_map, .level = 'k' };
	rs.ip = c[0];
	assert_int_equal(pcl_profile__add(p, &rs, 0, 0, 7), 0);
	/* Go method, ';' and quotes, an inline chain */
	c[0] = (struct pcl_frame){ .ip = 0x401300, .map = &app_map, .sym = &gom, .level = '.' };
	c[1] = (struct pcl_frame){ .ip = 0x401400, .map = &app_map, .sym = &odd, .level = '.' };
	c[2] = (struct pcl_frame){ .ip = 0x401500, .map = &app_map, .sym = &inl, .level = '.' };
	rs.nr_chain = 3;
	rs.ip = c[0];
	assert_int_equal(pcl_profile__add(p, &rs, 0, 0, 5), 0);
	/* a Java signature, in a process named java */
	c[0] = (struct pcl_frame){ .ip = 0x401600, .map = &app_map, .sym = &jv, .level = '.' };
	rs.thread = &tj;
	rs.nr_chain = 1;
	rs.ip = c[0];
	assert_int_equal(pcl_profile__add(p, &rs, 0, 0, 0), 0);
	pcl_profile__finish(p);
	fp = open_memstream(&buf, &len);
	assert_int_equal(pcl_export_folded(fp, p, NULL), 0);
	fclose(fp);
	assert_string_equal(buf, "V8_Worker;[unknown];a::(anonymous namespace)::f;ns::Klass::run;"
				 "[[kernel.kallsyms]] 7\n"
				 "V8_Worker;[unknown];a::(anonymous namespace)::f;ns::Klass::run;"
				 "[libLLVM-14.so.1] 3500\n"
				 "V8_Worker;outer;inner_[i];x:yz;net/http.(*Client).Do 5\n"
				 "java;org/mozilla/Ctx:.call 1\n");
	free(buf);
	pcl_profile__free(p);
}

/* A sample without a call chain is its ip alone; an empty profile folds to nothing. */
static void test_no_chain(void **state)
{
	struct pcl_profile *p = pcl_profile__new(NULL);
	struct pcl_resolved rs = { .thread = &t20, .ip = fr(&s_bar) };
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;

	(void)state;
	assert_non_null(p);
	fp = open_memstream(&buf, &len);
	pcl_profile__finish(p);
	assert_int_equal(pcl_export_folded(fp, p, NULL), 0);
	fflush(fp);
	assert_int_equal(len, 0);
	fclose(fp);
	free(buf);
	pcl_profile__free(p);

	p = pcl_profile__new(NULL);
	assert_int_equal(pcl_profile__add(p, &rs, 0, UINT32_MAX, 7), 0);
	pcl_profile__finish(p);
	fp = open_memstream(&buf, &len);
	assert_int_equal(pcl_export_folded(fp, p, NULL), 0);
	fclose(fp);
	assert_string_equal(buf, "b;bar 7\n");
	free(buf);
	assert_int_equal(pcl_profile__time_first(p), 0);
	pcl_profile__free(p);
}

/* The fixture's samples and more, with or without chain ids. */
static struct pcl_profile *with_ids(bool ids)
{
	struct pcl_profile *p = pcl_profile__new(NULL);

	assert_non_null(p);
	use_ids = ids;
	for (int rep = 0; rep < 2; rep++) {
		ADD(p, &t10, 500, 10, &s_bar, &s_foo, &s_main);
		ADD(p, &t10, 200, 30, &s_foo, &s_main);
		ADD(p, &t11, 150, 10, &s_bar, &s_foo, &s_main);
		ADD(p, &t20, 50, 5, &s_xfoo, &s_main);
		ADD(p, &t20, 60, 5, NULL, &s_main);
		/* the same chains again, in other threads: from the id table */
		ADD(p, &t20, 70, 5, &s_bar, &s_foo, &s_main);
		ADD(p, &t11, 80, 5, &s_foo, &s_main);
	}
	use_ids = false;
	pcl_profile__finish(p);
	return p;
}

/* Chain ids only skip work: a profile with them equals one without. */
static void test_chain_ids(void **state)
{
	struct pcl_profile *a = with_ids(false), *b = with_ids(true);
	const struct pcl_profile_stack *sa, *sb;
	const struct pcl_profile_node *na, *nb;
	size_t nsa, nsb, nna, nnb;

	(void)state;
	sa = pcl_profile__stacks(a, &nsa);
	sb = pcl_profile__stacks(b, &nsb);
	na = pcl_profile__nodes(a, &nna);
	nb = pcl_profile__nodes(b, &nnb);
	assert_int_equal(nsa, 7);
	assert_int_equal(nsa, nsb);
	assert_int_equal(nna, nnb);
	for (size_t i = 0; i < nsa; i++) {
		assert_int_equal(sa[i].thread, sb[i].thread);
		assert_int_equal(sa[i].node, sb[i].node);
		assert_int_equal(sa[i].count, sb[i].count);
		assert_int_equal(sa[i].period, sb[i].period);
	}
	for (size_t i = 0; i < nna; i++) {
		assert_int_equal(na[i].parent, nb[i].parent);
		assert_int_equal(na[i].func, nb[i].func);
	}
	assert_int_equal(pcl_profile__nr_samples(b), 14);
	pcl_profile__free(a);
	pcl_profile__free(b);
}

/* Many distinct deep stacks: the indexes grow and every stack is kept apart. */
static void test_many(void **state)
{
	static struct pcl_symbol syms[300];
	struct pcl_profile *p = pcl_profile__new(NULL);
	struct pcl_frame chain[3];
	struct pcl_flame f;
	size_t n;

	(void)state;
	for (int i = 0; i < 300; i++)
		syms[i] = (struct pcl_symbol){ 0x10000 + (uint64_t)i * 16,
					       0x10000 + (uint64_t)i * 16 + 16, "s" };
	for (int i = 0; i < 300; i++) {
		for (int j = 0; j < 300; j += 7) {
			struct pcl_resolved rs = { .thread = &t10, .chain = chain, .nr_chain = 3 };

			chain[0] = fr(&syms[j]);
			chain[1] = fr(&syms[i]);
			chain[2] = fr(&s_main);
			rs.ip = chain[0];
			assert_int_equal(pcl_profile__add(p, &rs, 0, 0, 1), 0);
		}
	}
	pcl_profile__finish(p);
	pcl_profile__funcs(p, &n);
	assert_int_equal(n, 301);
	pcl_profile__stacks(p, &n);
	assert_int_equal(n, 300 * 43);
	/* all named "s": the merged tree has main > s > s */
	assert_int_equal(pcl_flame__build(&f, p, false, -1), 0);
	assert_int_equal(f.nr_nodes, 5);
	assert_int_equal(f.nodes[0].total, 300 * 43);
	pcl_flame__free(&f);
	pcl_profile__free(p);
}

/*
 * Locations: without source lines (no symbolizer, or one that finds no
 * file: the DSOs here do not exist), one per function, which every node of
 * the function names; no file, no line, no inlined function.
 */
static void test_locs(void **state)
{
	char dir[] = "/tmp/pcl-test-profile.XXXXXX";
	struct pcl_symbol_opts so = { .sz = sizeof(so), .symfs = dir };
	struct pcl_symbols *sym;

	(void)state;
	assert_non_null(mkdtemp(dir));
	sym = pcl_symbols__new(&so);
	assert_non_null(sym);
	for (int with = 0; with < 2; with++) {
		struct pcl_profile_opts o = { .sz = sizeof(o), .symbols = with ? sym : NULL };
		struct pcl_profile *p = fixture_opts(&o);
		size_t nf, nn, nl, nln;
		const struct pcl_profile_func *f = pcl_profile__funcs(p, &nf);
		const struct pcl_profile_node *nd = pcl_profile__nodes(p, &nn);
		const struct pcl_profile_loc *l = pcl_profile__locs(p, &nl);

		pcl_profile__lines(p, &nln);
		assert_int_equal(nl, nf);
		assert_int_equal(nln, 0);
		assert_int_equal(nd[0].loc, UINT32_MAX);
		for (size_t i = 1; i < nn; i++) {
			assert_true(nd[i].loc < nl);
			assert_int_equal(l[nd[i].loc].func, nd[i].func);
		}
		for (size_t i = 0; i < nl; i++) {
			assert_int_equal(l[i].addr, 0);
			assert_int_equal(l[i].nr_lines, 0);
		}
		for (size_t i = 0; i < nf; i++) {
			assert_null(f[i].file);
			assert_int_equal(f[i].line, 0);
			assert_false(f[i].inlined);
		}
		pcl_profile__free(p);
	}
	pcl_symbols__free(sym);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables),	 cmocka_unit_test(test_timeline),
		cmocka_unit_test(test_flame),	 cmocka_unit_test(test_folded),
		cmocka_unit_test(test_folded_rules),
		cmocka_unit_test(test_no_chain), cmocka_unit_test(test_many),
		cmocka_unit_test(test_chain_ids), cmocka_unit_test(test_locs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
