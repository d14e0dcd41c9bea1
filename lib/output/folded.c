/* SPDX-License-Identifier: MIT */
/*
 * Folded stacks, the input of FlameGraph's flamegraph.pl and inferno: one
 * line per unique stack, "comm;outermost;...;innermost VALUE", sorted by
 * byte value. The lines are what `perf script | stackcollapse-perf.pl` makes
 * of the same samples with the script's default options, so the two can be
 * swapped in a pipeline. Its rules, applied here to the text perf script
 * would print for each frame ("SYM+0xOFF (DSO)"):
 *
 * - the first item is the command name, spaces made underscores; the name
 *   ends where the script's pattern sees "spaces, digits, spaces" (the tid);
 * - a frame line is "ip text (mod)", mod the last "(...)" of non-blanks
 *   after a space; a line without one is dropped, and so is a frame whose
 *   text starts with "(";
 * - a trailing "+0x..." is cut; "a->b" (an inline chain) is "a;b_[i]";
 * - "[unknown]" becomes "[DSO basename]" when the DSO is known;
 * - ';' becomes ':', everything from the first '(' on is cut (unless it
 *   opens "(anonymous namespace)" or the name looks like a Go method
 *   "pkg.(*T).M"), quotes are dropped; in a "java" process a leading 'L'
 *   goes from names with a '/';
 * - at most 127 frames, the innermost (perf script's default max-stack);
 * - the value is the sum of the samples' periods (perf script prints the
 *   period; the script sums it), a sample with no period counting 1.
 *
 * Memory: one string per distinct (thread, stack); they are sorted and the
 * equal ones merged, as the script's hash does.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <pcl/export.h>
#include "internal.h"

#define FOLDED_MAX_STACK 127

/* A growable string. */
struct str {
	char *s;
	size_t len, cap;
};

static int str_add(struct str *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		char *ns;

		while (b->len + n + 1 > cap)
			cap *= 2;
		ns = realloc(b->s, cap);
		if (!ns)
			return -ENOMEM;
		b->s = ns;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
	return 0;
}

static int str_adds(struct str *b, const char *s)
{
	return str_add(b, s, strlen(s));
}

/* The command as the script names it: see the file's comment. */
static char *pname_of(const char *comm, int32_t tid)
{
	char *s, *out;
	size_t len = strlen(comm), i;

	if (asprintf(&s, "%s %d ", comm, tid) < 0)
		return NULL;
	/* the shortest head of 2+ characters before blanks, digits ("/" digits), a blank */
	for (i = 2; i <= len; i++) {
		size_t j = i;

		if (!isspace((unsigned char)s[j]))
			continue;
		while (isspace((unsigned char)s[j]))
			j++;
		if (!isdigit((unsigned char)s[j]))
			continue;
		while (isdigit((unsigned char)s[j]))
			j++;
		while (s[j] == '/')
			j++;
		while (isdigit((unsigned char)s[j]))
			j++;
		if (isspace((unsigned char)s[j]))
			break;
	}
	if (i > len)
		i = len; /* a one-letter name: the script reads past it; keep the name */
	out = strndup(s, i);
	free(s);
	for (char *c = out; c && *c; c++)
		if (*c == ' ')
			*c = '_';
	return out;
}

/* Does @f (@n bytes) look like a Go method, ".(" and later ")."? */
static bool go_method(const char *f, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++) {
		if (f[i] != '.' || f[i + 1] != '(')
			continue;
		for (size_t j = n - 1; j-- > i + 2;)
			if (f[j] == ')' && f[j + 1] == '.')
				return true;
		return false;
	}
	return false;
}

/* Append one name of a frame to @b, tidied by the script's generic and Java rules. */
static int tidy(struct str *b, const char *f, size_t n, bool java)
{
	static const char anon[] = "(anonymous namespace)";
	size_t at = b->len, cut = n;

	/* everything from the first '(' not opening "(anonymous namespace)" is noise */
	for (size_t i = 0; i < n && !go_method(f, n); i++) {
		if (f[i] != '(')
			continue;
		if (n - i >= sizeof(anon) - 1 && !memcmp(f + i, anon, sizeof(anon) - 1))
			continue;
		cut = i;
		break;
	}
	for (size_t i = 0; i < cut; i++) {
		char ch = f[i] == ';' ? ':' : f[i];

		if (ch != '"' && ch != '\'' && str_add(b, &ch, 1))
			return -ENOMEM;
	}
	/* Java signatures: "Lorg/x/Y:.m" is "org/x/Y:.m" */
	if (java && b->len > at && b->s[at] == 'L' && memchr(b->s + at, '/', b->len - at)) {
		memmove(b->s + at, b->s + at + 1, b->len - at);
		b->len--;
	}
	return 0;
}

