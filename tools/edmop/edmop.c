// SPDX-License-Identifier: GPL-2.0-only
/*
 * edmop: remote memory ops from the command line, through /dev/edm<N>.
 *
 *   edmop [ -j ] DEV { read | write | cas | fadd | swap | size | bench } ...
 *
 * DEV is a path, "edmN" or N. Every op is one EDM_IOC_SUBMIT and one
 * EDM_IOC_REAP; bench keeps DEPTH ops in flight and reports the measured
 * latencies the completions carry, the throughput and the modeled latency.
 * Text and JSON come out of the same out_*() calls.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/edm.h>

#ifndef EDMOP_VERSION
#define EDMOP_VERSION "0.0.0"
#endif

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define REAP_SLICE_MS	1000
#define REAP_GIVE_UP_S	120	/* past the longest host timeout (60 s) */
#define FADDR_MAX	511
#define BENCH_DEPTH_MAX	EDM_OP_BATCH_MAX
#define BENCH_COUNT_MAX	10000000u

static bool json;
static uint8_t write_flags;	/* -P: EDM_OP_F_POSTED */
static const char *prog = "edmop";

/* ---- output: one call per field, text and JSON alike ---- */

static bool out_first = true;

static void out_open(void)
{
	if (json)
		putchar('{');
	out_first = true;
}

static void out_close(void)
{
	if (json)
		putchar('}');
	putchar('\n');
}

static void out_key(const char *key)
{
	if (!json)
		return;
	printf("%s\"%s\":", out_first ? "" : ",", key);
	out_first = false;
}

/* @text: a printf format for the text output with one conversion, or NULL. */
static void out_u64(const char *key, const char *text, uint64_t v)
{
	out_key(key);
	if (json)
		printf("%" PRIu64, v);
	else if (text)
		printf(text, v);
}

static void out_hex64(const char *key, const char *text, uint64_t v)
{
	out_key(key);
	if (json)
		printf("\"0x%" PRIx64 "\"", v);
	else if (text)
		printf(text, v);
}

static void out_double(const char *key, const char *text, double v)
{
	out_key(key);
	if (json)
		printf("%.2f", v);
	else if (text)
		printf(text, v);
}

static void out_bool(const char *key, const char *text_true, const char *text_false, bool v)
{
	out_key(key);
	if (json)
		fputs(v ? "true" : "false", stdout);
	else
		fputs(v ? text_true : text_false, stdout);
}

static void out_str(const char *key, const char *text, const char *s)
{
	out_key(key);
	if (json)
		printf("\"%s\"", s);	/* our own words only: nothing to escape */
	else if (text)
		printf(text, s);
}

/* JSON: the bytes as one hex string. Text: a dump with region offsets. */
static void out_data(uint64_t addr, const uint8_t *p, size_t len)
{
	size_t i, j;

	out_key("data");
	if (json) {
		putchar('"');
		for (i = 0; i < len; i++)
			printf("%02x", p[i]);
		putchar('"');
		return;
	}
	for (i = 0; i < len; i += 16) {
		printf("%08" PRIx64 " ", addr + i);
		for (j = 0; j < 16; j++) {
			if (j == 8)
				putchar(' ');
			if (i + j < len)
				printf(" %02x", p[i + j]);
			else
				fputs("   ", stdout);
		}
		fputs("  |", stdout);
		for (j = 0; j < 16 && i + j < len; j++)
			putchar(isprint(p[i + j]) ? p[i + j] : '.');
		puts("|");
	}
}

/* ---- errors and parsing ---- */

static int err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

/* What an errno means for an op, in the words of the ABI. */
static const char *op_hint(int e)
{
	switch (e) {
	case ERANGE:
		return "outside the memory node's region";
	case ETIMEDOUT:
		return "the memory node did not answer in time";
	case ENODEV:
		return "the fabric host is gone";
	case EAGAIN:
		return "too many ops held by this file; reap first";
	case EINVAL:
		return "malformed op";
	case EFAULT:
		return "bad buffer";
	case ENOTTY:
		return "DEV is not a /dev/edm<N>";
	default:
		return NULL;
	}
}

