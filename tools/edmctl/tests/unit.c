// SPDX-License-Identifier: GPL-2.0-only
/*
 * edmctl unit tests: no kernel module needed. Messages are built with
 * libnl the way the kernel would send them and fed to edmctl's parsers and
 * printers; the output is compared byte for byte.
 *
 *   tests/unit            run the tests, exit 1 on any failure
 *   tests/unit json       print tricky JSON documents (for a JSON parser)
 *   tests/unit monitor    edm_nl_monitor() on nlctrl's "notify" group until
 *                         SIGINT/SIGTERM (cli.sh checks it exits 0)
 *
 * The request/reply machinery (sequence checks, ACKs, dumps, kernel errors
 * with extended ACK) is tested live against the kernel's own "nlctrl"
 * family, which every kernel has.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <netlink/genl/genl.h>

#include <linux/edm.h>

#include "edmctl.h"
#include "nl.h"
#include "obj_dev.h"
#include "print.h"

int monitor_print_event(struct nlmsghdr *nlh);

#define FAMILY	0x1234

static int failures;
static int checks;

static char *buf;
static size_t buflen;
static FILE *mem;

static void capture_start(bool json, bool pretty)
{
	mem = open_memstream(&buf, &buflen);
	if (!mem)
		abort();
	print_init(json, pretty, mem);
}

/* Returns the captured text; valid until the next capture_start(). */
static const char *capture_end(void)
{
	static char *last;

	fclose(mem);
	mem = NULL;
	print_init(false, false, NULL);
	free(last);
	last = buf;
	return buf;
}

static void expect(const char *what, const char *got, const char *want)
{
	checks++;
	if (strcmp(got, want)) {
		failures++;
		fprintf(stderr, "FAIL %s\n  got:  \"%s\"\n  want: \"%s\"\n",
			what, got, want);
	}
}

static struct nl_msg *dev_msg(uint8_t cmd)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg || !genlmsg_put(msg, 0, 0, FAMILY, 0, 0, cmd, EDM_GENL_VERSION))
		abort();
	return msg;
}

static void put_dev(struct nl_msg *msg, uint32_t id, const char *name,
		    uint32_t type, uint32_t backend)
{
	if (nla_put_u32(msg, EDM_A_DEV_ID, id) ||
	    nla_put_string(msg, EDM_A_DEV_NAME, name) ||
	    nla_put_u32(msg, EDM_A_DEV_TYPE, type) ||
	    nla_put_u32(msg, EDM_A_DEV_BACKEND, backend))
		abort();
}

/* One device as "dev show" prints it: array of one. */
static const char *show_one(struct nl_msg *msg, bool json, bool pretty)
{
	struct edm_dev d;

	capture_start(json, pretty);
	open_json_array(PRINT_JSON, NULL);
	if (dev_parse(nlmsg_hdr(msg), &d) == 0) {
		open_json_object(NULL);
		dev_print(&d);
		close_json_object();
		print_nl();
	}
	close_json_array(PRINT_JSON, NULL);
	return capture_end();
}

static void test_dev_basic(void)
{
	struct nl_msg *msg = dev_msg(EDM_CMD_DEV_GET);

	put_dev(msg, 1, "dev0", EDM_DEV_TYPE_NULL, EDM_BACKEND_SOFT);
	expect("dev text", show_one(msg, false, false),
	       "1: name dev0 type null backend soft\n");
	expect("dev json", show_one(msg, true, false),
	       "[{\"id\":1,\"name\":\"dev0\",\"type\":\"null\",\"backend\":\"soft\"}]\n");
	expect("dev json pretty", show_one(msg, true, true),
	       "[\n"
	       "    {\n"
	       "        \"id\": 1,\n"
	       "        \"name\": \"dev0\",\n"
	       "        \"type\": \"null\",\n"
	       "        \"backend\": \"soft\"\n"
	       "    }\n"
	       "]\n");
	nlmsg_free(msg);
}

