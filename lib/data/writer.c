/* SPDX-License-Identifier: MIT */
/*
 * The perf.data writer (format and crash-safety protocol in
 * include/pcl/data.h).
 *
 * State machine: create (header + attrs on disk, data size 0) -> write* ->
 * finish_round* (data flushed) -> close (features appended, bits set, data
 * size written) or abort (file removed). Until close the header says the
 * data is empty, which is how perf marks a recording that did not finish:
 * perf 6.1 warns and gives up on such a file (its own too); pcl's reader
 * takes the records up to the end of the file and says the file is cut, so
 * a recorder killed outright leaves every flushed round readable and
 * nothing looks whole that is not.
 * Any write error is sticky: later calls return it, close() removes the
 * file, so an incomplete file never looks whole.
 *
 * What -o names decides the mode (see open_output): a regular file, or
 * none, is written seekable, a non-empty one kept as PATH.old first; a
 * character device or a FIFO takes a stream (pipe mode) and is never
 * renamed or removed; a symlink is followed, so its target is what gets
 * kept and replaced, and the link stays.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include "internal.h"

#define PERF_MAGIC2 0x32454c4946524550ULL /* "PERFILE2" */
#define WBUF_SIZE   (1u << 20)

struct file_section {
	uint64_t offset, size;
};

struct file_header {
	uint64_t magic;
	uint64_t size;
	uint64_t attr_size;
	struct file_section attrs, data, event_types;
	uint64_t adds_features[4];
};

struct feature {
	void *data;
	size_t len;
};

struct pcl_data_writer {
	int fd;
	bool pipe;
	bool own_fd; /* a stream into a device or FIFO we opened (not stdout) */
	char *path;
	char *file; /* the regular file we made: what abort removes; NULL for a stream */
	dev_t file_dev; /* and its identity: abort leaves alone another file of that name */
	ino_t file_ino;
	int err; /* first error, sticky */
	uint8_t *buf;
	size_t used;
	uint64_t data_offset, data_size; /* data_size counts flushed and buffered bytes */
	uint64_t flushed;		 /* data bytes on disk */
	struct file_header hdr;
	struct pcl_data_attr *attrs;
	uint64_t **ids;
	int nr_attrs;
	struct feature feat[PCL_FEAT_MAX];
	uint8_t *build_ids; /* BUILD_ID feature records, appended */
	size_t build_ids_len;
	/*
	 * -z: records are staged in zin, then go out as COMPRESSED records,
	 * each a piece of one zstd stream that runs across the file (perf's
	 * format). A staged chunk never holds more than a ring's data, so no
	 * record's decompressed bytes outgrow the reader's buffer of the
	 * COMPRESSED feature's mmap_len.
	 */
	ZSTD_CStream *zcs;
	uint32_t zlevel, zmmap_len;
	uint8_t *zin, *zout;
	size_t zin_used, zin_cap;
	uint64_t ztransferred, zcompressed; /* bytes in, COMPRESSED record bytes out */
};

static int write_all(int fd, const void *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p = (const uint8_t *)p + n;
		len -= (size_t)n;
	}
	return 0;
}

