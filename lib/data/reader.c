/* SPDX-License-Identifier: MIT */
/*
 * The perf.data reader (contract in include/pcl/data.h).
 *
 * File mode: the header, the attrs and their id arrays, and the feature
 * table are read up front and checked against the file's size; records are
 * then read from the data section, a record never trusted beyond the bytes
 * that remain. The file is mapped (as perf does), and a record handed out
 * points into the mapping, so that nothing copies it until it is used
 * (pcl_data_reader_stable: the events' queue and the reading thread keep
 * such pointers); the pages far behind the reading position are given back
 * as it goes (MADV_DONTNEED: a page still in use is read again from the
 * page cache, unchanged, so that only bounds the memory). When the file
 * cannot be mapped it is read through a buffer, and every record copied. A
 * data section that claims more than the file holds is read up to what
 * exists and marked truncated (a recorder killed mid-write). Pipe mode
 * reads stdin through the buffer with no seeking.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include "internal.h"
#include "data/reader.h"

#define PERF_MAGIC2 0x32454c4946524550ULL
#define RBUF_SIZE   (4u << 20)
/* The mapped file's pages 1 to 2 times this far behind the records in use are given back. */
#define MAP_KEEP (16u << 20)
#define MAX_ATTRS   4096
#define MAX_IDS	    (1u << 20)
/* A compressed record never expands to more than this (perf's chunks are the mmap size). */
#define MAX_DECOMP (64u << 20)

struct section {
	uint64_t offset, size;
};

struct pcl_data_reader {
	int fd;
	bool own_fd; /* opened by us (not stdin) */
	bool pipe, truncated, eof;
	bool cut; /* the data is known to be cut short (set at open) */
	uint64_t total_ids;
	char path[256];
	uint64_t file_size;
	uint64_t data_offset, data_size; /* file mode */
	uint64_t hdr_data_size;		 /* as the header says */
	uint64_t features[4];
	uint64_t pos;			 /* file offset of buf[0] */
	uint8_t *buf;
	size_t len, at; /* bytes in buf, next record */
	/* file mode: the whole file mapped (buf is then its data section), or NULL */
	uint8_t *map;
	size_t map_len;
	uint64_t dropped; /* file offset below which its pages were given back */
	bool lent;	  /* the records outlive the next call: the caller drops pages */
	uint64_t skip;	/* stream bytes to pass over (tracing data) */
	uint64_t last_offset;
	struct pcl_data_attr *attrs;
	int nr_attrs;
	void *feat[PCL_FEAT_MAX];
	size_t feat_len[PCL_FEAT_MAX];
	uint8_t rec[65536 + 8]; /* a record that straddles refills */
	/* ids of every attr, sorted, for attr_by_id; rebuilt when attrs change */
	struct id_ent {
		uint64_t id;
		int attr;
	} *idx;
	size_t nr_idx;
	bool idx_stale;
	/* PERF_RECORD_COMPRESSED: one zstd stream across the file */
	ZSTD_DStream *zds;
	uint8_t *dbuf;
	size_t dlen, dat, dalloc;
	uint64_t comp_offset; /* the compressed record the current records came from */
	/* pipe mode: the first data record, read at open to absorb the header records */
	uint64_t counts[128]; /* records read, by type (types >= 128 in [0]) */
	bool held, held_rec;
	bool td_capture; /* the bytes being skipped are the stream's tracing data */
	int held_errno;
	char *held_msg; /* the held failure's message, set again when it is handed out */
	uint64_t nr_compressed;
};

static int rd_pread(struct pcl_data_reader *r, void *p, size_t n, uint64_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t k = pread(r->fd, (uint8_t *)p + got, n - got, (off_t)(off + got));

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EBADMSG;
		got += (size_t)k;
	}
	return 0;
}

