/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One libcowbird instance for a benchmark, served either by the user-space
 * stand-in engine (tools/lib/cowbird/standin.c, its thread pinned to a CPU)
 * or by edm's kernel engine behind /dev/cowbird on a fabric memory host's
 * region ("kernel", given as ID:KEY, the host's fabric address and its
 * region key from debugfs edm/cowbird_regions), or by the kernel engine of
 * another guest that shares a pool with this one ("shpool", given as
 * ID:KEY:SHPOOL:VIA: that guest's region, our membership's device ID and
 * the engine's host slot; COWBIRD_CREATE_SHPOOL). Both have one ring of
 * BENCH_ENTRIES entries and a 1 MB data buffer, so one thread issues on
 * ring 0 and a request's ring slot is COWBIRD_REQ_SEQ(id) % BENCH_ENTRIES.
 *
 * The benchmark maps /dev/cowbird itself and attaches the library to it
 * (cowbird_attach, as the stand-in does), so that it can see ring 0's book:
 * it waits on book->rd_done without consuming anything.
 */
#ifndef _COWBIRD_BENCH_ENGINE_H
#define _COWBIRD_BENCH_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "cowbird.h"

enum {
	BENCH_META_ORDER	= 10,
	BENCH_ENTRIES		= 1 << BENCH_META_ORDER,
	BENCH_DATA_ORDER	= 20,
};

struct cowbird_standin;

struct bench_engine {
	struct cowbird *cb;
	const struct cowbird_book *book;	/* ring 0's */
	uint64_t region_size;
	uint16_t region_id;
	const char *name;			/* "stand-in", "kernel" or "shpool" */
	/* private */
	struct cowbird_standin *sd;
	void *region;				/* the stand-in's target memory */
	void *map;				/* /dev/cowbird's mapping */
	size_t map_size;
	int fd;
};

/*
 * kernel: NULL for the stand-in (a region of standin_size bytes, every byte
 * 0x5a, its thread on CPU cpu), else "ID:KEY" for /dev/cowbird (the kernel
 * engine's CPU is the module's cowbird_cpu parameter).
 */
int bench_engine_open(struct bench_engine *e, const char *kernel, uint64_t standin_size, int cpu);
void bench_engine_close(struct bench_engine *e);

/* The engine's read progress is past request id: complete, maybe unconsumed. */
int bench_engine_read_done(const struct bench_engine *e, int64_t id);

/* Writes len bytes at off through the rings and waits (for setting a region up). */
int bench_engine_fill(struct bench_engine *e, uint64_t off, const void *src, uint64_t len);

#endif /* _COWBIRD_BENCH_ENGINE_H */