static int pwrite_all(int fd, const void *p, size_t len, off_t off)
{
	while (len) {
		ssize_t n = pwrite(fd, p, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p = (const uint8_t *)p + n;
		len -= (size_t)n;
		off += n;
	}
	return 0;
}

static int fail(struct pcl_data_writer *w, int err)
{
	if (!w->err)
		w->err = pcl_err(-err, "cannot write '%s': %s", w->path, pcl_strerror(err));
	return w->err;
}

static int flush(struct pcl_data_writer *w)
{
	int ret;

	if (w->err)
		return w->err;
	ret = write_all(w->fd, w->buf, w->used);
	if (ret)
		return fail(w, ret);
	w->flushed += w->used;
	w->used = 0;
	return 0;
}

static int emit(struct pcl_data_writer *w, const void *p, size_t len)
{
	if (w->err)
		return w->err;
	if (w->used + len > WBUF_SIZE && flush(w))
		return w->err;
	if (len > WBUF_SIZE) {
		int ret = write_all(w->fd, p, len);

		if (ret)
			return fail(w, ret);
		w->flushed += len;
		return 0;
	}
	memcpy(w->buf + w->used, p, len);
	w->used += len;
	return 0;
}

static int write_header(struct pcl_data_writer *w)
{
	int ret;

	w->hdr.data.size = w->flushed - (w->pipe ? 0 : 0);
	ret = pwrite_all(w->fd, &w->hdr, sizeof(w->hdr), 0);
	return ret ? fail(w, ret) : 0;
}

/* File mode: header, then each attr's ids, then the attrs section. */
static int start_file(struct pcl_data_writer *w)
{
	uint64_t off = sizeof(struct file_header), attrs_off;
	size_t asz = sizeof(struct perf_event_attr);
	int ret;

	w->hdr.magic = PERF_MAGIC2;
	w->hdr.size = sizeof(w->hdr);
	w->hdr.attr_size = asz + sizeof(struct file_section);
	for (int i = 0; i < w->nr_attrs; i++) {
		size_t n = (size_t)w->attrs[i].nr_ids * 8;

		ret = pwrite_all(w->fd, w->ids[i], n, (off_t)off);
		if (ret)
			return fail(w, ret);
		off += n;
	}
	attrs_off = off;
	off = sizeof(struct file_header);
	for (int i = 0; i < w->nr_attrs; i++) {
		struct file_section ids = { off, (uint64_t)w->attrs[i].nr_ids * 8 };
		off_t at = (off_t)(attrs_off + (uint64_t)i * w->hdr.attr_size);

		if ((ret = pwrite_all(w->fd, &w->attrs[i].attr, asz, at)) ||
		    (ret = pwrite_all(w->fd, &ids, sizeof(ids), at + (off_t)asz)))
			return fail(w, ret);
		off += ids.size;
	}
	w->hdr.attrs.offset = attrs_off;
	w->hdr.attrs.size = (uint64_t)w->nr_attrs * w->hdr.attr_size;
	w->data_offset = (w->hdr.attrs.offset + w->hdr.attrs.size + 7) & ~7ULL;
	w->hdr.data.offset = w->data_offset;
	if (lseek(w->fd, (off_t)w->data_offset, SEEK_SET) < 0)
		return fail(w, -errno);
	return write_header(w);
}

static int add_event_desc(struct pcl_data_writer *w);
static int compress_staged(struct pcl_data_writer *w);

/* EVENT_UPDATE { header, u64 type (2: name), u64 id, name padded to 8 }. */
static void emit_event_name(struct pcl_data_writer *w, const struct pcl_data_attr *a)
{
	size_t nl = strlen(a->name) + 1, padded = (nl + 7) & ~(size_t)7;
	struct perf_event_header h = { .type = PCL_RECORD_EVENT_UPDATE };
	uint64_t tid[2] = { 2, a->nr_ids ? a->ids[0] : 0 };

	if (!a->nr_ids || sizeof(h) + 16 + padded > 0xffff)
		return;
	h.size = (uint16_t)(sizeof(h) + 16 + padded);
	emit(w, &h, sizeof(h));
	emit(w, tid, sizeof(tid));
	emit(w, a->name, nl);
	emit(w, "\0\0\0\0\0\0\0", padded - nl);
	w->data_size += h.size;
}

/* Pipe mode: the short header, then one HEADER_ATTR record per event. */
static int start_pipe(struct pcl_data_writer *w)
{
	uint64_t ph[2] = { PERF_MAGIC2, 16 };

	emit(w, ph, sizeof(ph));
	for (int i = 0; i < w->nr_attrs; i++) {
		size_t asz = sizeof(struct perf_event_attr), n = (size_t)w->attrs[i].nr_ids * 8;
		struct perf_event_header h = { .type = PCL_RECORD_HEADER_ATTR,
					       .size = (uint16_t)(sizeof(h) + asz + n) };

		if (sizeof(h) + asz + n > 0xffff)
			return fail(w, -E2BIG);
		emit(w, &h, sizeof(h));
		emit(w, &w->attrs[i].attr, asz);
		emit(w, w->ids[i], n);
	}
	/* perf names a stream's events by EVENT_UPDATE records; pcl also takes EVENT_DESC */
	for (int i = 0; i < w->nr_attrs && !w->err; i++)
		emit_event_name(w, &w->attrs[i]);
	return w->err ? w->err : add_event_desc(w);
}

static int copy_attrs(struct pcl_data_writer *w, const struct pcl_data_attr *attrs, int nr)
{
	w->attrs = calloc((size_t)nr, sizeof(*w->attrs));
	w->ids = calloc((size_t)nr, sizeof(*w->ids));
	if (!w->attrs || !w->ids)
		return -ENOMEM;
	for (int i = 0; i < nr; i++) {
		w->nr_attrs = i + 1; /* counted first, so a failure below frees what it got */
		w->attrs[i] = attrs[i];
		w->attrs[i].attr.size = sizeof(struct perf_event_attr);
		w->attrs[i].name = strdup(attrs[i].name ? attrs[i].name : "");
		w->ids[i] = calloc(attrs[i].nr_ids ? attrs[i].nr_ids : 1, 8);
		if (!w->attrs[i].name || !w->ids[i])
			return -ENOMEM;
		if (attrs[i].nr_ids)
			memcpy(w->ids[i], attrs[i].ids, (size_t)attrs[i].nr_ids * 8);
		w->attrs[i].ids = w->ids[i];
	}
	return 0;
}

static void free_writer(struct pcl_data_writer *w)
{
	for (int i = 0; i < w->nr_attrs; i++) {
		free((char *)w->attrs[i].name);
		free(w->ids[i]);
	}
	for (int i = 0; i < PCL_FEAT_MAX; i++)
		free(w->feat[i].data);
	free(w->build_ids);
	ZSTD_freeCStream(w->zcs);
	free(w->zin);
	free(w->zout);
	free(w->attrs);
	free(w->ids);
	free(w->buf);
	free(w->path);
	free(w->file);
	free(w);
}

/*
 * Keep a non-empty regular file as @real.old, as perf does; an empty one
 * is simply truncated. Nothing else is ever renamed.
 */
static int backup(const char *path, const char *real)
{
	char old[PATH_MAX + 8];
	int e;

	snprintf(old, sizeof(old), "%s.old", real);
	if (rename(real, old)) {
		e = errno;
		return pcl_err(e, "cannot rename '%s' to '%s': %s", path, old, strerror(e));
	}
	return 0;
}

/* Open -o's @path as the header comment says: 0 or a negative errno (message set). */
static int open_output(struct pcl_data_writer *w, const char *path)
{
	int flags = O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, e;
	char real[PATH_MAX];
	struct stat st;

	if (!stat(path, &st)) {
		if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
			/* a FIFO blocks here until its reader comes, like any writer's */
			w->fd = open(path, O_WRONLY | O_CLOEXEC);
			if (w->fd < 0)
				goto fail_open;
			/*
			 * No O_TRUNC here, so a regular file put at @path since the
			 * stat would be overwritten in place: write only into what
			 * was checked
			 */
			if (fstat(w->fd, &st) || !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
				close(w->fd);
				w->fd = -1;
				return pcl_err(EAGAIN, "cannot write '%s': it changed while opened",
					       path);
			}
			w->pipe = w->own_fd = true;
			return 0;
		}
		if (!S_ISREG(st.st_mode))
			return pcl_err(S_ISDIR(st.st_mode) ? EISDIR : EINVAL,
				       "cannot write '%s': not a regular file, a character device "
				       "or a FIFO",
				       path);
		/* through a symlink: the file it names is kept and replaced, not the link */
		if (!realpath(path, real)) {
			e = errno;
			return pcl_err(e, "cannot resolve '%s': %s", path, strerror(e));
		}
		if (st.st_size && (e = backup(path, real)))
			return e;
		path = real;
		/*
		 * @real has no link left in it: one there now was put since,
		 * and is not followed; after the backup the name is free, and
		 * a file there now is someone else's, not truncated
		 */
		flags |= O_NOFOLLOW | (st.st_size ? O_EXCL : 0);
	}
	w->fd = open(path, flags, 0600);
	if (w->fd < 0)
		goto fail_open;
	if (fstat(w->fd, &st)) {
		e = errno;
		close(w->fd);
		w->fd = -1;
		return pcl_err(e, "cannot create '%s': %s", w->path, strerror(e));
	}
	w->file_dev = st.st_dev;
	w->file_ino = st.st_ino;
	/* what abort removes: the file itself, even when a dangling link made it */
	w->file = realpath(path, NULL);
	if (!w->file) {
		e = errno;
		close(w->fd);
		w->fd = -1;
		return pcl_err(e, "cannot resolve '%s': %s", path, strerror(e));
	}
	return 0;
fail_open:
	e = errno;
	return pcl_err(e, "cannot create '%s': %s", w->path, strerror(e));
}

