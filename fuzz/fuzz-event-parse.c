/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the event-spec parser: the bytes of each input, cut
 * at 4 KiB and NUL-terminated, go to pcl_parse_events() and to
 * pcl_parse_cpu_list(), which both take strings straight from the command
 * line (-e, -C).
 *
 * Besides what ASan and UBSan catch, it checks the contracts the headers
 * promise and traps when one is broken:
 *   - pcl_parse_events: all-or-nothing (a failure leaves the list as it
 *     was), a count equal to what was appended on success, leader indices
 *     inside the list and pointing at a leader that counts its members,
 *     NUL-terminated names, and an error position inside the spec;
 *   - pcl_parse_cpu_list: a sorted array of distinct non-negative CPUs.
 * The copy is heap-allocated to its exact size so a read past the NUL is
 * an ASan report, not a silent read of stack slack.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <pcl/event.h>
#include <pcl/evlist.h>

#define MAX_INPUT 4096

#include "fuzz.h"

static void check_events(const struct pcl_events *l, int first)
{
	for (int i = first; i < l->nr; i++) {
		const struct pcl_event *ev = &l->ev[i];

		require(memchr(ev->name, '\0', sizeof(ev->name)));
		require(ev->leader >= first && ev->leader <= i);
		require(ev->attr.size == sizeof(ev->attr));
		if (ev->leader == i) {
			require(ev->nr_members >= 0);
			require(i + ev->nr_members <= l->nr);
		} else {
			const struct pcl_event *lead = &l->ev[ev->leader];

			require(i < ev->leader + lead->nr_members);
		}
	}
}

static void check_error(const struct pcl_parse_error *err, size_t len)
{
	require(err->pos >= -1 && err->pos <= (int)len);
	require(memchr(err->token, '\0', sizeof(err->token)));
	require(memchr(err->msg, '\0', sizeof(err->msg)));
	require(memchr(err->hint, '\0', sizeof(err->hint)));
}

static void fuzz_events(const char *spec, size_t len)
{
	struct pcl_events list = { 0 };
	struct pcl_parse_error err;
	int ret, before;

	/* Parse twice into one list: the second call appends after the first. */
	for (int round = 0; round < 2; round++) {
		before = list.nr;
		ret = pcl_parse_events(&list, spec, &err);
		if (ret < 0) {
			require(list.nr == before);
			check_error(&err, len);
			break;
		}
		require(ret == list.nr - before && ret > 0);
		check_events(&list, before);
	}
	pcl_events__clear(&list);
	require(list.nr == 0 && list.ev == NULL);
}

static void fuzz_cpu_list(const char *s)
{
	int *cpus = NULL;
	int n = pcl_parse_cpu_list(s, &cpus);

	if (n > 0) {
		require(cpus != NULL);
		for (int i = 0; i < n; i++) {
			require(cpus[i] >= 0);
			require(i == 0 || cpus[i - 1] < cpus[i]);
		}
	}
	free(cpus);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;

	if (size > MAX_INPUT)
		size = MAX_INPUT;
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	/* An embedded NUL ends the spec, as it would on a command line. */
	fuzz_events(s, strlen(s));
	fuzz_cpu_list(s);
	free(s);
	return 0;
}