static int add_attr(struct pcl_data_reader *r, const void *attr, size_t asz, const uint64_t *ids,
		    uint64_t nr_ids)
{
	struct pcl_data_attr *a;
	uint64_t *idcopy;

	/* ids of many attrs may point at one section: cap the sum, not each */
	if (r->nr_attrs >= MAX_ATTRS || nr_ids > MAX_IDS || r->total_ids + nr_ids > MAX_IDS)
		return pcl_err(E2BIG, "'%s': too many events or ids", r->path);
	r->total_ids += nr_ids;
	a = realloc(r->attrs, sizeof(*a) * (size_t)(r->nr_attrs + 1));
	if (!a)
		return -ENOMEM;
	r->attrs = a;
	a = &r->attrs[r->nr_attrs];
	memset(a, 0, sizeof(*a));
	memcpy(&a->attr, attr, asz < sizeof(a->attr) ? asz : sizeof(a->attr));
	idcopy = calloc(nr_ids ? (size_t)nr_ids : 1, 8);
	if (!idcopy)
		return -ENOMEM;
	if (nr_ids)
		memcpy(idcopy, ids, (size_t)nr_ids * 8);
	a->ids = idcopy;
	a->nr_ids = (uint32_t)nr_ids;
	a->name = strdup("");
	r->nr_attrs++;
	r->idx_stale = true;
	return a->name ? 0 : -ENOMEM;
}

static bool section_ok(const struct pcl_data_reader *r, const struct section *s)
{
	return s->offset <= r->file_size && s->size <= r->file_size - s->offset;
}

static int read_attrs(struct pcl_data_reader *r, const struct section *attrs, uint64_t attr_size)
{
	uint8_t rec[512];
	uint64_t n;

	if (attr_size < 64 + 16 || attr_size > sizeof(rec) || !section_ok(r, attrs) ||
	    attrs->size % attr_size)
		return pcl_err(EBADMSG, "'%s': bad attr section (attr size %llu)", r->path,
			       (unsigned long long)attr_size);
	n = attrs->size / attr_size;
	for (uint64_t i = 0; i < n; i++) {
		struct section ids;
		uint64_t *idv;
		int ret;

		ret = rd_pread(r, rec, (size_t)attr_size, attrs->offset + i * attr_size);
		if (ret)
			return pcl_err(-ret, "'%s': cannot read attr %llu", r->path,
				       (unsigned long long)i);
		memcpy(&ids, rec + attr_size - 16, 16);
		if (!section_ok(r, &ids) || ids.size % 8 || ids.size / 8 > MAX_IDS)
			return pcl_err(EBADMSG, "'%s': bad ids of attr %llu at offset %#llx",
				       r->path, (unsigned long long)i,
				       (unsigned long long)ids.offset);
		idv = malloc(ids.size ? (size_t)ids.size : 1);
		if (!idv)
			return -ENOMEM;
		ret = ids.size ? rd_pread(r, idv, (size_t)ids.size, ids.offset) : 0;
		if (!ret)
			ret = add_attr(r, rec, (size_t)(attr_size - 16), idv, ids.size / 8);
		free(idv);
		if (ret)
			return ret;
	}
	return 0;
}

static int read_features(struct pcl_data_reader *r, const uint64_t bits[4], uint64_t at)
{
	for (int f = 0; f < PCL_FEAT_MAX; f++) {
		struct section s;

		if (!(bits[f / 64] & (1ULL << (f % 64))))
			continue;
		if (at + 16 > r->file_size || rd_pread(r, &s, 16, at)) {
			/* features are extras: a cut file keeps its records, and says it is cut */
			r->truncated = true;
			return 0;
		}
		at += 16;
		if (!section_ok(r, &s)) {
			/* a section perf knows running past the end: the file was cut */
			if (f <= PCL_FEAT_PMU_CAPS)
				r->truncated = true;
			continue;
		}
		if (s.size > (64u << 20))
			continue;
		r->feat[f] = malloc(s.size ? (size_t)s.size : 1);
		if (!r->feat[f])
			return -ENOMEM;
		if (rd_pread(r, r->feat[f], (size_t)s.size, s.offset)) {
			free(r->feat[f]);
			r->feat[f] = NULL;
			continue;
		}
		r->feat_len[f] = (size_t)s.size;
	}
	return 0;
}

