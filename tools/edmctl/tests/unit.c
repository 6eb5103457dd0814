// SPDX-License-Identifier: GPL-2.0-only
/*
 * edmctl unit tests: no kernel module needed. Messages are built with
 * libnl the way the kernel would send them and fed to edmctl's parsers and
 * printers; the output is compared byte for byte.
 *
 *   tests/unit            run the tests, exit 1 on any failure
 *   tests/unit json       print tricky JSON documents (for a JSON parser)
 *   tests/unit fabric-json
 *                         print "fabric show -s" of a switch and a host and
 *                         "fabric link show -s" of a link end as JSON
 *                         (cli.sh holds their keys to the uapi header)
 *   tests/unit netdimm-json
 *                         print "netdimm show -s" of a full message as JSON
 *                         (cli.sh holds its keys to the uapi header)
 *   tests/unit cowbird-json
 *                         print "region show -s" and "cowbird show -s" of full
 *                         messages as JSON (cli.sh holds their keys to the
 *                         uapi header)
 *   tests/unit monitor    edm_nl_monitor() on nlctrl's "notify" group until
 *                         SIGINT/SIGTERM (cli.sh checks it exits 0)
 *
 * The tests are in test_<name>.c, one file for each obj_<name>.c they test,
 * test_print.c for print.c and util.c, test_nl.c for nl.c: its request/reply
 * machinery (sequence checks, ACKs, dumps, kernel errors with extended ACK)
 * is tested live against the kernel's own "nlctrl" family, which every
 * kernel has. What they share is in harness.c, declared in unit.h.
 */
#include <stdio.h>
#include <string.h>

#include "unit.h"

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "json"))
		return emit_json();
	if (argc > 1 && !strcmp(argv[1], "monitor"))
		return monitor_nlctrl();
	if (argc > 1 && !strcmp(argv[1], "netdimm-json"))
		return emit_netdimm_json();
	if (argc > 1 && !strcmp(argv[1], "fabric-json"))
		return emit_fabric_json();
	if (argc > 1 && !strcmp(argv[1], "cowbird-json"))
		return emit_cowbird_json();

	test_dev_basic();
	test_dev_forward_compat();
	test_truncated();
	test_json_escape();
	test_monitor();
	test_netdimm_views();
	test_netdimm_fields();
	test_netdimm_monitor();
	test_netdimm_sizes();
	test_netdimm_stat_table();
	test_extack();
	test_words();
	test_fabric_nodes();
	test_fabric_links();
	test_fabric_monitor();
	test_fabric_stat_tables();
	test_fabric_parse();
	test_region();
	test_cowbird();
	test_shpool_monitor();
	test_live_nlctrl();

	unit_capture_free();
	printf("unit: %d checks, %d failures\n", unit_checks, unit_failures);
	return unit_failures ? 1 : 0;
}
