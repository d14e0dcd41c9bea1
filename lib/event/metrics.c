/* SPDX-License-Identifier: MIT */
/*
 * pcl's metric table and the named hardware events its formulas use.
 *
 * One entry per CPU family: how to recognise the CPU (vendor, family, a
 * model range), its metrics, and its events. An event is named as perf
 * names it and encoded by the first of its specs, separated by '|', that
 * this machine can use: a libpfm4 name with its unit masks (core events,
 * which libpfm turns into a perf_event_attr), or "pmu/terms/" over that
 * PMU's sysfs format (the core PMU's codes where libpfm names the event
 * differently for this model, the uncore PMUs libpfm does not describe).
 *
 * To add a CPU: a metric array, an event array, a cpu_table row. Formulas
 * and event codes are hardware facts (AMD's PPR, as perf's JSON files
 * carry them); the descriptions are ours.
 *
 * Invariants: each metric array is sorted by name; every event a formula
 * names is in the same entry's event array (tests/unit/test-metric.c
 * checks both).
 */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "event/metrics.h"
#include <pcl/metric.h>

/*
 * AMD family 19h (25). perf 6.1 applies its Zen 3 metrics to every model of
 * the family, Zen 4 (Genoa, model 0x11) included; so does pcl, with the
 * core events in the names libpfm4 4.13 gives Zen 4.
 */
static const struct pcl_metric amd_fam19h_metrics[] = {
	{ "all_l2_cache_accesses", "l2_cache",
	  "L2 cache accesses of every kind, prefetches included",
	  "l2_request_g1.all_no_prefetch + l2_pf_hit_l2 + l2_pf_miss_l2_hit_l3 + l2_pf_miss_l2_l3",
	  NULL },
	{ "all_l2_cache_hits", "l2_cache", "L2 cache hits, demand and L2 prefetch",
	  "l2_cache_req_stat.ic_dc_hit_in_l2 + l2_pf_hit_l2", NULL },
	{ "all_l2_cache_misses", "l2_cache", "L2 cache misses, demand and L2 prefetch",
	  "l2_cache_req_stat.ic_dc_miss_in_l2 + l2_pf_miss_l2_hit_l3 + l2_pf_miss_l2_l3", NULL },
	{ "all_remote_links_outbound", "data_fabric",
	  "Data sent out over all remote links of a die (approximate, MiB)",
	  "remote_outbound_data_controller_0 + remote_outbound_data_controller_1 + "
	  "remote_outbound_data_controller_2 + remote_outbound_data_controller_3",
	  "3e-5MiB" },
	{ "branch_misprediction_ratio", "branch_prediction",
	  "Share of retired branches that were mispredicted",
	  "d_ratio(ex_ret_brn_misp, ex_ret_brn)", "100%" },
	{ "ic_fetch_miss_ratio", "l2_cache", "Share of instruction cache fetches (32B) that missed",
	  "d_ratio(ic_tag_hit_miss.instruction_cache_miss, "
	  "ic_tag_hit_miss.all_instruction_cache_accesses)",
	  "100%" },
	{ "l1_itlb_misses", "tlb", "Instruction fetches that missed the L1 instruction TLB",
	  "bp_l1_tlb_miss_l2_tlb_hit + bp_l1_tlb_miss_l2_tlb_miss", NULL },
	{ "l2_cache_accesses_from_l2_hwpf", "l2_cache", "L2 cache accesses by the L2 prefetcher",
	  "l2_pf_hit_l2 + l2_pf_miss_l2_hit_l3 + l2_pf_miss_l2_l3", NULL },
	{ "l2_cache_misses_from_l2_hwpf", "l2_cache", "L2 cache misses of the L2 prefetcher",
	  "l2_pf_miss_l2_hit_l3 + l2_pf_miss_l2_l3", NULL },
	{ "l3_read_miss_latency", "l3_cache", "Mean L3 read miss latency, in core clocks",
	  "(xi_sys_fill_latency * 16) / xi_ccx_sdp_req1", "1core clocks" },
	{ "macro_ops_dispatched", "decoder", "Macro-ops dispatched, integer and floating point",
	  "de_dis_cops_from_decoder.disp_op_type.any_integer_dispatch + "
	  "de_dis_cops_from_decoder.disp_op_type.any_fp_dispatch",
	  NULL },
	{ "nps1_die_to_dram", "data_fabric",
	  "Data read and written on all DRAM channels of an NPS1 die (approximate, MiB)",
	  "dram_channel_data_controller_0 + dram_channel_data_controller_1 + "
	  "dram_channel_data_controller_2 + dram_channel_data_controller_3 + "
	  "dram_channel_data_controller_4 + dram_channel_data_controller_5 + "
	  "dram_channel_data_controller_6 + dram_channel_data_controller_7",
	  "6.1e-5MiB" },
	{ "op_cache_fetch_miss_ratio", "l2_cache", "Share of op cache (64B) fetches that missed",
	  "d_ratio(op_cache_hit_miss.op_cache_miss, op_cache_hit_miss.all_op_cache_accesses)",
	  NULL },
};

