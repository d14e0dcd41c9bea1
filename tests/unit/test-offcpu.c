/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the off-CPU pairing (lib/data/offcpu.c): sched_switch
 * samples and switch-in records made here, fed as the session feeds them
 * (drain by drain), and the offcpu-time samples it writes decoded back:
 * a blocked interval, a preemption, a switch-in read a drain before its
 * switch-out, an EXIT, a thread still blocked at the end, a kernel thread,
 * a lost switch-in, the workload before its exec.
 */
#include "unit.h"

#include "internal.h"

#define STATE_OFF 32 /* prev_state's offset in the raw data, as on x86_64 */
#define UIP1	  0x401000ull
#define UIP2	  0x402000ull

static const struct perf_event_attr sw_attr = {
	.type = PERF_TYPE_TRACEPOINT,
	.size = sizeof(struct perf_event_attr),
	.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN |
		       PERF_SAMPLE_RAW,
	.sample_id_all = 1,
};

static const struct perf_event_attr out_attr = {
	.type = PERF_TYPE_SOFTWARE,
	.config = PERF_COUNT_SW_BPF_OUTPUT,
	.size = sizeof(struct perf_event_attr),
	.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
		       PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN,
	.sample_period = 1,
	.sample_id_all = 1,
};

struct got {
	int n;
	uint32_t tid[16];
	uint64_t time[16], period[16], ip[16], nr[16], id[16];
};

static int collect(void *ctx, const struct perf_event_header *h)
{
	struct got *g = ctx;
	struct pcl_record r;

	assert_int_equal(pcl_record_decode(h, h->size, &out_attr, &r), 0);
	assert_int_equal(r.type, PERF_RECORD_SAMPLE);
	assert_true(g->n < 16);
	g->tid[g->n] = r.sample.tid;
	g->time[g->n] = r.sample.time;
	g->period[g->n] = r.sample.period;
	g->ip[g->n] = r.sample.ip;
	g->nr[g->n] = r.sample.nr_callchain;
	g->id[g->n] = r.sample.identifier;
	g->n++;
	return 0;
}

/* A sched_switch sample of @tid at @time in @state; with a user chain unless @kthread. */
static void feed_out(struct offcpu *oc, uint32_t tid, uint64_t time, uint64_t state, bool kthread)
{
	uint64_t buf[64] = { 0 }, *p = buf + 1;
	uint8_t raw[64] = { 0 };
	uint32_t raw_size = 60; /* u32 size + 60 bytes: 8-aligned */
	struct perf_event_header hdr;
	struct pcl_record r;

	*p++ = 0xffffffff81000000ull; /* ip */
	*p++ = (uint64_t)tid << 32 | tid;
	*p++ = time;
	if (kthread) {
		*p++ = 2;
		*p++ = PERF_CONTEXT_KERNEL;
		*p++ = 0xffffffff81000000ull;
	} else {
		*p++ = 3;
		*p++ = PERF_CONTEXT_USER;
		*p++ = UIP1;
		*p++ = UIP2;
	}
	memcpy(raw + STATE_OFF, &state, 8);
	memcpy(p, &raw_size, 4);
	memcpy((uint8_t *)p + 4, raw, raw_size);
	p += 8;
	hdr = (struct perf_event_header){
		.type = PERF_RECORD_SAMPLE,
		.size = (uint16_t)((uint8_t *)p - (uint8_t *)buf),
	};
	memcpy(buf, &hdr, sizeof(hdr));
	assert_int_equal(pcl_record_decode((void *)buf, sizeof(buf), &sw_attr, &r), 0);
	offcpu__time(oc, time);
	assert_int_equal(offcpu__add(oc, (void *)buf, &r, true), 0);
}

static void feed(struct offcpu *oc, uint32_t type, uint16_t misc, uint32_t tid, uint64_t time)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = sizeof(h) };
	struct pcl_record r = { .type = type, .misc = misc, .has_id = true };

	r.id.pid = r.id.tid = tid;
	r.id.time = time;
	r.task.pid = r.task.tid = tid;
	r.task.time = time;
	offcpu__time(oc, time);
	assert_int_equal(offcpu__add(oc, &h, &r, false), 0);
}

