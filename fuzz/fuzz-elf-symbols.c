/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the symbol-table parsers (lib/symbol): ELF images
 * (the vDSO is read from memory, and every DSO of a recording may be a
 * hostile file), kallsyms files and perf's JIT maps (/tmp/perf-PID.map is
 * written by whoever runs the JIT).
 *
 * Input: the bytes of one file. Each input goes to all three parsers: as
 * an ELF image to pcl_symtab__load_elf_mem() (twice: demangled and moved
 * to file offsets, then raw with absolute values), and as text to the
 * kallsyms and perf-map readers (through fmemopen, the streams the public
 * loaders read).
 *
 * Besides what ASan and UBSan catch, it traps when a contract of
 * include/pcl/symbol.h is broken:
 *   - a failed ELF load says EBADMSG (or ENOMEM), a failed kallsyms load
 *     EACCES (or ENOMEM); a perf map always loads;
 *   - a table is sorted by start with distinct starts, each end >= its
 *     start, each name a readable C string;
 *   - pcl_symtab__find(start) of every symbol is that symbol, find() of
 *     its last byte a symbol that holds the address, and whatever find()
 *     returns for any address holds that address.
 * At most MAX_CHECKED symbols of a table are checked one by one.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pcl/symbol.h>
#include "symbol/symtab.h"

#include "fuzz.h"

#define MAX_INPUT   (1 << 20)
#define MAX_CHECKED 4096

static volatile size_t sink;

static int holds(const struct pcl_symbol *s, uint64_t addr)
{
	return addr >= s->start && (addr < s->end || (addr == s->start && s->end == s->start));
}

static void check_find(const struct pcl_symtab *t, uint64_t addr)
{
	const struct pcl_symbol *s = pcl_symtab__find(t, addr);

	if (s)
		require(holds(s, addr));
}

static void check_table(const struct pcl_symtab *t, const uint8_t *data, size_t size)
{
	size_t n = pcl_symtab__count(t);

	require(pcl_symtab__at(t, n) == NULL);
	for (size_t i = 0; i < n && i < MAX_CHECKED; i++) {
		const struct pcl_symbol *s = pcl_symtab__at(t, i);

		require(s != NULL && s->name != NULL);
		sink += strlen(s->name);
		require(s->end >= s->start);
		if (i)
			require(pcl_symtab__at(t, i - 1)->start < s->start);
		require(pcl_symtab__find(t, s->start) == s);
		if (s->end > s->start)
			check_find(t, s->end - 1);
		check_find(t, s->end);
		if (s->start)
			check_find(t, s->start - 1);
	}
	check_find(t, 0);
	check_find(t, UINT64_MAX);
	/* Addresses taken from the input itself. */
	for (size_t off = 0; off + 8 <= size && off < 512; off += 8) {
		uint64_t a;

		memcpy(&a, data + off, 8);
		check_find(t, a);
	}
}

static void fuzz_elf(const uint8_t *data, size_t size, unsigned int flags)
{
	struct pcl_symtab *t;

	errno = 0;
	t = pcl_symtab__load_elf_mem(data, size, flags);
	if (!t) {
		require(errno == EBADMSG || errno == ENOMEM);
		return;
	}
	check_table(t, data, size);
	pcl_symtab__free(t);
}

static void fuzz_text(const uint8_t *data, size_t size, bool kallsyms)
{
	struct pcl_symtab *t;
	FILE *f;

	if (!size)
		return;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return;
	errno = 0;
	if (kallsyms)
		t = symtab_read_kallsyms(f, PCL_SYMTAB_DEMANGLE, "fuzz");
	else
		t = symtab_read_perf_map(f, PCL_SYMTAB_DEMANGLE, "fuzz");
	fclose(f);
	if (!t) {
		require(errno == ENOMEM || (kallsyms && errno == EACCES));
		return;
	}
	check_table(t, data, size);
	pcl_symtab__free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;

	if (size > MAX_INPUT)
		size = MAX_INPUT;
	/* An exact-size heap copy: a read past the end is an ASan report. */
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	fuzz_elf(copy, size, PCL_SYMTAB_DEMANGLE);
	fuzz_elf(copy, size, PCL_SYMTAB_ABSOLUTE);
	fuzz_text(copy, size, true);
	fuzz_text(copy, size, false);
	free(copy);
	return 0;
}
