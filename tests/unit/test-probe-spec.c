/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of perf probe's definition syntax (lib/probe/spec.c): a table
 * of definitions with what each parses to (group, event, function, file,
 * line, offset, %return, arguments with names, types and fields), and a
 * table of definitions perf refuses, which must fail without leaving
 * anything allocated in the spec.
 */
#include "unit.h"

#include "probe/probe.h"

struct row {
	const char *in;
	const char *group, *event, *func, *file;
	long line; /* -1: no line */
	uint64_t offset;
	bool ret;
	int nargs;
	const char *arg0_name, *arg0_var, *arg0_type;
	int arg0_fields;
};

static const struct row rows[] = {
	{ "probed_add", NULL, NULL, "probed_add", NULL, -1, 0, false, 0 },
	{ "probed_add%return $retval", NULL, NULL, "probed_add", NULL, -1, 0, true, 1, NULL,
	  "$retval", NULL, 0 },
	{ "ev=f:4 sum", NULL, "ev", "f", NULL, 4, 0, false, 1, NULL, "sum", NULL, 0 },
	{ "grp:ev=f+0x10 %di:u32", "grp", "ev", "f", NULL, -1, 0x10, false, 1, NULL, "%di", "u32",
	  0 },
	{ "probed.c:22 n=name:string", NULL, NULL, NULL, "probed.c", 22, 0, false, 1, "n", "name",
	  "string", 0 },
	{ "f@dir/x.c p->a.b[2]->c:s16", NULL, NULL, "f", "dir/x.c", -1, 0, false, 1, "c", "p", "s16",
	  4 },
	{ "f@x.c:3", NULL, NULL, "f", "x.c", 3, 0, false, 0 },
	{ "f +8(%sp):x64", NULL, NULL, "f", NULL, -1, 0, false, 1, NULL, "+8(%sp)", "x64", 0 },
	{ "f $params", NULL, NULL, "f", NULL, -1, 0, false, 1, NULL, "$params", NULL, 0 },
	/* a name without '.' before ':' is a function with a relative line */
	{ "main:2", NULL, NULL, "main", NULL, 2, 0, false, 0 },
};

static void test_parse_rows(void **state)
{
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		struct probe_spec sp;
		bool ok;

		if (probe_spec_parse(r->in, &sp)) {
			print_message("'%s': refused: %s\n", r->in, pcl_last_error());
			bad++;
			continue;
		}
#define SAME(a, b) ((!(a) && !(b)) || ((a) && (b) && !strcmp((a), (b))))
		ok = SAME(sp.group, r->group) && SAME(sp.event, r->event) && SAME(sp.func, r->func) &&
		     SAME(sp.file, r->file) && (r->line < 0 ? !sp.has_line : sp.line == r->line) &&
		     sp.offset == r->offset && sp.retprobe == r->ret && sp.nargs == r->nargs;
		if (ok && r->nargs)
			ok = SAME(sp.args[0].name, r->arg0_name) && SAME(sp.args[0].var, r->arg0_var) &&
			     SAME(sp.args[0].type, r->arg0_type) &&
			     sp.args[0].nfields == r->arg0_fields;
#undef SAME
		if (!ok) {
			print_message("'%s': parsed to func=%s file=%s line=%ld off=%lu ret=%d nargs=%d\n",
				      r->in, sp.func ? sp.func : "-", sp.file ? sp.file : "-",
				      sp.has_line ? sp.line : -1L, (unsigned long)sp.offset,
				      sp.retprobe, sp.nargs);
			bad++;
		}
		probe_spec_free(&sp);
	}
	assert_int_equal(bad, 0);
}

static void test_refused(void **state)
{
	static const char *const in[] = {
		"",	       "   ",	     "f;pattern",	"f%retrun",   "f:abc",
		"f:3+4",       "f:",	     "f%return:3",	"f%return a", "=f",
		"1ev=f",       "f+zz",	     "f a:",		"f @x=1",      "f p->",
		"f p[x]",      "f:-1",	     "grp:=f",		"f@",	       "f%return+4",
	};
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		struct probe_spec sp;

		if (probe_spec_parse(in[i], &sp) == 0) {
			print_message("'%s' was accepted\n", in[i]);
			probe_spec_free(&sp);
			bad++;
		} else if (sp.point || sp.args || sp.func || sp.file || sp.nargs) {
			print_message("'%s' left something in the spec\n", in[i]);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

static void test_sanitize(void **state)
{
	char s[] = "libc.so.6-x:y";

	(void)state;
	probe_sanitize(s);
	assert_string_equal(s, "libc_so_6_x_y");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		UNIT_TEST(test_parse_rows),
		UNIT_TEST(test_refused),
		UNIT_TEST(test_sanitize),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
