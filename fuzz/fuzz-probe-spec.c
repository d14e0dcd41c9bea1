/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for perf probe's definition syntax (lib/probe/spec.c),
 * which pcl probe takes from the command line: the bytes of each input, cut
 * at 4 KiB and NUL-terminated, go to probe_spec_parse().
 *
 * Besides what ASan and UBSan catch, it checks the parser's contract:
 *   - on failure the spec is left empty (nothing to free, nothing leaked);
 *   - on success there is a point, a function or a line, %return only on
 *     a function without a line, and every argument has a variable and
 *     NUL-terminated strings; a field is a name or an index.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "probe/probe.h"

#define MAX_INPUT 4096

#include "fuzz.h"

static void check_spec(const struct probe_spec *sp)
{
	require(sp->point != NULL);
	require(sp->func || sp->has_line);
	require(!sp->retprobe || (sp->func && !sp->has_line));
	require(sp->nargs >= 0 && sp->nargs <= PROBE_MAX_ARGS);
	for (int i = 0; i < sp->nargs; i++) {
		const struct probe_arg *a = &sp->args[i];

		require(a->var && a->text && strlen(a->text) > 0);
		require(!a->name_derived || a->name);
		for (int j = 0; j < a->nfields; j++)
			require(a->fields[j].name || a->fields[j].index >= 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct probe_spec sp;
	char *s;

	if (size > MAX_INPUT)
		size = MAX_INPUT;
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (probe_spec_parse(s, &sp) == 0) {
		check_spec(&sp);
		probe_spec_free(&sp);
	} else {
		require(sp.point == NULL && sp.args == NULL && sp.nargs == 0);
	}
	free(s);
	return 0;
}
