/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small binary min-heap of (key, a, b) for per-node priority queues (IRD's
 * SRPT credits). Ties in key go to the smaller a, then b, so the order never
 * depends on insertion history beyond the keys themselves.
 */
#ifndef _EDMSIM_PQ_H
#define _EDMSIM_PQ_H

#include "edmsim.h"

struct edmsim_pqe {
	u64 key;
	u32 a;
	u32 b;
};

struct edmsim_pq {
	struct edmsim_pqe *e;
	u32 n;
	u32 cap;
};

void edmsim_pq_push(struct edmsim_pq *q, u64 key, u32 a, u32 b);
void edmsim_pq_pop(struct edmsim_pq *q);
void edmsim_pq_free(struct edmsim_pq *q);

static inline const struct edmsim_pqe *edmsim_pq_top(const struct edmsim_pq *q)
{
	return q->n ? &q->e[0] : NULL;
}

#endif /* _EDMSIM_PQ_H */
