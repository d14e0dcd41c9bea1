/* SPDX-License-Identifier: MIT */
/*
 * perf probe's point and argument syntax (perf-probe(1), "PROBE SYNTAX" and
 * "PROBE ARGUMENT"), parsed as perf's parse_perf_probe_point() and
 * parse_perf_probe_arg() do:
 *
 *   - the point is a file spec (SRC:ALN) only when it has none of "+@%",
 *     has a ':' and a '.' before it; otherwise it is a function spec;
 *   - after the function come at most one of :RLN, +OFF, %return and an @SRC;
 *   - an argument's name is what precedes '=', its type what follows the last
 *     ':', and "->", "." and "[i]" after a C name are member/index accesses.
 *
 * Input is untrusted (the command line, a fuzzer): every length is checked,
 * every failure is -EINVAL with a message naming the bad part.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "probe/probe.h"

void probe_sanitize(char *s)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			*s = '_';
}

static bool is_c_name(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	for (s++; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

static bool parse_num(const char *s, long *v, int base)
{
	char *end;

	if (!*s || !isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*v = strtol(s, &end, base);
	return !errno && !*end && *v >= 0;
}

static int set_event(struct probe_spec *sp, const char *s, size_t len)
{
	const char *colon = memchr(s, ':', len);
	char *ev;

	ev = strndup(s, len);
	if (!ev)
		return -ENOMEM;
	if (colon) {
		ev[colon - s] = '\0';
		sp->group = strdup(ev);
		sp->event = strdup(ev + (colon - s) + 1);
		free(ev);
		if (!sp->group || !sp->event)
			return -ENOMEM;
	} else {
		sp->event = ev;
	}
	if ((sp->group && !is_c_name(sp->group)) || !is_c_name(sp->event))
		return pcl_err(EINVAL, "'%.*s' is a bad event name (letters, digits and '_')",
			       (int)len, s);
	return 0;
}

/* The part after the event: FUNC[@SRC][:RLN|+OFF|%return] or SRC:ALN. */
static int parse_point(struct probe_spec *sp, char *arg)
{
	bool file_spec = false;
	char *p, *tok, c, next;
	long v;

	if (!strpbrk(arg, "+@%")) {
		p = strpbrk(arg, ";:");
		if (p && memchr(arg, '.', (size_t)(p - arg)))
			file_spec = true;
	}
	if (strchr(arg, ';'))
		return pcl_err(EINVAL, "'%s': lazy line patterns (;PTN) are not supported by pcl",
			       arg);
	p = strpbrk(arg, ":+@%");
	next = p ? *p : '\0';
	if (p)
		*p++ = '\0';
	if (!*arg && next != '@')
		return pcl_err(EINVAL, "probe point has no function or file");
	if (*arg) {
		if (file_spec)
			sp->file = strdup(arg);
		else
			sp->func = strdup(arg);
		if (!sp->file && !sp->func)
			return -ENOMEM;
	}
	while (p) {
		c = next;
		tok = p;
		p = strpbrk(p, ":+@%");
		next = p ? *p : '\0';
		if (p)
			*p++ = '\0';
		switch (c) {
		case ':':
			if (sp->has_line || sp->offset || !parse_num(tok, &v, 10))
				return pcl_err(EINVAL, "bad line number '%s'", tok);
			sp->line = v;
			sp->has_line = true;
			break;
		case '+':
			if (sp->has_line || sp->offset || !parse_num(tok, &v, 0) || !sp->func)
				return pcl_err(EINVAL, "bad offset '%s'", tok);
			sp->offset = (uint64_t)v;
			break;
		case '@':
			if (sp->file || !*tok)
				return pcl_err(EINVAL, "bad source file '@%s'", tok);
			if (!(sp->file = strdup(tok)))
				return -ENOMEM;
			break;
		case '%':
			if (strcmp(tok, "return") || sp->retprobe)
				return pcl_err(EINVAL, "'%%%s': only %%return is known", tok);
			sp->retprobe = true;
			break;
		}
	}
	if (file_spec && !sp->has_line)
		return pcl_err(EINVAL, "'%s' needs a line number (FILE:LINE)", sp->file);
	if (sp->retprobe && (sp->has_line || !sp->func))
		return pcl_err(EINVAL, "%%return is for a function entry, not a line");
	if (sp->retprobe && sp->offset)
		return pcl_err(EINVAL, "%%return cannot take an offset");
	if (!sp->func && !sp->has_line)
		return pcl_err(EINVAL, "probe point has no function or line");
	return 0;
}

static int add_field(struct probe_arg *a, const char *name, size_t len, bool ref, long idx)
{
	struct probe_field *f = realloc(a->fields, (size_t)(a->nfields + 1) * sizeof(*f));

	if (!f)
		return -ENOMEM;
	a->fields = f;
	f = &f[a->nfields++];
	f->ref = ref;
	f->index = idx;
	f->name = name ? strndup(name, len) : NULL;
	return name && !f->name ? -ENOMEM : 0;
}