static int op_err(const char *what, int e)
{
	const char *hint = op_hint(e);

	if (hint)
		return err("%s: %s (%s)", what, strerror(e), hint);
	return err("%s: %s", what, strerror(e));
}

/* A number: decimal or 0x hex, with an optional k, m or g (binary) suffix. */
static int parse_num(const char *what, const char *s, uint64_t max, uint64_t *v)
{
	unsigned long long n;
	unsigned int shift = 0;
	char *end;

	errno = 0;
	if (!*s || *s == '-' || isspace((unsigned char)*s))
		goto bad;
	n = strtoull(s, &end, 0);
	if (errno)
		goto bad;
	if (*end && !end[1]) {
		switch (tolower((unsigned char)*end)) {
		case 'k':
			shift = 10;
			break;
		case 'm':
			shift = 20;
			break;
		case 'g':
			shift = 30;
			break;
		default:
			goto bad;
		}
		end++;
	}
	if (*end || (shift && n > (UINT64_MAX >> shift)))
		goto bad;
	n <<= shift;
	if (n > max) {
		err("%s %s is out of range (at most %" PRIu64 ")", what, s, max);
		return -1;
	}
	*v = n;
	return 0;
bad:
	err("%s \"%s\" is not a number", what, s);
	return -1;
}

static int parse_dst(const char *s, uint16_t *dst)
{
	uint64_t v;

	if (parse_num("DST", s, FADDR_MAX, &v))
		return -1;
	*dst = v;
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* hex:BYTES, str:TEXT or fill:BYTE:LEN into a fresh buffer. */
static int parse_data(const char *s, uint8_t **buf, uint32_t *len)
{
	uint64_t b, n;
	size_t i;

	if (!strncmp(s, "hex:", 4)) {
		s += 4;
		n = strlen(s);
		if (!n || n % 2 || n / 2 > EDM_OP_MAX_LEN)
			return err("hex:BYTES needs an even number of hex digits, 2..%u",
				   2 * EDM_OP_MAX_LEN);
		*buf = malloc(n / 2);
		for (i = 0; *buf && i < n / 2; i++) {
			int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);

			if (hi < 0 || lo < 0) {
				free(*buf);
				return err("hex:BYTES: \"%.2s\" is not a hex byte", s + 2 * i);
			}
			(*buf)[i] = hi << 4 | lo;
		}
		n /= 2;		/* bytes, not digits */
	} else if (!strncmp(s, "str:", 4)) {
		n = strlen(s + 4);
		if (!n || n > EDM_OP_MAX_LEN)
			return err("str:TEXT must be 1..%u bytes", EDM_OP_MAX_LEN);
		*buf = (uint8_t *)strdup(s + 4);
	} else if (!strncmp(s, "fill:", 5)) {
		char byte[8] = "";
		const char *colon = strchr(s + 5, ':');

		if (!colon || (size_t)(colon - s - 5) >= sizeof(byte))
			return err("fill:BYTE:LEN expected, got \"%s\"", s);
		memcpy(byte, s + 5, colon - s - 5);
		if (parse_num("BYTE", byte, 255, &b) || parse_num("LEN", colon + 1, EDM_OP_MAX_LEN, &n))
			return 1;
		if (!n)
			return err("LEN must be 1..%u", EDM_OP_MAX_LEN);
		*buf = malloc(n);
		if (*buf)
			memset(*buf, (int)b, n);
	} else {
		return err("DATA must be hex:BYTES, str:TEXT or fill:BYTE:LEN, not \"%s\"", s);
	}
	if (!*buf)
		return err("out of memory");
	*len = n;
	return 0;
}

/* ---- the device ---- */

