// SPDX-License-Identifier: GPL-2.0-only
/*
 * edmctl unit tests: what the test files share, declared in unit.h. The check
 * counters and unit_expect(), the capture of edmctl's output into memory and
 * of stderr into a file, and the messages and printers that the tests of
 * several objects build and call.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <netlink/genl/genl.h>

#include <linux/edm.h>

#include "obj_cowbird.h"
#include "obj_dev.h"
#include "obj_region.h"
#include "print.h"

#include "unit.h"

int unit_failures;
int unit_checks;

static char *buf;
static size_t buflen;
FILE *unit_mem;

void unit_capture_start(bool json, bool pretty)
{
	unit_mem = open_memstream(&buf, &buflen);
	if (!unit_mem)
		abort();
	print_init(json, pretty, unit_mem);
}

/* Returns the captured text; valid until the next unit_capture_start(). */
const char *unit_capture_end(void)
{
	static char *last;

	fclose(unit_mem);
	unit_mem = NULL;
	print_init(false, false, NULL);
	free(last);
	last = buf;
	return buf;
}

/* Frees the last capture; main() and the output modes call it before they return. */
void unit_capture_free(void)
{
	unit_capture_start(false, false);	/* frees the last capture */
	unit_capture_end();
	free(buf);
}

void unit_expect(const char *what, const char *got, const char *want)
{
	unit_checks++;
	if (strcmp(got, want)) {
		unit_failures++;
		fprintf(stderr, "FAIL %s\n  got:  \"%s\"\n  want: \"%s\"\n",
			what, got, want);
	}
}

struct nl_msg *unit_dev_msg(uint8_t cmd)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg || !genlmsg_put(msg, 0, 0, FAMILY, 0, 0, cmd, EDM_GENL_VERSION))
		abort();
	return msg;
}

void unit_put_dev(struct nl_msg *msg, uint32_t id, const char *name,
		  uint32_t type)
{
	if (nla_put_u32(msg, EDM_A_DEV_ID, id) ||
	    nla_put_string(msg, EDM_A_DEV_NAME, name) ||
	    nla_put_u32(msg, EDM_A_DEV_TYPE, type))
		abort();
}

/* One device as "dev show" prints it: array of one. */
const char *unit_show_one(struct nl_msg *msg, bool json, bool pretty)
{
	struct edm_dev d;

	unit_capture_start(json, pretty);
	open_json_array(PRINT_JSON, NULL);
	if (dev_parse(nlmsg_hdr(msg), &d) == 0) {
		open_json_object(NULL);
		dev_print(&d);
		close_json_object();
		print_nl();
	}
	close_json_array(PRINT_JSON, NULL);
	return unit_capture_end();
}

const char *unit_monitor_one(struct nl_msg *msg, bool json)
{
	unit_capture_start(json, false);
	monitor_print_event(nlmsg_hdr(msg));
	return unit_capture_end();
}

void unit_put_u64_or_die(struct nl_msg *msg, int type, uint64_t v)
{
	if (nla_put_u64(msg, type, v))
		abort();
}

static int saved_stderr = -1;
static FILE *err_file;

void unit_err_capture_start(void)
{
	fflush(stderr);
	err_file = tmpfile();
	if (!err_file)
		abort();
	saved_stderr = dup(2);
	dup2(fileno(err_file), 2);
}

const char *unit_err_capture_end(void)
{
	static char text[4096];
	size_t n;

	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	rewind(err_file);
	n = fread(text, 1, sizeof(text) - 1, err_file);
	text[n] = '\0';
	fclose(err_file);
	return text;
}

/*
 * A stats nest of the counters first..last and, if more > 0, the counters
 * more..more_last (appended past another kind's run); counter attribute
 * a = base + a.
 */
void unit_put_counters_and(struct nl_msg *msg, int nest_type, int first, int last, int more,
			   int more_last, int base)
{
	struct nlattr *nest = nla_nest_start(msg, nest_type | NLA_F_NESTED);
	int a;

	/* The kernel pads u64s with the nest's PAD: it must be ignored. */
	if (!nest || nla_put(msg, EDM_A_FSTAT_PAD, 0, NULL))
		abort();
	for (a = first; a <= last; a++)
		unit_put_u64_or_die(msg, a, base + a);
	for (a = more; more > 0 && a <= more_last; a++)
		unit_put_u64_or_die(msg, a, base + a);
	nla_nest_end(msg, nest);
}

/* A stats nest of the counters first..last, counter attribute a = base + a. */
void unit_put_counters(struct nl_msg *msg, int nest_type, int first, int last, int base)
{
	unit_put_counters_and(msg, nest_type, first, last, 0, 0, base);
}

/* A counters' table names each attribute of first..last once, with distinct keys. */
void unit_check_stat_table(const char *what, unsigned int n, int (*attr)(unsigned int),
			   const char *(*key)(unsigned int), int first, int last)
{
	int seen[64] = { 0 };
	unsigned int i, j;
	int a;

	for (i = 0; i < n; i++) {
		a = attr(i);
		unit_checks++;
		if (a < first || a > last || seen[a]++) {
			unit_failures++;
			fprintf(stderr, "FAIL %s table: attribute %d\n", what, a);
		}
		for (j = 0; j < i; j++) {
			unit_checks++;
			if (!strcmp(key(i), key(j))) {
				unit_failures++;
				fprintf(stderr, "FAIL %s table: key %s twice\n", what, key(i));
			}
		}
	}
	for (a = first; a <= last; a++) {
		unit_checks++;
		if (seen[a] != 1) {
			unit_failures++;
			fprintf(stderr, "FAIL %s table: attribute %d missing\n", what, a);
		}
	}
}

/* Region 2 of mem0, 1 MiB, rekeyed 3 times; its key if @key; counters 3000 + a. */
struct nl_msg *unit_region_msg(uint8_t cmd, bool key)
{
	struct nl_msg *msg = unit_dev_msg(cmd);

	if (nla_put_u32(msg, EDM_A_REGION_ID, 2) ||
	    nla_put_u32(msg, EDM_A_REGION_KIND, EDM_REGION_KIND_FABRIC) ||
	    nla_put_string(msg, EDM_A_REGION_OWNER, "mem0") ||
	    nla_put(msg, EDM_A_REGION_PAD, 0, NULL) ||
	    nla_put_u64(msg, EDM_A_REGION_SIZE, MiB) ||
	    nla_put_u32(msg, EDM_A_REGION_KEY_GEN, 3) ||
	    (key && nla_put_u64(msg, EDM_A_REGION_KEY, 0xfedcba9876543210ULL)))
		abort();
	unit_put_counters(msg, EDM_A_REGION_STATS, EDM_A_RSTAT_READS, EDM_A_RSTAT_RANGE_ERRORS,
			  3000);
	return msg;
}

/* One entry as "region show" or "cowbird show" prints it, in an array. */
const char *unit_cb_one(struct nl_msg *msg, enum cb_kind kind, bool stats, bool json)
{
	int ret;

	unit_capture_start(json, false);
	open_json_array(PRINT_JSON, NULL);
	open_json_object(NULL);
	if (kind == CB_REGION)
		ret = region_print_msg(nlmsg_hdr(msg), stats);
	else if (kind == CB_ENGINE)
		ret = cowbird_print_engine(nlmsg_hdr(msg), stats);
	else
		ret = cowbird_print_inst(nlmsg_hdr(msg), stats);
	if (ret)
		print_string(PRINT_ANY, "malformed", "%s", "malformed");
	close_json_object();
	print_nl();
	close_json_array(PRINT_JSON, NULL);
	return unit_capture_end();
}
