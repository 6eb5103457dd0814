// SPDX-License-Identifier: GPL-2.0-only
/*
 * edmctl unit tests of print.c and util.c: JSON escaping and text mode of
 * the printers, enum words and number parsing; "unit json" prints tricky
 * JSON documents for an external JSON parser.
 */

#include <stdio.h>

#include <netlink/msg.h>

#include <linux/edm.h>

#include "edmctl.h"
#include "print.h"

#include "unit.h"

void test_json_escape(void)
{
	const char *s;

	unit_capture_start(true, false);
	open_json_object(NULL);
	print_string(PRINT_ANY, "q", "%s", "a\"b\\c/d");
	print_string(PRINT_ANY, "ctl", "%s", "\n\t\r\b\f\x01\x1f\x7f");
	print_string(PRINT_ANY, "utf8", "%s", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	print_string(PRINT_ANY, "bad", "%s", "\xff\xc3(\xe0\x80\x80\xed\xa0\x80\xf4\x90\x80\x80x");
	print_string(PRINT_ANY, "k\"ey", "%s", "");
	print_string(PRINT_ANY, "null", "%s", NULL);
	print_uint(PRINT_ANY, "u", "%u", 4294967295u);
	print_u64(PRINT_ANY, "u64", "%llu", 18446744073709551615ull);
	print_int(PRINT_ANY, "i", "%d", -5);
	print_bool(PRINT_ANY, "b", "%s", true);
	print_string(PRINT_FP, "textonly", "%s", "nope");
	open_json_array(PRINT_JSON, "arr");
	print_uint(PRINT_ANY, NULL, "%u", 1);
	open_json_object(NULL);
	close_json_object();
	open_json_array(PRINT_JSON, NULL);
	close_json_array(PRINT_JSON, NULL);
	close_json_array(PRINT_JSON, NULL);
	close_json_object();
	s = unit_capture_end();
	unit_expect("json escaping", s,
		    "{\"q\":\"a\\\"b\\\\c/d\","
		    "\"ctl\":\"\\n\\t\\r\\b\\f\\u0001\\u001f\\u007f\","
		    "\"utf8\":\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\","
		    "\"bad\":\"\\ufffd\\ufffd(\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd"
		    "\\ufffd\\ufffd\\ufffd\\ufffd\\ufffdx\","
		    "\"k\\\"ey\":\"\","
		    "\"null\":null,"
		    "\"u\":4294967295,"
		    "\"u64\":18446744073709551615,"
		    "\"i\":-5,"
		    "\"b\":true,"
		    "\"arr\":[1,{},[]]}\n");

	/* Text mode ignores JSON-only output. */
	unit_capture_start(false, false);
	open_json_object(NULL);
	print_string(PRINT_JSON, "j", "%s", "nope");
	print_string(PRINT_ANY, "k", "k %s", "v");
	close_json_object();
	print_nl();
	unit_expect("text mode", unit_capture_end(), "k v\n");

	/* Empty array, pretty. */
	unit_capture_start(true, true);
	open_json_array(PRINT_JSON, NULL);
	close_json_array(PRINT_JSON, NULL);
	unit_expect("empty array pretty", unit_capture_end(), "[]\n");

	/* A device name with quotes, through the device printer. */
	{
		struct nl_msg *msg = unit_dev_msg(EDM_CMD_DEV_GET);

		unit_put_dev(msg, 9, "a\"b\\c", EDM_DEV_TYPE_NULL);
		unit_expect("dev name escaped", unit_show_one(msg, true, false),
			    "[{\"id\":9,\"name\":\"a\\\"b\\\\c\",\"type\":\"null\"}]\n");
		nlmsg_free(msg);
	}
}

void test_words(void)
{
	static const char *const w[] = { "unspec", "null", NULL, "soft" };
	uint32_t v = 0;
	char b[32];

	unit_checks += 5;
	if (enum_from_word(w, ARRAY_SIZE(w), "null", &v) || v != 1)
		unit_failures++, fprintf(stderr, "FAIL enum null\n");
	if (!enum_from_word(w, ARRAY_SIZE(w), "unspec", &v))
		unit_failures++, fprintf(stderr, "FAIL enum unspec accepted\n");
	if (enum_from_word(w, ARRAY_SIZE(w), "soft", &v) || v != 3)
		unit_failures++, fprintf(stderr, "FAIL enum soft\n");
	if (parse_u32("4294967295", &v) || v != 4294967295u)
		unit_failures++, fprintf(stderr, "FAIL u32 max\n");
	if (!parse_u32("4294967296", &v) || !parse_u32("-1", &v) ||
	    !parse_u32("", &v) || !parse_u32("1x", &v) || !parse_u32(" 1", &v))
		unit_failures++, fprintf(stderr, "FAIL u32 junk accepted\n");
	enum_join(b, sizeof(b), w, ARRAY_SIZE(w), " | ");
	unit_expect("enum_join", b, "null | soft");
	unit_expect("enum_to_word", enum_to_word(w, ARRAY_SIZE(w), 2, b, sizeof(b)),
		    "unknown(2)");
}

/* Documents for an external JSON parser: every tricky case at once. */
int emit_json(void)
{
	struct nl_msg *msg = unit_dev_msg(EDM_CMD_DEV_NEW);
	int pretty;

	unit_put_dev(msg, 7, "q\"uo\\te\n\x01\xff", 99);
	for (pretty = 0; pretty < 2; pretty++) {
		print_init(true, pretty, stdout);
		fputs(unit_show_one(msg, true, pretty), stdout);
		print_init(true, pretty, stdout);
		monitor_print_event(nlmsg_hdr(msg));
	}
	nlmsg_free(msg);
	unit_capture_free();
	return 0;
}