static void test_dev_forward_compat(void)
{
	struct nl_msg *msg = dev_msg(EDM_CMD_DEV_GET);
	struct nlattr *nest;
	uint64_t big = 42;

	/* Unknown attributes before, between and after the known ones. */
	if (nla_put_u32(msg, EDM_A_DEV_MAX + 1, 7) ||
	    nla_put(msg, 200, 3, "abc") ||
	    nla_put(msg, EDM_A_DEV_MAX + 7, 0, NULL))
		abort();
	put_dev(msg, 3, "x", EDM_DEV_TYPE_NULL, EDM_BACKEND_SOFT);
	nest = nla_nest_start(msg, (EDM_A_DEV_MAX + 2) | NLA_F_NESTED);
	if (!nest || nla_put_u64(msg, 1, big))
		abort();
	nla_nest_end(msg, nest);
	expect("unknown attrs ignored", show_one(msg, false, false),
	       "3: name x type null backend soft\n");
	nlmsg_free(msg);

	/* Unknown enum values (a newer module) print, never crash. */
	msg = dev_msg(EDM_CMD_DEV_GET);
	put_dev(msg, 4, "y", 77, 0xffffffffu);
	expect("unknown enums text", show_one(msg, false, false),
	       "4: name y type unknown(77) backend unknown(4294967295)\n");
	expect("unknown enums json", show_one(msg, true, false),
	       "[{\"id\":4,\"name\":\"y\",\"type\":\"unknown(77)\","
	       "\"backend\":\"unknown(4294967295)\"}]\n");
	nlmsg_free(msg);

	/* Wrong sizes and an unterminated string are treated as absent. */
	msg = dev_msg(EDM_CMD_DEV_GET);
	if (nla_put_u32(msg, EDM_A_DEV_ID, 5) ||
	    nla_put(msg, EDM_A_DEV_NAME, 3, "abc") ||
	    nla_put_u64(msg, EDM_A_DEV_TYPE, 1) ||
	    nla_put_u8(msg, EDM_A_DEV_BACKEND, 1))
		abort();
	expect("malformed attrs text", show_one(msg, false, false), "5:\n");
	expect("malformed attrs json", show_one(msg, true, false),
	       "[{\"id\":5}]\n");
	nlmsg_free(msg);

	/* No attributes at all. */
	msg = dev_msg(EDM_CMD_DEV_GET);
	expect("no attrs json", show_one(msg, true, false), "[{}]\n");
	nlmsg_free(msg);
}

static void test_truncated(void)
{
	struct nlmsghdr hdr = {
		.nlmsg_len = NLMSG_HDRLEN,	/* no genl header */
		.nlmsg_type = FAMILY,
	};
	struct edm_dev d;

	checks++;
	if (dev_parse(&hdr, &d) != -1) {
		failures++;
		fprintf(stderr, "FAIL truncated message accepted\n");
	}
}

