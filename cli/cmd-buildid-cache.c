/* SPDX-License-Identifier: MIT */
/*
 * pcl buildid-cache: manage perf's build-id cache (~/.debug, or the global
 * --buildid-dir), in perf 6.1's layout so perf and pcl share it; and the
 * pieces other commands use: the global --buildid-dir option and the cache
 * fill at the end of pcl record.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <pcl/pcl.h>
#include "cli.h"
#include "input.h"

/*
 * `pcl --buildid-dir DIR CMD` (and --buildid-dir=DIR), read with pcl's
 * other global options. The directory is handed on as $PERF_BUILDID_DIR,
 * as perf hands it to its helpers: every later reader (the symbolizer,
 * record's cache fill, archive) and the programs pcl runs see the same one.
 */
int buildid_dir_set(const char *dir)
{
	if (!dir || !*dir) {
		die_msg("option '--buildid-dir' needs a directory");
		return -1;
	}
	setenv("PERF_BUILDID_DIR", dir, 1);
	return 0;
}

/* Without the option, the default is handed on the same way (JITs take it for "perf runs"). */
void buildid_dir_export(void)
{
	char def[PATH_MAX];

	if (!getenv("PERF_BUILDID_DIR") && !pcl_buildid_dir_default(def, sizeof(def)))
		setenv("PERF_BUILDID_DIR", def, 1);
}

/* The cache directory in use: $PERF_BUILDID_DIR (or --buildid-dir), else ~/.debug. */
int buildid_dir(char *buf, size_t size)
{
	if (pcl_buildid_dir_default(buf, size)) {
		die_msg("%s", pcl_last_error());
		return -1;
	}
	return 0;
}

/*
 * What perf record does when it closes its file: every file of the BUILD_ID
 * table goes into the cache, if it still is the build that was recorded.
 * Quiet, as perf's: a file that cannot be cached is left out. Pipe output
 * has no table (perf caches nothing then either).
 */
void buildid_cache_record(const char *path)
{
	struct pcl_data_reader *r;
	struct pcl_build_id_entry e;
	const void *tab;
	size_t len, off = 0;
	char dir[PATH_MAX];
	struct stat st;

	/* only a regular file: a FIFO or a device took a stream (and opening a FIFO waits) */
	if (!path || stat(path, &st) || !S_ISREG(st.st_mode) ||
	    pcl_buildid_dir_default(dir, sizeof(dir)))
		return;
	r = pcl_data_reader__open(path);
	if (!r)
		return;
	tab = pcl_data_reader__feature(r, PCL_FEAT_BUILD_ID, &len);
	while (tab && pcl_build_id_table__next(tab, len, &off, &e) > 0)
		pcl_buildid_cache__add(dir, e.name, e.id, e.size);
	pcl_data_reader__close(r);
}

struct bc_opts {
	struct list add, remove, purge, update;
	const char *missing;
	bool list, purge_all, force;
	int verbose;
};

/* Split "a,b" lists, repeated options adding to them. */
static int add_list(struct list *l, const char *arg)
{
	struct list more = { 0 };

	if (list_split(&more, arg))
		return -1;
	for (int i = 0; i < more.n; i++) {
		char *s = strdup(more.v[i]);

		if (!s || add_string(&l->v, &l->n, s)) {
			free(s);
			list_free(&more);
			return -1;
		}
	}
	list_free(&more);
	return 0;
}

