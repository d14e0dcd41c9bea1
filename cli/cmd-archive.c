/* SPDX-License-Identifier: MIT */
/*
 * pcl archive: the files a recording needs to be read on another machine,
 * in one FILE.tar.bz2, as perf archive makes it.
 *
 * The files are those buildid-list --with-hits names (the files with
 * samples, by build id), taken from the build-id cache, else from where
 * they were recorded when they still are that build (the kernel's symbols
 * from /proc/kallsyms when it still runs). The tarball is a --symfs root:
 *
 *   .debug/.build-id/XX/REST -> ../../PATH/ID   perf's build-id cache layout
 *   .debug/PATH/ID/elf (debug, kallsyms, vdso)
 *   PATH                                         a hard link to .debug/PATH/ID/elf
 *
 * so `tar xf -C DIR` and `pcl report --symfs DIR` read it (--symfs takes
 * DIR/.debug as its build-id cache, as perf's), and its .debug part
 * extracts into a build-id cache (~/.debug) for perf or pcl without symfs.
 * Files are written in GNU tar format (long names as ././@LongLink).
 */
#include <bzlib.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <pcl/pcl.h>
#include "cli.h"

struct tarw {
	FILE *f;
	BZFILE *bz;
	int err; /* first error, errno style */
	time_t now;
};

static void tw_put(struct tarw *t, const void *p, size_t len)
{
	int bzerr = BZ_OK;

	while (!t->err && len) {
		int n = len > (1u << 30) ? 1 << 30 : (int)len;

		BZ2_bzWrite(&bzerr, t->bz, (void *)p, n);
		if (bzerr != BZ_OK)
			t->err = ferror(t->f) ? errno ? errno : EIO : EIO;
		p = (const char *)p + n;
		len -= (size_t)n;
	}
}

static void tw_pad(struct tarw *t, uint64_t size)
{
	static const char zero[512];

	if (size % 512)
		tw_put(t, zero, 512 - size % 512);
}

/* Two zero blocks end an archive. */
static void tw_end(struct tarw *t)
{
	static const char zero[1024];

	tw_put(t, zero, sizeof(zero));
}

static void octal(char *field, size_t width, uint64_t v)
{
	snprintf(field, width, "%0*llo", (int)width - 1, (unsigned long long)v);
}

/* One 512-byte header; a name or link name too long for it goes first as GNU's long-name entry. */
static void tw_header(struct tarw *t, const char *name, char type, unsigned int mode, uint64_t size,
		      const char *link)
{
	unsigned char h[512];
	unsigned int sum = 0;

	if (strlen(name) > 99) {
		tw_header(t, "././@LongLink", 'L', 0644, strlen(name) + 1, NULL);
		tw_put(t, name, strlen(name) + 1);
		tw_pad(t, strlen(name) + 1);
	}
	if (link && strlen(link) > 99) {
		tw_header(t, "././@LongLink", 'K', 0644, strlen(link) + 1, NULL);
		tw_put(t, link, strlen(link) + 1);
		tw_pad(t, strlen(link) + 1);
	}
	memset(h, 0, sizeof(h));
	memcpy(h, name, strlen(name) > 99 ? 99 : strlen(name));
	octal((char *)h + 100, 8, mode);
	octal((char *)h + 108, 8, 0);
	octal((char *)h + 116, 8, 0);
	octal((char *)h + 124, 12, size);
	octal((char *)h + 136, 12, (uint64_t)t->now);
	memset(h + 148, ' ', 8);
	h[156] = (unsigned char)type;
	if (link)
		memcpy(h + 157, link, strlen(link) > 99 ? 99 : strlen(link));
	memcpy(h + 257, "ustar  ", 8); /* GNU magic: its long names are understood */
	memcpy(h + 265, "root", 4);
	memcpy(h + 297, "root", 4);
	for (size_t i = 0; i < sizeof(h); i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	h[155] = ' ';
	tw_put(t, h, sizeof(h));
}

/* A regular file from @path (read to its end: /proc/kallsyms has no size). */
static int tw_file(struct tarw *t, const char *name, const char *path)
{
	char *buf = NULL, chunk[65536];
	size_t len = 0;
	struct stat st;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC), e = 0;

	if (fd < 0 || fstat(fd, &st)) {
		e = errno;
		if (fd >= 0)
			close(fd);
		return -e;
	}
	while ((n = read(fd, chunk, sizeof(chunk))) > 0) {
		char *p = realloc(buf, len + (size_t)n);

		if (!p) {
			e = ENOMEM;
			break;
		}
		buf = p;
		memcpy(buf + len, chunk, (size_t)n);
		len += (size_t)n;
	}
	if (n < 0)
		e = errno;
	close(fd);
	if (!e) {
		tw_header(t, name, '0', st.st_mode & 0777, len, NULL);
		tw_put(t, buf ? buf : "", len);
		tw_pad(t, len);
	}
	free(buf);
	return -e;
}

