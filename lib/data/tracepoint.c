/* SPDX-License-Identifier: MIT */
/*
 * Tracepoint formats (contract in include/pcl/tracepoint.h): parsing of
 * tracefs format files and of the TRACING_DATA section that carries them,
 * and printing of a sample's raw data field by field.
 *
 * TRACING_DATA, as perf writes it (tools/perf/util/trace-event-info.c) and
 * lib/data/tracing.c copies it; numbers in the file's byte order:
 *   "\027\010\104tracing" version "0.6\0" endian(u8: 1 big) long_size(u8)
 *   page_size(u32)
 *   "header_page\0" u64 size, bytes; "header_event\0" u64 size, bytes
 *   u32 nr ftrace formats { u64 size, bytes }
 *   u32 nr systems { "system\0" u32 nr { u64 size, bytes } }
 *   u32 kallsyms size, bytes; u32 printk size, bytes
 *   (version >= 0.6) u64 saved_cmdlines size, bytes
 * Only the event formats are kept; what follows them is not read. Every
 * size is checked against the bytes left before it is used.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

#define MAX_FIELDS 1024 /* a format with more lines than this is not a tracefs one */

PCL_API void pcl_tp_format__free(struct pcl_tp_format *f)
{
	if (!f)
		return;
	for (int i = 0; i < f->nr_fields; i++) {
		free(f->fields[i].name);
		free(f->fields[i].type);
	}
	free(f->fields);
	free(f->system);
	free(f->name);
	free(f);
}

static char *strndup_trim(const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s))
		s++, n--;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return strndup(s, n);
}

/* "name: value" at the start of @line: the value's start, or NULL. */
static const char *line_value(const char *line, const char *end, const char *key)
{
	size_t k = strlen(key);

	if ((size_t)(end - line) < k || memcmp(line, key, k))
		return NULL;
	line += k;
	while (line < end && (*line == ' ' || *line == '\t'))
		line++;
	return line;
}

/* The size of one element of a base C type, or 0 when it is not known. */
static uint32_t base_type_size(const char *t, int long_size)
{
	static const struct {
		const char *name;
		uint32_t size; /* 0: long */
	} types[] = {
		{ "char", 1 },	      { "unsigned char", 1 },
		{ "signed char", 1 }, { "u8", 1 },
		{ "s8", 1 },	      { "__u8", 1 },
		{ "__s8", 1 },	      { "uint8_t", 1 },
		{ "int8_t", 1 },      { "bool", 1 },
		{ "short", 2 },	      { "unsigned short", 2 },
		{ "u16", 2 },	      { "s16", 2 },
		{ "__u16", 2 },	      { "__s16", 2 },
		{ "uint16_t", 2 },    { "int16_t", 2 },
		{ "int", 4 },	      { "unsigned int", 4 },
		{ "unsigned", 4 },    { "u32", 4 },
		{ "s32", 4 },	      { "__u32", 4 },
		{ "__s32", 4 },	      { "uint32_t", 4 },
		{ "int32_t", 4 },     { "pid_t", 4 },
		{ "long long", 8 },   { "unsigned long long", 8 },
		{ "u64", 8 },	      { "s64", 8 },
		{ "__u64", 8 },	      { "__s64", 8 },
		{ "uint64_t", 8 },    { "int64_t", 8 },
		{ "long", 0 },	      { "unsigned long", 0 },
		{ "size_t", 0 },      { "ssize_t", 0 },
	};

	if (!strncmp(t, "const ", 6))
		t += 6;
	if (strchr(t, '*'))
		return (uint32_t)long_size;
	for (size_t i = 0; i < ARRAY_SIZE(types); i++)
		if (!strcmp(t, types[i].name))
			return types[i].size ? types[i].size : (uint32_t)long_size;
	return 0;
}

static bool is_char_type(const char *t)
{
	if (!strncmp(t, "const ", 6))
		t += 6;
	return !strcmp(t, "char");
}

/*
 * The declaration of a field line ("unsigned long args[6]", "__data_loc
 * char[] name") into @fl: name, type, array length, flags.
 */