static void test_json_escape(void)
{
	const char *s;

	capture_start(true, false);
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
	s = capture_end();
	expect("json escaping", s,
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
	capture_start(false, false);
	open_json_object(NULL);
	print_string(PRINT_JSON, "j", "%s", "nope");
	print_string(PRINT_ANY, "k", "k %s", "v");
	close_json_object();
	print_nl();
	expect("text mode", capture_end(), "k v\n");

	/* Empty array, pretty. */
	capture_start(true, true);
	open_json_array(PRINT_JSON, NULL);
	close_json_array(PRINT_JSON, NULL);
	expect("empty array pretty", capture_end(), "[]\n");

	/* A device name with quotes, through the device printer. */
	{
		struct nl_msg *msg = dev_msg(EDM_CMD_DEV_GET);

		put_dev(msg, 9, "a\"b\\c", EDM_DEV_TYPE_NULL, EDM_BACKEND_SOFT);
		expect("dev name escaped", show_one(msg, true, false),
		       "[{\"id\":9,\"name\":\"a\\\"b\\\\c\",\"type\":\"null\",\"backend\":\"soft\"}]\n");
		nlmsg_free(msg);
	}
}

static const char *monitor_one(struct nl_msg *msg, bool json)
{
	capture_start(json, false);
	monitor_print_event(nlmsg_hdr(msg));
	return capture_end();
}

static void test_monitor(void)
{
	struct nl_msg *msg;

	msg = dev_msg(EDM_CMD_DEV_NEW);
	put_dev(msg, 1, "dev0", EDM_DEV_TYPE_NULL, EDM_BACKEND_SOFT);
	expect("monitor new text", monitor_one(msg, false),
	       "dev new 1: name dev0 type null backend soft\n");
	expect("monitor new json", monitor_one(msg, true),
	       "{\"object\":\"dev\",\"event\":\"new\",\"id\":1,\"name\":\"dev0\","
	       "\"type\":\"null\",\"backend\":\"soft\"}\n");
	nlmsg_free(msg);

	msg = dev_msg(EDM_CMD_DEV_DEL);
	put_dev(msg, 1, "dev0", EDM_DEV_TYPE_NULL, EDM_BACKEND_SOFT);
	expect("monitor del text", monitor_one(msg, false),
	       "dev del 1: name dev0 type null backend soft\n");
	nlmsg_free(msg);

	/* An event command we do not know is skipped silently. */
	msg = dev_msg(EDM_CMD_MAX + 5);
	put_dev(msg, 1, "dev0", EDM_DEV_TYPE_NULL, EDM_BACKEND_SOFT);
	expect("monitor unknown cmd", monitor_one(msg, false), "");
	expect("monitor unknown cmd json", monitor_one(msg, true), "");
	nlmsg_free(msg);
}

/* ---- extended ACK ---- */

static const char *const words[] = { NULL, "id", "name", "type", "backend" };
static const struct edm_nl_attr_names names = { words, ARRAY_SIZE(words) };

static struct nl_msg *err_msg(int error, bool capped, const char *text,
			      int miss)
{
	struct nlmsghdr req = {
		.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN + 12),
		.nlmsg_type = FAMILY,
		.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
	};
	struct nlmsgerr e = { .error = error, .msg = req };
	char echo[GENL_HDRLEN + 12];
	struct nl_msg *msg;
	int flags = 0;

	if (capped || !error)
		flags |= NLM_F_CAPPED;
	if (text || miss >= 0)
		flags |= NLM_F_ACK_TLVS;
	msg = nlmsg_alloc_simple(NLMSG_ERROR, flags);
	if (!msg || nlmsg_append(msg, &e, sizeof(e), NLMSG_ALIGNTO))
		abort();
	if (!(flags & NLM_F_CAPPED)) {
		/* The echoed request's payload; its bytes look like TLVs. */
		memset(echo, 0x08, sizeof(echo));
		if (nlmsg_append(msg, echo, sizeof(echo), NLMSG_ALIGNTO))
			abort();
	}
	if (text && nla_put_string(msg, NLMSGERR_ATTR_MSG, text))
		abort();
	if (miss >= 0 && nla_put_u32(msg, NLMSGERR_ATTR_MISS_TYPE, miss))
		abort();
	return msg;
}

static const char *report(struct nl_msg *msg, int *ret)
{
	capture_start(false, false);
	*ret = edm_nl_report_err(mem, nlmsg_hdr(msg), &names);
	nlmsg_free(msg);
	return capture_end();
}

static void test_extack(void)
{
	int ret;

	expect("extack msg capped",
	       report(err_msg(-EINVAL, true, "device name in use", -1), &ret),
	       "Error: device name in use.\n");
	checks++;
	if (ret != -EINVAL) {
		failures++;
		fprintf(stderr, "FAIL extack return %d\n", ret);
	}
	expect("extack msg echoed request",
	       report(err_msg(-EEXIST, false, "exists", -1), &ret),
	       "Error: exists.\n");
	expect("extack msg with period",
	       report(err_msg(-EEXIST, true, "Already there.", -1), &ret),
	       "Error: Already there.\n");
	expect("no extack",
	       report(err_msg(-ENODEV, true, NULL, -1), &ret),
	       "Error: No such device.\n");
	expect("no extack echoed",
	       report(err_msg(-EPERM, false, NULL, -1), &ret),
	       "Error: Operation not permitted.\n");
	expect("missing attribute",
	       report(err_msg(-EINVAL, true, NULL, EDM_A_DEV_NAME), &ret),
	       "Error: Invalid argument (missing attribute \"name\").\n");
	expect("missing unknown attribute",
	       report(err_msg(-EINVAL, true, NULL, 99), &ret),
	       "Error: Invalid argument (missing attribute 99).\n");
	expect("empty message",
	       report(err_msg(-EINVAL, true, "", -1), &ret),
	       "Error: Invalid argument.\n");
	expect("ack no warning", report(err_msg(0, true, NULL, -1), &ret), "");
	expect("ack warning",
	       report(err_msg(0, true, "deprecated attribute", -1), &ret),
	       "Warning: deprecated attribute.\n");

	/* NLMSG_DONE of a failed dump. */
	{
		int error = -ENOBUFS;
		struct nl_msg *msg = nlmsg_alloc_simple(NLMSG_DONE,
						NLM_F_MULTI | NLM_F_ACK_TLVS);

		if (!msg || nlmsg_append(msg, &error, sizeof(error), NLMSG_ALIGNTO) ||
		    nla_put_string(msg, NLMSGERR_ATTR_MSG, "dump failed"))
			abort();
		capture_start(false, false);
		ret = edm_nl_report_done(mem, nlmsg_hdr(msg), &names);
		nlmsg_free(msg);
		expect("dump done error", capture_end(), "Error: dump failed.\n");
		checks++;
		if (ret != -ENOBUFS) {
			failures++;
			fprintf(stderr, "FAIL done return %d\n", ret);
		}
	}
	/* A clean NLMSG_DONE. */
	{
		int zero = 0;
		struct nl_msg *msg = nlmsg_alloc_simple(NLMSG_DONE, NLM_F_MULTI);

		if (!msg || nlmsg_append(msg, &zero, sizeof(zero), NLMSG_ALIGNTO))
			abort();
		capture_start(false, false);
		ret = edm_nl_report_done(mem, nlmsg_hdr(msg), &names);
		nlmsg_free(msg);
		expect("dump done clean", capture_end(), "");
	}
}

