/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One output path for text and JSON, in the style of iproute2's
 * json_print.h: every field is printed once, with a JSON key and a text
 * format, so the two outputs cannot drift apart.
 *
 *   print_uint(PRINT_ANY, "id", "%u:", id);
 *
 * prints "1:" in text mode and "id":1 in JSON mode. PRINT_FP prints only in
 * text mode, PRINT_JSON only in JSON mode. Text formats take exactly one
 * conversion of the value's type.
 *
 * JSON is written as it goes: open_json_object()/open_json_array() start a
 * container (with a key when inside an object, the key is ignored inside an
 * array), close_*() ends it. When a top-level value is closed a newline is
 * written and the stream flushed, so several top-level values (monitor)
 * come out one per line. Strings are escaped; invalid UTF-8 becomes U+FFFD.
 */
#ifndef EDMCTL_PRINT_H
#define EDMCTL_PRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum output_type {
	PRINT_FP = 1,
	PRINT_JSON = 2,
	PRINT_ANY = PRINT_FP | PRINT_JSON,
};

/* fp NULL means stdout. */
void print_init(bool json, bool pretty, FILE *fp);
bool is_json_context(void);

void open_json_object(const char *key);
void close_json_object(void);
/* In text mode, type PRINT_FP/ANY prints key (open) or delim (close). */
void open_json_array(enum output_type type, const char *key);
void close_json_array(enum output_type type, const char *delim);

void print_string(enum output_type type, const char *key, const char *fmt,
		  const char *value);
void print_uint(enum output_type type, const char *key, const char *fmt,
		unsigned int value);
void print_u64(enum output_type type, const char *key, const char *fmt,
	       uint64_t value);
void print_int(enum output_type type, const char *key, const char *fmt,
	       int value);
void print_bool(enum output_type type, const char *key, const char *fmt,
		bool value);
void print_null(enum output_type type, const char *key, const char *fmt,
		const char *text);
/* A 6-byte MAC address as a string, "52:54:00:12:34:56". */
void print_mac(enum output_type type, const char *key, const char *fmt,
	       const unsigned char *mac);
/* Newline in text mode only. */
void print_nl(void);

/* Escape s as a JSON string (with quotes) into fp. */
void json_print_escaped(FILE *fp, const char *s);

#endif /* EDMCTL_PRINT_H */