static struct offcpu *new_oc(void)
{
	struct offcpu *oc = offcpu__new(&sw_attr, &out_attr, 77, STATE_OFF, 8);

	assert_non_null(oc);
	return oc;
}

static void test_blocked_interval(void **state)
{
	struct offcpu *oc = new_oc();
	struct pcl_offcpu_stats st;
	struct got g = { 0 };

	(void)state;
	feed_out(oc, 10, 100, 1 /* S */, false);
	feed(oc, PERF_RECORD_SWITCH, 0, 10, 150);
	assert_int_equal(offcpu__flush(oc, collect, &g), 0);
	assert_int_equal(g.n, 0); /* not before a drain has passed its time */
	assert_int_equal(offcpu__flush(oc, collect, &g), 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.tid[0], 10);
	assert_int_equal(g.time[0], 150);
	assert_int_equal(g.period[0], 50);
	assert_int_equal(g.ip[0], UIP1);
	assert_int_equal(g.nr[0], 3); /* PERF_CONTEXT_USER and the two frames */
	assert_int_equal(g.id[0], 77);
	offcpu__stats(oc, &st);
	assert_int_equal(st.samples, 1);
	assert_int_equal(st.nsecs, 50);
	offcpu__free(oc);
}

static void test_preempted_and_other_states(void **state)
{
	struct offcpu *oc = new_oc();
	struct got g = { 0 };

	(void)state;
	feed_out(oc, 10, 100, 0 /* R */, false);
	feed(oc, PERF_RECORD_SWITCH, 0, 10, 150);
	feed_out(oc, 10, 200, 0x100 /* R+ */, false);
	feed(oc, PERF_RECORD_SWITCH, 0, 10, 250);
	feed_out(oc, 10, 300, 2 /* D */, false);
	feed(oc, PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT, 10, 300);
	feed(oc, PERF_RECORD_SWITCH_CPU_WIDE, 0, 10, 420);
	assert_int_equal(offcpu__finish(oc, 1000, collect, &g), 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.period[0], 120);
	offcpu__free(oc);
}

/* a thread that migrated: its switch-in read a drain before its switch-out */
static void test_in_before_out(void **state)
{
	struct offcpu *oc = new_oc();
	struct got g = { 0 };

	(void)state;
	feed(oc, PERF_RECORD_SWITCH, 0, 10, 150);
	offcpu__time(oc, 160);
	assert_int_equal(offcpu__flush(oc, collect, &g), 0);
	feed_out(oc, 10, 100, 1, false);
	feed(oc, PERF_RECORD_SWITCH, 0, 11, 170);
	assert_int_equal(offcpu__flush(oc, collect, &g), 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.time[0], 150);
	assert_int_equal(g.period[0], 50);
	offcpu__free(oc);
}

static void test_exit_and_end(void **state)
{
	struct offcpu *oc = new_oc();
	struct pcl_offcpu_stats st;
	struct got g = { 0 };

	(void)state;
	feed_out(oc, 10, 100, 1, false);
	feed(oc, PERF_RECORD_EXIT, 0, 10, 120);
	feed_out(oc, 12, 200, 1, false); /* still blocked at the end */
	assert_int_equal(offcpu__finish(oc, 1000, collect, &g), 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.tid[0], 12);
	assert_int_equal(g.time[0], 1000);
	assert_int_equal(g.period[0], 800);
	offcpu__stats(oc, &st);
	assert_int_equal(st.at_end, 1);
	offcpu__free(oc);
}

static void test_kthread_and_lost_in(void **state)
{
	struct offcpu *oc = new_oc();
	struct pcl_offcpu_stats st;
	struct got g = { 0 };

	(void)state;
	feed_out(oc, 5, 100, 1, true);
	feed(oc, PERF_RECORD_SWITCH, 0, 5, 150);
	feed_out(oc, 10, 100, 1, false);
	feed_out(oc, 10, 200, 1, false); /* the in between was lost */
	feed(oc, PERF_RECORD_SWITCH, 0, 10, 260);
	assert_int_equal(offcpu__finish(oc, 1000, collect, &g), 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.period[0], 60);
	offcpu__stats(oc, &st);
	assert_int_equal(st.no_user, 1);
	assert_int_equal(st.unmatched, 1);
	offcpu__free(oc);
}