PCL_API struct pcl_data_writer *
pcl_data_writer__create(const char *path, const struct pcl_data_attr *attrs, int nr_attrs)
{
	struct pcl_data_writer *w;
	int e;

	if (!path || !attrs || nr_attrs <= 0)
		return pcl_err_null(EINVAL, "pcl_data_writer__create: invalid argument");
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->fd = -1;
	w->pipe = !strcmp(path, "-");
	w->path = strdup(w->pipe ? "<stdout>" : path);
	w->buf = malloc(WBUF_SIZE);
	if (!w->path || !w->buf || copy_attrs(w, attrs, nr_attrs)) {
		free_writer(w);
		return pcl_err_null(ENOMEM, "pcl_data_writer__create: out of memory");
	}
	if (w->pipe) {
		w->fd = STDOUT_FILENO;
	} else if ((e = open_output(w, path)) < 0) {
		free_writer(w);
		errno = -e;
		return NULL;
	}
	if (w->pipe ? start_pipe(w) : start_file(w)) {
		e = -w->err;
		pcl_data_writer__abort(w);
		errno = e;
		return NULL;
	}
	return w;
}

PCL_API bool pcl_data_writer__is_pipe(const struct pcl_data_writer *w)
{
	return w && w->pipe;
}

/*
 * Compress what is staged into COMPRESSED records, as perf does with a ring's
 * chunk: the stream flushed at the end of each, so a record's bytes need no
 * later record to decompress. The data size then counts them instead.
 */