struct archive {
	struct tarw t;
	char cache[PATH_MAX];
	int files, missing;
	char *first_missing;
	char **members; /* archive paths already written */
	int nr_members;
};

static bool member_seen(struct archive *a, const char *name)
{
	for (int i = 0; i < a->nr_members; i++)
		if (!strcmp(a->members[i], name))
			return true;
	return false;
}

static void member_add(struct archive *a, const char *name)
{
	char *s = strdup(name);

	if (!s || add_string(&a->members, &a->nr_members, s))
		free(s);
}

/* The cached copies of build @hex: the link's target ("../../PATH/ID") into @rel. */
static bool from_cache(struct archive *a, const char *hex, char *rel, size_t size)
{
	char ln[PATH_MAX];
	ssize_t n;

	snprintf(ln, sizeof(ln), "%s/.build-id/%.2s/%s", a->cache, hex, hex + 2);
	n = readlink(ln, rel, size - 1);
	if (n <= 5 || strncmp(rel, "../../", 6))
		return false;
	rel[n] = '\0';
	/* the entry must be there, not only its link */
	snprintf(ln, sizeof(ln), "%s/.build-id/%.2s/%s", a->cache, hex, rel);
	return !access(ln, F_OK);
}

/* The files of a cached entry (elf, debug, kallsyms, vdso) into .debug/PATH/ID/. */
static int add_cached(struct archive *a, const char *hex, const char *rel)
{
	char dir[2 * PATH_MAX], member[2 * PATH_MAX], path[3 * PATH_MAX];
	const char *files[] = { "elf", "debug", "kallsyms", "vdso" };
	int n = 0;

	snprintf(dir, sizeof(dir), "%s/.build-id/%.2s/%s", a->cache, hex, rel);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		if (access(path, R_OK))
			continue;
		snprintf(member, sizeof(member), ".debug%s/%s", rel + 5, files[i]);
		if (tw_file(&a->t, member, path) == 0)
			n++;
	}
	return n;
}

/* Not cached: the file where it was recorded, if it still is that build. */
static int add_original(struct archive *a, const char *name, const uint8_t *id, int size,
			const char *hex, char *rel, size_t rsize)
{
	uint8_t have[20];
	char member[PATH_MAX + 64], dbg[128];
	int n;

	if (!strcmp(name, "[kernel.kallsyms]")) {
		n = pcl_build_id_kernel(have);
		if (n != size || memcmp(have, id, (size_t)size))
			return 0;
		snprintf(rel, rsize, "../../[kernel.kallsyms]/%s", hex);
		snprintf(member, sizeof(member), ".debug/[kernel.kallsyms]/%s/kallsyms", hex);
		return tw_file(&a->t, member, "/proc/kallsyms") ? 0 : 1;
	}
	if (name[0] != '/')
		return 0;
	n = pcl_build_id_read(name, have);
	if (n != size || memcmp(have, id, (size_t)size))
		return 0;
	snprintf(rel, rsize, "../..%s/%s", name, hex);
	snprintf(member, sizeof(member), ".debug%s/%s/elf", name, hex);
	if (tw_file(&a->t, member, name))
		return 0;
	snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	snprintf(member, sizeof(member), ".debug%s/%s/debug", name, hex);
	if (!access(dbg, R_OK))
		tw_file(&a->t, member, dbg);
	return 1;
}