static void free_list(struct list *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static int parse_opts(int argc, char **argv, struct bc_opts *o)
{
	static const struct option longopts[] = {
		{ "add", required_argument, NULL, 'a' },
		{ "remove", required_argument, NULL, 'r' },
		{ "purge", required_argument, NULL, 'p' },
		{ "purge-all", no_argument, NULL, 'P' },
		{ "list", no_argument, NULL, 'l' },
		{ "missing", required_argument, NULL, 'M' },
		{ "update", required_argument, NULL, 'u' },
		{ "force", no_argument, NULL, 'f' },
		{ "kcore", required_argument, NULL, 'k' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:a:r:p:PlM:u:fk:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			if (add_list(&o->add, optarg))
				return -1;
			break;
		case 'r':
			if (add_list(&o->remove, optarg))
				return -1;
			break;
		case 'p':
			if (add_list(&o->purge, optarg))
				return -1;
			break;
		case 'u':
			if (add_list(&o->update, optarg))
				return -1;
			break;
		case 'P':
			o->purge_all = true;
			break;
		case 'l':
			o->list = true;
			break;
		case 'M':
			o->missing = optarg;
			break;
		case 'f':
			o->force = true;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'k':
			die_msg("--kcore is not supported by pcl buildid-cache");
			return -1;
		case 'h':
			print_usage("buildid-cache", stdout);
			exit(0);
		default:
			return option_error("buildid-cache", c, argv);
		}
	}
	if (optind < argc) {
		die_msg("unexpected argument '%s'; see 'pcl buildid-cache -h'", argv[optind]);
		return -1;
	}
	if (!o->list && !o->add.n && !o->remove.n && !o->purge.n && !o->update.n && !o->missing &&
	    !o->purge_all) {
		print_usage("buildid-cache", stderr);
		return -1;
	}
	if (o->list &&
	    (o->add.n || o->remove.n || o->purge.n || o->update.n || o->missing || o->purge_all)) {
		die_msg("-l/--list goes alone: give no other option with it");
		return -1;
	}
	return 0;
}

/* The build id of @file in hex; false (said once) when it has none. */
static bool file_build_id(const char *what, const char *file, uint8_t id[20], int *size,
			  char hex[41])
{
	*size = pcl_build_id_read(file, id);
	if (*size <= 0) {
		/* -ENOENT is also the reader's "no build id": tell a missing file apart */
		bool gone = *size == -ENOENT && access(file, F_OK);

		die_msg("cannot %s '%s': %s", what, file,
			gone		    ? strerror(ENOENT)
			: *size == -ENOENT ? "no build id in it"
					    : pcl_strerror(*size));
		return false;
	}
	pcl_build_id_hex(id, *size, hex);
	return true;
}

static int do_add(const char *dir, const char *file, const struct bc_opts *o, bool update)
{
	uint8_t id[20];
	char hex[41];
	int size, ret = 0;

	if (!file_build_id(update ? "update" : "add", file, id, &size, hex))
		return -1;
	if (update && pcl_buildid_cache__has(dir, hex))
		ret = pcl_buildid_cache__remove(dir, hex);
	if (!ret)
		ret = pcl_buildid_cache__add(dir, file, id, size);
	if (o->verbose)
		fprintf(stderr, "%s %s %s: %s\n", update ? "Updating" : "Adding", hex, file,
			ret ? "FAIL" : "Ok");
	if (ret)
		die_msg("cannot %s '%s': %s", update ? "update" : "add", file, pcl_last_error());
	return ret ? -1 : 0;
}

static int do_remove(const char *dir, const char *file, const struct bc_opts *o)
{
	uint8_t id[20];
	char hex[41];
	int size, ret;

	if (!file_build_id("remove", file, id, &size, hex))
		return -1;
	ret = pcl_buildid_cache__remove(dir, hex);
	if (o->verbose)
		fprintf(stderr, "Removing %s %s: %s\n", hex, file, ret ? "FAIL" : "Ok");
	/* not there is what was asked for: perf says so only with -v too */
	if (ret == -ENOENT)
		return 0;
	if (ret)
		die_msg("cannot remove '%s': %s", file, pcl_last_error());
	return ret ? -1 : 0;
}

/* Every build of @path cached; perf's --purge (also for a file that is gone). */
static int do_purge(const char *dir, const char *path, const struct bc_opts *o)
{
	char **ids;
	int n = pcl_buildid_cache__path_ids(dir, path, &ids), ret = 0;

	if (n == -ENOENT)
		return 0;
	if (n < 0) {
		die_msg("cannot purge '%s': %s", path, pcl_last_error());
		return -1;
	}
	for (int i = 0; i < n && !ret; i++) {
		/* a directory that is not an entry of this cache (no link) is left alone */
		if (!pcl_buildid_cache__has(dir, ids[i]))
			continue;
		ret = pcl_buildid_cache__remove(dir, ids[i]);
		if (o->verbose)
			fprintf(stderr, "Removing %s %s: %s\n", ids[i], path, ret ? "FAIL" : "Ok");
	}
	pcl_strings_free(ids, n);
	if (ret)
		die_msg("cannot purge '%s': %s", path, pcl_last_error());
	return ret ? -1 : 0;
}

static int do_purge_all(const char *dir, const struct bc_opts *o)
{
	char **ids;
	int n = pcl_buildid_cache__list(dir, false, &ids), ret = 0;

	if (n < 0) {
		die_msg("%s", pcl_last_error());
		return -1;
	}
	for (int i = 0; i < n && !ret; i++) {
		char *orig = o->verbose ? pcl_buildid_cache__origname(dir, ids[i]) : NULL;

		ret = pcl_buildid_cache__remove(dir, ids[i]);
		if (o->verbose)
			fprintf(stderr, "Removing %s (%s): %s\n", orig ? orig : "?", ids[i],
				ret ? "FAIL" : "Ok");
		free(orig);
	}
	pcl_strings_free(ids, n);
	if (ret)
		die_msg("cannot purge the build-id cache: %s", pcl_last_error());
	return ret ? -1 : 0;
}

static int do_list(const char *dir)
{
	char **ids;
	int n = pcl_buildid_cache__list(dir, true, &ids);

	if (n < 0) {
		die_msg("%s", pcl_last_error());
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char *orig = pcl_buildid_cache__origname(dir, ids[i]);

		printf("%s %s\n", ids[i], orig ? orig : "");
		free(orig);
	}
	pcl_strings_free(ids, n);
	return 0;
}

/* The file the cache keeps for a table entry: elf, kallsyms or vdso. */
static const char *cache_file_name(const char *name)
{
	if (!strcmp(name, "[kernel.kallsyms]"))
		return "kallsyms";
	if (!strcmp(name, "[vdso]"))
		return "vdso";
	return "elf";
}

/* --missing: the files of @path's build-id table that the cache does not hold. */
static int do_missing(const char *dir, const char *path, bool force)
{
	struct pcl_data_reader *r;
	struct pcl_build_id_entry e;
	const void *tab;
	size_t len, off = 0;
	int ret;

	if (input_check_owner(path, force))
		return -1;
	r = pcl_data_reader__open(path);
	if (!r) {
		die_msg("%s", pcl_last_error());
		return -1;
	}
	tab = pcl_data_reader__feature(r, PCL_FEAT_BUILD_ID, &len);
	while (tab && (ret = pcl_build_id_table__next(tab, len, &off, &e)) > 0) {
		char hex[41], f[PATH_MAX];

		pcl_build_id_hex(e.id, e.size, hex);
		snprintf(f, sizeof(f), "%s/.build-id/%.2s/%s/%s", dir, hex, hex + 2,
			 cache_file_name(e.name));
		if (access(f, F_OK) && errno == ENOENT)
			printf("%-40s %s\n", hex, e.name);
	}
	pcl_data_reader__close(r);
	return 0;
}

int cmd_buildid_cache(int argc, char **argv)
{
	struct bc_opts o = { 0 };
	char dir[PATH_MAX];
	int fails = 0;

	if (parse_opts(argc, argv, &o)) {
		fails = -1;
		goto out;
	}
	if (buildid_dir(dir, sizeof(dir))) {
		fails = 1;
		goto out;
	}
	if (o.list) {
		fails += do_list(dir) < 0;
		goto out;
	}
	for (int i = 0; i < o.add.n; i++)
		fails += do_add(dir, o.add.v[i], &o, false) < 0;
	for (int i = 0; i < o.remove.n; i++)
		fails += do_remove(dir, o.remove.v[i], &o) < 0;
	for (int i = 0; i < o.purge.n; i++)
		fails += do_purge(dir, o.purge.v[i], &o) < 0;
	if (o.purge_all)
		fails += do_purge_all(dir, &o) < 0;
	if (o.missing)
		fails += do_missing(dir, o.missing, o.force) < 0;
	for (int i = 0; i < o.update.n; i++)
		fails += do_add(dir, o.update.v[i], &o, true) < 0;
out:
	free_list(&o.add);
	free_list(&o.remove);
	free_list(&o.purge);
	free_list(&o.update);
	if (fails < 0)
		return EXIT_USAGE;
	return stdout_finish(fails ? 1 : 0);
}
