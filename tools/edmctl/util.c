// SPDX-License-Identifier: GPL-2.0-only
/*
 * edmctl: global options, error messages and argument helpers.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "edmctl.h"

struct edm_opts opts;

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	char buf[2048];
	size_t len;

	vsnprintf(buf, sizeof(buf), fmt, ap);
	len = strlen(buf);
	/* Keep stdout and stderr in order on a terminal. */
	fflush(stdout);
	fprintf(stderr, "%s%s%s\n", prefix, buf,
		len && buf[len - 1] == '.' ? "" : ".");
}

int edm_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("Error: ", fmt, ap);
	va_end(ap);
	return -1;
}

void edm_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("Warning: ", fmt, ap);
	va_end(ap);
}

bool is_help(const char *word)
{
	size_t len = strlen(word);

	return len && !strncmp("help", word, len);
}

int need_arg(int argc, char **argv)
{
	if (argc < 2)
		return edm_err("\"%s\" needs an argument", argv[0]);
	return 0;
}

int dup_arg(const char *keyword)
{
	return edm_err("duplicate \"%s\"", keyword);
}

int unknown_arg(const char *object, const char *word)
{
	return edm_err("unknown argument \"%s\", try \"edmctl %s help\"",
		       word, object);
}

int parse_u32(const char *s, uint32_t *v)
{
	unsigned long long val;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	val = strtoull(s, &end, 10);
	if (errno || *end || val > UINT32_MAX)
		return -1;
	*v = (uint32_t)val;
	return 0;
}

int enum_from_word(const char *const *names, unsigned int n, const char *word,
		   uint32_t *v)
{
	unsigned int i;

	for (i = 1; i < n; i++) {
		if (names[i] && !strcmp(names[i], word)) {
			*v = i;
			return 0;
		}
	}
	return -1;
}

const char *enum_to_word(const char *const *names, unsigned int n, uint32_t v,
			 char *buf, size_t len)
{
	if (v < n && names[v])
		return names[v];
	snprintf(buf, len, "unknown(%u)", v);
	return buf;
}

void enum_join(char *buf, size_t len, const char *const *names,
	       unsigned int n, const char *sep)
{
	size_t used = 0;
	unsigned int i;
	int w;

	if (!len)
		return;
	buf[0] = '\0';
	for (i = 1; i < n; i++) {
		if (!names[i])
			continue;
		w = snprintf(buf + used, len - used, "%s%s",
			     used ? sep : "", names[i]);
		if (w < 0 || (size_t)w >= len - used)
			return;		/* truncated, still terminated */
		used += w;
	}
}

int enum_bad_word(const char *what, const char *word,
		  const char *const *names, unsigned int n)
{
	char list[512];

	enum_join(list, sizeof(list), names, n, ", ");
	return edm_err("unknown %s \"%s\", expected one of: %s",
		       what, word, list);
}

int parse_enum_arg(int argc, char **argv, const char *what,
		   const char *const *names, unsigned int n, bool *seen,
		   uint32_t *v)
{
	if (need_arg(argc, argv))
		return -1;
	if (*seen)
		return dup_arg(argv[0]);
	if (enum_from_word(names, n, argv[1], v))
		return enum_bad_word(what, argv[1], names, n);
	*seen = true;
	return 0;
}
