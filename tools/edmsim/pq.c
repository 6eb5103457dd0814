// SPDX-License-Identifier: GPL-2.0
/*
 * Per-node priority queues (pq.h): a binary heap that grows by doubling.
 */
#include <stdlib.h>

#include "pq.h"

static inline bool pqe_before(const struct edmsim_pqe *x, const struct edmsim_pqe *y)
{
	if (x->key != y->key)
		return x->key < y->key;
	if (x->a != y->a)
		return x->a < y->a;
	return x->b < y->b;
}

void edmsim_pq_push(struct edmsim_pq *q, u64 key, u32 a, u32 b)
{
	struct edmsim_pqe e = { .key = key, .a = a, .b = b };
	u32 i, up;

	if (q->n == q->cap) {
		q->cap = q->cap ? 2 * q->cap : 8;
		q->e = realloc(q->e, q->cap * sizeof(*q->e));
		if (!q->e) {
			fprintf(stderr, "edmsim: out of memory for a priority queue\n");
			exit(2);
		}
	}
	for (i = q->n++; i; i = up) {
		up = (i - 1) / 2;
		if (!pqe_before(&e, &q->e[up]))
			break;
		q->e[i] = q->e[up];
	}
	q->e[i] = e;
}

void edmsim_pq_pop(struct edmsim_pq *q)
{
	struct edmsim_pqe last = q->e[--q->n];
	u32 i = 0, c;

	for (;;) {
		c = 2 * i + 1;
		if (c >= q->n)
			break;
		if (c + 1 < q->n && pqe_before(&q->e[c + 1], &q->e[c]))
			c++;
		if (!pqe_before(&q->e[c], &last))
			break;
		q->e[i] = q->e[c];
		i = c;
	}
	if (q->n)
		q->e[i] = last;
}

void edmsim_pq_free(struct edmsim_pq *q)
{
	free(q->e);
	memset(q, 0, sizeof(*q));
}
