/* SPDX-License-Identifier: MIT */
/*
 * perf's build-id cache (~/.debug), laid out as perf 6.1 lays it out, so
 * that either tool finds what the other cached:
 *
 *   DIR/PATH/ID/elf                  the file (a hard link, else a copy)
 *   DIR/PATH/ID/debug                its /usr/lib/debug/.build-id debug file
 *   DIR/[kernel.kallsyms]/ID/kallsyms   a copy of /proc/kallsyms
 *   DIR/[vdso]/ID/vdso               this process's vDSO image
 *   DIR/.build-id/XX/REST -> ../../PATH/ID   (ID = XX REST, in hex)
 *
 * PATH is the file's real path (symlinks resolved), so the link's target
 * spells the original name: that is how perf's --list and --purge find it.
 * An entry is added at most once: existing files and links are kept.
 * Nothing here prints; errors are negative errno values.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "internal.h"

PCL_API void pcl_build_id_hex(const uint8_t *id, int size, char out[41])
{
	static const char digits[] = "0123456789abcdef";
	int n = size < 0 ? 0 : size > 20 ? 20 : size;

	for (int i = 0; i < n; i++) {
		out[2 * i] = digits[id[i] >> 4];
		out[2 * i + 1] = digits[id[i] & 15];
	}
	out[2 * n] = '\0';
}

PCL_API int pcl_buildid_dir_default(char *buf, size_t size)
{
	const char *env = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");
	int n;

	if (env && *env)
		n = snprintf(buf, size, "%s", env);
	else
		n = snprintf(buf, size, "%s/.debug", home && *home ? home : ".");
	if (n < 0 || (size_t)n >= size)
		return pcl_err(ENAMETOOLONG, "build-id cache directory name too long");
	return 0;
}

static int mkdir_p(char *path, mode_t mode)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, mode) && errno != EEXIST) {
			*p = '/';
			return -errno;
		}
		*p = '/';
	}
	if (mkdir(path, mode) && errno != EEXIST)
		return -errno;
	return 0;
}

/* Write @len bytes to a new file @to (0 when it appeared meanwhile: kept). */
static int write_new(const char *to, const void *data, size_t len, mode_t mode)
{
	int fd = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	const uint8_t *p = data;

	if (fd < 0)
		return errno == EEXIST ? 0 : -errno;
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n <= 0) {
			int e = n < 0 ? -errno : -EIO;

			close(fd);
			unlink(to);
			return e;
		}
		p += n;
		len -= (size_t)n;
	}
	return close(fd) ? -errno : 0;
}

/* Copy @from (read to its end: /proc files have no size) into a new file @to. */
static int copy_file(const char *from, const char *to, mode_t mode)
{
	struct bytebuf b = { 0 };
	uint8_t chunk[65536];
	int fd = open(from, O_RDONLY | O_CLOEXEC), ret;
	ssize_t n;

	if (fd < 0)
		return -errno;
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		bytebuf_put(&b, chunk, (size_t)n);
	ret = n < 0 ? -errno : b.oom ? -ENOMEM : 0;
	close(fd);
	if (!ret)
		ret = write_new(to, b.p ? (void *)b.p : "", b.len, mode);
	free(b.p);
	return ret;
}

/* perf's way: a hard link where the file system allows, else a copy with its mode. */
static int link_or_copy(const char *from, const char *to)
{
	struct stat st;

	if (!link(from, to) || errno == EEXIST)
		return 0;
	if (stat(from, &st))
		return -errno;
	return copy_file(from, to, st.st_mode & 07777);
}

/* This process's vDSO image: its bytes and size (its [vdso] map), or NULL. */
static const void *vdso_image(size_t *size)
{
	uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	unsigned long long lo, hi;
	char line[512];
	FILE *f;

	*size = 0;
	if (!base || !(f = fopen("/proc/self/maps", "re")))
		return NULL;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx", &lo, &hi) == 2 && lo == base && hi > lo)
			*size = (size_t)(hi - lo);
	fclose(f);
	return *size ? (const void *)base : NULL;
}