static int parse_decl(const char *d, size_t n, struct pcl_tp_field *fl, int long_size)
{
	const char *end = d + n, *name, *dims = NULL;
	size_t dims_len = 0;
	char *base;

	while (end > d && isspace((unsigned char)end[-1]))
		end--;
	if (end > d && end[-1] == ']') {
		const char *open = end - 1;

		while (open > d && *open != '[')
			open--;
		if (*open != '[')
			return -EBADMSG;
		dims = open + 1;
		dims_len = (size_t)(end - 1 - dims);
		end = open;
	}
	while (end > d && isspace((unsigned char)end[-1]))
		end--;
	name = end;
	while (name > d && (isalnum((unsigned char)name[-1]) || name[-1] == '_'))
		name--;
	if (name == end || name == d)
		return -EBADMSG;
	fl->name = strndup(name, (size_t)(end - name));
	base = strndup_trim(d, (size_t)(name - d));
	if (!fl->name || !base) {
		free(base);
		return -ENOMEM;
	}
	if (dims) {
		/* the type as perf's libtraceevent keeps it: the base with the dimensions */
		if (asprintf(&fl->type, "%s[%.*s]", base, (int)dims_len, dims) < 0)
			fl->type = NULL;
	} else {
		fl->type = strdup(base);
	}
	if (!fl->type) {
		free(base);
		return -ENOMEM;
	}
	if (!strncmp(base, "__data_loc ", 11) || !strncmp(base, "__rel_loc ", 10)) {
		char *elem = base + (base[2] == 'd' ? 11 : 10);
		size_t el = strlen(elem);

		fl->flags |= PCL_TP_DYNAMIC | (base[2] == 'r' ? PCL_TP_RELATIVE : 0);
		if (el >= 2 && !strcmp(elem + el - 2, "[]"))
			elem[el - 2] = '\0';
		while (*elem && isspace((unsigned char)elem[strlen(elem) - 1]))
			elem[strlen(elem) - 1] = '\0';
		if (is_char_type(elem))
			fl->flags |= PCL_TP_STRING;
		if (strchr(elem, '*'))
			fl->flags |= PCL_TP_POINTER;
		fl->elem_size = base_type_size(elem, long_size);
		if (!fl->elem_size)
			fl->elem_size = 1;
	} else {
		if (strchr(base, '*'))
			fl->flags |= PCL_TP_POINTER;
		if (dims) {
			unsigned long nr = strtoul(dims, NULL, 0);

			fl->flags |= PCL_TP_ARRAY;
			if (is_char_type(base))
				fl->flags |= PCL_TP_STRING;
			/* a length tracefs left as a macro name: guess from the size */
			if (!nr || fl->size % nr) {
				uint32_t es = base_type_size(base, long_size);

				nr = es && fl->size % es == 0 ? fl->size / es : fl->size;
			}
			fl->nr = (uint32_t)nr;
			fl->elem_size = nr ? fl->size / (uint32_t)nr : 1;
		} else {
			fl->elem_size = fl->size;
		}
	}
	if (!strncmp(fl->name, "common_", 7))
		fl->flags |= PCL_TP_COMMON;
	free(base);
	return 0;
}

/* A number after "key:" in a field line, e.g. "offset:8;". */
static bool field_num(const char *line, const char *end, const char *key, unsigned long *v)
{
	size_t k = strlen(key);
	const char *p;

	for (p = line; p + k <= end; p++) {
		if (!memcmp(p, key, k) &&
		    (p == line || p[-1] == '\t' || p[-1] == ' ' || p[-1] == ';')) {
			char buf[32];
			size_t n = 0;

			p += k;
			while (p < end && n < sizeof(buf) - 1 && *p != ';')
				buf[n++] = *p++;
			buf[n] = '\0';
			*v = strtoul(buf, NULL, 0);
			return n > 0;
		}
	}
	return false;
}

/* "\tfield:DECL;\toffset:N;\tsize:N;\tsigned:N;" */
static int parse_field(const char *line, const char *end, struct pcl_tp_field *fl, int long_size)
{
	const char *d = line_value(line, end, "field:"), *semi;
	unsigned long off, size, sign = 0;

	if (!d)
		d = line_value(line, end, "field special:");
	if (!d)
		return -EBADMSG;
	semi = memchr(d, ';', (size_t)(end - d));
	if (!semi || !field_num(semi, end, "offset:", &off) ||
	    !field_num(semi, end, "size:", &size))
		return -EBADMSG;
	if (off > UINT32_MAX || size > UINT32_MAX)
		return -EBADMSG;
	field_num(semi, end, "signed:", &sign);
	fl->offset = (uint32_t)off;
	fl->size = (uint32_t)size;
	if (sign)
		fl->flags |= PCL_TP_SIGNED;
	return parse_decl(d, (size_t)(semi - d), fl, long_size);
}