/* EVENT_DESC: u32 nr, u32 attr_size, per event: attr, u32 nr_ids, string, ids. */
static void name_attrs(struct pcl_data_reader *r)
{
	const uint8_t *p = r->feat[PCL_FEAT_EVENT_DESC], *end;
	uint32_t nr, asz;

	if (!p || r->feat_len[PCL_FEAT_EVENT_DESC] < 8)
		return;
	end = p + r->feat_len[PCL_FEAT_EVENT_DESC];
	memcpy(&nr, p, 4);
	memcpy(&asz, p + 4, 4);
	p += 8;
	for (uint32_t i = 0; i < nr && p < end; i++) {
		uint32_t nids, slen;
		uint64_t first = 0;
		const struct pcl_data_attr *a;

		if ((size_t)(end - p) < (size_t)asz + 8)
			return;
		p += asz;
		memcpy(&nids, p, 4);
		memcpy(&slen, p + 4, 4);
		p += 8;
		if (slen > (size_t)(end - p) || !memchr(p, '\0', slen))
			return;
		if (nids && (size_t)(end - p - slen) >= 8)
			memcpy(&first, p + slen, 8);
		a = nids ? pcl_data_reader__attr_by_id(r, first) : NULL;
		if (!a && i < (uint32_t)r->nr_attrs)
			a = &r->attrs[i];
		if (a) {
			char *n = strdup((const char *)p);

			if (n) {
				free((char *)a->name);
				((struct pcl_data_attr *)a)->name = n;
			}
		}
		p += slen;
		if ((uint64_t)nids > (uint64_t)(end - p) / 8)
			return;
		p += (size_t)nids * 8;
	}
}

static int open_file(struct pcl_data_reader *r)
{
	struct {
		uint64_t magic, size, attr_size;
		struct section attrs, data, event_types;
		uint64_t features[4];
	} h;
	int ret = rd_pread(r, &h, sizeof(h), 0);

	if (ret || h.magic != PERF_MAGIC2)
		return pcl_err(EBADMSG, "'%s' is not a perf.data file (bad magic)", r->path);
	if (h.size != sizeof(h))
		return pcl_err(EBADMSG, "'%s': unexpected header size %llu", r->path,
			       (unsigned long long)h.size);
	ret = read_attrs(r, &h.attrs, h.attr_size);
	if (ret)
		return ret;
	if (h.data.offset > r->file_size)
		return pcl_err(EBADMSG, "'%s': data offset %#llx is past the end of the file",
			       r->path, (unsigned long long)h.data.offset);
	r->data_offset = h.data.offset;
	r->data_size = h.data.size;
	r->hdr_data_size = h.data.size;
	memcpy(r->features, h.features, sizeof(r->features));
	if (h.data.size > r->file_size - h.data.offset) {
		r->data_size = r->file_size - h.data.offset;
		r->truncated = r->cut = true;
	} else if (!h.data.size &&
		   !(h.features[0] | h.features[1] | h.features[2] | h.features[3])) {
		/* a recorder that never closed the file: its rounds run to the end of the file */
		r->data_size = r->file_size - h.data.offset;
		r->truncated = r->cut = true;
	}
	ret = read_features(r, h.features, h.data.offset + h.data.size);
	if (ret)
		return ret;
	name_attrs(r);
	r->pos = r->data_offset;
	return 0;
}

/*
 * File mode: map the file and make its data section the buffer, all of it
 * read already. Not mapped (no address space, a file that cannot be): the
 * buffer reads it.
 */
