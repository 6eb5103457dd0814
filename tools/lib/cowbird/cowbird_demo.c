// SPDX-License-Identifier: GPL-2.0
/*
 * cowbird_demo: write and read a region through libcowbird and the kernel
 * engine, with nothing but stores into the rings (make demo runs it).
 *
 *   cowbird_demo REGION_ID KEY [OFFSET [VIA [SHPOOL]]]
 *
 * REGION_ID is the fabric address of a memory host, KEY its region key
 * (edmctl region key). With VIA, the fabric address of a compute host, the
 * engine reaches the region through the EDM fabric from that host; without
 * it, it copies directly. With SHPOOL too (a shared pool membership's
 * device ID), VIA is the host slot of another kernel in that pool whose
 * engine serves the instance, and the region is that kernel's. Writes a
 * line at OFFSET (default 0x1000), reads it back, then increments a counter
 * word next to it 100 times by read-after-write, and prints each
 * completion's status and delays.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cowbird.h"

static int wait_one(struct cowbird *cb, int g, int64_t id, const char *what, int verbose)
{
	struct cowbird_resp r;
	int n;

	if (id < 0) {
		fprintf(stderr, "%s: %s\n", what, strerror((int)-id));
		return -1;
	}
	n = cowbird_poll_add(cb, g, id);
	if (!n)
		n = cowbird_poll_wait(cb, g, &r, 1, 5 * 1000 * 1000);
	if (n != 1 || r.req_id != id || r.status != COWBIRD_ST_OK) {
		fprintf(stderr, "%s: no good completion (%d, status %u)\n", what, n,
			n == 1 ? r.status : 0);
		return -1;
	}
	if (verbose)
		printf("%-28s status ok, %u bytes, issue delay %llu ns, total %llu ns\n", what,
		       r.length, (unsigned long long)r.issue_delay_ns,
		       (unsigned long long)r.total_delay_ns);
	return 0;
}

int main(int argc, char **argv)
{
	static const char line[] = "hello from libcowbird";
	struct cowbird_attr attr = { .nr_rings = 1 };
	uint64_t off = 0x1000, counter = 0;
	char back[sizeof(line)] = "";
	struct cowbird *cb;
	int g, i, err;

	if (argc < 3) {
		fprintf(stderr, "usage: %s REGION_ID KEY [OFFSET [VIA [SHPOOL]]]\n", argv[0]);
		return 2;
	}
	attr.region_id = (uint16_t)strtoul(argv[1], NULL, 0);
	attr.region_key = strtoull(argv[2], NULL, 0);
	if (argc > 3)
		off = strtoull(argv[3], NULL, 0);
	if (argc > 4) {
		attr.flags = COWBIRD_CREATE_FABRIC;
		attr.via = (uint16_t)strtoul(argv[4], NULL, 0);
	}
	if (argc > 5) {		/* another kernel's engine, over a shared pool */
		attr.flags = COWBIRD_CREATE_SHPOOL;
		attr.shpool = (uint32_t)strtoul(argv[5], NULL, 0);
		attr.data_order = 14;	/* the mapping is pool Buffers: keep it small */
	}
	err = cowbird_open(&attr, &cb);
	if (err) {
		fprintf(stderr, "cowbird_open: %s\n", strerror(-err));
		return 1;
	}
	g = cowbird_poll_create(cb);
	if (g < 0 ||
	    wait_one(cb, g, cowbird_async_write(cb, attr.region_id, line, off, sizeof(line)),
		     "async_write of the line", 1) ||
	    wait_one(cb, g, cowbird_async_read(cb, attr.region_id, off, back, sizeof(back)),
		     "async_read of the line", 1))
		goto fail;
	printf("read back: \"%s\"\n", back);
	for (i = 0; i < 100; i++) {
		if (wait_one(cb, g, cowbird_async_read(cb, attr.region_id, off + 64, &counter, 8),
			     "read counter", 0))
			goto fail;
		counter++;
		if (wait_one(cb, g, cowbird_async_write(cb, attr.region_id, &counter, off + 64, 8),
			     "write counter", 0))
			goto fail;
	}
	printf("counter at 0x%llx after 100 read-increment-writes: %llu\n",
	       (unsigned long long)off + 64, (unsigned long long)counter);
	cowbird_poll_destroy(cb, g);
	cowbird_close(cb);
	return strcmp(back, line) ? 1 : 0;
fail:
	cowbird_close(cb);
	return 1;
}