#define L2PF_ALL                                                                                   \
	"L2_STREAM:L2_NEXT_LINE:L2_UP_DOWN:L2_BURST:L2_STRIDE:L1_STREAM:L1_STRIDE:L1_REGION"
#define DF(ev) "amd_df/event=" ev ",umask=0x38/"

static const struct metric_event amd_fam19h_events[] = {
	{ "l2_request_g1.all_no_prefetch",
	  "REQUESTS_TO_L2_GROUP1:RD_BLK_L:RD_BLK_X:LS_RD_BLK_C_S:CACHEABLE_IC_READ:CHANGE_TO_X:"
	  "MISC|cpu/event=0x60,umask=0xf9/" },
	{ "l2_pf_hit_l2", "L2_PREFETCH_HIT_L2:" L2PF_ALL "|cpu/event=0x70,umask=0xff/" },
	{ "l2_pf_miss_l2_hit_l3", "L2_PREFETCH_HIT_L3:" L2PF_ALL "|cpu/event=0x71,umask=0xff/" },
	{ "l2_pf_miss_l2_l3", "L2_PREFETCH_MISS_L3:" L2PF_ALL "|cpu/event=0x72,umask=0xff/" },
	{ "l2_cache_req_stat.ic_dc_hit_in_l2",
	  "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS:LS_RD_BLK_C_S:LS_RD_BLK_L_HIT_X:"
	  "LS_RD_BLK_L_HIT_S:LS_RD_BLK_X:IC_FILL_HIT_X:IC_FILL_HIT_S|cpu/event=0x64,umask=0xf6/" },
	{ "l2_cache_req_stat.ic_dc_miss_in_l2", "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS:LS_RD_"
						"BLK_C:IC_FILL_MISS|cpu/event=0x64,umask=0x09/" },
	{ "ex_ret_brn", "RETIRED_BRANCH_INSTRUCTIONS|cpu/event=0xc2/" },
	{ "ex_ret_brn_misp", "RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED|cpu/event=0xc3/" },
	{ "ic_tag_hit_miss.instruction_cache_miss",
	  "IC_TAG_HIT_MISS:IC_MISS|cpu/event=0x18e,umask=0x18/" },
	{ "ic_tag_hit_miss.all_instruction_cache_accesses",
	  "IC_TAG_HIT_MISS:ALL_IC_ACCESS|cpu/event=0x18e,umask=0x1f/" },
	{ "bp_l1_tlb_miss_l2_tlb_hit", "L1_ITLB_MISS_L2_ITLB_HIT|cpu/event=0x84/" },
	{ "bp_l1_tlb_miss_l2_tlb_miss",
	  "L1_ITLB_MISS_L2_ITLB_MISS:COALESCED4K:IF1G:IF2M:IF4K|cpu/event=0x85,umask=0x0f/" },
	{ "op_cache_hit_miss.op_cache_miss",
	  "OP_CACHE_HIT_MISS:OC_MISS|cpu/event=0x28f,umask=0x04/" },
	{ "op_cache_hit_miss.all_op_cache_accesses",
	  "OP_CACHE_HIT_MISS:ALL_OC_ACCESS|cpu/event=0x28f,umask=0x07/" },
	{ "de_dis_cops_from_decoder.disp_op_type.any_integer_dispatch",
	  "OPS_TYPE_DISPATCHED_FROM_DECODER:INTEGER_DISPATCH|cpu/event=0xab,umask=0x08/" },
	{ "de_dis_cops_from_decoder.disp_op_type.any_fp_dispatch",
	  "OPS_TYPE_DISPATCHED_FROM_DECODER:FP_DISPATCH|cpu/event=0xab,umask=0x04/" },
	/* the L3 and data fabric PMUs: sysfs formats, not libpfm */
	{ "xi_sys_fill_latency", "amd_l3/event=0x90,umask=0x00/" },
	{ "xi_ccx_sdp_req1", "amd_l3/event=0x9a,umask=0xff/" },
	{ "remote_outbound_data_controller_0", "amd_df/event=0x7c7,umask=0x02/" },
	{ "remote_outbound_data_controller_1", "amd_df/event=0x807,umask=0x02/" },
	{ "remote_outbound_data_controller_2", "amd_df/event=0x847,umask=0x02/" },
	{ "remote_outbound_data_controller_3", "amd_df/event=0x887,umask=0x02/" },
	{ "dram_channel_data_controller_0", DF("0x07") },
	{ "dram_channel_data_controller_1", DF("0x47") },
	{ "dram_channel_data_controller_2", DF("0x87") },
	{ "dram_channel_data_controller_3", DF("0xc7") },
	{ "dram_channel_data_controller_4", DF("0x107") },
	{ "dram_channel_data_controller_5", DF("0x147") },
	{ "dram_channel_data_controller_6", DF("0x187") },
	{ "dram_channel_data_controller_7", DF("0x1c7") },
};