/* The text and the DSO of the frame line perf script prints: "SYM+0xOFF (DSO)". */
static int frame_line(struct str *line, const struct pcl_profile_func *fn)
{
	bool known = fn->start || fn->end;

	return str_adds(line, known ? fn->name : "[unknown]") ||
	       (known && str_adds(line, "+0x0")) || str_adds(line, " (") ||
	       str_adds(line, fn->dso ? fn->dso->name : "[unknown]") || str_adds(line, ")");
}

/* One "->"-separated name: "[unknown]" named by its DSO, tidied, "_[i]" after the first. */
static int frame_item(struct str *b, const char *s, size_t n, const char *mod, size_t mod_len,
		      bool java, bool inlined)
{
	size_t at = b->len;
	int ret;

	if (n == 9 && !memcmp(s, "[unknown]", 9) &&
	    !(mod_len == 9 && !memcmp(mod, "[unknown]", 9))) {
		struct str u = { 0 };
		const char *base = mod;

		for (size_t i = 0; i < mod_len; i++)
			if (mod[i] == '/')
				base = mod + i + 1;
		ret = str_add(&u, "[", 1) || str_add(&u, base, (size_t)(mod + mod_len - base)) ||
				      str_add(&u, "]", 1)
			      ? -ENOMEM
			      : tidy(b, u.s, u.len, java);
		free(u.s);
	} else {
		ret = tidy(b, s, n, java);
	}
	if (!ret && inlined && !strstr(b->s ? b->s + at : "", "_[i]"))
		ret = str_adds(b, "_[i]");
	return ret;
}

/*
 * The stack items of one frame, ";"-joined, onto @b: none when the script
 * drops the frame. Works on the line perf script prints for it.
 */
static int frame_items(struct str *b, const struct pcl_profile_func *fn, bool java)
{
	struct str line = { 0 };
	size_t k, text_len, mod_len = 0, first = b->len, end, items = 0;
	const char *mod = NULL;
	int ret = -ENOMEM;

	if (frame_line(&line, fn))
		goto out;
	/* "(.+) \((\S*)\)": the last " (" followed by non-blanks holding a ')' */
	for (k = line.len; k-- > 1;) {
		size_t last = 0;

		if (line.s[k] != ' ' || line.s[k + 1] != '(')
			continue;
		for (size_t e = k + 2; line.s[e] && !isspace((unsigned char)line.s[e]); e++)
			if (line.s[e] == ')')
				last = e;
		if (last) {
			mod = line.s + k + 2;
			mod_len = last - (k + 2);
			break;
		}
	}
	ret = 0;
	if (!mod)
		goto out; /* an unrecognized line */
	/* cut a trailing "+0x<lowercase hex>" */
	text_len = k;
	for (size_t i = text_len; i-- > 0;) {
		char c = line.s[i];

		if (isdigit((unsigned char)c) || (c >= 'a' && c <= 'f'))
			continue;
		if (c == 'x' && i >= 2 && i + 1 < text_len && line.s[i - 1] == '0' &&
		    line.s[i - 2] == '+')
			text_len = i - 2;
		break;
	}
	if (line.s[0] == '(')
		goto out; /* the script skips "process names" */
	/* split at "->" as perl does: trailing empty fields go */
	end = text_len;
	while (end >= 2 && line.s[end - 2] == '-' && line.s[end - 1] == '>')
		end -= 2;
	for (size_t s = 0; end && s <= end;) {
		const char *arrow = NULL;
		size_t pe;

		for (size_t c = s; c + 1 < end; c++)
			if (line.s[c] == '-' && line.s[c + 1] == '>') {
				arrow = line.s + c;
				break;
			}
		pe = arrow ? (size_t)(arrow - line.s) : end;
		if ((items && (ret = str_add(b, ";", 1))) ||
		    (ret = frame_item(b, line.s + s, pe - s, mod, mod_len, java, items > 0)))
			goto out;
		items++;
		if (!arrow)
			break;
		s = pe + 2;
	}
out:
	if (ret)
		b->len = first;
	free(line.s);
	return ret;
}

