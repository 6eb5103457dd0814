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

/* obj_monitor.c's event printer; edmctl.c reaches it through its command table. */
int monitor_print_event(struct nlmsghdr *nlh);

#define FAMILY	0x1234

#define MiB	(1ULL << 20)

enum cb_kind { CB_REGION, CB_ENGINE, CB_INST };

/* harness.c */
extern int failures;
extern int checks;
extern char *buf;
extern FILE *mem;

void capture_start(bool json, bool pretty);
const char *capture_end(void);
void expect(const char *what, const char *got, const char *want);
struct nl_msg *dev_msg(uint8_t cmd);
void put_dev(struct nl_msg *msg, uint32_t id, const char *name,
	     uint32_t type, uint32_t backend);
const char *show_one(struct nl_msg *msg, bool json, bool pretty);
const char *monitor_one(struct nl_msg *msg, bool json);
void put_u64_or_die(struct nl_msg *msg, int type, uint64_t v);
void err_capture_start(void);
const char *err_capture_end(void);
void put_counters(struct nl_msg *msg, int nest_type, int first, int last, int base);
void check_stat_table(const char *what, unsigned int n, int (*attr)(unsigned int),
		      const char *(*key)(unsigned int), int first, int last);
struct nl_msg *region_msg(uint8_t cmd, bool key);
const char *cb_one(struct nl_msg *msg, enum cb_kind kind, bool stats, bool json);

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