static void map_file(struct pcl_data_reader *r)
{
	void *m;

	if (!r->data_size || r->file_size > SIZE_MAX)
		return;
	m = mmap(NULL, (size_t)r->file_size, PROT_READ, MAP_PRIVATE, r->fd, 0);
	if (m == MAP_FAILED)
		return;
	madvise(m, (size_t)r->file_size, MADV_SEQUENTIAL);
	free(r->buf);
	r->map = m;
	r->map_len = (size_t)r->file_size;
	r->buf = r->map + r->data_offset;
	r->pos = r->data_offset;
	r->len = (size_t)r->data_size;
	r->at = 0;
	r->dropped = 0;
	r->eof = true;
}

void pcl_data_reader_drop(const struct pcl_data_reader *r, uint64_t upto, uint64_t *dropped)
{
	uint64_t page = 4096, to;

	if (!r->map || upto > r->map_len || upto < *dropped + 2 * (uint64_t)MAP_KEEP)
		return;
	to = (upto - MAP_KEEP) & ~(page - 1);
	madvise(r->map + *dropped, (size_t)(to - *dropped), MADV_DONTNEED);
	*dropped = to;
}

void pcl_data_reader_lend(struct pcl_data_reader *r)
{
	r->lent = true;
}

bool pcl_data_reader_stable(const struct pcl_data_reader *r, const void *rec)
{
	const uint8_t *p = rec;

	return r && r->map && p >= r->map && p < r->map + r->map_len;
}

/* read() until @n bytes or the end: a pipe hands data over in pieces. */
static ssize_t read_full(int fd, void *p, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t k = read(fd, (uint8_t *)p + got, n - got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -1 : (ssize_t)got;
		got += (size_t)k;
	}
	return (ssize_t)got;
}

PCL_API struct pcl_data_reader *pcl_data_reader__open(const char *path)
{
	struct pcl_data_reader *r;
	struct stat st;
	uint64_t ph[2];
	int ret = 0;

	if (!path)
		return pcl_err_null(EINVAL, "pcl_data_reader__open: invalid argument");
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->buf = malloc(RBUF_SIZE);
	r->pipe = !strcmp(path, "-");
	snprintf(r->path, sizeof(r->path), "%s", r->pipe ? "<stdin>" : path);
	r->fd = r->pipe ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	r->own_fd = !r->pipe;
	if (!r->buf || r->fd < 0) {
		ret = r->buf ? pcl_err(errno, "cannot open '%s': %s", path, strerror(errno))
			     : -ENOMEM;
		goto err;
	}
	if (!r->pipe) {
		if (fstat(r->fd, &st) || !S_ISREG(st.st_mode))
			r->pipe = true; /* a fifo given by name streams like stdin */
		else
			r->file_size = (uint64_t)st.st_size;
		/* a saved stream ('perf record -o - > file') is read as the stream it is */
		if (!r->pipe && rd_pread(r, ph, 16, 0) == 0 && ph[0] == PERF_MAGIC2 && ph[1] == 16)
			r->pipe = true;
	}
	if (r->pipe) {
		if (read_full(r->fd, ph, 16) != 16 || ph[0] != PERF_MAGIC2 || ph[1] != 16) {
			ret = pcl_err(EBADMSG, "'%s' is not a perf.data stream (bad magic)",
				      r->path);
			goto err;
		}
		r->pos = 16;
		/*
		 * A stream declares its events and features in records before the
		 * data: take them in now, so the reader looks the same as for a file
		 * when open returns. The first data record waits for next().
		 */
		r->held_rec = pcl_data_reader__next(r) != NULL;
		r->held_errno = r->held_rec ? 0 : errno;
		if (r->held_errno)
			r->held_msg = strdup(pcl_last_error());
		r->held = true;
		return r;
	}
	ret = open_file(r);
	if (!ret) {
		map_file(r);
		return r;
	}
err:
	pcl_data_reader__close(r);
	errno = -ret;
	return NULL;
}