static int dev_open(const char *dev)
{
	char path[64];
	int fd;

	if (strchr(dev, '/'))
		snprintf(path, sizeof(path), "%s", dev);
	else if (isdigit((unsigned char)*dev))
		snprintf(path, sizeof(path), "/dev/edm%s", dev);
	else
		snprintf(path, sizeof(path), "/dev/%s", dev);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		err("%s: %s%s", path, strerror(errno),
		    errno == ENOENT ? " (no such fabric host: see edmctl fabric show)" : "");
	return fd;
}

static int submit(int fd, struct edm_op *ops, uint32_t nr)
{
	struct edm_submit s = { .ops = (uintptr_t)ops, .nr = nr };

	if (ioctl(fd, EDM_IOC_SUBMIT, &s))
		return -errno;
	return s.done;
}

/* At least @min completions, waiting as long as an op can take. */
static int reap(int fd, struct edm_cqe *cqes, uint32_t max, uint32_t min)
{
	struct edm_reap r = { .cqes = (uintptr_t)cqes, .max = max, .min = min,
			      .timeout_ms = REAP_SLICE_MS };
	time_t give_up = time(NULL) + REAP_GIVE_UP_S;

	for (;;) {
		r.nr = 0;
		if (ioctl(fd, EDM_IOC_REAP, &r) && errno != EINTR)
			return -errno;
		if (r.nr || !min)
			return r.nr;
		if (time(NULL) > give_up)
			return -ETIMEDOUT;
	}
}

/* One op, start to finish; the completion in @cqe. 0 or -errno. */
static int do_op(int fd, struct edm_op *op, struct edm_cqe *cqe)
{
	int n = submit(fd, op, 1);

	if (n < 0)
		return n;
	n = reap(fd, cqe, 1, 1);
	if (n < 0)
		return n;
	return cqe->status;
}

static void out_lat(const struct edm_cqe *cqe)
{
	out_u64("lat_ns", "lat %" PRIu64 " ns", cqe->lat_ns);
	out_u64("model_ns", ", model %" PRIu64 " ns", cqe->model_ns);
}

/*
 * Presents @key to the memory node of the command's first argument, DST, for
 * every op of this run (EDM_IOC_KEY).
 */
static int set_key(int fd, const char *dst_arg, const char *key_arg)
{
	struct edm_key k = { 0 };
	uint64_t key;

	if (!dst_arg)
		return err("--key needs a command with a DST");
	if (parse_dst(dst_arg, &k.dst) || parse_num("KEY", key_arg, UINT64_MAX, &key))
		return 1;
	k.key = key;
	if (ioctl(fd, EDM_IOC_KEY, &k))
		return err("cannot set the key for %u: %s", k.dst, strerror(errno));
	return 0;
}

/* ---- commands ---- */

static int cmd_read(int fd, int argc, char **argv)
{
	struct edm_op op = { .opcode = EDM_OP_READ };
	struct edm_cqe cqe;
	uint64_t addr, len;
	uint8_t *buf;
	int e;

	if (argc != 3)
		return err("usage: read DST ADDR LEN");
	if (parse_dst(argv[0], &op.dst) || parse_num("ADDR", argv[1], UINT64_MAX, &addr) ||
	    parse_num("LEN", argv[2], EDM_OP_MAX_LEN, &len))
		return 1;
	if (!len)
		return err("LEN must be 1..%u", EDM_OP_MAX_LEN);
	buf = calloc(1, len);
	if (!buf)
		return err("out of memory");
	op.addr = addr;
	op.len = len;
	op.buf = (uintptr_t)buf;
	e = do_op(fd, &op, &cqe);
	if (e) {
		free(buf);
		return op_err("read", -e);
	}
	out_open();
	if (json) {
		out_u64("dst", NULL, op.dst);
		out_u64("addr", NULL, addr);
		out_u64("len", NULL, cqe.bytes);
		out_lat(&cqe);
	}
	out_data(addr, buf, cqe.bytes);
	if (json)
		out_close();
	free(buf);
	return 0;
}