static int compress_staged(struct pcl_data_writer *w)
{
	const size_t room = 0xffff - sizeof(struct perf_event_header);
	ZSTD_inBuffer in = { w->zin, w->zin_used, 0 };
	size_t left = 1;

	if (w->err || !w->zin_used)
		return w->err;
	while (in.pos < in.size || left) {
		ZSTD_outBuffer out = { w->zout + sizeof(struct perf_event_header), room, 0 };
		struct perf_event_header h = { .type = PCL_RECORD_COMPRESSED };
		size_t r = ZSTD_compressStream(w->zcs, &out, &in);

		if (!ZSTD_isError(r))
			r = left = ZSTD_flushStream(w->zcs, &out);
		if (ZSTD_isError(r))
			return fail(w, -EIO);
		if (!out.pos)
			continue;
		h.size = (uint16_t)(sizeof(h) + out.pos);
		memcpy(w->zout, &h, sizeof(h));
		if (emit(w, w->zout, h.size))
			return w->err;
		w->data_size += h.size;
		w->zcompressed += h.size;
	}
	w->ztransferred += w->zin_used;
	w->data_size -= w->zin_used;
	w->zin_used = 0;
	return 0;
}

PCL_API int pcl_data_writer__set_compression(struct pcl_data_writer *w, int level,
					     uint32_t mmap_len)
{
	uint32_t feat[5] = { 1, 1 /* zstd */, 0, 0, mmap_len };
	size_t r;

	if (!w || level < 1 || level > ZSTD_maxCLevel() || mmap_len < 2 * 4096 || w->zcs)
		return pcl_err(EINVAL, "pcl_data_writer__set_compression: invalid argument");
	w->zcs = ZSTD_createCStream();
	w->zin_cap = mmap_len - (size_t)getpagesize(); /* a ring's data, without its page */
	w->zin = malloc(w->zin_cap);
	w->zout = malloc(0xffff);
	if (!w->zcs || !w->zin || !w->zout)
		return pcl_err(ENOMEM, "pcl_data_writer__set_compression: out of memory");
	r = ZSTD_initCStream(w->zcs, level);
	if (ZSTD_isError(r))
		return pcl_err(EINVAL, "cannot start zstd level %d: %s", level,
			       ZSTD_getErrorName(r));
	w->zlevel = (uint32_t)level;
	w->zmmap_len = mmap_len;
	/* a stream has no end to put the feature at: the reader needs mmap_len before the data */
	if (w->pipe) {
		feat[2] = w->zlevel;
		return pcl_data_writer__set_feature(w, PCL_FEAT_COMPRESSED, feat, sizeof(feat));
	}
	return 0;
}

