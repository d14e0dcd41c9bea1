/* SPDX-License-Identifier: MIT */
/* Text escaping shared by the writers of JSON, HTML and SVG documents. */
#ifndef PCL_OUTPUT_JSON_H
#define PCL_OUTPUT_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * @s as a JSON string with its quotes. Control characters are escaped and
 * bytes that are not UTF-8 become U+FFFD, so any symbol name gives valid
 * JSON.
 */
void json_str(FILE *out, const char *s);
/* The same with < > & escaped too, safe inside an HTML <script> element. */
void json_str_script(FILE *out, const char *s);
/* @s as XML/HTML character data or attribute text (& < > " ' escaped, bad UTF-8 as U+FFFD). */
void xml_str(FILE *out, const char *s);

/* Length of the valid UTF-8 sequence at @s, or 0 (overlong forms, surrogates, past U+10FFFF). */
size_t utf8_len(const unsigned char *s);
/*
 * @s with each byte that is not UTF-8 as U+FFFD (malloc'd), or NULL when
 * @s is valid already (or on ENOMEM, with *@oom set): for formats whose
 * readers reject strings that are not UTF-8 (protobuf), where a comm or a
 * path is only bytes.
 */
char *utf8_fixed(const char *s, bool *oom);

/* @v in decimal, without printf's format parsing: a million samples make many numbers. */
void put_u64(FILE *fp, uint64_t v);

#endif
