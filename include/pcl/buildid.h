/* SPDX-License-Identifier: MIT */
/*
 * Build ids beyond the BUILD_ID feature of data.h: following hits for
 * pcl inject, reading build-id tables, and perf's build-id cache
 * (~/.debug). Not part of the stable API (PCL_0.1).
 */
#ifndef PCL_BUILDID_H
#define PCL_BUILDID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pcl/common.h>
#include <pcl/data.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Count every file as hit (perf's --buildid-all): the table then holds
 * every mapped file with a build id, samples or not.
 */
PCL_API void pcl_dso_hits__set_all(struct pcl_dso_hits *h, bool all);
/*
 * Files only: no entry for the kernel nor the vDSO, whose build ids are
 * read from the running system (right while recording, not for a
 * recording read later, maybe made elsewhere).
 */
PCL_API void pcl_dso_hits__set_files_only(struct pcl_dso_hits *h, bool files_only);
/*
 * Start over for a new file (perf record --switch-output): no file hit and
 * no entry written, the maps kept (they still hold in the next file).
 */
PCL_API void pcl_dso_hits__reset(struct pcl_dso_hits *h);
/*
 * Whether files became hit, with build ids not written yet, since the last
 * write_new: after a record, the caller writes them before it (perf inject
 * -b puts each build id ahead of the first sample in its file).
 */
PCL_API bool pcl_dso_hits__pending(const struct pcl_dso_hits *h);
/* Write the entries of the files hit since the last call; entries written, or -errno. */
PCL_API int pcl_dso_hits__write_new(struct pcl_dso_hits *h, struct pcl_data_writer *w);

/* One entry of a BUILD_ID feature section, or of a HEADER_BUILD_ID record. */
struct pcl_build_id_entry {
	int32_t pid;
	uint16_t misc; /* the record's misc: cpumode, PERF_RECORD_MISC_BUILD_ID_SIZE */
	bool kernel;   /* kernel space (the kernel, a module) */
	uint8_t size;  /* bytes of id that count */
	uint8_t id[20];
	const char *name; /* points into the section */
};
/*
 * The entry at *@off of the table @data (@len bytes; a single record works
 * too), advancing *@off: 1, 0 at the end, -EBADMSG for a malformed entry.
 */
PCL_API int pcl_build_id_table__next(const void *data, size_t len, size_t *off,
				     struct pcl_build_id_entry *e);
/* @size bytes of build id as lowercase hex into @out (NUL-terminated). */
PCL_API void pcl_build_id_hex(const uint8_t *id, int size, char out[41]);
/* The build id of this process's vDSO (the running kernel's); size or -errno. */
PCL_API int pcl_build_id_vdso(uint8_t id[20]);

/*
 * perf's build-id cache, in perf 6.1's layout (lib/data/buildid-cache.c):
 * DIR/PATH/ID/elf (a hard link or copy of the file), DIR/[kernel.kallsyms]/
 * ID/kallsyms, DIR/[vdso]/ID/vdso, and DIR/.build-id/XX/REST -> ../../PATH/ID.
 * Not thread-safe with itself on one directory (as perf's).
 *
 * The directory when none is given: $PERF_BUILDID_DIR, else $HOME/.debug.
 */
PCL_API int pcl_buildid_dir_default(char *buf, size_t size);
/*
 * Cache @name with build id @id (@size bytes): a file's real path,
 * "[kernel.kallsyms]" (a copy of /proc/kallsyms) or "[vdso]" (this
 * process's image). -ESTALE when what @name is now is another build (not
 * cached); 0 also when it was cached already.
 */
PCL_API int pcl_buildid_cache__add(const char *dir, const char *name, const uint8_t *id, int size);
/* Remove build @hexid: its link and its directory. -ENOENT when it is not cached. */
PCL_API int pcl_buildid_cache__remove(const char *dir, const char *hexid);
/* Whether build @hexid is cached in @dir. */
PCL_API bool pcl_buildid_cache__has(const char *dir, const char *hexid);
/* What build @hexid was cached from ("/path", "[kernel.kallsyms]"): malloc'd, or NULL. */
PCL_API char *pcl_buildid_cache__origname(const char *dir, const char *hexid);
/*
 * The cached build ids (hex), sorted, as a NULL-terminated malloc'd array
 * (free with pcl_strings_free); @valid_only: only those whose original file
 * (or kernel) still is that build, as perf buildid-cache --list shows them.
 * Count or -errno; a directory with no cache has none.
 */
PCL_API int pcl_buildid_cache__list(const char *dir, bool valid_only, char ***ids);
/* The build ids cached for the file @path (real path taken), as __list. */
PCL_API int pcl_buildid_cache__path_ids(const char *dir, const char *path, char ***ids);
/* Free @n strings of @v and @v (@n < 0: up to the NULL). NULL-safe. */
PCL_API void pcl_strings_free(char **v, int n);

#ifdef __cplusplus
}
#endif
#endif
