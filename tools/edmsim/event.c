// SPDX-License-Identifier: GPL-2.0
/*
 * The event queue: a binary min-heap keyed by (time, insertion number).
 *
 * The insertion number makes equal times pop in the order they were pushed,
 * so the whole run is a function of its inputs: no pointer order, no hash
 * order, no clock. The heap grows by doubling and never shrinks.
 */
#include <stdlib.h>

#include "edmsim.h"

static inline bool ev_before(const struct edmsim_ev *a, const struct edmsim_ev *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

int edmsim_heap_init(struct edmsim_heap *h)
{
	h->cap = 1024;
	h->n = 0;
	h->seq = 0;
	h->ev = malloc(h->cap * sizeof(*h->ev));
	return h->ev ? 0 : -ENOMEM;
}

void edmsim_heap_free(struct edmsim_heap *h)
{
	free(h->ev);
	h->ev = NULL;
	h->n = 0;
}

static void heap_grow(struct edmsim_heap *h)
{
	struct edmsim_ev *ev = realloc(h->ev, 2 * (size_t)h->cap * sizeof(*ev));

	if (!ev) {
		fprintf(stderr, "edmsim: out of memory for %u events\n", 2 * h->cap);
		exit(2);
	}
	h->ev = ev;
	h->cap *= 2;
}

void edmsim_heap_push(struct edmsim_heap *h, const struct edmsim_ev *ev)
{
	struct edmsim_ev e = *ev;
	u32 i, up;

	if (h->n == h->cap)
		heap_grow(h);
	e.seq = h->seq++;
	for (i = h->n++; i; i = up) {
		up = (i - 1) / 2;
		if (!ev_before(&e, &h->ev[up]))
			break;
		h->ev[i] = h->ev[up];
	}
	h->ev[i] = e;
}

/* The caller checks h->n first. */
void edmsim_heap_pop(struct edmsim_heap *h, struct edmsim_ev *ev)
{
	struct edmsim_ev last;
	u32 i = 0, c;

	*ev = h->ev[0];
	last = h->ev[--h->n];
	for (;;) {
		c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && ev_before(&h->ev[c + 1], &h->ev[c]))
			c++;
		if (!ev_before(&h->ev[c], &last))
			break;
		h->ev[i] = h->ev[c];
		i = c;
	}
	h->ev[i] = last;
}
