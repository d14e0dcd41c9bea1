/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the html writer (lib/output/html.c) against
 * include/pcl/export.h: a page for hand-made profiles whose names hold
 * what HTML and JSON must escape, written into a memstream and searched.
 *
 * The names: a function "</script><img src=x onerror=\"alert(1)\">&'" in
 * DSO "<lib>&.so", a function whose name is not UTF-8, a command name
 * "<b>\"c&'", a title that closes <title> and a fact value with markup.
 * None of it may reach the page as markup: the only "<script" and
 * "</script>" are the page's own two elements.
 */
#include "unit.h"

#include <stdlib.h>
#include <pcl/export.h>
#include <pcl/profile.h>

#define EVIL "</script><img src=x onerror=\"alert(1)\">&'"
#define EVIL_JSON                                                                                  \
	"\"\\u003c/script\\u003e\\u003cimg src=x onerror=\\\"alert(1)\\\"\\u003e\\u0026'\""
#define COMM	   "<b>\"c&'"
#define COMM_JSON  "\"\\u003cb\\u003e\\\"c\\u0026'\""
#define TITLE	   "</title><script>x</script>"
#define TITLE_HTML "&lt;/title&gt;&lt;script&gt;x&lt;/script&gt;"

static struct pcl_dso app = { .name = "/usr/bin/app", .short_name = "app" };
static struct pcl_dso lib = { .name = "/usr/lib/<lib>&.so", .short_name = "<lib>&.so" };
static struct pcl_map app_map = { .start = 0x400000, .end = 0x500000, .dso = &app };
static struct pcl_map lib_map = { .start = 0x7f0000, .end = 0x800000, .dso = &lib };
static const struct pcl_symbol s_main = { 0x1000, 0x1100, "main" };
static const struct pcl_symbol s_rec = { 0x1100, 0x1200, "rec" };
static const struct pcl_symbol s_bad = { 0x1200, 0x1300, "bad\xff\xfe" };
static const struct pcl_symbol s_evil = { 0x100, 0x200, EVIL };
static struct pcl_thread t1 = { .pid = 7, .tid = 7, .comm = COMM };
static struct pcl_thread t2 = { .pid = 7, .tid = 8, .comm = "worker" };

static char *page;
static size_t page_len;

static void cleanup(void)
{
	free(page);
	page = NULL;
	page_len = 0;
}

static void add(struct pcl_profile *p, struct pcl_thread *t, int n,
		const struct pcl_symbol *const *syms)
{
	struct pcl_frame chain[8];
	struct pcl_resolved rs = { .thread = t, .chain = chain, .nr_chain = (size_t)n };

	for (int i = 0; i < n; i++) {
		struct pcl_map *m = syms[i] == &s_evil ? &lib_map : &app_map;

		chain[i] = (struct pcl_frame){
			.ip = m->start + syms[i]->start, .map = m, .sym = syms[i], .level = '.'
		};
	}
	rs.ip = chain[0];
	assert_int_equal(pcl_profile__add(p, &rs, 1000, 0, 250), 0);
}

#define ADD(p, t, ...)                                                                             \
	do {                                                                                       \
		const struct pcl_symbol *const s_[] = { __VA_ARGS__ };                             \
		add(p, t, (int)(sizeof(s_) / sizeof(s_[0])), s_);                                  \
	} while (0)

/* 4 samples: evil under main (twice), a recursion, a name that is not UTF-8. */
static struct pcl_profile *fixture(void)
{
	struct pcl_profile *p = pcl_profile__new(NULL);

	assert_non_null(p);
	ADD(p, &t1, &s_evil, &s_main);
	ADD(p, &t1, &s_evil, &s_main);
	ADD(p, &t2, &s_rec, &s_rec, &s_main);
	ADD(p, &t2, &s_bad, &s_main);
	pcl_profile__finish(p);
	return p;
}

