/* SPDX-License-Identifier: MIT */
/*
 * A main() for fuzz targets when libFuzzer is not at hand: runs
 * LLVMFuzzerTestOneInput once on each file named on the command line, or on
 * each file inside a named directory. Built with any compiler plus ASan and
 * UBSan, it replays a corpus or one crashing input under a debugger.
 *
 *   fuzz/out/replay-event-parse fuzz/corpus/event-parse crash-1234
 *
 * Prints the number of inputs run on stderr; exits 1 if a path cannot be
 * read. A bug in the target shows up as a sanitizer report or a trap.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, alloc = 0, n;
	int ret = -1;

	if (!f) {
		fprintf(stderr, "replay: cannot open '%s': %s\n", path, strerror(errno));
		return -1;
	}
	do {
		if (len == alloc) {
			uint8_t *nb = realloc(buf, alloc ? alloc * 2 : 4096);

			if (!nb)
				goto out;
			buf = nb;
			alloc = alloc ? alloc * 2 : 4096;
		}
		n = fread(buf + len, 1, alloc - len, f);
		len += n;
	} while (n > 0);
	if (ferror(f)) {
		fprintf(stderr, "replay: cannot read '%s'\n", path);
		goto out;
	}
	LLVMFuzzerTestOneInput(buf, len);
	ret = 0;
out:
	free(buf);
	fclose(f);
	return ret;
}

/* Files of a directory in name order, so runs are reproducible. */
static int run_dir(const char *dir, int *count)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort), bad = 0;

	if (n < 0) {
		fprintf(stderr, "replay: cannot read '%s': %s\n", dir, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char path[4096];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
		if (ents[i]->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			if (run_file(path))
				bad = -1;
			else
				(*count)++;
		}
		free(ents[i]);
	}
	free(ents);
	return bad;
}

int main(int argc, char **argv)
{
	int count = 0, bad = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st)) {
			fprintf(stderr, "replay: '%s': %s\n", argv[i], strerror(errno));
			bad = 1;
		} else if (S_ISDIR(st.st_mode)) {
			bad |= run_dir(argv[i], &count) != 0;
		} else if (run_file(argv[i])) {
			bad = 1;
		} else {
			count++;
		}
	}
	fprintf(stderr, "replay: ran %d inputs\n", count);
	return bad;
}
