/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * edmctl unit tests: the helpers harness.c shares with the tests, and the
 * tests and output modes of tests/test_*.c that main() in unit.c runs.
 */
#ifndef EDMCTL_TESTS_UNIT_H
#define EDMCTL_TESTS_UNIT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <netlink/msg.h>

/* obj_monitor.c's event printer, which has no header: 1 if printed, 0 if not. */
int monitor_print_event(struct nlmsghdr *nlh);

/* The genl family id of the messages the tests build. */
#define FAMILY	0x1234

#define MiB	(1ULL << 20)

/* What unit_cb_one() prints: "region show", the engine or an instance. */
enum cb_kind { CB_REGION, CB_ENGINE, CB_INST };

/* harness.c */
extern int unit_failures;
extern int unit_checks;
extern FILE *unit_mem;		/* edmctl prints here while a capture is on */

void unit_capture_start(bool json, bool pretty);
const char *unit_capture_end(void);
void unit_capture_free(void);
void unit_expect(const char *what, const char *got, const char *want);
struct nl_msg *unit_dev_msg(uint8_t cmd);
void unit_put_dev(struct nl_msg *msg, uint32_t id, const char *name,
		  uint32_t type);
const char *unit_show_one(struct nl_msg *msg, bool json, bool pretty);
const char *unit_monitor_one(struct nl_msg *msg, bool json);
void unit_put_u64_or_die(struct nl_msg *msg, int type, uint64_t v);
void unit_err_capture_start(void);
const char *unit_err_capture_end(void);
void unit_put_counters(struct nl_msg *msg, int nest_type, int first, int last, int base);
void unit_put_counters_and(struct nl_msg *msg, int nest_type, int first, int last, int more,
			   int more_last,
			   int base);
void unit_check_stat_table(const char *what, unsigned int n, int (*attr)(unsigned int),
			   const char *(*key)(unsigned int), int first, int last);
struct nl_msg *unit_region_msg(uint8_t cmd, bool key);
const char *unit_cb_one(struct nl_msg *msg, enum cb_kind kind, bool stats, bool json);

/* test_dev.c */
void test_dev_basic(void);
void test_dev_forward_compat(void);
void test_truncated(void);

/* test_print.c */
void test_json_escape(void);
void test_words(void);
int emit_json(void);

/* test_monitor.c */
void test_monitor(void);

/* test_netdimm.c */
void test_netdimm_views(void);
void test_netdimm_fields(void);
void test_netdimm_monitor(void);
void test_netdimm_sizes(void);
void test_netdimm_stat_table(void);
int emit_netdimm_json(void);

/* test_nl.c */
void test_extack(void);
void test_live_nlctrl(void);
int monitor_nlctrl(void);

/* test_fabric.c */
void test_fabric_nodes(void);
void test_fabric_links(void);
void test_fabric_monitor(void);
void test_fabric_stat_tables(void);
void test_fabric_parse(void);
int emit_fabric_json(void);

/* test_region.c */
void test_region(void);

/* test_shpool.c */
void test_shpool_monitor(void);

/* test_cowbird.c */
void test_cowbird(void);
int emit_cowbird_json(void);

#endif /* EDMCTL_TESTS_UNIT_H */