/* the workload counts from its exec on: before it, it is pcl's fork */
static void test_workload_exec(void **state)
{
	struct offcpu *oc = new_oc();
	struct perf_event_header h = { .type = PERF_RECORD_COMM,
				       .misc = PERF_RECORD_MISC_COMM_EXEC,
				       .size = sizeof(h) };
	struct pcl_record r = { .type = PERF_RECORD_COMM,
				.misc = PERF_RECORD_MISC_COMM_EXEC,
				.has_id = true };
	struct got g = { 0 };

	(void)state;
	offcpu__set_workload(oc, 10);
	feed_out(oc, 10, 100, 2, false); /* blocked in the exec */
	feed_out(oc, 11, 100, 1, false); /* another process: counted */
	r.comm.pid = r.comm.tid = 10;
	r.comm.comm = "wl";
	r.id.pid = r.id.tid = 10;
	r.id.time = 300;
	offcpu__time(oc, 300);
	assert_int_equal(offcpu__add(oc, &h, &r, false), 0);
	feed(oc, PERF_RECORD_SWITCH, 0, 10, 310);
	feed(oc, PERF_RECORD_SWITCH, 0, 11, 320);
	feed_out(oc, 10, 400, 1, false);
	feed(oc, PERF_RECORD_SWITCH, 0, 10, 450);
	assert_int_equal(offcpu__finish(oc, 1000, collect, &g), 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.tid[0], 11);
	assert_int_equal(g.period[0], 220);
	assert_int_equal(g.tid[1], 10);
	assert_int_equal(g.period[1], 50);
	offcpu__free(oc);
}

/* an exec of a workload not seen before (blocked since before the start) */
static void test_workload_exec_first(void **state)
{
	struct offcpu *oc = new_oc();
	struct perf_event_header h = { .type = PERF_RECORD_COMM,
				       .misc = PERF_RECORD_MISC_COMM_EXEC,
				       .size = sizeof(h) };
	struct pcl_record r = { .type = PERF_RECORD_COMM,
				.misc = PERF_RECORD_MISC_COMM_EXEC,
				.has_id = true };
	struct got g = { 0 };

	(void)state;
	offcpu__set_workload(oc, 20);
	r.comm.pid = r.comm.tid = 20;
	r.comm.comm = "wl";
	r.id.pid = r.id.tid = 20;
	r.id.time = 50;
	offcpu__time(oc, 50);
	assert_int_equal(offcpu__add(oc, &h, &r, false), 0);
	feed_out(oc, 20, 100, 1, false);
	feed(oc, PERF_RECORD_SWITCH, 0, 20, 130);
	assert_int_equal(offcpu__finish(oc, 1000, collect, &g), 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.period[0], 30);
	offcpu__free(oc);
}

/* many threads: the table grows, every interval is found; free with a batch left */
static void test_many_threads(void **state)
{
	struct offcpu *oc = new_oc();
	struct pcl_offcpu_stats st;

	(void)state;
	for (uint32_t tid = 1; tid <= 1000; tid++)
		feed_out(oc, tid, 10 * tid, 1, false);
	for (uint32_t tid = 1; tid <= 1000; tid++) {
		struct got one = { 0 };

		feed(oc, PERF_RECORD_SWITCH, 0, tid, 20000 + tid);
		/* two drains: the first sets the cut past the in, the second takes it */
		assert_int_equal(offcpu__flush(oc, collect, &one), 0);
		assert_int_equal(offcpu__flush(oc, collect, &one), 0);
		assert_int_equal(one.n, 1);
		assert_int_equal(one.tid[0], tid);
		assert_int_equal(one.period[0], 20000 + tid - 10 * tid);
	}
	offcpu__stats(oc, &st);
	assert_int_equal(st.samples, 1000);
	feed_out(oc, 5, 30000, 1, false);
	offcpu__free(oc);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		UNIT_TEST(test_blocked_interval),    UNIT_TEST(test_preempted_and_other_states),
		UNIT_TEST(test_in_before_out),	     UNIT_TEST(test_exit_and_end),
		UNIT_TEST(test_kthread_and_lost_in), UNIT_TEST(test_many_threads),
		UNIT_TEST(test_workload_exec),	     UNIT_TEST(test_workload_exec_first),
	};

	(void)argc;
	(void)argv;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