PCL_API void pcl_data_writer__compression(const struct pcl_data_writer *w, uint64_t *transferred,
					  uint64_t *compressed)
{
	*transferred = w && w->zcs ? w->ztransferred + w->zin_used : 0;
	*compressed = w && w->zcs ? w->zcompressed : 0;
}

/* The COMPRESSED feature: u32 version 1, type 1 (zstd), level, ratio (rounded), mmap_len. */
static void add_compressed_feature(struct pcl_data_writer *w)
{
	uint32_t feat[5] = { 1, 1, w->zlevel, 0, w->zmmap_len };

	if (w->zcompressed)
		feat[3] = (uint32_t)((double)w->ztransferred / (double)w->zcompressed + 0.5);
	pcl_data_writer__set_feature(w, PCL_FEAT_COMPRESSED, feat, sizeof(feat));
}

PCL_API int pcl_data_writer__write(struct pcl_data_writer *w, const void *record)
{
	const struct perf_event_header *h = record;

	if (!w || !h || h->size < sizeof(*h))
		return pcl_err(EINVAL, "pcl_data_writer__write: invalid argument");
	w->data_size += h->size;
	if (w->zcs && h->type < PCL_RECORD_USER_TYPE_START && h->size <= w->zin_cap) {
		if (w->zin_used + h->size > w->zin_cap && compress_staged(w))
			return w->err;
		memcpy(w->zin + w->zin_used, h, h->size);
		w->zin_used += h->size;
		return 0;
	}
	/* perf's user records (pipe mode's build ids) stay outside the stream, after it */
	if (w->zcs && compress_staged(w))
		return w->err;
	return emit(w, h, h->size);
}

PCL_API int pcl_data_writer__finish_round(struct pcl_data_writer *w)
{
	struct perf_event_header h = { .type = PCL_RECORD_FINISHED_ROUND, .size = sizeof(h) };

	if (!w)
		return pcl_err(EINVAL, "pcl_data_writer__finish_round: invalid argument");
	compress_staged(w);
	w->data_size += h.size;
	emit(w, &h, sizeof(h));
	return flush(w);
}

PCL_API uint64_t pcl_data_writer__data_size(const struct pcl_data_writer *w)
{
	return w ? w->data_size : 0;
}

/* Pipe mode: a feature goes out as a HEADER_FEATURE record { header, u64 feat, data }. */
static int emit_feature(struct pcl_data_writer *w, int feat, const void *data, size_t len);

/*
 * Pipe mode streams tracing data as perf does: a 16-byte HEADER_TRACING_DATA
 * record { header, u32 size, u32 pad } followed by @size bytes that the
 * record's own size does not cover (the data padded to 8).
 */
static int emit_tracing_data(struct pcl_data_writer *w, const void *data, size_t len)
{
	struct perf_event_header h = { .type = PCL_RECORD_HEADER_TRACING_DATA, .size = 16 };
	uint32_t size[2] = { (uint32_t)((len + 7) & ~(size_t)7), 0 };

	if (len > UINT32_MAX - 8)
		return -E2BIG;
	emit(w, &h, sizeof(h));
	emit(w, size, sizeof(size));
	emit(w, data, len);
	emit(w, "\0\0\0\0\0\0\0", size[0] - len);
	w->data_size += 16 + size[0];
	return w->err;
}

