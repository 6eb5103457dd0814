/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What ip(8)'s plug-ins in this directory use of iproute2: struct
 * link_util and the helpers ip exports (it is linked with
 * -export-dynamic). iproute2 has no public header for plug-ins, so they
 * are declared here as iproute2 6.1 (Debian 12) defines them; the
 * plug-ins are tested with that version only. Also the small parsers the
 * plug-ins share.
 */
#ifndef _EDM_IPLINK_H
#define _EDM_IPLINK_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>

struct link_util {
	struct link_util *next;
	const char *id;
	int maxattr;
	int (*parse_opt)(struct link_util *lu, int argc, char **argv, struct nlmsghdr *n);
	void (*print_opt)(struct link_util *lu, FILE *f, struct rtattr *tb[]);
	void (*print_xstats)(struct link_util *lu, FILE *f, struct rtattr *xstats);
	void (*print_help)(struct link_util *lu, int argc, char **argv, FILE *f);
	int (*parse_ifla_xstats)(struct link_util *lu, int argc, char **argv);
	int (*print_ifla_xstats)(struct nlmsghdr *n, void *arg);
};

enum output_type { PRINT_FP = 1, PRINT_JSON = 2, PRINT_ANY = 4 };
enum { COLOR_NONE = 6 };	/* the last of iproute2's enum color_attr */

int addattr_l(struct nlmsghdr *n, int maxlen, int type, const void *data, int alen);
int addattr32(struct nlmsghdr *n, int maxlen, int type, uint32_t data);
int addattr64(struct nlmsghdr *n, int maxlen, int type, uint64_t data);
unsigned int ll_name_to_index(const char *name);
int print_color_string(enum output_type t, int color, const char *key, const char *fmt,
		       const char *value);
int print_color_uint(enum output_type t, int color, const char *key, const char *fmt,
		     unsigned int value);
int print_color_u64(enum output_type t, int color, const char *key, const char *fmt,
		    uint64_t value);

#define IPLINK_MSG_MAX	1024	/* ip's request buffer */

/* A u32 option's value, decimal or 0x hex; 0 on success. */
static inline int iplink_u32(const char *arg, uint32_t *v)
{
	unsigned long long x;
	char *end;

	errno = 0;
	x = strtoull(arg, &end, 0);
	if (errno || end == arg || *end || x > UINT32_MAX || *arg == '-')
		return -1;
	*v = x;
	return 0;
}

/* A size in bytes, with an optional K, M or G; 0 on success. */
static inline int iplink_size(const char *arg, uint64_t *v)
{
	unsigned long long x;
	char *end;
	int shift = 0;

	errno = 0;
	x = strtoull(arg, &end, 0);
	if (errno || end == arg || *arg == '-')
		return -1;
	switch (*end) {
	case 'K': case 'k': shift = 10; end++; break;
	case 'M': case 'm': shift = 20; end++; break;
	case 'G': case 'g': shift = 30; end++; break;
	}
	if (*end || x > (UINT64_MAX >> shift))
		return -1;
	*v = (uint64_t)x << shift;
	return 0;
}

static inline uint32_t iplink_get_u32(const struct rtattr *a)
{
	uint32_t v;

	memcpy(&v, RTA_DATA(a), sizeof(v));
	return v;
}

static inline int iplink_bad(const char *kind, const char *what, const char *arg)
{
	fprintf(stderr, "Error: %s: invalid %s \"%s\"\n", kind, what, arg);
	return -1;
}

/*
 * What every option of a parse loop checks first: "help" prints @usage and
 * exits; any other word needs a value. 0: go on; -1: said why on stderr.
 */
static inline int iplink_opt_start(const char *kind, const char *key, const char *arg,
				   void (*usage)(FILE *f))
{
	if (!strcmp(key, "help")) {
		usage(stdout);
		exit(0);
	}
	if (!arg) {
		fprintf(stderr, "Error: %s: \"%s\" needs a value\n", kind, key);
		return -1;
	}
	return 0;
}

static inline int iplink_unknown(const char *kind, const char *key, void (*usage)(FILE *f))
{
	fprintf(stderr, "Error: %s: unknown option \"%s\"\n", kind, key);
	usage(stderr);
	return -1;
}

/* A u32 parameter: its word on ip's command line (NULL: the kernel's, shown only). */
struct iplink_u32_opt {
	const char *opt, *json, *fmt;
	int attr;
};

/*
 * Adds u32 option @key's attribute, its value @arg: 0; 1 when @key is none
 * of @opts; -1 for a bad value (said on stderr).
 */
static inline int iplink_put_u32(const char *kind, const struct iplink_u32_opt *opts, size_t n,
				 const char *key, const char *arg, struct nlmsghdr *nl)
{
	uint32_t u;
	size_t i;

	for (i = 0; i < n; i++)
		if (opts[i].opt && !strcmp(key, opts[i].opt))
			break;
	if (i == n)
		return 1;
	if (iplink_u32(arg, &u))
		return iplink_bad(kind, key, arg);
	addattr32(nl, IPLINK_MSG_MAX, opts[i].attr, u);
	return 0;
}

/* Prints those of @opts that @tb carries, in their order. */
static inline void iplink_print_u32s(const struct iplink_u32_opt *opts, size_t n,
				     struct rtattr *tb[])
{
	size_t i;

	for (i = 0; i < n; i++)
		if (tb[opts[i].attr])
			print_color_uint(PRINT_ANY, COLOR_NONE, opts[i].json, opts[i].fmt,
					 iplink_get_u32(tb[opts[i].attr]));
}

#define IPLINK_N(a)	(sizeof(a) / sizeof((a)[0]))

#endif /* _EDM_IPLINK_H */
