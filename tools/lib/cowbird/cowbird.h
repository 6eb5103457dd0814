/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libcowbird: asynchronous reads and writes of remote memory through
 * Cowbird's rings (Cowbird, SoCC '23, Table 2), served by edm's offload
 * engine behind /dev/cowbird. See cowbird(3).
 *
 * Issuing is lock-free and makes no system call: a thread reserves an entry
 * and its bytes with one compare-and-swap on its ring's tail, fills the
 * entry, and stores rw_type last with release semantics. Completions are
 * found by comparing request ids with the engine's progress counters.
 *
 * Every issued request's completion must be consumed exactly once: by a
 * poll group (cowbird_poll_add) or by cowbird_done() returning 1. A ring
 * slot is reused only after that, in order, so unconsumed completions
 * eventually make issuing on their ring fail with -EAGAIN.
 *
 * Every call returns a negative errno on failure (errno is not set).
 */
#ifndef _COWBIRD_H
#define _COWBIRD_H

#include <stdint.h>
#include <linux/cowbird.h>

#ifdef __cplusplus
extern "C" {
#endif

struct cowbird;

struct cowbird_attr {
	const char *dev;	/* NULL: "/dev/cowbird" */
	uint64_t region_key;
	uint16_t region_id;
	uint16_t nr_rings;	/* 0: one per online CPU, at most COWBIRD_MAX_RINGS */
	uint8_t meta_order;	/* 0: 8, 256 entries per ring */
	uint8_t data_order;	/* 0: 20, 1 MB per data buffer */
	uint32_t flags;		/* COWBIRD_CREATE_*: FABRIC reaches the region over EDM,
				 * SHPOOL has another kernel's engine serve it */
	uint16_t via;		/* FABRIC: the issuing host's address; SHPOOL: the engine's slot */
	uint32_t shpool;	/* with COWBIRD_CREATE_SHPOOL: the pool membership's device ID */
};

/* What poll_wait returns for each completed request. */
struct cowbird_resp {
	int64_t req_id;
	uint16_t status;	/* enum cowbird_status */
	uint16_t rw_type;	/* enum cowbird_rw_type */
	uint32_t length;	/* bytes transferred */
	uint64_t issue_delay_ns;
	uint64_t total_delay_ns;
};

/*
 * Request ids are >= 0 and encode the type, ring, region and the entry's
 * free-running index, so that "is it complete" is one subtraction and one
 * compare against the ring's progress counter of that type.
 */
#define COWBIRD_REQ_SEQ(id)		((uint32_t)(id))
#define COWBIRD_REQ_REGION(id)		((uint16_t)((uint64_t)(id) >> 32))
#define COWBIRD_REQ_RING(id)		((uint8_t)((uint64_t)(id) >> 48))
#define COWBIRD_REQ_TYPE(id)		((uint16_t)(((uint64_t)(id) >> 56) & 3))
#define COWBIRD_REQ_ID(type, ring, region, seq)					\
	((int64_t)(((uint64_t)(type) & 3) << 56 | (uint64_t)(uint8_t)(ring) << 48 |	\
		   (uint64_t)(uint16_t)(region) << 32 | (uint32_t)(seq)))

#define COWBIRD_MAX_GROUPS	64

#ifndef COWBIRD_API
#define COWBIRD_API
#endif

COWBIRD_API int cowbird_open(const struct cowbird_attr *attr, struct cowbird **cbp);
COWBIRD_API int cowbird_attach(const struct cowbird_create *info, void *base, struct cowbird **cbp);
COWBIRD_API void cowbird_close(struct cowbird *cb);

COWBIRD_API int64_t cowbird_async_read(struct cowbird *cb, uint16_t region_id, uint64_t src, void *dest,
			   uint32_t length);
COWBIRD_API int64_t cowbird_async_write(struct cowbird *cb, uint16_t region_id, const void *src,
			    uint64_t dest, uint32_t length);

COWBIRD_API int cowbird_poll_create(struct cowbird *cb);
COWBIRD_API int cowbird_poll_destroy(struct cowbird *cb, int poll_id);
COWBIRD_API int cowbird_poll_add(struct cowbird *cb, int poll_id, int64_t req_id);
COWBIRD_API int cowbird_poll_remove(struct cowbird *cb, int poll_id, int64_t req_id);
COWBIRD_API int cowbird_poll_wait(struct cowbird *cb, int poll_id, struct cowbird_resp *resps, int max_ret,
		      int timeout_us);

/*
 * 1 once req_id is complete (a read's bytes in dest), 0 while in flight. A
 * complete request in no poll group is claimed by it: its completion is
 * consumed and its ring slot may be reused. See "Consuming completions" in
 * cowbird(3): every request must be consumed once, by a group or this call.
 */
COWBIRD_API int cowbird_done(struct cowbird *cb, int64_t req_id);

#ifdef __cplusplus
}
#endif

#endif /* _COWBIRD_H */