/* Write @p's page into `page`; the writer's return value. */
static int export(const struct pcl_profile *p, const struct pcl_export_opts *o)
{
	FILE *m;
	int ret;

	cleanup();
	m = open_memstream(&page, &page_len);
	assert_non_null(m);
	ret = pcl_export_html(m, p, o);
	assert_int_equal(fclose(m), 0);
	return ret;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *s = strstr(hay, needle); s; s = strstr(s + 1, needle))
		n++;
	return n;
}

static void test_escaping(void **state)
{
	struct pcl_profile *p = fixture();
	const struct pcl_export_fact facts[] = { { "command", "app <i>\"v\"&</i>" },
						 { "hostname", "box" } };
	struct pcl_export_opts o = { .sz = sizeof(o),
				     .title = TITLE,
				     .event = "cpu-clock",
				     .period_is_ns = true,
				     .facts = facts,
				     .nr_facts = 2 };

	(void)state;
	assert_int_equal(export(p, &o), 0);
	assert_int_equal(strlen(page), page_len);
	/* the page's own elements only */
	assert_int_equal(count(page, "<script"), 2);
	assert_int_equal(count(page, "</script>"), 2);
	assert_int_equal(count(page, "<title>"), 1);
	assert_int_equal(count(page, "</title>"), 1);
	assert_int_equal(count(page, "</style>"), 1);
	assert_null(strstr(page, "<img"));
	assert_null(strstr(page, "<b>"));
	assert_null(strstr(page, "<i>"));
	assert_null(strstr(page, "\xff"));
	/* escaped where they belong */
	assert_int_equal(count(page, "<title>" TITLE_HTML "</title>"), 1);
	assert_int_equal(count(page, "<h1>" TITLE_HTML "</h1>"), 1);
	assert_non_null(
		strstr(page, "<dt>command</dt><dd>app &lt;i&gt;&quot;v&quot;&amp;&lt;/i&gt;</dd>"));
	assert_non_null(strstr(page, "<dt>hostname</dt><dd>box</dd>"));
	assert_non_null(strstr(page, "<dt>samples</dt><dd>4</dd>"));
	assert_non_null(strstr(page, "<dt>total period</dt><dd>1000 ns (0.000 s)</dd>"));
	assert_non_null(strstr(page, EVIL_JSON));
	assert_non_null(strstr(page, COMM_JSON));
	assert_non_null(strstr(page, "\"\\u003clib\\u003e\\u0026.so\""));
	assert_non_null(strstr(page, "\"bad\xef\xbf\xbd\xef\xbf\xbd\""));
	pcl_profile__free(p);
}

/* The embedded data: totals, tables and stacks as the profile has them. */
static void test_data(void **state)
{
	struct pcl_profile *p = fixture();

	(void)state;
	assert_int_equal(export(p, NULL), 0);
	assert_non_null(strstr(page, "<title>pcl report</title>"));
	assert_non_null(strstr(page, "\"samples\":4,\"period\":1000,\"lost\":0"));
	assert_non_null(strstr(page, "\"byPeriod\":false"));
	/* functions main, evil, rec, bad; DSOs sorted by address, both named */
	assert_non_null(strstr(page, "\"fname\":[\"main\"," EVIL_JSON ",\"rec\","));
	assert_non_null(strstr(page, "\"flevel\":\"....\""));
	/* nodes 1..5: main, main>evil, main>rec, main>rec>rec, main>bad */
	assert_non_null(strstr(page, "\"nodes\":[0,0,1,1,1,2,3,2,1,3]"));
	assert_non_null(strstr(page, "\"threads\":[7,7," COMM_JSON ",7,8,\"worker\"]"));
	/* thread, node, count, period */
	assert_non_null(strstr(page, "\"stacks\":[0,2,2,500,1,4,1,250,1,5,1,250]"));
	assert_non_null(strstr(page, "<table id=\"functions\">"));
	assert_non_null(strstr(page, "<div id=\"flame\"><canvas></canvas></div>"));
	assert_non_null(strstr(page, "<select id=\"thread\">"));
	assert_non_null(strstr(page, "<table id=\"callers\">"));
	assert_non_null(strstr(page, "<table id=\"callees\">"));
	assert_non_null(strstr(page, "window.pclReady = true"));
	assert_null(strstr(page, "http://"));
	assert_null(strstr(page, "https://"));
	pcl_profile__free(p);
}