static int cmd_write(int fd, int argc, char **argv)
{
	struct edm_op op = { .opcode = EDM_OP_WRITE, .flags = write_flags };
	struct edm_cqe cqe;
	uint8_t *buf = NULL;
	uint64_t addr;
	int e;

	if (argc != 3)
		return err("usage: write DST ADDR { hex:BYTES | str:TEXT | fill:BYTE:LEN }");
	if (parse_dst(argv[0], &op.dst) || parse_num("ADDR", argv[1], UINT64_MAX, &addr) ||
	    parse_data(argv[2], &buf, &op.len))
		return 1;
	op.addr = addr;
	op.buf = (uintptr_t)buf;
	e = do_op(fd, &op, &cqe);
	free(buf);
	if (e)
		return op_err("write", -e);
	out_open();
	out_u64("bytes", "wrote %" PRIu64 " bytes", cqe.bytes);
	out_u64("dst", " to %" PRIu64, op.dst);
	out_hex64("addr", ":0x%" PRIx64 " (", addr);
	out_lat(&cqe);
	if (!json)
		putchar(')');
	out_close();
	return 0;
}

static int cmd_rmw(int fd, int argc, char **argv, uint8_t opcode)
{
	struct edm_op op = { .opcode = opcode, .len = 8 };
	int nargs = opcode == EDM_OP_CAS ? 4 : 3;
	static const char *const usage[] = {
		[EDM_OP_CAS] = "cas DST ADDR CMP NEW",
		[EDM_OP_FADD] = "fadd DST ADDR N",
		[EDM_OP_SWAP] = "swap DST ADDR V",
	};
	uint64_t addr, arg0, arg1 = 0;
	struct edm_cqe cqe;
	int e;

	if (argc != nargs)
		return err("usage: %s", usage[opcode]);
	if (parse_dst(argv[0], &op.dst) || parse_num("ADDR", argv[1], UINT64_MAX, &addr) ||
	    parse_num("value", argv[2], UINT64_MAX, &arg0) ||
	    (nargs == 4 && parse_num("NEW", argv[3], UINT64_MAX, &arg1)))
		return 1;
	op.addr = addr;
	op.arg0 = arg0;
	op.arg1 = arg1;
	if (op.addr & 7)
		return err("ADDR 0x%" PRIx64 " is not 8-byte aligned", (uint64_t)op.addr);
	e = do_op(fd, &op, &cqe);
	if (e)
		return op_err(usage[opcode], -e);
	out_open();
	out_hex64("old", "old 0x%" PRIx64, cqe.result);
	if (opcode == EDM_OP_CAS) {
		if (!json)
			putchar(' ');
		out_bool("swapped", "(swapped)", "(not swapped)", cqe.result == op.arg0);
	}
	if (!json)
		fputs(" (", stdout);
	out_lat(&cqe);
	if (!json)
		putchar(')');
	out_close();
	return 0;
}

static int cmd_cas(int fd, int argc, char **argv)
{
	return cmd_rmw(fd, argc, argv, EDM_OP_CAS);
}

static int cmd_fadd(int fd, int argc, char **argv)
{
	return cmd_rmw(fd, argc, argv, EDM_OP_FADD);
}

static int cmd_swap(int fd, int argc, char **argv)
{
	return cmd_rmw(fd, argc, argv, EDM_OP_SWAP);
}

static int cmd_size(int fd, int argc, char **argv)
{
	struct edm_target t = {};

	if (argc != 1)
		return err("usage: size DST");
	if (parse_dst(argv[0], &t.dst))
		return 1;
	if (ioctl(fd, EDM_IOC_TARGET, &t))
		return op_err("size", errno);
	out_open();
	out_u64("dst", "%" PRIu64 ": ", t.dst);
	out_u64("size", "%" PRIu64 " bytes", t.size);
	out_close();
	return 0;
}

/* ---- bench ---- */

