/* SPDX-License-Identifier: MIT */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "output/json.h"

size_t utf8_len(const unsigned char *s)
{
	size_t n;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

/* Each character of @s through @esc (ASCII) or copied (valid multi-byte UTF-8). */
static void put_text(FILE *out, const char *s, bool (*esc)(FILE *, unsigned char))
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = utf8_len(p);

		if (n == 1) {
			if (!esc(out, *p))
				fputc(*p, out);
		} else if (n) {
			fwrite(p, 1, n, out);
		} else {
			fputs("\xef\xbf\xbd", out); /* U+FFFD */
			n = 1;
		}
		p += n;
	}
}

static bool json_esc(FILE *out, unsigned char c)
{
	if (c == '"' || c == '\\') {
		fputc('\\', out);
		fputc(c, out);
		return true;
	}
	if (c < 0x20 || c == 0x7f) {
		fprintf(out, "\\u%04x", c);
		return true;
	}
	return false;
}

static bool json_script_esc(FILE *out, unsigned char c)
{
	if (c == '<' || c == '>' || c == '&') {
		fprintf(out, "\\u%04x", c);
		return true;
	}
	return json_esc(out, c);
}

static bool xml_esc(FILE *out, unsigned char c)
{
	switch (c) {
	case '&':
		fputs("&amp;", out);
		return true;
	case '<':
		fputs("&lt;", out);
		return true;
	case '>':
		fputs("&gt;", out);
		return true;
	case '"':
		fputs("&quot;", out);
		return true;
	case '\'':
		fputs("&#39;", out);
		return true;
	default:
		/* XML 1.0 allows no control characters but tab, newline, return */
		if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
			fputc('?', out);
			return true;
		}
		return false;
	}
}

void json_str(FILE *out, const char *s)
{
	fputc('"', out);
	put_text(out, s, json_esc);
	fputc('"', out);
}

void xml_str(FILE *out, const char *s)
{
	put_text(out, s, xml_esc);
}

void json_str_script(FILE *out, const char *s)
{
	fputc('"', out);
	put_text(out, s, json_script_esc);
	fputc('"', out);
}

char *utf8_fixed(const char *s, bool *oom)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n, at = 0;
	char *out;

	while (*u && (n = utf8_len(u)))
		u += n;
	if (!*u)
		return NULL;
	out = malloc(3 * strlen(s) + 1);
	if (!out) {
		*oom = true;
		return NULL;
	}
	for (u = (const unsigned char *)s; *u;) {
		n = utf8_len(u);
		if (n) {
			memcpy(out + at, u, n);
			at += n;
			u += n;
		} else {
			memcpy(out + at, "\xef\xbf\xbd", 3);
			at += 3;
			u++;
		}
	}
	out[at] = '\0';
	return out;
}

void put_u64(FILE *fp, uint64_t v)
{
	char b[20];
	size_t i = sizeof(b);

	do
		b[--i] = (char)('0' + v % 10);
	while (v /= 10);
	fwrite(b + i, 1, sizeof(b) - i, fp);
}