/*
 * Code no symbol covers, at two addresses of app under main: one function
 * "[unknown]" of app on the page, one node (the profile keeps the two apart
 * for pprof); the kernel's unknown code is another, marked 'k'; a user
 * frame in no map of a sample taken in the kernel is not.
 */
static void test_unknown(void **state)
{
	static struct pcl_dso kern = { .name = "[kernel.kallsyms]",
				       .short_name = "[kernel.kallsyms]",
				       .kind = PCL_DSO_KERNEL };
	static struct pcl_map kmap = { .start = 0xffffffff80000000ull, .end = UINT64_MAX,
				       .dso = &kern };
	struct pcl_profile *p = pcl_profile__new(NULL);
	struct pcl_frame chain[3];
	struct pcl_resolved rs = { .thread = &t1, .chain = chain, .nr_chain = 2 };

	(void)state;
	assert_non_null(p);
	chain[1] = (struct pcl_frame){ .ip = 0x401000, .map = &app_map, .sym = &s_main,
				       .level = '.' };
	for (uint64_t ip = 0x402000; ip < 0x402002; ip++) {
		chain[0] = (struct pcl_frame){ .ip = ip, .map = &app_map, .level = '.' };
		rs.ip = chain[0];
		assert_int_equal(pcl_profile__add(p, &rs, 0, 0, 1), 0);
	}
	/* kernel [unknown] <- [unknown] in no map at 0, sampled in the kernel */
	chain[0] = (struct pcl_frame){ .ip = 0xffffffff81000000ull, .map = &kmap, .level = 'k' };
	chain[1] = (struct pcl_frame){ .ip = 0, .level = 'k' };
	rs.ip = chain[0];
	assert_int_equal(pcl_profile__add(p, &rs, 0, 0, 1), 0);
	pcl_profile__finish(p);
	assert_int_equal(export(p, NULL), 0);
	assert_non_null(
		strstr(page, "\"fname\":[\"main\",\"[unknown]\",\"[unknown]\",\"[unknown]\"]"));
	assert_non_null(strstr(page, "\"flevel\":\"...k\""));
	/* main, main>[unknown] (both addresses), [unknown] at 0, its kernel callee */
	assert_non_null(strstr(page, "\"nodes\":[0,0,1,1,0,2,3,3]"));
	pcl_profile__free(p);
}

static void test_empty(void **state)
{
	struct pcl_profile *p = pcl_profile__new(NULL);
	struct pcl_export_opts o = { .sz = sizeof(o), .icicle = true, .by_period = true };

	(void)state;
	assert_non_null(p);
	pcl_profile__finish(p);
	assert_int_equal(export(p, &o), 0);
	assert_non_null(strstr(page, "\"samples\":0,\"period\":0"));
	assert_non_null(strstr(page, "\"icicle\":true"));
	assert_non_null(strstr(page, "\"nodes\":[],\n\"threads\":[],\n\"stacks\":[],\n\"ann\":[]}"));
	assert_non_null(strstr(page, "<dt>time span</dt><dd>(no times recorded)</dd>"));
	assert_non_null(strstr(page, "</html>\n"));
	pcl_profile__free(p);
}

/* A full disk: -EIO and a message, not a page cut short that says 0. */
static void test_write_error(void **state)
{
	struct pcl_profile *p = fixture();
	FILE *full = fopen("/dev/full", "w");

	(void)state;
	if (!full) {
		pcl_profile__free(p);
		skip();
	}
	assert_int_equal(pcl_export_html(full, p, NULL), -EIO);
	assert_non_null(strstr(pcl_last_error(), "html"));
	fclose(full);
	pcl_profile__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		UNIT_TEST(test_escaping),
		UNIT_TEST(test_data),
		UNIT_TEST(test_unknown),
		UNIT_TEST(test_empty),
		UNIT_TEST(test_write_error),
	};

	unit_cleanup = cleanup;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