static void add_entry(void *ctx, const uint8_t *id, int size, const char *name)
{
	struct archive *a = ctx;
	char hex[41], rel[PATH_MAX], member[PATH_MAX + 64], target[PATH_MAX + 64];
	int n;

	if (size <= 0)
		return; /* no build id: perf archive leaves it out too */
	pcl_build_id_hex(id, size, hex);
	snprintf(member, sizeof(member), ".debug/.build-id/%.2s/%s", hex, hex + 2);
	if (member_seen(a, member))
		return;
	if (from_cache(a, hex, rel, sizeof(rel)))
		n = add_cached(a, hex, rel);
	else
		n = add_original(a, name, id, size, hex, rel, sizeof(rel));
	if (!n) {
		if (!a->missing++)
			a->first_missing = strdup(name);
		return;
	}
	tw_header(&a->t, member, '2', 0777, 0, rel);
	member_add(a, member);
	a->files++;
	/* --symfs: the file again at its recorded path, as a hard link to its copy */
	if (name[0] == '/' && !member_seen(a, name + 1)) {
		snprintf(target, sizeof(target), ".debug%s/elf", rel + 5);
		tw_header(&a->t, name + 1, '1', 0755, 0, target);
		member_add(a, name + 1);
	}
}

int cmd_archive(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct archive a = { .t.now = time(NULL) };
	const char *input = "perf.data";
	char out[PATH_MAX];
	bool force = false;
	int c, bzerr, ret = 1;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:fh", longopts, NULL)) != -1) {
		if (c == 'f') {
			force = true;
		} else if (c == 'h') {
			print_usage("archive", stdout);
			return 0;
		} else {
			option_error("archive", c, argv);
			return EXIT_USAGE;
		}
	}
	if (optind < argc)
		input = argv[optind++];
	if (optind < argc) {
		die_msg("unexpected argument '%s'; see 'pcl archive -h'", argv[optind]);
		return EXIT_USAGE;
	}
	if (!strcmp(input, "-")) {
		die_msg("archive reads a file, not a stream");
		return EXIT_USAGE;
	}
	if (buildid_dir(a.cache, sizeof(a.cache)))
		return 1;
	if ((size_t)snprintf(out, sizeof(out), "%s.tar.bz2", input) >= sizeof(out)) {
		die_msg("'%s': name too long", input);
		return 1;
	}
	a.t.f = fopen(out, "wbe");
	if (!a.t.f) {
		die_msg("cannot create '%s': %s", out, strerror(errno));
		return 1;
	}
	a.t.bz = BZ2_bzWriteOpen(&bzerr, a.t.f, 9, 0, 0);
	if (!a.t.bz) {
		die_msg("cannot compress '%s' (bzip2 error %d)", out, bzerr);
		goto out;
	}
	if (buildid_list_read(input, true, force, add_entry, &a))
		goto out;
	tw_end(&a.t);
	BZ2_bzWriteClose(&bzerr, a.t.bz, 0, NULL, NULL);
	a.t.bz = NULL;
	if (bzerr != BZ_OK && !a.t.err)
		a.t.err = EIO;
	if (fclose(a.t.f) && !a.t.err)
		a.t.err = errno;
	a.t.f = NULL;
	if (a.t.err) {
		die_msg("cannot write '%s': %s", out, strerror(a.t.err));
		goto out;
	}
	if (a.missing)
		fprintf(stderr,
			"pcl: warning: %d file%s with samples not archived: not in the build-id "
			"cache '%s' and no longer the recorded build where it was (first: %s)\n",
			a.missing, a.missing > 1 ? "s" : "", a.cache,
			a.first_missing ? a.first_missing : "?");
	printf("Now please run:\n\n"
	       "$ tar xvf %s -C ~/.debug --strip-components=1 .debug\n\n"
	       "wherever you need to run 'pcl report' or 'perf report' on %s; or keep the files "
	       "apart:\n\n"
	       "$ mkdir DIR && tar xf %s -C DIR && pcl report -i %s --symfs DIR\n",
	       out, input, out, input);
	ret = stdout_finish(0);
out:
	if (a.t.bz)
		BZ2_bzWriteClose(&bzerr, a.t.bz, 1, NULL, NULL);
	if (a.t.f) {
		fclose(a.t.f);
		unlink(out);
	}
	if (ret)
		unlink(out);
	pcl_strings_free(a.members, a.nr_members);
	free(a.first_missing);
	return ret;
}
