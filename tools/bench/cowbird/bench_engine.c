// SPDX-License-Identifier: GPL-2.0
/*
 * A benchmark's libcowbird instance and its engine (bench_engine.h): the
 * stand-in in this process, or the kernel engine through /dev/cowbird,
 * created and mapped here exactly as cowbird_open() does, then attached.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench_engine.h"
#include "standin.h"

enum { FILL_CHUNK = 64 << 10, FILL_WAIT_US = 10 * 1000 * 1000 };

static int open_standin(struct bench_engine *e, uint64_t size, int cpu)
{
	struct cowbird_standin_cfg c = {
		.region_size = size, .region_id = 1, .nr_rings = 1,
		.meta_order = BENCH_META_ORDER, .data_order = BENCH_DATA_ORDER, .batch = 16,
		.cpu = cpu,
	};
	const struct cowbird_create *info;
	int err;

	c.region = malloc(size);
	if (!c.region)
		return -ENOMEM;
	memset(c.region, 0x5a, size);
	e->region = c.region;
	err = cowbird_standin_create(&c, &e->sd);
	if (err)
		return err;
	info = cowbird_standin_info(e->sd);
	err = cowbird_attach(info, cowbird_standin_base(e->sd), &e->cb);
	if (err)
		return err;
	e->book = (const struct cowbird_book *)((char *)cowbird_standin_base(e->sd) +
						info->book_off);
	e->region_size = size;
	e->region_id = c.region_id;
	e->name = "stand-in";
	return cowbird_standin_start(e->sd);
}

static int open_kernel(struct bench_engine *e, const char *spec)
{
	struct cowbird_create c = {
		.abi_version = COWBIRD_ABI_VERSION, .nr_rings = 1,
		.meta_order = BENCH_META_ORDER, .data_order = BENCH_DATA_ORDER,
	};
	char *end;

	c.region_id = (uint16_t)strtoul(spec, &end, 0);
	if (*end != ':')
		return -EINVAL;
	c.region_key = strtoull(end + 1, &end, 0);
	if (*end == ':') {	/* ID:KEY:SHPOOL:VIA: another kernel's engine serves it */
		c.flags = COWBIRD_CREATE_SHPOOL;
		c.shpool = strtoul(end + 1, &end, 0);
		if (*end != ':')
			return -EINVAL;
		c.via = (uint16_t)strtoul(end + 1, &end, 0);
	} else if (*end == '@') {	/* ID:KEY@VIA: through the fabric, from host VIA */
		c.flags = COWBIRD_CREATE_FABRIC;
		c.via = (uint16_t)strtoul(end + 1, &end, 0);
	}
	if (*end)
		return -EINVAL;
	e->fd = open("/dev/" COWBIRD_DEV_NAME, O_RDWR | O_CLOEXEC);
	if (e->fd < 0)
		return -errno;
	if (ioctl(e->fd, COWBIRD_IOC_CREATE, &c))
		return -errno;
	e->map = mmap(NULL, c.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, e->fd, 0);
	if (e->map == MAP_FAILED) {
		e->map = NULL;
		return -errno;
	}
	e->map_size = c.mmap_size;
	e->book = (const struct cowbird_book *)((char *)e->map + c.book_off);
	e->region_size = c.region_size;
	e->region_id = c.region_id;
	e->name = c.flags ? "shpool" : "kernel";
	return cowbird_attach(&c, e->map, &e->cb);
}

int bench_engine_open(struct bench_engine *e, const char *kernel, uint64_t standin_size, int cpu)
{
	int err;

	memset(e, 0, sizeof(*e));
	e->fd = -1;
	err = kernel ? open_kernel(e, kernel) : open_standin(e, standin_size, cpu);
	if (err)
		bench_engine_close(e);
	return err;
}

void bench_engine_close(struct bench_engine *e)
{
	if (e->sd)
		cowbird_standin_stop(e->sd);
	cowbird_close(e->cb);	/* attached: leaves the mapping alone */
	if (e->sd)
		cowbird_standin_destroy(e->sd);
	if (e->map)
		munmap(e->map, e->map_size);
	if (e->fd >= 0)
		close(e->fd);
	free(e->region);
	memset(e, 0, sizeof(*e));
	e->fd = -1;
}

int bench_engine_read_done(const struct bench_engine *e, int64_t id)
{
	return (int32_t)(__atomic_load_n(&e->book->rd_done, __ATOMIC_ACQUIRE) -
			 COWBIRD_REQ_SEQ(id)) > 0;
}

int bench_engine_fill(struct bench_engine *e, uint64_t off, const void *src, uint64_t len)
{
	int g = cowbird_poll_create(e->cb), err = 0;
	struct cowbird_resp r;
	uint32_t n;
	int64_t id;

	if (g < 0)
		return g;
	while (len && !err) {
		n = len < FILL_CHUNK ? len : FILL_CHUNK;
		id = cowbird_async_write(e->cb, e->region_id, src, off, n);
		err = id < 0 ? (int)id : cowbird_poll_add(e->cb, g, id);
		if (!err && cowbird_poll_wait(e->cb, g, &r, 1, FILL_WAIT_US) != 1)
			err = -ETIMEDOUT;
		if (!err && r.status != COWBIRD_ST_OK)
			err = -EIO;
		src = (const char *)src + n;
		off += n;
		len -= n;
	}
	cowbird_poll_destroy(e->cb, g);
	return err;
}