static const struct metric_cpu cpu_table[] = {
	{ "AMD family 19h", "AuthenticAMD", 25, 0, 255, amd_fam19h_metrics,
	  ARRAY_SIZE(amd_fam19h_metrics), amd_fam19h_events, ARRAY_SIZE(amd_fam19h_events) },
};

size_t metric_cpu_table_size(void)
{
	return ARRAY_SIZE(cpu_table);
}

const struct metric_cpu *metric_cpu_entry(size_t i)
{
	return i < ARRAY_SIZE(cpu_table) ? &cpu_table[i] : NULL;
}

const struct metric_cpu *metric_cpu_match(const char *vendor, int family, int model)
{
	for (size_t i = 0; i < ARRAY_SIZE(cpu_table); i++) {
		const struct metric_cpu *c = &cpu_table[i];

		if (!strcmp(c->vendor, vendor) && c->family == family && model >= c->model_lo &&
		    model <= c->model_hi)
			return c;
	}
	return NULL;
}

/* "vendor_id : AuthenticAMD", "cpu family : 25", "model : 17" of the first CPU. */
static int read_cpuinfo(char *vendor, size_t vsize, int *family, int *model)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[512];
	int got = 0;

	if (!f)
		return -errno;
	while (got != 7 && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *v;

		if (!colon)
			continue;
		for (v = colon + 1; isspace((unsigned char)*v); v++)
			;
		v[strcspn(v, "\n")] = '\0';
		if (!strncmp(line, "vendor_id", 9) && !(got & 1)) {
			snprintf(vendor, vsize, "%s", v);
			got |= 1;
		} else if (!strncmp(line, "cpu family", 10) && !(got & 2)) {
			*family = atoi(v);
			got |= 2;
		} else if (!strncmp(line, "model", 5) && isspace((unsigned char)line[5]) &&
			   !(got & 4)) {
			*model = atoi(v);
			got |= 4;
		}
	}
	fclose(f);
	return got == 7 ? 0 : -ENOENT;
}

static const struct metric_cpu *this_cpu;
static pthread_once_t this_cpu_once = PTHREAD_ONCE_INIT;

static void find_this_cpu(void)
{
	const char *env = getenv("PCL_CPUID");
	char vendor[64] = "";
	int family = -1, model = -1;

	if (env) {
		/* vendor-family-model, as perf's PERF_CPUID for x86 */
		if (sscanf(env, "%63[^-]-%d-%d", vendor, &family, &model) != 3)
			return;
	} else if (read_cpuinfo(vendor, sizeof(vendor), &family, &model)) {
		return;
	}
	this_cpu = metric_cpu_match(vendor, family, model);
}

const struct metric_cpu *metric_this_cpu(void)
{
	pthread_once(&this_cpu_once, find_this_cpu);
	return this_cpu;
}

const struct metric_event *metric_event_find(const char *name)
{
	const struct metric_cpu *c = metric_this_cpu();

	for (size_t i = 0; c && i < c->nr_events; i++)
		if (!strcmp(c->events[i].name, name))
			return &c->events[i];
	return NULL;
}

PCL_API const char *pcl_metric_table(void)
{
	const struct metric_cpu *c = metric_this_cpu();

	return c ? c->name : NULL;
}

PCL_API const struct pcl_metric *pcl_metrics(int idx)
{
	const struct metric_cpu *c = metric_this_cpu();

	if (!c || idx < 0 || (size_t)idx >= c->nr_metrics)
		return NULL;
	return &c->metrics[idx];
}

PCL_API const struct pcl_metric *pcl_metric__find(const char *name)
{
	const struct pcl_metric *m;

	for (int i = 0; name && (m = pcl_metrics(i)); i++)
		if (!strcmp(m->name, name))
			return m;
	return NULL;
}