static int emit_feature(struct pcl_data_writer *w, int feat, const void *data, size_t len)
{
	struct perf_event_header h = { .type = PCL_RECORD_HEADER_FEATURE };
	uint64_t id = (uint64_t)feat;

	if (sizeof(h) + 8 + len > 0xffff)
		return 0; /* too big for one record: leave it out of the stream */
	h.size = (uint16_t)(sizeof(h) + 8 + ((len + 7) & ~(size_t)7));
	emit(w, &h, sizeof(h));
	emit(w, &id, 8);
	emit(w, data, len);
	emit(w, "\0\0\0\0\0\0\0", ((len + 7) & ~(size_t)7) - len);
	w->data_size += h.size;
	return w->err;
}

PCL_API int pcl_data_writer__set_feature(struct pcl_data_writer *w, int feat, const void *data,
					 size_t len)
{
	void *copy;

	if (!w || feat <= 0 || feat >= PCL_FEAT_MAX || (!data && len))
		return pcl_err(EINVAL, "pcl_data_writer__set_feature: invalid argument");
	if (w->pipe)
		return feat == PCL_FEAT_TRACING_DATA ? emit_tracing_data(w, data, len)
						     : emit_feature(w, feat, data, len);
	copy = malloc(len ? len : 1);
	if (!copy)
		return pcl_err(ENOMEM, "pcl_data_writer__set_feature: out of memory");
	memcpy(copy, data, len);
	free(w->feat[feat].data);
	w->feat[feat].data = copy;
	w->feat[feat].len = len;
	return 0;
}

/* EVENT_DESC: u32 nr, u32 attr_size, then per event: attr, u32 nr_ids, string name, u64 ids[]. */
static int add_event_desc(struct pcl_data_writer *w)
{
	size_t asz = sizeof(struct perf_event_attr), len = 8, off = 8;
	uint8_t *b;
	int ret;

	for (int i = 0; i < w->nr_attrs; i++)
		len += asz + 4 + 4 + ((strlen(w->attrs[i].name) + 1 + 63) & ~(size_t)63) +
		       (size_t)w->attrs[i].nr_ids * 8;
	b = calloc(1, len);
	if (!b)
		return -ENOMEM;
	((uint32_t *)b)[0] = (uint32_t)w->nr_attrs;
	((uint32_t *)b)[1] = (uint32_t)asz;
	for (int i = 0; i < w->nr_attrs; i++) {
		size_t sl;
		void *name = pcl_feature_string(w->attrs[i].name, &sl);

		if (!name) {
			free(b);
			return -ENOMEM;
		}
		memcpy(b + off, &w->attrs[i].attr, asz);
		off += asz;
		memcpy(b + off, &w->attrs[i].nr_ids, 4);
		off += 4;
		memcpy(b + off, name, sl);
		off += sl;
		free(name);
		memcpy(b + off, w->ids[i], (size_t)w->attrs[i].nr_ids * 8);
		off += (size_t)w->attrs[i].nr_ids * 8;
	}
	ret = pcl_data_writer__set_feature(w, PCL_FEAT_EVENT_DESC, b, off);
	free(b);
	return ret;
}

/* File mode: after the data, a table of sections for the set bits, then the sections. */
static int write_features(struct pcl_data_writer *w)
{
	struct file_section table[PCL_FEAT_MAX];
	uint64_t off = w->data_offset + w->flushed;
	int n = 0, ret;

	for (int f = 1; f < PCL_FEAT_MAX; f++)
		if (w->feat[f].data)
			n++;
	off += (uint64_t)n * sizeof(struct file_section);
	n = 0;
	for (int f = 1; f < PCL_FEAT_MAX; f++) {
		if (!w->feat[f].data)
			continue;
		table[n].offset = off;
		table[n].size = w->feat[f].len;
		ret = pwrite_all(w->fd, w->feat[f].data, w->feat[f].len, (off_t)off);
		if (ret)
			return fail(w, ret);
		off += w->feat[f].len;
		w->hdr.adds_features[f / 64] |= 1ULL << (f % 64);
		n++;
	}
	ret = pwrite_all(w->fd, table, (size_t)n * sizeof(*table),
			 (off_t)(w->data_offset + w->flushed));
	return ret ? fail(w, ret) : 0;
}

