/* SPDX-License-Identifier: MIT */
/*
 * The "psi" source: pressure stall information from /proc/pressure/RES.
 *
 * Each file has a "some" line (time in which at least one task stalled on
 * RES) and, except for cpu on kernels before 5.13, a "full" line (time in
 * which all non-idle tasks stalled at once); irq has "full" only. Their
 * total= field counts microseconds since boot. An event counts the growth
 * of one total over the counting spans, in microseconds (unit "us").
 *
 * Pressure is system-wide: whatever the target, a counter counts the whole
 * machine while it is enabled, and of the counters of one event (one per
 * CPU with -a) only the first reports, so the sum counts once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"
#include "pmu/sources.h"

#define PSI_DIR	     "/proc/pressure"
#define PSI_FILE_MAX 512

static const struct {
	const char *res;
	bool full;
} psi_events[] = {
	{ NULL, false },    { "cpu", false }, { "cpu", true }, { "memory", false },
	{ "memory", true }, { "io", false },  { "io", true },  { "irq", true },
};

struct psi_counter {
	struct src_counter base;
	int cfg;
};

static int psi_read(int cfg, uint64_t *total)
{
	char path[64], buf[PSI_FILE_MAX];
	int ret;

	snprintf(path, sizeof(path), PSI_DIR "/%s", psi_events[cfg].res);
	ret = read_small_file(path, buf, sizeof(buf));
	if (ret < 0)
		return ret;
	return psi_parse_total(buf, psi_events[cfg].full, total);
}

static int psi_value(struct src_counter *sc, uint64_t *val)
{
	int ret = psi_read(((struct psi_counter *)sc)->cfg, val);

	return ret == -EINVAL ? -EIO : ret;
}

static void psi_free(struct src_counter *sc)
{
	free(sc);
}

static int psi_event_init(struct pcl_pmu *pmu, struct perf_event_attr *attr)
{
	(void)pmu;
	return attr->config >= 1 && attr->config < ARRAY_SIZE(psi_events) ? 0 : -ENOENT;
}

/* Why @cfg cannot be counted here, or NULL when it can. */
static const char *psi_unavailable(int cfg, int *err)
{
	static __thread char why[160];
	uint64_t v;
	int ret = psi_read(cfg, &v);
	const char *res = psi_events[cfg].res;

	*err = ret == -ENOENT || ret == -EINVAL ? EOPNOTSUPP : -ret;
	if (!ret)
		return NULL;
	if (ret == -ENOENT && access(PSI_DIR "/cpu", F_OK))
		snprintf(why, sizeof(why),
			 "no " PSI_DIR " on this machine (kernel without CONFIG_PSI)");
	else if (ret == -ENOENT && access(PSI_DIR "/cpu", F_OK) == 0 &&
		 access(PSI_DIR "/irq", F_OK) && !strcmp(res, "irq"))
		snprintf(why, sizeof(why),
			 "no " PSI_DIR "/irq on this machine (kernel without "
			 "CONFIG_IRQ_TIME_ACCOUNTING, or older than 6.1)");
	else if (ret == -EOPNOTSUPP)
		snprintf(why, sizeof(why),
			 "pressure stall information is off on this machine (boot with psi=1)");
	else if (ret == -EINVAL)
		snprintf(why, sizeof(why), "cannot parse the %s total of " PSI_DIR "/%s",
			 psi_events[cfg].full ? "full" : "some", res);
	else if (psi_events[cfg].full && !strcmp(res, "cpu"))
		snprintf(why, sizeof(why),
			 "no 'full' line in " PSI_DIR "/cpu (kernel older than 5.13)");
	else
		snprintf(why, sizeof(why), "cannot read " PSI_DIR "/%s: %s", res,
			 pcl_strerror(ret));
	return why;
}

static int psi_add(struct pcl_counter *c)
{
	int cfg = (int)c->attr->config, err;
	const char *why = psi_unavailable(cfg, &err);
	struct psi_counter *pc;

	if (why)
		return pcl_err(err, "%s: %s", src_event_name(c), why);
	pc = calloc(1, sizeof(*pc));
	if (!pc)
		return -ENOMEM;
	pc->cfg = cfg;
	pc->base.key = c->attr;
	pc->base.ident = 0;
	pc->base.value = psi_value;
	pc->base.free = psi_free;
	src_attach(c, &pc->base);
	return 0;
}

static const struct pcl_pmu_ops psi_ops = {
	.sz = sizeof(struct pcl_pmu_ops),
	.event_init = psi_event_init,
	.add = psi_add,
	.del = src_del,
	.start = src_start,
	.stop = src_stop,
	.read = src_read,
};

static const char *const psi_desc[] = {
	NULL,
	"Time at least one task stalled waiting for a CPU, system-wide (/proc/pressure/cpu some)",
	"Time all non-idle tasks stalled waiting for CPUs at once, system-wide (cpu full)",
	"Time at least one task stalled on memory (reclaim, swap-in, thrashing) (memory some)",
	"Time all non-idle tasks stalled on memory at once (memory full)",
	"Time at least one task stalled on block I/O, system-wide (io some)",
	"Time all non-idle tasks stalled on block I/O at once (io full)",
	"Time the CPUs spent in hard and soft interrupts instead of tasks (irq full)",
};

void psi_pmu_register(void)
{
	static struct pcl_pmu_alias aliases[ARRAY_SIZE(psi_events) - 1];
	static char names[ARRAY_SIZE(psi_events)][16], terms[ARRAY_SIZE(psi_events)][16];
	static char descs[ARRAY_SIZE(psi_events)][320];
	struct pcl_pmu_desc desc = {
		.sz = sizeof(desc),
		.name = "psi",
		.ops = &psi_ops,
		.aliases = aliases,
		.nr_aliases = ARRAY_SIZE(aliases),
	};

	for (int cfg = 1; cfg < (int)ARRAY_SIZE(psi_events); cfg++) {
		struct pcl_pmu_alias *a = &aliases[cfg - 1];
		const char *why;
		int err;

		snprintf(names[cfg], sizeof(names[cfg]), "%s-%s", psi_events[cfg].res,
			 psi_events[cfg].full ? "full" : "some");
		snprintf(terms[cfg], sizeof(terms[cfg]), "config=%d", cfg);
		/* what pcl list shows: say up front when this machine lacks it */
		why = psi_unavailable(cfg, &err);
		snprintf(descs[cfg], sizeof(descs[cfg]), "%s%s%s%s", psi_desc[cfg],
			 why ? " [not available here: " : "", why ? why : "", why ? "]" : "");
		a->name = names[cfg];
		a->terms = terms[cfg];
		a->unit = "us";
		a->scale = 1.0;
		a->desc = descs[cfg];
	}
	pmu_register_desc(&desc);
}