/* VAR->a.b[3]: the fields after the variable's name. */
static int parse_fields(struct probe_arg *a, const char *s)
{
	while (*s) {
		bool ref = false;
		size_t n;
		long idx;
		char *end;

		if (s[0] == '[') {
			errno = 0;
			idx = strtol(s + 1, &end, 0);
			if (errno || end == s + 1 || *end != ']' || idx < 0)
				return pcl_err(EINVAL, "bad array index in '%s'", a->text);
			if (add_field(a, NULL, 0, false, idx))
				return -ENOMEM;
			s = end + 1;
			continue;
		}
		if (s[0] == '-' && s[1] == '>') {
			ref = true;
			s += 2;
		} else if (s[0] == '.') {
			s++;
		} else {
			return pcl_err(EINVAL, "bad field access in '%s'", a->text);
		}
		n = 0;
		while (isalnum((unsigned char)s[n]) || s[n] == '_')
			n++;
		if (!n || isdigit((unsigned char)*s))
			return pcl_err(EINVAL, "bad field name in '%s'", a->text);
		if (add_field(a, s, n, ref, 0))
			return -ENOMEM;
		s += n;
	}
	return 0;
}

static int parse_arg(struct probe_arg *a, const char *text)
{
	char *s, *eq, *colon, *fld, *buf;
	int ret = 0;

	a->text = strdup(text);
	buf = s = strdup(text);
	if (!a->text || !s) {
		free(buf);
		return -ENOMEM;
	}
	eq = strchr(s, '=');
	if (eq) {
		*eq = '\0';
		if (!is_c_name(s)) {
			ret = pcl_err(EINVAL, "bad argument name in '%s'", text);
			goto out;
		}
		a->name = strdup(s);
		s = eq + 1;
	}
	/* a type follows the last ':' (":string", ":u64", ":b4@2/32") */
	colon = strrchr(s, ':');
	if (colon) {
		*colon = '\0';
		if (!colon[1]) {
			ret = pcl_err(EINVAL, "empty type in '%s'", text);
			goto out;
		}
		a->type = strdup(colon + 1);
	}
	if (!*s) {
		ret = pcl_err(EINVAL, "empty argument '%s'", text);
		goto out;
	}
	/* C names may have fields; registers, $retval, @sym and +N(..) are raw */
	fld = strpbrk(s, "-.[");
	if ((isalpha((unsigned char)*s) || *s == '_') && fld) {
		a->var = strndup(s, (size_t)(fld - s));
		if (!a->var || !is_c_name(a->var)) {
			ret = a->var ? pcl_err(EINVAL, "bad variable in '%s'", text) : -ENOMEM;
			goto out;
		}
		ret = parse_fields(a, fld);
		/* perf names it after the last member */
		if (!ret && !a->name && a->nfields && a->fields[a->nfields - 1].name) {
			a->name = strdup(a->fields[a->nfields - 1].name);
			a->name_derived = true;
			if (!a->name)
				ret = -ENOMEM;
		}
	} else {
		a->var = strdup(s);
	}
	if (!ret && (!a->var || (eq && !a->name) || (colon && !a->type)))
		ret = -ENOMEM;
out:
	free(buf);
	return ret;
}

int probe_spec_parse(const char *str, struct probe_spec *sp)
{
	char *buf, *s, *word, *save = NULL, *eq, *stop;
	int ret = 0;

	memset(sp, 0, sizeof(*sp));
	buf = strdup(str);
	if (!buf)
		return -ENOMEM;
	word = strtok_r(buf, " \t\n", &save);
	if (!word) {
		free(buf);
		return pcl_err(EINVAL, "empty probe definition");
	}
	s = word;
	stop = strpbrk(s, ";=@+%");
	eq = stop && *stop == '=' ? stop : NULL;
	if (eq) {
		ret = set_event(sp, s, (size_t)(eq - s));
		if (ret)
			goto out;
		s = eq + 1;
	}
	if (!(sp->point = strdup(s))) {
		ret = -ENOMEM;
		goto out;
	}
	ret = parse_point(sp, s);
	while (!ret && (word = strtok_r(NULL, " \t\n", &save))) {
		struct probe_arg *a;

		if (sp->nargs >= PROBE_MAX_ARGS) {
			ret = pcl_err(E2BIG, "too many arguments (at most %d)", PROBE_MAX_ARGS);
			break;
		}
		a = realloc(sp->args, (size_t)(sp->nargs + 1) * sizeof(*a));
		if (!a) {
			ret = -ENOMEM;
			break;
		}
		sp->args = a;
		memset(&a[sp->nargs], 0, sizeof(*a));
		ret = parse_arg(&a[sp->nargs++], word);
	}
	for (int i = 0; !ret && sp->retprobe && i < sp->nargs; i++)
		if (is_c_name(sp->args[i].var))
			ret = pcl_err(EINVAL, "a %%return probe cannot fetch the local variable '%s' "
					      "(use $retval)",
				      sp->args[i].var);
out:
	free(buf);
	if (ret)
		probe_spec_free(sp);
	return ret;
}

void probe_spec_free(struct probe_spec *sp)
{
	if (!sp)
		return;
	for (int i = 0; i < sp->nargs; i++) {
		struct probe_arg *a = &sp->args[i];

		for (int j = 0; j < a->nfields; j++)
			free(a->fields[j].name);
		free(a->fields);
		free(a->name);
		free(a->var);
		free(a->type);
		free(a->text);
	}
	free(sp->args);
	free(sp->group);
	free(sp->event);
	free(sp->func);
	free(sp->file);
	free(sp->point);
	memset(sp, 0, sizeof(*sp));
}