static int add_field(struct pcl_tp_format *f, const char *line, const char *end, int long_size)
{
	struct pcl_tp_field *nf;
	int ret;

	if (f->nr_fields >= MAX_FIELDS)
		return -EBADMSG;
	nf = realloc(f->fields, sizeof(*nf) * (size_t)(f->nr_fields + 1));
	if (!nf)
		return -ENOMEM;
	f->fields = nf;
	memset(&nf[f->nr_fields], 0, sizeof(*nf));
	ret = parse_field(line, end, &nf[f->nr_fields], long_size);
	if (ret) {
		free(nf[f->nr_fields].name);
		free(nf[f->nr_fields].type);
		return ret;
	}
	f->nr_fields++;
	return 0;
}

PCL_API struct pcl_tp_format *pcl_tp_format__parse(const char *system, const char *text, size_t len,
						   int long_size)
{
	struct pcl_tp_format *f = calloc(1, sizeof(*f));
	const char *p = text, *end = text + len;
	bool have_id = false, in_format = false;
	int ret = -ENOMEM;

	if (!f)
		goto err;
	if (long_size <= 0)
		long_size = 8;
	f->system = strdup(system ? system : "");
	if (!f->system)
		goto err;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end, *v;
		const char *s = p;

		p = nl ? nl + 1 : end;
		while (s < le && (*s == ' ' || *s == '\t'))
			s++;
		if ((v = line_value(s, le, "name:")) && !f->name) {
			if (!(f->name = strndup_trim(v, (size_t)(le - v))))
				goto err;
		} else if ((v = line_value(s, le, "ID:"))) {
			f->id = strtoull(v, NULL, 10);
			have_id = true;
		} else if (line_value(s, le, "format:")) {
			in_format = true;
		} else if (line_value(s, le, "print fmt:")) {
			break;
		} else if (in_format &&
			   (line_value(s, le, "field:") || line_value(s, le, "field special:"))) {
			ret = add_field(f, s, le, long_size);
			if (ret)
				goto bad;
		}
	}
	if (!f->name || !f->name[0] || !have_id) {
		ret = -EBADMSG;
		goto bad;
	}
	return f;
bad:
	if (ret == -EBADMSG)
		pcl_err(EBADMSG, "tracepoint format of '%s:%s': malformed",
			f->system ? f->system : "", f->name ? f->name : "?");
err:
	pcl_tp_format__free(f);
	errno = -ret;
	return NULL;
}

/* ---- printing ---- */

static uint64_t read_uint(const uint8_t *p, uint32_t size)
{
	uint8_t v8;
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	switch (size) {
	case 1:
		memcpy(&v8, p, 1);
		return v8;
	case 2:
		memcpy(&v16, p, 2);
		return v16;
	case 4:
		memcpy(&v32, p, 4);
		return v32;
	default:
		memcpy(&v64, p, 8);
		return v64;
	}
}

/* One integer element of @size (1, 2, 4 or 8) bytes. */
static void print_int(FILE *out, const uint8_t *p, uint32_t size, unsigned int flags)
{
	uint64_t v = read_uint(p, size);

	if (flags & PCL_TP_POINTER) {
		fprintf(out, "0x%" PRIx64, v);
	} else if (flags & PCL_TP_SIGNED) {
		int64_t s =
			size == 8 ? (int64_t)v : (int64_t)(v << (64 - 8 * size)) >> (64 - 8 * size);

		fprintf(out, "%" PRId64, s);
	} else {
		fprintf(out, "%" PRIu64, v);
	}
}

static bool int_size(uint32_t size)
{
	return size == 1 || size == 2 || size == 4 || size == 8;
}

/* @len bytes at @p: a string up to its NUL, control characters as '.'. */
static void print_string(FILE *out, const uint8_t *p, size_t len)
{
	const uint8_t *nul = memchr(p, '\0', len);

	if (nul)
		len = (size_t)(nul - p);
	for (size_t i = 0; i < len; i++)
		fputc(p[i] < 0x20 || p[i] == 0x7f ? '.' : p[i], out);
}