static void test_words(void)
{
	static const char *const w[] = { "unspec", "null", NULL, "soft" };
	uint32_t v = 0;
	char b[32];

	checks += 5;
	if (enum_from_word(w, ARRAY_SIZE(w), "null", &v) || v != 1)
		failures++, fprintf(stderr, "FAIL enum null\n");
	if (!enum_from_word(w, ARRAY_SIZE(w), "unspec", &v))
		failures++, fprintf(stderr, "FAIL enum unspec accepted\n");
	if (enum_from_word(w, ARRAY_SIZE(w), "soft", &v) || v != 3)
		failures++, fprintf(stderr, "FAIL enum soft\n");
	if (parse_u32("4294967295", &v) || v != 4294967295u)
		failures++, fprintf(stderr, "FAIL u32 max\n");
	if (!parse_u32("4294967296", &v) || !parse_u32("-1", &v) ||
	    !parse_u32("", &v) || !parse_u32("1x", &v) || !parse_u32(" 1", &v))
		failures++, fprintf(stderr, "FAIL u32 junk accepted\n");
	enum_join(b, sizeof(b), w, ARRAY_SIZE(w), " | ");
	expect("enum_join", b, "null | soft");
	expect("enum_to_word", enum_to_word(w, ARRAY_SIZE(w), 2, b, sizeof(b)),
	       "unknown(2)");
}

/* ---- live: the kernel's nlctrl family ---- */

static int saved_stderr = -1;
static FILE *err_file;

static void err_capture_start(void)
{
	fflush(stderr);
	err_file = tmpfile();
	if (!err_file)
		abort();
	saved_stderr = dup(2);
	dup2(fileno(err_file), 2);
}

static const char *err_capture_end(void)
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

static int count_cb(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[CTRL_ATTR_MAX + 1];
	int *count = arg;

	if (edm_nl_parse(nlh, tb, CTRL_ATTR_MAX) == 0 &&
	    edm_nl_get_str(tb[CTRL_ATTR_FAMILY_NAME]))
		(*count)++;
	return 0;
}

static void expect_int(const char *what, int got, int want)
{
	checks++;
	if (got != want) {
		failures++;
		fprintf(stderr, "FAIL %s: got %d, want %d\n", what, got, want);
	}
}