PCL_API int pcl_data_writer__close(struct pcl_data_writer *w)
{
	int ret;

	if (!w)
		return pcl_err(EINVAL, "pcl_data_writer__close: invalid argument");
	compress_staged(w);
	if (w->zcs && !w->pipe)
		add_compressed_feature(w);
	if (w->build_ids_len)
		pcl_data_writer__set_feature(w, PCL_FEAT_BUILD_ID, w->build_ids, w->build_ids_len);
	if (!w->pipe && !w->err && add_event_desc(w))
		fail(w, -ENOMEM);
	flush(w);
	if (!w->pipe && !w->err && !write_features(w))
		write_header(w);
	ret = w->err;
	if (ret) {
		pcl_data_writer__abort(w);
		return ret;
	}
	if ((!w->pipe || w->own_fd) && close(w->fd)) {
		ret = fail(w, -errno);
		w->fd = -1;
		pcl_data_writer__abort(w);
		return ret;
	}
	free_writer(w);
	return 0;
}

PCL_API void pcl_data_writer__abort(struct pcl_data_writer *w)
{
	struct stat st;

	if (!w)
		return;
	if ((!w->pipe || w->own_fd) && w->fd >= 0)
		close(w->fd);
	/*
	 * only the regular file this writer made: never a device, FIFO or
	 * link, nor a file another writer (a second pcl record to the same
	 * -o) has put at its name since
	 */
	if (w->file && !lstat(w->file, &st) && S_ISREG(st.st_mode) && st.st_dev == w->file_dev &&
	    st.st_ino == w->file_ino)
		unlink(w->file);
	free_writer(w);
}

/*
 * BUILD_ID feature entries are build_id_event records: { header (misc user
 * or kernel, size), pid, u8 build_id[24] (the size in byte 20 with
 * PERF_RECORD_MISC_BUILD_ID_SIZE), filename padded to 64 }. In pipe mode
 * the same records go out as HEADER_BUILD_ID.
 */
PCL_API int pcl_data_writer__add_build_id(struct pcl_data_writer *w, int32_t pid, bool kernel,
					  const uint8_t *build_id, uint8_t size,
					  const char *filename)
{
	size_t flen, len;
	uint8_t *rec, *p;
	struct perf_event_header h;

	if (!w || !build_id || !filename || size > 20)
		return pcl_err(EINVAL, "pcl_data_writer__add_build_id: invalid argument");
	flen = (strlen(filename) + 1 + 63) & ~(size_t)63;
	len = sizeof(struct perf_event_header) + 4 + 24 + flen;
	if (len > 0xffff)
		return pcl_err(EINVAL, "pcl_data_writer__add_build_id: invalid argument");
	h.size = (uint16_t)len;
	h.misc = (kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER) |
		 (1 << 15) /* PERF_RECORD_MISC_BUILD_ID_SIZE */;
	h.type = w->pipe ? PCL_RECORD_HEADER_BUILD_ID : 0;
	rec = calloc(1, len);
	if (!rec)
		return pcl_err(ENOMEM, "pcl_data_writer__add_build_id: out of memory");
	memcpy(rec, &h, sizeof(h));
	memcpy(rec + sizeof(h), &pid, 4);
	memcpy(rec + sizeof(h) + 4, build_id, size);
	rec[sizeof(h) + 4 + 20] = size;
	memcpy(rec + sizeof(h) + 28, filename, strlen(filename));
	if (w->pipe) {
		int ret = pcl_data_writer__write(w, rec);

		free(rec);
		return ret;
	}
	p = realloc(w->build_ids, w->build_ids_len + len);
	if (!p) {
		free(rec);
		return pcl_err(ENOMEM, "pcl_data_writer__add_build_id: out of memory");
	}
	memcpy(p + w->build_ids_len, rec, len);
	w->build_ids = p;
	w->build_ids_len += len;
	free(rec);
	return 0;
}
