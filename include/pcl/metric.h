/* SPDX-License-Identifier: MIT */
/*
 * Derived metrics (perf stat -M): named formulas over hardware events of
 * one CPU model, such as branch_misprediction_ratio = d_ratio(ex_ret_brn_misp,
 * ex_ret_brn). The table is pcl's own; metric and group names are perf's so
 * that scripts written for perf work. A CPU the table does not know has no
 * metrics (pcl does not guess from a neighbour).
 *
 * The events of the formulas are named as perf names them; `pcl stat -e`
 * accepts those names too, encoded through libpfm4 (core events) or the
 * uncore PMU's format (amd_l3, amd_df).
 *
 * Everything here is read-only data and pure functions: thread-safe.
 */
#ifndef PCL_METRIC_H
#define PCL_METRIC_H

#include <pcl/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pcl_metric {
	const char *name;	/* perf's metric name: "branch_misprediction_ratio" */
	const char *group;	/* perf's metric group: "branch_prediction" */
	const char *desc;	/* one line */
	const char *expr;	/* the formula, in perf's expression syntax */
	const char *scale_unit; /* "100%", "1core clocks", "3e-5MiB", or NULL (scale 1, no unit) */
};

/*
 * The table for this CPU: a short name ("AMD family 19h") or NULL when pcl
 * knows no metrics for it. The CPU is read from /proc/cpuinfo, or from the
 * environment variable PCL_CPUID ("AuthenticAMD-25-17": vendor-family-model,
 * decimal) when set, which lets tests pick a CPU.
 */
PCL_API const char *pcl_metric_table(void);

/* The @idx-th metric of this CPU, sorted by name; NULL past the end. */
PCL_API const struct pcl_metric *pcl_metrics(int idx);

/* The metric named @name (exact), or NULL. */
PCL_API const struct pcl_metric *pcl_metric__find(const char *name);

/*
 * The value of @expr: numbers, event names (letters, digits, '_', '.'),
 * + - * / and parentheses, unary minus, and the functions d_ratio(a, b)
 * (a / b, 0 when b is 0), min(a, b) and max(a, b). @lookup gives an event's
 * value: it returns 0, or a negative errno that the evaluation returns.
 * Returns 0 with *@out set; -EINVAL for a syntax error, -EDOM for a
 * division by zero outside d_ratio, or @lookup's error.
 */
typedef int (*pcl_metric_lookup_fn)(void *ctx, const char *name, double *value);
PCL_API int pcl_metric_expr_eval(const char *expr, pcl_metric_lookup_fn lookup, void *ctx,
				 double *out);

/*
 * Call @fn for each event name of @expr in order of appearance, once per
 * name. Returns 0, @fn's first non-zero return, or -EINVAL when an event
 * name is too long (over 127 bytes).
 */
PCL_API int pcl_metric_expr_events(const char *expr, int (*fn)(void *ctx, const char *name),
				   void *ctx);

/*
 * Split a scale unit ("100%", "3e-5MiB", "1core clocks") into the factor
 * and the unit text (a pointer into @scale_unit). NULL gives 1 and "".
 * Returns 0, or -EINVAL when it does not start with a number.
 */
PCL_API int pcl_metric_scale(const char *scale_unit, double *scale, const char **unit);

#ifdef __cplusplus
}
#endif
#endif