static void test_live_nlctrl(void)
{
	struct nl_msg *msg;
	const char *err;
	int count, ret;

	edm_nl_set_family_name("nlctrl");
	if (edm_nl_open()) {
		fprintf(stderr, "note: no generic netlink here, live tests skipped\n");
		return;
	}

	/* A dump: several replies, then NLMSG_DONE. */
	count = 0;
	msg = edm_nl_req(CTRL_CMD_GETFAMILY, NLM_F_DUMP);
	ret = edm_nl_talk(msg, NULL, count_cb, &count);
	expect_int("nlctrl dump ret", ret, 0);
	checks++;
	if (count < 1) {
		failures++;
		fprintf(stderr, "FAIL nlctrl dump: %d families\n", count);
	}

	/* A do request: one reply, then the ACK. */
	count = 0;
	msg = edm_nl_req(CTRL_CMD_GETFAMILY, 0);
	nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, "nlctrl");
	ret = edm_nl_talk(msg, NULL, count_cb, &count);
	expect_int("nlctrl do ret", ret, 0);
	expect_int("nlctrl do replies", count, 1);

	/* Two requests on one socket: sequence numbers keep them apart. */
	count = 0;
	msg = edm_nl_req(CTRL_CMD_GETFAMILY, 0);
	nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, "nlctrl");
	ret = edm_nl_talk(msg, NULL, count_cb, &count);
	expect_int("nlctrl second do", ret + count, 1);

	/* A kernel error, printed as "Error: ...". */
	msg = edm_nl_req(CTRL_CMD_GETFAMILY, 0);
	nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, "edmctl-nosuch");
	err_capture_start();
	ret = edm_nl_talk(msg, NULL, count_cb, &count);
	err = err_capture_end();
	expect_int("nlctrl ENOENT", ret, -ENOENT);
	checks++;
	if (strncmp(err, "Error: ", 7) || err[strlen(err) - 1] != '\n') {
		failures++;
		fprintf(stderr, "FAIL nlctrl ENOENT message: \"%s\"\n", err);
	}

	/* A policy error: the kernel's extack message is printed. */
	msg = edm_nl_req(CTRL_CMD_GETFAMILY, 0);
	nla_put_string(msg, CTRL_ATTR_FAMILY_NAME,
		       "a-name-much-longer-than-genl-namsiz");
	err_capture_start();
	ret = edm_nl_talk(msg, NULL, count_cb, &count);
	err = err_capture_end();
	checks++;
	if (ret >= 0 || strncmp(err, "Error: ", 7) ||
	    !strcmp(err, "Error: Invalid argument.\n")) {
		failures++;
		fprintf(stderr, "FAIL nlctrl policy error: ret %d \"%s\"\n",
			ret, err);
	} else {
		printf("unit: kernel policy error printed as: %s", err);
	}

	/* An unknown command. */
	msg = edm_nl_req(250, 0);
	err_capture_start();
	ret = edm_nl_talk(msg, NULL, count_cb, &count);
	err = err_capture_end();
	expect_int("nlctrl unknown command", ret, -EOPNOTSUPP);
	expect("nlctrl unknown command message", err,
	       "Error: Operation not supported.\n");

	edm_nl_close();
	edm_nl_set_family_name(EDM_GENL_NAME);
}

static int monitor_nlctrl(void)
{
	int ret;

	edm_nl_set_family_name("nlctrl");
	if (edm_nl_open())
		return 1;
	printf("ready\n");
	fflush(stdout);
	ret = edm_nl_monitor("notify", NULL, NULL);
	edm_nl_close();
	printf("stopped %d\n", ret);
	return ret ? 1 : 0;
}

/* Documents for an external JSON parser: every tricky case at once. */
static int emit_json(void)
{
	struct nl_msg *msg = dev_msg(EDM_CMD_DEV_NEW);
	int pretty;

	put_dev(msg, 7, "q\"uo\\te\n\x01\xff", 99, EDM_BACKEND_SOFT);
	for (pretty = 0; pretty < 2; pretty++) {
		print_init(true, pretty, stdout);
		fputs(show_one(msg, true, pretty), stdout);
		print_init(true, pretty, stdout);
		monitor_print_event(nlmsg_hdr(msg));
	}
	nlmsg_free(msg);
	capture_start(false, false);
	capture_end();
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "json"))
		return emit_json();
	if (argc > 1 && !strcmp(argv[1], "monitor"))
		return monitor_nlctrl();

	test_dev_basic();
	test_dev_forward_compat();
	test_truncated();
	test_json_escape();
	test_monitor();
	test_extack();
	test_words();
	test_live_nlctrl();

	capture_start(false, false);	/* frees the last capture */
	capture_end();
	free(buf);
	printf("unit: %d checks, %d failures\n", checks, failures);
	return failures ? 1 : 0;
}
