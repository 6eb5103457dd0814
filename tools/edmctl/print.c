// SPDX-License-Identifier: GPL-2.0-only
/*
 * edmctl: text and JSON output (see print.h).
 */
#include <inttypes.h>
#include <stdlib.h>

#include "print.h"

#define JSON_MAX_DEPTH	32
#define JSON_INDENT	"    "

struct json_frame {
	bool array;
	unsigned int count;	/* values written so far */
};

static FILE *out_fp;
static bool json;
static bool pretty;
static struct json_frame stack[JSON_MAX_DEPTH];
static int depth;

static FILE *out(void)
{
	return out_fp ? out_fp : stdout;
}

void print_init(bool want_json, bool want_pretty, FILE *fp)
{
	json = want_json;
	pretty = want_pretty;
	out_fp = fp;
	depth = 0;
}

bool is_json_context(void)
{
	return json;
}

/* Length of a valid UTF-8 sequence at s, 0 if it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
			return 0;
		if (c == 0xe0 && s[1] < 0xa0)		/* overlong */
			return 0;
		if (c == 0xed && s[1] >= 0xa0)		/* surrogate */
			return 0;
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 ||
		    (s[3] & 0xc0) != 0x80)
			return 0;
		if (c == 0xf0 && s[1] < 0x90)		/* overlong */
			return 0;
		if (c == 0xf4 && s[1] >= 0x90)		/* > U+10FFFF */
			return 0;
		return 4;
	}
	return 0;
}

void json_print_escaped(FILE *fp, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n;

	fputc('"', fp);
	while (*s) {
		switch (*s) {
		case '"':
			fputs("\\\"", fp);
			break;
		case '\\':
			fputs("\\\\", fp);
			break;
		case '\b':
			fputs("\\b", fp);
			break;
		case '\f':
			fputs("\\f", fp);
			break;
		case '\n':
			fputs("\\n", fp);
			break;
		case '\r':
			fputs("\\r", fp);
			break;
		case '\t':
			fputs("\\t", fp);
			break;
		default:
			if (*s < 0x20 || *s == 0x7f) {
				fprintf(fp, "\\u%04x", *s);
				break;
			}
			n = utf8_len(s);
			if (!n) {
				fputs("\\ufffd", fp);
				break;
			}
			fwrite(s, 1, n, fp);
			s += n;
			continue;
		}
		s++;
	}
	fputc('"', fp);
}

static void json_newline_indent(void)
{
	int i;

	fputc('\n', out());
	for (i = 0; i < depth; i++)
		fputs(JSON_INDENT, out());
}

/* Separator, indentation and key before a value. */
static void json_begin_value(const char *key)
{
	struct json_frame *f;

	if (!depth)
		return;
	f = &stack[depth - 1];
	if (f->count++)
		fputc(',', out());
	if (pretty)
		json_newline_indent();
	if (!f->array) {
		json_print_escaped(out(), key ? key : "");
		fputs(pretty ? ": " : ":", out());
	}
}

static void json_end_value(void)
{
	if (!depth) {
		fputc('\n', out());
		fflush(out());
	}
}

static void json_open(const char *key, bool array)
{
	json_begin_value(key);
	fputc(array ? '[' : '{', out());
	if (depth >= JSON_MAX_DEPTH)
		abort();	/* programming error: nesting too deep */
	stack[depth].array = array;
	stack[depth].count = 0;
	depth++;
}

static void json_close(bool array)
{
	if (depth <= 0 || stack[depth - 1].array != array)
		abort();	/* programming error: unbalanced open/close */
	depth--;
	if (pretty && stack[depth].count)
		json_newline_indent();
	fputc(array ? ']' : '}', out());
	json_end_value();
}

void open_json_object(const char *key)
{
	if (json)
		json_open(key, false);
}

void close_json_object(void)
{
	if (json)
		json_close(false);
}

void open_json_array(enum output_type type, const char *key)
{
	if (json) {
		if (type & PRINT_JSON)
			json_open(key, true);
	} else if ((type & PRINT_FP) && key) {
		fputs(key, out());
	}
}

void close_json_array(enum output_type type, const char *delim)
{
	if (json) {
		if (type & PRINT_JSON)
			json_close(true);
	} else if ((type & PRINT_FP) && delim) {
		fputs(delim, out());
	}
}

/* True if this field goes out in the current mode. */
static bool want(enum output_type type)
{
	return json ? (type & PRINT_JSON) : (type & PRINT_FP);
}

void print_string(enum output_type type, const char *key, const char *fmt,
		  const char *value)
{
	if (!want(type))
		return;
	if (json) {
		json_begin_value(key);
		if (value)
			json_print_escaped(out(), value);
		else
			fputs("null", out());
		json_end_value();
	} else if (fmt) {
		fprintf(out(), fmt, value ? value : "");
	}
}

void print_uint(enum output_type type, const char *key, const char *fmt,
		unsigned int value)
{
	if (!want(type))
		return;
	if (json) {
		json_begin_value(key);
		fprintf(out(), "%u", value);
		json_end_value();
	} else if (fmt) {
		fprintf(out(), fmt, value);
	}
}

void print_u64(enum output_type type, const char *key, const char *fmt,
	       uint64_t value)
{
	if (!want(type))
		return;
	if (json) {
		json_begin_value(key);
		fprintf(out(), "%" PRIu64, value);
		json_end_value();
	} else if (fmt) {
		fprintf(out(), fmt, value);
	}
}

void print_int(enum output_type type, const char *key, const char *fmt,
	       int value)
{
	if (!want(type))
		return;
	if (json) {
		json_begin_value(key);
		fprintf(out(), "%d", value);
		json_end_value();
	} else if (fmt) {
		fprintf(out(), fmt, value);
	}
}

void print_mac(enum output_type type, const char *key, const char *fmt,
	       const unsigned char *mac)
{
	char buf[18];

	snprintf(buf, sizeof(buf), "%02x:%02x:%02x:%02x:%02x:%02x",
		 mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
	print_string(type, key, fmt, buf);
}

void print_bool(enum output_type type, const char *key, const char *fmt,
		bool value)
{
	if (!want(type))
		return;
	if (json) {
		json_begin_value(key);
		fputs(value ? "true" : "false", out());
		json_end_value();
	} else if (fmt) {
		fprintf(out(), fmt, value ? "true" : "false");
	}
}

void print_null(enum output_type type, const char *key, const char *fmt,
		const char *text)
{
	if (!want(type))
		return;
	if (json) {
		json_begin_value(key);
		fputs("null", out());
		json_end_value();
	} else if (fmt) {
		fprintf(out(), fmt, text ? text : "");
	}
}

void print_nl(void)
{
	if (!json)
		fputc('\n', out());
}