/* @len bytes of elements of @es bytes: "[a,b,c]"; raw hex bytes when es is no integer size. */
static void print_array(FILE *out, const uint8_t *p, size_t len, uint32_t es, unsigned int flags)
{
	fputc('[', out);
	if (!int_size(es))
		es = 1, flags &= ~(unsigned int)PCL_TP_SIGNED;
	for (size_t i = 0; i + es <= len; i += es) {
		if (i)
			fputc(',', out);
		print_int(out, p + i, es, flags);
	}
	fputc(']', out);
}

static void print_field(FILE *out, const struct pcl_tp_field *fl, const uint8_t *raw, size_t size)
{
	const uint8_t *p = raw + fl->offset;

	if (fl->flags & PCL_TP_DYNAMIC) {
		uint32_t loc = (uint32_t)read_uint(p, 4);
		size_t off = loc & 0xffff, len = loc >> 16;

		if (fl->flags & PCL_TP_RELATIVE)
			off += (size_t)fl->offset + fl->size;
		if (off > size || len > size - off) {
			fputc('?', out);
			return;
		}
		if (fl->flags & PCL_TP_STRING)
			print_string(out, raw + off, len);
		else
			print_array(out, raw + off, len, fl->elem_size, fl->flags);
		return;
	}
	if (fl->flags & PCL_TP_STRING) {
		print_string(out, p, fl->size);
	} else if (fl->flags & PCL_TP_ARRAY) {
		print_array(out, p, fl->size, fl->elem_size, fl->flags);
	} else if (int_size(fl->size)) {
		print_int(out, p, fl->size, fl->flags);
	} else {
		/* a struct or an odd size: its bytes in hex, in memory order */
		fputs("0x", out);
		for (uint32_t i = 0; i < fl->size; i++)
			fprintf(out, "%02x", p[i]);
	}
}

PCL_API int pcl_tp_format__fprint(const struct pcl_tp_format *f, const void *raw, size_t size,
				  FILE *out)
{
	bool first = true;

	if (!f || !out)
		return pcl_err(EINVAL, "pcl_tp_format__fprint: invalid argument");
	for (int i = 0; i < f->nr_fields; i++) {
		const struct pcl_tp_field *fl = &f->fields[i];

		if ((fl->flags & PCL_TP_COMMON) || fl->offset > size ||
		    fl->size > size - fl->offset)
			continue;
		if ((fl->flags & PCL_TP_DYNAMIC) && fl->size < 4)
			continue;
		if (!first)
			fputc(' ', out);
		first = false;
		fprintf(out, "%s=", fl->name);
		print_field(out, fl, raw, size);
	}
	return ferror(out) ? -EIO : 0;
}

/* ---- the TRACING_DATA section ---- */

struct pcl_tracepoints {
	struct pcl_tp_format **f;
	size_t n, alloc;
};

struct cursor {
	const uint8_t *p, *end;
	bool swap; /* the file's byte order is not ours */
	bool bad;
};

static const void *take(struct cursor *c, size_t n)
{
	const uint8_t *p = c->p;

	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = true;
		return NULL;
	}
	c->p += n;
	return p;
}

static uint32_t take_u32(struct cursor *c)
{
	const void *p = take(c, 4);
	uint32_t v = 0;

	if (p)
		memcpy(&v, p, 4);
	return c->swap ? __builtin_bswap32(v) : v;
}

static uint64_t take_u64(struct cursor *c)
{
	const void *p = take(c, 8);
	uint64_t v = 0;

	if (p)
		memcpy(&v, p, 8);
	return c->swap ? __builtin_bswap64(v) : v;
}

/* A NUL-terminated string in the section. */
static const char *take_string(struct cursor *c)
{
	const uint8_t *nul;

	if (c->bad || !(nul = memchr(c->p, '\0', (size_t)(c->end - c->p)))) {
		c->bad = true;
		return NULL;
	}
	return take(c, (size_t)(nul - c->p) + 1);
}

/* A u64 size and that many bytes; *len set. */
static const char *take_blob(struct cursor *c, size_t *len)
{
	uint64_t n = take_u64(c);

	if (c->bad || n > (uint64_t)(c->end - c->p)) {
		c->bad = true;
		return NULL;
	}
	*len = (size_t)n;
	return take(c, (size_t)n);
}

