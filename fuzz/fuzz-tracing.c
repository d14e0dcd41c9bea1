/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the TRACING_DATA section (lib/data/tracepoint.c,
 * include/pcl/tracepoint.h): pcl's own parse of the tracefs formats and
 * libtraceevent's, which reads the same untrusted bytes (header page,
 * formats and their print fmts, printk formats, saved cmdlines), then the
 * printing of a record of every format both ways.
 *
 * Input: a section's bytes. The record printed for each format is the
 * input's last 256 bytes (fewer when it is shorter) with the format's id
 * as common_type, so libtraceevent picks that format; it is printed cut
 * at a few lengths, into a memory stream, with a function resolver set.
 * Besides what ASan and UBSan catch, it traps when a promise of
 * include/pcl/tracepoint.h is broken:
 *   - pcl_tracepoints__fprint returns 0, -ENOENT or -ENOMEM, and -ENOENT
 *     for exactly pcl_tracepoints__nr_unformatted() of the formats;
 *   - pcl_tp_format__fprint returns 0;
 *   - formats come in id order.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pcl/common.h>
#include <pcl/tracepoint.h>

#include "fuzz.h"

/*
 * libtraceevent 1.7 leaks a token now and then on a malformed format; that
 * is its bug, and not one pcl can fix, so LeakSanitizer leaves it out.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\n";
}

static const char *resolve(void *ctx, uint64_t *addr, const char **mod)
{
	(void)ctx;
	if (*addr & 1)
		return NULL;
	*addr &= ~(uint64_t)0xff;
	*mod = (*addr & 0x100) ? "[mod]" : NULL;
	return "func";
}

static void print_all(struct pcl_tracepoints *t, const uint8_t *tail, size_t tail_len)
{
	size_t n = pcl_tracepoints__count(t), unformatted = 0;
	uint8_t raw[256];
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return;
	for (size_t i = 0; i < n; i++) {
		const struct pcl_tp_format *f = pcl_tracepoints__at(t, i);
		static const size_t cuts[] = { 0, 1, 9, 64, 256 };
		bool enoent = false;

		require(f);
		require(i == 0 || pcl_tracepoints__at(t, i - 1)->id <= f->id);
		memcpy(raw, tail, tail_len);
		memset(raw + tail_len, 0, sizeof(raw) - tail_len);
		raw[0] = (uint8_t)f->id;
		raw[1] = (uint8_t)(f->id >> 8);
		for (size_t c = 0; c < sizeof(cuts) / sizeof(cuts[0]); c++) {
			int ret = pcl_tracepoints__fprint(t, f->id, 0, raw, cuts[c], m);

			require(ret == 0 || ret == -ENOENT || ret == -ENOMEM);
			enoent = ret == -ENOENT;
			require(pcl_tp_format__fprint(f, raw, cuts[c], m) == 0);
		}
		unformatted += enoent;
	}
	require(unformatted == pcl_tracepoints__nr_unformatted(t));
	fclose(m);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pcl_tracepoints *t = pcl_tracepoints__parse(data, size);
	size_t tail_len = size < 256 ? size : 256;

	if (!t)
		return 0;
	require(pcl_tracepoints__set_func_resolver(t, resolve, NULL) != -EINVAL);
	print_all(t, data + size - tail_len, tail_len);
	pcl_tracepoints__free(t);
	return 0;
}