struct bench {
	uint8_t opcode;
	uint16_t dst;
	uint32_t size, depth;
	uint64_t count;
	uint64_t slots;		/* SIZE-byte slots in the region */
	uint8_t *bufs;		/* depth buffers of size bytes */
	uint64_t *lat;		/* measured latency of each op */
	uint64_t done, errors, model_sum;
	int first_err;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t pct(const uint64_t *sorted, uint64_t n, unsigned int p)
{
	uint64_t i = (n * p + 99) / 100;

	return n ? sorted[i ? i - 1 : 0] : 0;
}

/* Submit up to @n ops, slot numbers in user_data; how many were taken, or -errno. */
static int bench_submit(int fd, struct bench *b, const uint32_t *slots, uint32_t n)
{
	struct edm_op ops[BENCH_DEPTH_MAX];
	uint32_t i;

	for (i = 0; i < n; i++) {
		ops[i] = (struct edm_op){
			.user_data = slots[i],
			.addr = (slots[i] % b->slots) * b->size,
			.buf = (uintptr_t)(b->bufs + (size_t)slots[i] * b->size),
			.len = b->size,
			.dst = b->dst,
			.opcode = b->opcode,
			.flags = b->opcode == EDM_OP_WRITE ? write_flags : 0,
		};
	}
	return submit(fd, ops, n);
}

static int bench_run(int fd, struct bench *b)
{
	struct edm_cqe cqes[BENCH_DEPTH_MAX];
	uint32_t free_slots[BENCH_DEPTH_MAX];
	uint64_t submitted = 0;
	uint32_t nfree, i;
	int n;

	for (nfree = 0; nfree < b->depth; nfree++)
		free_slots[nfree] = b->depth - 1 - nfree;
	while (b->done < b->count) {
		uint32_t want = nfree;

		if (want > b->count - submitted)
			want = b->count - submitted;
		if (want) {
			n = bench_submit(fd, b, free_slots + nfree - want, want);
			if (n < 0)
				return n;
			nfree -= n;
			submitted += n;
		}
		n = reap(fd, cqes, BENCH_DEPTH_MAX, 1);
		if (n < 0)
			return n;
		for (i = 0; i < (uint32_t)n; i++) {
			free_slots[nfree++] = cqes[i].user_data;
			if (cqes[i].status) {
				b->errors++;
				if (!b->first_err)
					b->first_err = cqes[i].status;
			}
			b->lat[b->done] = cqes[i].lat_ns;
			b->model_sum += cqes[i].model_ns;
			b->done++;
		}
	}
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int bench_args(int argc, char **argv, struct bench *b)
{
	uint64_t v;

	if (argc != 4 && !(argc == 6 && !strcmp(argv[4], "depth")))
		return err("usage: bench DST { read | write } SIZE COUNT [ depth D ]");
	if (parse_dst(argv[0], &b->dst))
		return 1;
	if (!strcmp(argv[1], "read"))
		b->opcode = EDM_OP_READ;
	else if (!strcmp(argv[1], "write"))
		b->opcode = EDM_OP_WRITE;
	else
		return err("bench: \"%s\" is neither read nor write", argv[1]);
	if (parse_num("SIZE", argv[2], EDM_OP_MAX_LEN, &v))
		return 1;
	b->size = v;
	if (parse_num("COUNT", argv[3], BENCH_COUNT_MAX, &b->count))
		return 1;
	b->depth = 1;
	if (argc == 6) {
		if (parse_num("D", argv[5], BENCH_DEPTH_MAX, &v))
			return 1;
		b->depth = v;
	}
	if (!b->size || !b->count || !b->depth)
		return err("SIZE, COUNT and D must be at least 1");
	return 0;
}

static void bench_print(struct bench *b, double secs)
{
	qsort(b->lat, b->done, sizeof(*b->lat), cmp_u64);
	out_open();
	out_str("op", "%s", b->opcode == EDM_OP_READ ? "read" : "write");
	out_u64("size", " %" PRIu64 " B", b->size);
	out_u64("count", " x %" PRIu64, b->done);
	out_u64("depth", ", depth %" PRIu64 ":", b->depth);
	out_u64("p50_ns", " p50 %" PRIu64 " ns", pct(b->lat, b->done, 50));
	out_u64("p99_ns", ", p99 %" PRIu64 " ns", pct(b->lat, b->done, 99));
	out_double("ops_per_sec", ", %.0f ops/s", secs > 0 ? b->done / secs : 0);
	out_double("model_ns_mean", ", model %.2f ns", b->done ? (double)b->model_sum / b->done : 0);
	out_u64("errors", ", %" PRIu64 " errors", b->errors);
	out_close();
}

static int cmd_bench(int fd, int argc, char **argv)
{
	struct edm_target t = {};
	struct bench b = {};
	double t0;
	int e;

	if (bench_args(argc, argv, &b))
		return 1;
	t.dst = b.dst;
	if (ioctl(fd, EDM_IOC_TARGET, &t))
		return op_err("bench: probing the memory node", errno);
	if (t.size < b.size)
		return err("bench: SIZE %u is more than the region's %llu bytes", b.size,
			   (unsigned long long)t.size);
	b.slots = t.size / b.size;
	b.bufs = calloc(b.depth, b.size);
	b.lat = calloc(b.count, sizeof(*b.lat));
	if (!b.bufs || !b.lat) {
		free(b.bufs);
		free(b.lat);
		return err("out of memory");
	}
	t0 = now_s();
	e = bench_run(fd, &b);
	if (!e)
		bench_print(&b, now_s() - t0);
	free(b.bufs);
	free(b.lat);
	if (e)
		return op_err("bench", -e);
	if (b.errors)
		return op_err("bench: some ops failed, the first", -b.first_err);
	return 0;
}

/* ---- main ---- */

static const struct {
	const char *name;
	int (*fn)(int fd, int argc, char **argv);
} cmds[] = {
	{ "read", cmd_read },
	{ "write", cmd_write },
	{ "cas", cmd_cas },
	{ "fadd", cmd_fadd },
	{ "swap", cmd_swap },
	{ "size", cmd_size },
	{ "bench", cmd_bench },
};

static void usage(FILE *fp)
{
	fprintf(fp,
		"Usage: edmop [ -j ] [ -P ] [ -k KEY ] DEV COMMAND\n"
		"       edmop { -V | --version | -h | --help }\n"
		"where  DEV := { /dev/edmN | edmN | N }\n"
		"       COMMAND := { read DST ADDR LEN |\n"
		"                    write DST ADDR { hex:BYTES | str:TEXT | fill:BYTE:LEN } |\n"
		"                    cas DST ADDR CMP NEW | fadd DST ADDR N | swap DST ADDR V |\n"
		"                    size DST |\n"
		"                    bench DST { read | write } SIZE COUNT [ depth D ] }\n"
		"DST is the memory node's fabric address (0..511); numbers take 0x and k/m/g.\n"
		"Options:\n"
		"  -j, --json      print JSON\n"
		"  -P, --posted    writes complete when sent, not when the memory node\n"
		"                  acknowledged them (EDM_OP_F_POSTED)\n"
		"  -k, --key KEY   present KEY, the region's key (edmctl region show), to\n"
		"                  DST (EDM_IOC_KEY); a keyed region refuses ops without it\n"
		"  -V, --version   print edmop's version and exit\n"
		"  -h, --help      print this help and exit\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "posted", no_argument, NULL, 'P' },
		{ "key", required_argument, NULL, 'k' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *key = NULL;
	unsigned int i;
	int c, fd, rc;

	while ((c = getopt_long(argc, argv, "+jPk:Vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'P':
			write_flags = EDM_OP_F_POSTED;
			break;
		case 'k':
			key = optarg;
			break;
		case 'V':
			printf("edmop %s\n", EDMOP_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(argv[1], cmds[i].name))
			break;
	if (i == ARRAY_SIZE(cmds)) {
		err("command \"%s\" not found", argv[1]);
		usage(stderr);
		return 2;
	}
	fd = dev_open(argv[0]);
	if (fd < 0)
		return 1;
	if (key && set_key(fd, argc > 2 ? argv[2] : NULL, key)) {
		close(fd);
		return 1;
	}
	rc = cmds[i].fn(fd, argc - 2, argv + 2);
	close(fd);
	return rc;
}