PCL_API int pcl_build_id_vdso(uint8_t id[20])
{
	size_t size;
	const uint8_t *img = vdso_image(&size);
	char path[64];
	int fd, ret;

	if (!img)
		return pcl_err(ENOENT, "this process has no vDSO");
	/* libelf reads files: hand it the image through a memory file */
	fd = memfd_create("pcl-vdso", MFD_CLOEXEC);
	if (fd < 0)
		return pcl_err(errno, "cannot read the vDSO: %m");
	if (write(fd, img, size) != (ssize_t)size) {
		close(fd);
		return pcl_err(EIO, "cannot read the vDSO");
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ret = pcl_build_id_read(path, id);
	close(fd);
	return ret;
}

/* DIR/PATH/HEXID for @name: the kernel and the vDSO by their [names]. */
static int cache_dir_of(const char *dir, const char *name, const char *hexid, char *out,
			size_t size)
{
	char *real = NULL;
	int n;

	if (name[0] != '[')
		real = realpath(name, NULL);
	if (real)
		name = real;
	n = snprintf(out, size, "%s%s%s/%s", dir, name[0] == '/' ? "" : "/", name, hexid);
	free(real);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int link_name(const char *dir, const char *hexid, char *out, size_t size)
{
	int n = snprintf(out, size, "%s/.build-id/%.2s/%s", dir, hexid, hexid + 2);

	return n < 0 || (size_t)n >= size || strlen(hexid) < 3 ? -ENAMETOOLONG : 0;
}

static bool is_hexid(const char *s, size_t min, size_t max)
{
	size_t n = strspn(s, "0123456789abcdef");

	return !s[n] && n >= min && n <= max;
}

/* The file's content for the entry: kallsyms, the vDSO image, or the file (and its debug). */
static int fill_entry(const char *name, const char *hexid, char *d, size_t dlen, size_t size)
{
	char dbg[PATH_MAX];
	size_t vsize;
	const void *img;
	int ret;

	if (!strcmp(name, "[kernel.kallsyms]")) {
		snprintf(d + dlen, size - dlen, "/kallsyms");
		return access(d, F_OK) ? copy_file("/proc/kallsyms", d, 0644) : 0;
	}
	if (!strcmp(name, "[vdso]")) {
		snprintf(d + dlen, size - dlen, "/vdso");
		img = vdso_image(&vsize);
		if (!img)
			return -ENOENT;
		return access(d, F_OK) ? write_new(d, img, vsize, 0644) : 0;
	}
	snprintf(d + dlen, size - dlen, "/elf");
	if (access(d, F_OK) && (ret = link_or_copy(name, d)))
		return ret;
	/* a stripped file is little use alone: its debug file goes with it, as perf's */
	snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%.2s/%s.debug", hexid, hexid + 2);
	snprintf(d + dlen, size - dlen, "/debug");
	if ((strlen(name) < 3 || strcmp(name + strlen(name) - 3, ".ko")) && !access(dbg, R_OK) &&
	    access(d, F_OK))
		link_or_copy(dbg, d);
	return 0;
}

PCL_API int pcl_buildid_cache__add(const char *dir, const char *name, const uint8_t *id, int size)
{
	char hexid[41], d[PATH_MAX], ln[PATH_MAX], cur[PATH_MAX];
	uint8_t have[20];
	int ret, hs;
	size_t dlen;
	char *slash;

	if (!dir || !name || !id || size < 2 || size > 20)
		return pcl_err(EINVAL, "pcl_buildid_cache__add: invalid argument");
	pcl_build_id_hex(id, size, hexid);
	/* only the build that was recorded: another one under the same name is not it */
	if (!strcmp(name, "[kernel.kallsyms]"))
		hs = pcl_build_id_kernel(have);
	else if (!strcmp(name, "[vdso]"))
		hs = pcl_build_id_vdso(have);
	else if (name[0] != '[')
		hs = pcl_build_id_read(name, have);
	else
		return pcl_err(EINVAL, "'%s': not a file the build-id cache keeps", name);
	if (hs < 0)
		return pcl_err(-hs, "cannot read the build id of '%s': %s", name, pcl_strerror(hs));
	if (hs != size || memcmp(have, id, (size_t)size))
		return pcl_err(ESTALE, "'%s' is not the build %s", name, hexid);
	if ((ret = cache_dir_of(dir, name, hexid, d, sizeof(d) - 16)) ||
	    (ret = link_name(dir, hexid, ln, sizeof(ln))))
		return pcl_err(-ret, "'%s': path too long for the build-id cache", name);
	if ((ret = mkdir_p(d, 0755)))
		return pcl_err(-ret, "cannot create '%s': %s", d, pcl_strerror(ret));
	dlen = strlen(d);
	ret = fill_entry(name, hexid, d, dlen, sizeof(d));
	if (ret)
		return pcl_err(-ret, "cannot cache '%s' in '%s': %s", name, dir, pcl_strerror(ret));
	d[dlen] = '\0';
	slash = strrchr(ln, '/');
	*slash = '\0';
	if ((ret = mkdir_p(ln, 0755)))
		return pcl_err(-ret, "cannot create '%s': %s", ln, pcl_strerror(ret));
	*slash = '/';
	/* relative, as perf makes it: the cache can move as a whole (archives) */
	snprintf(cur, sizeof(cur), "../..%s", d + strlen(dir));
	if (symlink(cur, ln) && errno != EEXIST)
		return pcl_err(errno, "cannot link '%s': %m", ln);
	return 0;
}

PCL_API bool pcl_buildid_cache__has(const char *dir, const char *hexid)
{
	char ln[PATH_MAX];

	return !link_name(dir, hexid, ln, sizeof(ln)) && !access(ln, F_OK);
}

PCL_API char *pcl_buildid_cache__origname(const char *dir, const char *hexid)
{
	char ln[PATH_MAX], buf[PATH_MAX], *slash, *p;
	ssize_t n;

	if (link_name(dir, hexid, ln, sizeof(ln)))
		return pcl_err_null(ENAMETOOLONG, "build id '%s' too long", hexid);
	n = readlink(ln, buf, sizeof(buf) - 1);
	if (n <= 0)
		return pcl_err_null(n < 0 ? errno : EINVAL, "build id %s is not cached", hexid);
	buf[n] = '\0';
	/* "../../ORIG/ID", where ORIG is "/path" or "/[kernel.kallsyms]" */
	slash = strrchr(buf, '/');
	if (!slash || slash <= buf + 5 || strncmp(buf, "../..", 5))
		return pcl_err_null(EINVAL, "'%s' is not a build-id cache link", ln);
	*slash = '\0';
	p = buf + 5;
	if (p[0] == '/' && p[1] == '[')
		p++;
	return strdup(p);
}

static int rm_rf(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	char sub[PATH_MAX];
	int ret = 0;

	if (lstat(path, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return unlink(path) ? -errno : 0;
	d = opendir(path);
	if (!d)
		return -errno;
	while (!ret && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name) >= sizeof(sub))
			ret = -ENAMETOOLONG;
		else
			ret = rm_rf(sub);
	}
	closedir(d);
	if (!ret && rmdir(path))
		ret = -errno;
	return ret;
}

PCL_API int pcl_buildid_cache__remove(const char *dir, const char *hexid)
{
	char ln[PATH_MAX], target[PATH_MAX], full[2 * PATH_MAX];
	ssize_t n;
	int ret;

	if (!dir || !hexid || link_name(dir, hexid, ln, sizeof(ln)))
		return pcl_err(EINVAL, "pcl_buildid_cache__remove: invalid argument");
	n = readlink(ln, target, sizeof(target) - 1);
	if (n < 0)
		return pcl_err(errno, "build id %s is not in '%s'", hexid, dir);
	target[n] = '\0';
	if (unlink(ln))
		return pcl_err(errno, "cannot remove '%s': %m", ln);
	/* the link is relative to its own directory */
	*strrchr(ln, '/') = '\0';
	snprintf(full, sizeof(full), "%s/%s", ln, target);
	ret = rm_rf(full);
	if (ret && ret != -ENOENT)
		return pcl_err(-ret, "cannot remove '%s': %s", full, pcl_strerror(ret));
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Entries of @path that pass @ok, sorted, as a NULL-terminated malloc'd array. */
static int list_dir(const char *path, bool (*ok)(const char *), char ***out)
{
	DIR *d = opendir(path);
	struct dirent *e;
	char **v = NULL;
	int n = 0, alloc = 0;

	*out = NULL;
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (!ok(e->d_name))
			continue;
		if (grow_array((void **)&v, &alloc, n + 2, sizeof(*v)) ||
		    !(v[n] = strdup(e->d_name))) {
			closedir(d);
			pcl_strings_free(v, n);
			return -ENOMEM;
		}
		v[++n] = NULL;
	}
	closedir(d);
	if (n)
		qsort(v, (size_t)n, sizeof(*v), cmp_str);
	*out = v;
	return n;
}

static bool head_ok(const char *s)
{
	return is_hexid(s, 2, 2);
}

/* perf takes ids of 14 to 38 digits after the first two (build ids of 8 to 20 bytes) */
static bool tail_ok(const char *s)
{
	return is_hexid(s, 14, 38);
}

static bool not_dot(const char *s)
{
	return strcmp(s, ".") && strcmp(s, "..");
}

PCL_API void pcl_strings_free(char **v, int n)
{
	if (!v)
		return;
	for (int i = 0; i < n || (n < 0 && v[i]); i++)
		free(v[i]);
	free(v);
}

/* Whether the cached build @hexid is what its original file (or kernel) is now. */
static bool still_valid(const char *dir, const char *hexid)
{
	char *orig = pcl_buildid_cache__origname(dir, hexid), now[41];
	uint8_t id[20];
	int n = -1;

	if (!orig)
		return false;
	if (!strcmp(orig, "[kernel.kallsyms]"))
		n = pcl_build_id_kernel(id);
	else if (orig[0] == '/')
		n = pcl_build_id_read(orig, id);
	free(orig);
	if (n <= 0)
		return false;
	pcl_build_id_hex(id, n, now);
	return !strcmp(now, hexid);
}

PCL_API int pcl_buildid_cache__list(const char *dir, bool valid_only, char ***out)
{
	char top[PATH_MAX], sub[PATH_MAX + 4];
	char **heads = NULL, **tails, **v = NULL;
	int nh, n = 0, alloc = 0, ret = 0;

	*out = NULL;
	snprintf(top, sizeof(top), "%s/.build-id", dir);
	nh = list_dir(top, head_ok, &heads);
	if (nh == -ENOENT)
		nh = 0; /* no cache yet: nothing in it */
	if (nh < 0)
		return pcl_err(-nh, "cannot read '%s': %s", top, pcl_strerror(nh));
	for (int i = 0; i < nh && !ret; i++) {
		int nt;

		snprintf(sub, sizeof(sub), "%s/%s", top, heads[i]);
		nt = list_dir(sub, tail_ok, &tails);
		if (nt < 0) {
			ret = pcl_err(-nt, "cannot read '%s': %s", sub, pcl_strerror(nt));
			break;
		}
		for (int j = 0; j < nt && !ret; j++) {
			char id[48];

			snprintf(id, sizeof(id), "%s%s", heads[i], tails[j]);
			if (valid_only && !still_valid(dir, id))
				continue;
			if (grow_array((void **)&v, &alloc, n + 2, sizeof(*v)) ||
			    !(v[n] = strdup(id)))
				ret = -ENOMEM;
			else
				v[++n] = NULL;
		}
		pcl_strings_free(tails, nt);
	}
	pcl_strings_free(heads, nh);
	if (ret) {
		pcl_strings_free(v, n);
		return ret == -ENOMEM ? pcl_err(ENOMEM, "out of memory") : ret;
	}
	*out = v;
	return n;
}

PCL_API int pcl_buildid_cache__path_ids(const char *dir, const char *path, char ***out)
{
	char d[PATH_MAX];
	int n;

	*out = NULL;
	if (cache_dir_of(dir, path, "", d, sizeof(d)))
		return pcl_err(ENAMETOOLONG, "'%s': path too long", path);
	n = list_dir(d, not_dot, out);
	if (n < 0)
		return pcl_err(-n, "'%s' is not in the build-id cache '%s'", path, dir);
	return n;
}

PCL_API int pcl_build_id_table__next(const void *data, size_t len, size_t *off,
				     struct pcl_build_id_entry *e)
{
	const uint8_t *p = (const uint8_t *)data + *off;
	size_t left = len - *off, nlen;
	struct perf_event_header h;

	if (*off >= len || left < 8)
		return 0;
	memcpy(&h, p, sizeof(h));
	if (h.size < 8 + 4 + 24 + 1 || h.size > left)
		return pcl_err(EBADMSG, "malformed build-id table entry at %zu", *off);
	memset(e, 0, sizeof(*e));
	e->misc = h.misc;
	e->kernel = (h.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL ||
		    (h.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_GUEST_KERNEL;
	memcpy(&e->pid, p + 8, 4);
	e->size = (h.misc & (1 << 15)) ? p[8 + 4 + 20] : 20;
	if (e->size > 20)
		e->size = 20;
	memcpy(e->id, p + 12, 20);
	e->name = (const char *)p + 8 + 4 + 24;
	nlen = h.size - (8 + 4 + 24);
	if (!memchr(e->name, '\0', nlen))
		return pcl_err(EBADMSG, "malformed build-id table entry at %zu", *off);
	*off += h.size;
	return 1;
}