PCL_API void pcl_data_reader__close(struct pcl_data_reader *r)
{
	if (!r)
		return;
	if (r->map) {
		munmap(r->map, r->map_len);
		r->buf = NULL;
	}
	if (r->own_fd && r->fd >= 0)
		close(r->fd);
	for (int i = 0; i < r->nr_attrs; i++) {
		free((void *)r->attrs[i].ids);
		free((char *)r->attrs[i].name);
	}
	for (int f = 0; f < PCL_FEAT_MAX; f++)
		free(r->feat[f]);
	free(r->attrs);
	free(r->idx);
	free(r->dbuf);
	ZSTD_freeDStream(r->zds);
	free(r->buf);
	free(r->held_msg);
	free(r);
}

PCL_API bool pcl_data_reader__is_pipe(const struct pcl_data_reader *r)
{
	return r && r->pipe;
}

PCL_API int pcl_data_reader__nr_attrs(const struct pcl_data_reader *r)
{
	return r ? r->nr_attrs : 0;
}

PCL_API const struct pcl_data_attr *pcl_data_reader__attr(const struct pcl_data_reader *r, int i)
{
	return r && i >= 0 && i < r->nr_attrs ? &r->attrs[i] : NULL;
}

static int id_cmp(const void *a, const void *b)
{
	const struct id_ent *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->attr - y->attr;
}

/* The sorted id index; on ENOMEM the linear scan below still answers. */
static void build_index(struct pcl_data_reader *r)
{
	size_t n = 0;

	r->idx_stale = false;
	free(r->idx);
	r->nr_idx = 0;
	r->idx = malloc(sizeof(*r->idx) * (r->total_ids ? (size_t)r->total_ids : 1));
	if (!r->idx)
		return;
	for (int i = 0; i < r->nr_attrs; i++)
		for (uint32_t k = 0; k < r->attrs[i].nr_ids; k++)
			r->idx[n++] = (struct id_ent){ r->attrs[i].ids[k], i };
	qsort(r->idx, n, sizeof(*r->idx), id_cmp);
	r->nr_idx = n;
}

