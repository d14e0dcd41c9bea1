/* SPDX-License-Identifier: MIT */
/*
 * The metric formula evaluator: a recursive-descent parser that computes as
 * it parses (the formulas are short and evaluated once per printed row).
 *
 *   expr   := term (('+' | '-') term)*
 *   term   := unary (('*' | '/') unary)*
 *   unary  := '-' unary | primary
 *   primary:= NUMBER | NAME | NAME '(' expr (',' expr)* ')' | '(' expr ')'
 *
 * A NAME followed by '(' is a function (d_ratio, min, max); any other NAME
 * is an event, whose value the caller's lookup gives.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include <pcl/metric.h>

#define NAME_MAX_LEN 128

struct ex {
	const char *p;
	pcl_metric_lookup_fn lookup;
	void *ctx;
	int err;
};

static void skip_ws(struct ex *x)
{
	while (isspace((unsigned char)*x->p))
		x->p++;
}

static bool name_char(char c, bool first)
{
	return isalpha((unsigned char)c) || c == '_' ||
	       (!first && (isdigit((unsigned char)c) || c == '.'));
}

/* Copy the name at x->p into @buf; its length, or 0 (and x->err) when too long. */
static size_t take_name(struct ex *x, char *buf)
{
	size_t n = 0;

	while (name_char(x->p[n], n == 0))
		n++;
	if (n >= NAME_MAX_LEN) {
		x->err = -EINVAL;
		return 0;
	}
	memcpy(buf, x->p, n);
	buf[n] = '\0';
	x->p += n;
	return n;
}

static double parse_expr(struct ex *x);

static double call(struct ex *x, const char *fn)
{
	double a[2];
	int n = 0;

	x->p++; /* '(' */
	for (;;) {
		double v = parse_expr(x);

		if (x->err)
			return 0;
		if (n < 2)
			a[n] = v;
		n++;
		skip_ws(x);
		if (*x->p == ',') {
			x->p++;
			continue;
		}
		if (*x->p != ')') {
			x->err = -EINVAL;
			return 0;
		}
		x->p++;
		break;
	}
	if (n != 2) {
		x->err = -EINVAL;
		return 0;
	}
	if (!strcmp(fn, "d_ratio"))
		return a[1] == 0 ? 0 : a[0] / a[1];
	if (!strcmp(fn, "min"))
		return a[0] < a[1] ? a[0] : a[1];
	if (!strcmp(fn, "max"))
		return a[0] > a[1] ? a[0] : a[1];
	x->err = -EINVAL;
	return 0;
}

static double primary(struct ex *x)
{
	char name[NAME_MAX_LEN];
	double v = 0;

	skip_ws(x);
	if (*x->p == '(') {
		x->p++;
		v = parse_expr(x);
		skip_ws(x);
		if (*x->p != ')') {
			if (!x->err)
				x->err = -EINVAL;
			return v; /* never past the end: "(a + b" */
		}
		x->p++;
		return v;
	}
	if (isdigit((unsigned char)*x->p) || *x->p == '.') {
		char *end;

		v = strtod(x->p, &end);
		if (end == x->p)
			x->err = -EINVAL;
		x->p = end;
		return v;
	}
	if (!name_char(*x->p, true) || !take_name(x, name)) {
		if (!x->err)
			x->err = -EINVAL;
		return 0;
	}
	skip_ws(x);
	if (*x->p == '(')
		return call(x, name);
	if (!x->err) {
		int ret = x->lookup(x->ctx, name, &v);

		if (ret)
			x->err = ret < 0 ? ret : -EINVAL;
	}
	return v;
}

static double unary(struct ex *x)
{
	skip_ws(x);
	if (*x->p == '-') {
		x->p++;
		return -unary(x);
	}
	return primary(x);
}

static double term(struct ex *x)
{
	double v = unary(x);

	for (;;) {
		char op;
		double r;

		skip_ws(x);
		op = *x->p;
		if (x->err || (op != '*' && op != '/'))
			return v;
		x->p++;
		r = unary(x);
		if (op == '*') {
			v *= r;
		} else if (r == 0) {
			if (!x->err)
				x->err = -EDOM;
		} else {
			v /= r;
		}
	}
}

static double parse_expr(struct ex *x)
{
	double v = term(x);

	for (;;) {
		char op;

		skip_ws(x);
		op = *x->p;
		if (x->err || (op != '+' && op != '-'))
			return v;
		x->p++;
		v = op == '+' ? v + term(x) : v - term(x);
	}
}

PCL_API int pcl_metric_expr_eval(const char *expr, pcl_metric_lookup_fn lookup, void *ctx,
				 double *out)
{
	struct ex x = { .p = expr, .lookup = lookup, .ctx = ctx };
	double v;

	if (!expr || !lookup || !out)
		return pcl_err(EINVAL, "pcl_metric_expr_eval: invalid argument");
	v = parse_expr(&x);
	skip_ws(&x);
	if (!x.err && *x.p)
		x.err = -EINVAL; /* trailing junk: "a b", "a)" */
	if (x.err == -EINVAL)
		return pcl_err(EINVAL, "bad metric expression at '%.20s' in '%s'", x.p, expr);
	if (x.err)
		return x.err;
	*out = v;
	return 0;
}

PCL_API int pcl_metric_expr_events(const char *expr, int (*fn)(void *ctx, const char *name),
				   void *ctx)
{
	const char *p = expr;
	char seen[32][NAME_MAX_LEN];
	int nseen = 0;

	if (!expr || !fn)
		return pcl_err(EINVAL, "pcl_metric_expr_events: invalid argument");
	while (*p) {
		const char *q;
		size_t n = 0;
		bool dup = false;
		int ret;

		if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) {
			/* a number, with its exponent: 3e-5 is not the event 'e' */
			char *end;

			strtod(p, &end);
			p = end > p ? end : p + 1;
			continue;
		}
		if (!name_char(*p, true)) {
			p++;
			continue;
		}
		while (name_char(p[n], n == 0))
			n++;
		if (n >= NAME_MAX_LEN)
			return pcl_err(EINVAL, "event name too long in metric '%s'", expr);
		for (q = p + n; isspace((unsigned char)*q); q++)
			;
		if (*q != '(') {
			char name[NAME_MAX_LEN];

			memcpy(name, p, n);
			name[n] = '\0';
			for (int i = 0; i < nseen; i++)
				dup |= !strcmp(seen[i], name);
			if (!dup) {
				if (nseen < 32)
					memcpy(seen[nseen++], name, n + 1);
				ret = fn(ctx, name);
				if (ret)
					return ret;
			}
		}
		p += n;
	}
	return 0;
}

PCL_API int pcl_metric_scale(const char *scale_unit, double *scale, const char **unit)
{
	char *end;

	if (!scale || !unit)
		return pcl_err(EINVAL, "pcl_metric_scale: invalid argument");
	if (!scale_unit) {
		*scale = 1.0;
		*unit = "";
		return 0;
	}
	*scale = strtod(scale_unit, &end);
	if (end == scale_unit || !isfinite(*scale))
		return pcl_err(EINVAL, "bad metric scale '%s'", scale_unit);
	*unit = end;
	return 0;
}
