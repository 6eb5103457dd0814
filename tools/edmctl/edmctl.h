/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * edmctl: control tool for edm.ko (generic netlink family "edm").
 *
 * An object (version, dev, monitor, ...) lives in one obj_*.c file and
 * exports one struct edm_object: its name, its usage text and a table of
 * commands. edmctl.c only holds the table of objects and the option parser.
 */
#ifndef EDMCTL_H
#define EDMCTL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#ifndef EDMCTL_VERSION
#define EDMCTL_VERSION "0.1.0"
#endif

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Global options, set by main() before an object runs. */
struct edm_opts {
	bool json;		/* -j: print JSON */
	bool pretty;		/* -p: indent JSON */
	int stats;		/* -s: print statistics (may be repeated) */
	const char *netns;	/* -n NAME */
};
extern struct edm_opts opts;

struct edm_cmd {
	const char *name;
	/* argc/argv start after the command word. 0 on success. */
	int (*fn)(int argc, char **argv);
};

struct edm_object {
	const char *name;
	void (*usage)(FILE *fp);
	/*
	 * Commands, terminated by an entry with a NULL name. Entries that
	 * share fn are aliases of each other. NULL: the object has no
	 * commands and dflt gets all its arguments.
	 */
	const struct edm_cmd *cmds;
	/* Run when no command word is given (or always, if !cmds). */
	int (*dflt)(int argc, char **argv);
};

extern const struct edm_object obj_version;
extern const struct edm_object obj_dev;
extern const struct edm_object obj_monitor;
extern const struct edm_object obj_pool;
extern const struct edm_object obj_rack;
extern const struct edm_object obj_nicpool;
extern const struct edm_object obj_shpool;

/* Print "Error: <msg>." on stderr (the '.' is added if missing); returns -1. */
int edm_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "Warning: <msg>." on stderr. */
void edm_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "help", or a prefix of it (iproute2's matches(word, "help")). */
bool is_help(const char *word);

/*
 * Keyword argument helpers for "keyword VALUE" parsers: *argv is the
 * keyword. need_arg() fails with a message if there is no value after it.
 */
int need_arg(int argc, char **argv);
int dup_arg(const char *keyword);
int unknown_arg(const char *object, const char *word);
/* Strict decimal u32 ("1", not "01x", "-1" or ""). 0 on success. */
int parse_u32(const char *s, uint32_t *v);

/*
 * Table-driven enum names: names[v] is the word for value v (NULL for
 * holes). Value 0 (UNSPEC) is never accepted from the command line.
 */
int enum_from_word(const char *const *names, unsigned int n, const char *word,
		   uint32_t *v);
/* Word for v, or "unknown(v)" written into buf. */
const char *enum_to_word(const char *const *names, unsigned int n, uint32_t v,
			 char *buf, size_t len);
/* The accepted words joined by sep ("a | b"), into buf. */
void enum_join(char *buf, size_t len, const char *const *names,
	       unsigned int n, const char *sep);
/* "Error: unknown <what> "<word>", expected one of: a, b." Returns -1. */
int enum_bad_word(const char *what, const char *word,
		  const char *const *names, unsigned int n);
/*
 * "keyword WORD" where WORD names an enum value: checks that WORD is there,
 * that the keyword was not given before (*seen), and that WORD is known.
 * 0 with *v set and *seen true, or -1 after printing why.
 */
int parse_enum_arg(int argc, char **argv, const char *what,
		   const char *const *names, unsigned int n, bool *seen,
		   uint32_t *v);

#endif /* EDMCTL_H */
