/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A user-space stand-in for edm's Cowbird engine, for native tests and
 * benchmarks: it lays out an instance's mapping exactly as /dev/cowbird does
 * (cowbird_layout_fill), and serves its rings against a local buffer with
 * the engine's own cores, cowbird/ring.c and cc.c. Not part of
 * libcowbird; linked only into tests and benchmarks.
 */
#ifndef _COWBIRD_STANDIN_H
#define _COWBIRD_STANDIN_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/cowbird.h>

struct cowbird_standin;

struct cowbird_standin_cfg {
	void *region;		/* the target memory */
	uint64_t region_size;
	uint64_t region_key;
	uint16_t region_id;
	uint16_t nr_rings;
	uint8_t meta_order;
	uint8_t data_order;
	uint32_t batch;		/* BATCH_SIZE; 0: COWBIRD_BATCH_DEFAULT */
	uint32_t write_lag;	/* passes a write op stays in flight before it lands */
	int cpu;		/* pin the engine thread; -1: no pinning */
};

struct cowbird_standin_stats {
	uint64_t passes;
	uint64_t fetched;
	uint64_t rejected;
	uint64_t ops;
	uint64_t completed;
	uint64_t batches;
	uint64_t rd_blocked;
	uint64_t wr_blocked;
};

int cowbird_standin_create(const struct cowbird_standin_cfg *cfg, struct cowbird_standin **sdp);
const struct cowbird_create *cowbird_standin_info(const struct cowbird_standin *sd);
void *cowbird_standin_base(const struct cowbird_standin *sd);
unsigned int cowbird_standin_poll(struct cowbird_standin *sd);
int cowbird_standin_start(struct cowbird_standin *sd);
void cowbird_standin_stop(struct cowbird_standin *sd);
void cowbird_standin_stats(const struct cowbird_standin *sd, struct cowbird_standin_stats *st);
void cowbird_standin_destroy(struct cowbird_standin *sd);

#endif /* _COWBIRD_STANDIN_H */