struct line {
	char *text;
	uint64_t value;
};

static int cmp_line(const void *a, const void *b)
{
	return strcmp(((const struct line *)a)->text, ((const struct line *)b)->text);
}

/* The line of one stack of @p: @pname then its frames, outermost first. */
static int stack_line(struct str *b, const struct pcl_profile *p, uint32_t node, const char *pname,
		      uint32_t **path, size_t *alloc)
{
	const struct pcl_profile_node *nodes;
	const struct pcl_profile_func *funcs;
	size_t n = 0, nn, nf;
	bool java = !strcmp(pname, "java");

	nodes = pcl_profile__nodes(p, &nn);
	funcs = pcl_profile__funcs(p, &nf);
	b->len = 0;
	if (str_adds(b, pname))
		return -ENOMEM;
	for (; node && n < FOLDED_MAX_STACK; node = nodes[node].parent) {
		if (n == *alloc) {
			size_t na = *alloc ? *alloc * 2 : 64;
			uint32_t *np = realloc(*path, na * sizeof(*np));

			if (!np)
				return -ENOMEM;
			*path = np;
			*alloc = na;
		}
		(*path)[n++] = node;
	}
	while (n--) {
		size_t before = b->len;

		if (str_add(b, ";", 1) || frame_items(b, &funcs[nodes[(*path)[n]].func], java))
			return -ENOMEM;
		if (b->len == before + 1)
			b->len = before; /* a dropped frame */
		b->s[b->len] = '\0';
	}
	return 0;
}

int pcl_export_folded(FILE *fp, const struct pcl_profile *p, const struct pcl_export_opts *opts)
{
	const struct pcl_profile_stack *st;
	const struct pcl_profile_thread *th;
	struct line *lines = NULL;
	struct str b = { 0 };
	char **pnames = NULL;
	uint32_t *path = NULL;
	size_t ns, nt, nl = 0, alloc = 0;
	struct pcl_export_opts o;
	int ret;

	if (!fp || !p)
		return pcl_err(EINVAL, "pcl_export_folded: no output or no profile");
	ret = opts_copy(&o, opts, "pcl_export_opts");
	if (ret < 0)
		return ret;
	ret = -ENOMEM;
	st = pcl_profile__stacks(p, &ns);
	th = pcl_profile__threads(p, &nt);
	pnames = calloc(nt + 1, sizeof(*pnames));
	lines = calloc(ns + 1, sizeof(*lines));
	if (!pnames || !lines)
		goto out;
	for (size_t i = 0; i < nt; i++)
		if (!(pnames[i] = pname_of(th[i].comm ? th[i].comm : "", th[i].tid)))
			goto out;
	for (size_t i = 0; i < ns; i++) {
		if (stack_line(&b, p, st[i].node, pnames[st[i].thread], &path, &alloc) ||
		    !(lines[nl].text = strdup(b.s)))
			goto out;
		/* the script sums the periods perf script prints; a missing one counts 1 */
		lines[nl++].value = st[i].period ? st[i].period : st[i].count;
	}
	if (nl > 1)
		qsort(lines, nl, sizeof(*lines), cmp_line);
	for (size_t i = 0; i < nl; i++) {
		uint64_t v = lines[i].value;

		while (i + 1 < nl && !strcmp(lines[i].text, lines[i + 1].text))
			v += lines[++i].value;
		fprintf(fp, "%s %" PRIu64 "\n", lines[i].text, v);
	}
	ret = 0;
out:
	for (size_t i = 0; lines && i < nl; i++)
		free(lines[i].text);
	for (size_t i = 0; pnames && i < nt; i++)
		free(pnames[i]);
	free(lines);
	free(pnames);
	free(path);
	free(b.s);
	if (ret)
		return pcl_err(ret, "out of memory");
	if (ferror(fp))
		return pcl_err(-EIO, "cannot write the folded stacks");
	return 0;
}