PCL_API void pcl_tracepoints__free(struct pcl_tracepoints *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		pcl_tp_format__free(t->f[i]);
	free(t->f);
	free(t);
}

static int tp_add(struct pcl_tracepoints *t, struct pcl_tp_format *f)
{
	if (t->n == t->alloc) {
		size_t na = t->alloc ? t->alloc * 2 : 16;
		struct pcl_tp_format **nf = realloc(t->f, sizeof(*nf) * na);

		if (!nf)
			return -ENOMEM;
		t->f = nf;
		t->alloc = na;
	}
	t->f[t->n++] = f;
	return 0;
}

static int cmp_id(const void *a, const void *b)
{
	const struct pcl_tp_format *x = *(struct pcl_tp_format *const *)a;
	const struct pcl_tp_format *y = *(struct pcl_tp_format *const *)b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* The header up to the event formats; the file's long size or -EBADMSG. */
static int read_preamble(struct cursor *c)
{
	static const uint8_t magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	const uint8_t *m = take(c, sizeof(magic)), *b;
	const char *s;
	size_t len;
	int long_size;
	uint32_t n;

	if (!m || memcmp(m, magic, sizeof(magic)))
		return -EBADMSG;
	take_string(c); /* version */
	b = take(c, 2);
	if (!b)
		return -EBADMSG;
	c->swap = (b[0] != 0) != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	long_size = b[1];
	take_u32(c); /* page size */
	s = take_string(c);
	if (!s || strcmp(s, "header_page"))
		return -EBADMSG;
	take_blob(c, &len);
	s = take_string(c);
	if (!s || strcmp(s, "header_event"))
		return -EBADMSG;
	take_blob(c, &len);
	n = take_u32(c); /* ftrace's own formats */
	for (uint32_t i = 0; i < n && !c->bad; i++)
		take_blob(c, &len);
	return c->bad ? -EBADMSG : long_size;
}

static int read_systems(struct cursor *c, struct pcl_tracepoints *t, int long_size)
{
	uint32_t nsys = take_u32(c);

	for (uint32_t i = 0; i < nsys && !c->bad; i++) {
		const char *sys = take_string(c);
		uint32_t n = take_u32(c);

		for (uint32_t k = 0; k < n && !c->bad; k++) {
			size_t len = 0;
			const char *text = take_blob(c, &len);
			struct pcl_tp_format *f;

			if (!text)
				break;
			f = pcl_tp_format__parse(sys, text, len, long_size);
			if (!f) {
				if (errno == ENOMEM)
					return -ENOMEM;
				continue; /* one bad format does not spoil the others */
			}
			if (tp_add(t, f)) {
				pcl_tp_format__free(f);
				return -ENOMEM;
			}
		}
	}
	return c->bad ? -EBADMSG : 0;
}

PCL_API struct pcl_tracepoints *pcl_tracepoints__parse(const void *data, size_t len)
{
	struct cursor c = { data, (const uint8_t *)data + len, false, false };
	struct pcl_tracepoints *t;
	int ret, long_size;

	if (!data) {
		return pcl_err_null(EINVAL, "pcl_tracepoints__parse: invalid argument");
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	long_size = read_preamble(&c);
	ret = long_size < 0 ? long_size : read_systems(&c, t, long_size);
	if (ret) {
		if (ret == -EBADMSG)
			pcl_err(EBADMSG, "malformed tracing data (%zu bytes)", len);
		pcl_tracepoints__free(t);
		errno = -ret;
		return NULL;
	}
	qsort(t->f, t->n, sizeof(*t->f), cmp_id);
	return t;
}

PCL_API size_t pcl_tracepoints__count(const struct pcl_tracepoints *t)
{
	return t ? t->n : 0;
}

PCL_API const struct pcl_tp_format *pcl_tracepoints__at(const struct pcl_tracepoints *t, size_t i)
{
	return t && i < t->n ? t->f[i] : NULL;
}

PCL_API const struct pcl_tp_format *pcl_tracepoints__find(const struct pcl_tracepoints *t,
							  uint64_t id)
{
	size_t lo = 0, hi = t ? t->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->f[mid]->id == id)
			return t->f[mid];
		if (t->f[mid]->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}