PCL_API const struct pcl_data_attr *pcl_data_reader__attr_by_id(const struct pcl_data_reader *r,
								uint64_t id)
{
	size_t lo = 0, hi;

	if (!r)
		return NULL;
	if (r->idx_stale)
		build_index((struct pcl_data_reader *)r);
	if (!r->idx) {
		for (int i = 0; i < r->nr_attrs; i++)
			for (uint32_t k = 0; k < r->attrs[i].nr_ids; k++)
				if (r->attrs[i].ids[k] == id)
					return &r->attrs[i];
		return NULL;
	}
	hi = r->nr_idx;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->idx[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->nr_idx && r->idx[lo].id == id ? &r->attrs[r->idx[lo].attr] : NULL;
}

PCL_API const void *pcl_data_reader__feature(const struct pcl_data_reader *r, int feat, size_t *len)
{
	if (!r || feat <= 0 || feat >= PCL_FEAT_MAX || !r->feat[feat])
		return NULL;
	if (len)
		*len = r->feat_len[feat];
	return r->feat[feat];
}

/* Refill the buffer, keeping the unread tail. 0, or -errno; r->eof at the end. */
static int refill(struct pcl_data_reader *r)
{
	size_t keep = r->len - r->at, want;
	ssize_t n;

	memmove(r->buf, r->buf + r->at, keep);
	r->pos += r->at;
	r->at = 0;
	r->len = keep;
	want = RBUF_SIZE - keep;
	if (!r->pipe) {
		uint64_t end = r->data_offset + r->data_size, next = r->pos + keep;

		if (next >= end) {
			r->eof = true;
			return 0;
		}
		if (want > end - next)
			want = (size_t)(end - next);
	}
	do {
		n = r->pipe ? read(r->fd, r->buf + keep, want)
			    : pread(r->fd, r->buf + keep, want, (off_t)(r->pos + keep));
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return pcl_err(errno, "cannot read '%s': %s", r->path, strerror(errno));
	if (n == 0)
		r->eof = true;
	r->len += (size_t)n;
	return 0;
}

/* Pipe mode: absorb HEADER_ATTR { attr, ids } and HEADER_FEATURE { u64 feat, data }. */
static bool absorb(struct pcl_data_reader *r, const struct perf_event_header *h)
{
	const uint8_t *body = (const uint8_t *)(h + 1);
	size_t blen = h->size - sizeof(*h);

	if (h->type == PCL_RECORD_HEADER_ATTR) {
		uint32_t asz;

		if (blen < 8 || (memcpy(&asz, body + 4, 4), asz > blen) || asz < 64)
			return true;
		add_attr(r, body, asz, (const uint64_t *)(body + asz), (blen - asz) / 8);
		return true;
	}
	if (h->type == PCL_RECORD_HEADER_TRACING_DATA && blen >= 8) {
		/* { u32 size, u32 pad }: the size bytes that follow belong to it */
		uint32_t size;

		memcpy(&size, body, 4);
		r->skip = size;
		/* kept as the TRACING_DATA feature, as a file would hold it */
		if (!r->feat[PCL_FEAT_TRACING_DATA] && size <= (64u << 20) &&
		    (r->feat[PCL_FEAT_TRACING_DATA] = malloc(size ? size : 1))) {
			r->feat_len[PCL_FEAT_TRACING_DATA] = 0;
			r->td_capture = true;
		}
		return true;
	}
	if (h->type == PCL_RECORD_EVENT_UPDATE && blen >= 16) {
		/* { u64 type, u64 id, data }: a stream names its events this way (type 2) */
		uint64_t tid[2];
		const struct pcl_data_attr *a;

		memcpy(tid, body, 16);
		a = pcl_data_reader__attr_by_id(r, tid[1]);
		if (tid[0] == 2 && a && memchr(body + 16, '\0', blen - 16)) {
			char *n = strdup((const char *)body + 16);

			if (n) {
				free((char *)a->name);
				((struct pcl_data_attr *)a)->name = n;
			}
		}
		return true;
	}
	if (h->type == PCL_RECORD_HEADER_FEATURE && blen >= 8) {
		uint64_t f;

		memcpy(&f, body, 8);
		if (f > 0 && f < PCL_FEAT_MAX && !r->feat[f] &&
		    (r->feat[f] = malloc(blen - 8 + 1))) {
			memcpy(r->feat[f], body + 8, blen - 8);
			r->feat_len[f] = blen - 8;
			if (f == PCL_FEAT_EVENT_DESC)
				name_attrs(r);
		}
		return true;
	}
	return false;
}

/*
 * PERF_RECORD_COMPRESSED: its body is a piece of one zstd stream that runs
 * through the file (perf starts a frame per chunk of ring buffer data, and a
 * frame may span several records), and what comes out is whole records, one
 * of which may straddle two compressed records: the unread tail is kept.
 */
static int decompress(struct pcl_data_reader *r, const struct perf_event_header *h)
{
	ZSTD_inBuffer in = { h + 1, h->size - sizeof(*h), 0 };
	bool full;

	if (!r->zds) {
		r->zds = ZSTD_createDStream();
		if (!r->zds)
			return -ENOMEM;
		ZSTD_initDStream(r->zds);
	}
	if (r->dbuf)
		memmove(r->dbuf, r->dbuf + r->dat, r->dlen - r->dat);
	r->dlen -= r->dat;
	r->dat = 0;
	do {
		ZSTD_outBuffer out;
		size_t ret, in_before = in.pos;

		if (r->dalloc - r->dlen < 65536) {
			size_t na = r->dalloc ? r->dalloc * 2 : (1u << 20);
			uint8_t *nb;

			if (na > MAX_DECOMP)
				return pcl_err(EBADMSG,
					       "'%s': compressed record at offset %#llx expands "
					       "past %u MiB",
					       r->path, (unsigned long long)r->last_offset,
					       MAX_DECOMP >> 20);
			nb = realloc(r->dbuf, na);
			if (!nb)
				return -ENOMEM;
			r->dbuf = nb;
			r->dalloc = na;
		}
		out = (ZSTD_outBuffer){ r->dbuf + r->dlen, r->dalloc - r->dlen, 0 };
		ret = ZSTD_decompressStream(r->zds, &out, &in);
		if (ZSTD_isError(ret))
			return pcl_err(EBADMSG, "'%s': corrupt compressed record at offset %#llx: %s",
				       r->path, (unsigned long long)r->last_offset,
				       ZSTD_getErrorName(ret));
		r->dlen += out.pos;
		full = out.pos == out.size;
		if (!out.pos && in.pos == in_before)
			break; /* no progress: the rest waits for the next record */
	} while (in.pos < in.size || full);
	return 0;
}

/* A whole record from the decompressed bytes into r->rec: 1, 0 (none), -EBADMSG. */
static int next_decompressed(struct pcl_data_reader *r)
{
	struct perf_event_header h;

	if (r->dlen - r->dat < sizeof(h))
		return 0;
	memcpy(&h, r->dbuf + r->dat, sizeof(h));
	if (h.size < sizeof(h))
		return pcl_err(EBADMSG,
			       "'%s': corrupt record (size %u) inside the compressed record at "
			       "offset %#llx",
			       r->path, h.size, (unsigned long long)r->comp_offset);
	if (r->dlen - r->dat < h.size)
		return 0;
	memcpy(r->rec, r->dbuf + r->dat, h.size);
	r->dat += h.size;
	r->last_offset = r->comp_offset;
	r->counts[h.type < 128 ? h.type : 0]++;
	return 1;
}

PCL_API const struct perf_event_header *pcl_data_reader__next(struct pcl_data_reader *r)
{
	const struct perf_event_header *rec;
	struct perf_event_header h;

	if (!r)
		return NULL;
	if (r->held) {
		r->held = false;
		if (r->held_msg) {
			/* calls in between (feature parsers) may have set their own message */
			pcl_err(0, "%s", r->held_msg);
			free(r->held_msg);
			r->held_msg = NULL;
		}
		errno = r->held_errno;
		return r->held_rec ? (const struct perf_event_header *)r->rec : NULL;
	}
	for (;;) {
		size_t left = r->len - r->at;
		int got = next_decompressed(r);

		if (got) {
			errno = got < 0 ? EBADMSG : 0;
			return got < 0 ? NULL : (const struct perf_event_header *)r->rec;
		}

		if (r->skip) {
			size_t n = left < r->skip ? left : (size_t)r->skip;
			uint8_t *td = r->td_capture ? r->feat[PCL_FEAT_TRACING_DATA] : NULL;

			if (td && n) {
				memcpy(td + r->feat_len[PCL_FEAT_TRACING_DATA], r->buf + r->at, n);
				r->feat_len[PCL_FEAT_TRACING_DATA] += n;
			}

			r->at += n;
			r->skip -= n;
			if (!r->skip)
				r->td_capture = false;
			if (r->skip && !r->eof && refill(r))
				return pcl_err_null(EIO, NULL); /* refill() said why */
			if (r->skip && r->eof && r->len == r->at) {
				r->truncated = true;
				errno = 0;
				return NULL;
			}
			continue;
		}

		if (left >= sizeof(h))
			memcpy(&h, r->buf + r->at, sizeof(h));
		if ((left < sizeof(h) || left < h.size) && !r->eof) {
			if (refill(r))
				return pcl_err_null(EIO, NULL); /* refill() said why */
			continue; /* a pipe may hand over less than asked: look again */
		}
		if (r->len - r->at < sizeof(h)) {
			if (r->len != r->at || r->dlen != r->dat)
				r->truncated = true;
			errno = 0;
			return NULL;
		}
		memcpy(&h, r->buf + r->at, sizeof(h));
		if (h.size < sizeof(h)) {
			pcl_err(EBADMSG, "'%s': corrupt record (size %u) at offset %#llx", r->path,
				h.size, (unsigned long long)(r->pos + r->at));
			return pcl_err_null(EBADMSG, NULL);
		}
		if (r->len - r->at < h.size) {
			if (!r->pipe && !r->cut) {
				/* the data section is all there: the record lies about its size */
				pcl_err(EBADMSG,
					"'%s': corrupt record (size %u past the end of the data) "
					"at "
					"offset %#llx",
					r->path, h.size, (unsigned long long)(r->pos + r->at));
				return pcl_err_null(EBADMSG, NULL);
			}
			r->truncated = true; /* the file ends inside this record */
			errno = 0;
			return NULL;
		}
		/* a mapped record, 8-aligned as perf writes them, is handed out in place */
		if (r->map && !((uintptr_t)(r->buf + r->at) & 7)) {
			rec = (const struct perf_event_header *)(r->buf + r->at);
		} else {
			memcpy(r->rec, r->buf + r->at, h.size);
			rec = (const struct perf_event_header *)r->rec;
		}
		r->last_offset = r->pos + r->at;
		r->at += h.size;
		r->counts[h.type < 128 ? h.type : 0]++;
		if (!r->lent)
			pcl_data_reader_drop(r, r->pos + r->at, &r->dropped);
		if (r->pipe && absorb(r, rec))
			continue;
		if (h.type == PCL_RECORD_COMPRESSED) {
			int ret;

			r->comp_offset = r->last_offset;
			r->nr_compressed++;
			ret = decompress(r, rec);
			if (ret) {
				errno = -ret;
				return NULL;
			}
			continue;
		}
		return rec;
	}
}

PCL_API uint64_t pcl_data_reader__offset(const struct pcl_data_reader *r)
{
	return r ? r->last_offset : 0;
}

PCL_API void pcl_data_reader__layout(const struct pcl_data_reader *r, struct pcl_data_layout *l)
{
	memset(l, 0, sizeof(*l));
	if (!r || r->pipe)
		return;
	l->data_offset = r->data_offset;
	l->data_size = r->hdr_data_size;
	l->feat_offset = r->data_offset + r->hdr_data_size;
	memcpy(l->features, r->features, sizeof(l->features));
}

PCL_API uint64_t pcl_data_reader__count(const struct pcl_data_reader *r, uint32_t type)
{
	return r ? r->counts[type < 128 ? type : 0] : 0;
}

PCL_API uint64_t pcl_data_reader__nr_compressed(const struct pcl_data_reader *r)
{
	return r ? r->nr_compressed : 0;
}

PCL_API bool pcl_data_reader__truncated(const struct pcl_data_reader *r)
{
	return r && r->truncated;
}

PCL_API int pcl_feature_parse_strings(const void *data, size_t len, char ***out)
{
	const uint8_t *p = data, *end = p + len;
	uint32_t n;
	char **v;

	if (!data || len < 4 || !out)
		return pcl_err(EBADMSG, "pcl_feature_parse_strings: malformed record");
	memcpy(&n, p, 4);
	p += 4;
	if (n > len / 4)
		return pcl_err(EBADMSG, "pcl_feature_parse_strings: malformed record");
	v = calloc((size_t)n + 1, sizeof(*v));
	if (!v)
		return pcl_err(ENOMEM, "pcl_feature_parse_strings: out of memory");
	for (uint32_t i = 0; i < n; i++) {
		uint32_t sl;

		if (end - p < 4 || (memcpy(&sl, p, 4), sl > (size_t)(end - p - 4)) ||
		    !memchr(p + 4, '\0', sl)) {
			for (uint32_t k = 0; k < i; k++)
				free(v[k]);
			free(v);
			return pcl_err(EBADMSG, "pcl_feature_parse_strings: malformed record");
		}
		v[i] = strdup((const char *)p + 4);
		if (!v[i]) {
			for (uint32_t k = 0; k < i; k++)
				free(v[k]);
			free(v);
			return pcl_err(ENOMEM, "pcl_feature_parse_strings: out of memory");
		}
		p += 4 + sl;
	}
	*out = v;
	return (int)n;
}
