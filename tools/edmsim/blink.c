// SPDX-License-Identifier: GPL-2.0
/*
 * Block links: the host and switch links of the PHY-level fabrics (EDM, IRD,
 * Fastpass), which carry 8-byte blocks rather than frames.
 *
 * A link direction carries control messages (/N/, /G/, an RREQ, a credit, a
 * request to the arbiter) and data chunks. Control goes first at block
 * granularity, as EDM's PHY interleaves 66-bit blocks: a control message
 * starts at once unless another one is on the wire (control messages queue
 * among themselves), and a chunk on the wire is stretched by the blocks it
 * yields. A chunk starts only when no control message is on the wire. One
 * simplification: the yielded blocks are charged to the stretched chunk's
 * end on this link, hence to whatever follows it, but not to that chunk's own
 * delivery, which the owner scheduled when it started; the error is one
 * block time (0.64 ns at 100 Gb/s) per control block that cut in.
 *
 * When a transmission starts, the owner's start() callback runs at that
 * instant and schedules what follows from it. Entries come from one pool
 * with a free list.
 */
#include <stdlib.h>

#include "edmsim.h"
#include "blink.h"

enum { BLINK_NONE = ~0U };

int edmsim_blinks_init(struct edmsim_blinks *ls, u32 n, u32 nup, u32 end_kind,
		       void (*start)(struct edmsim *, u32, const struct edmsim_tx *))
{
	u32 i, p;

	memset(ls, 0, sizeof(*ls));
	ls->l = edmsim_zalloc(n, sizeof(*ls->l));
	ls->busy = edmsim_zalloc(n, sizeof(*ls->busy));
	ls->n = n;
	ls->nup = nup;
	ls->end_kind = end_kind;
	ls->start = start;
	ls->free = BLINK_NONE;
	for (i = 0; i < n; i++)
		for (p = 0; p < EDMSIM_NR_PRIO; p++) {
			ls->l[i].head[p] = BLINK_NONE;
			ls->l[i].tail[p] = BLINK_NONE;
		}
	return 0;
}

void edmsim_blinks_free(struct edmsim_blinks *ls)
{
	free(ls->l);
	free(ls->busy);
	free(ls->pool);
	memset(ls, 0, sizeof(*ls));
}

static u32 tx_alloc(struct edmsim_blinks *ls)
{
	u32 i;

	if (ls->free != BLINK_NONE) {
		i = ls->free;
		ls->free = ls->pool[i].next;
		return i;
	}
	if (ls->used == ls->cap) {
		ls->cap = ls->cap ? 2 * ls->cap : 1024;
		ls->pool = realloc(ls->pool, ls->cap * sizeof(*ls->pool));
		if (!ls->pool) {
			fprintf(stderr, "edmsim: out of memory for link queues\n");
			exit(2);
		}
	}
	return ls->used++;
}

static void end_push(struct edmsim *s, struct edmsim_blinks *ls, u32 link, u64 t, u32 prio)
{
	edmsim_push(s, t, ls->end_kind, link, ls->l[link].data_gen, prio);
}

static void tx_start(struct edmsim *s, struct edmsim_blinks *ls, u32 link,
		     const struct edmsim_tx *tx)
{
	struct edmsim_blink *l = &ls->l[link];
	u64 dur = tx->blocks * s->phy.blk_ps;
	u32 dir = link < ls->nup ? 0 : 1;

	l->busy[tx->prio] = true;
	ls->busy[link] += dur;
	ls->wait_ps[dir][tx->prio] += s->now - tx->ready;
	ls->sent[dir][tx->prio]++;
	if (tx->prio == EDMSIM_PRIO_CTRL) {
		if (l->busy[EDMSIM_PRIO_DATA]) {
			/* Cut into the chunk on the wire: it ends dur later. */
			l->data_end += dur;
			l->data_gen++;
			end_push(s, ls, link, l->data_end, EDMSIM_PRIO_DATA);
		}
	} else {
		l->data_end = s->now + dur;
		l->data_gen++;
		end_push(s, ls, link, l->data_end, EDMSIM_PRIO_DATA);
	}
	if (tx->prio == EDMSIM_PRIO_CTRL)
		end_push(s, ls, link, s->now + dur, EDMSIM_PRIO_CTRL);
	ls->start(s, link, tx);
}

static bool can_start(const struct edmsim_blink *l, u32 prio)
{
	return prio == EDMSIM_PRIO_CTRL ? !l->busy[EDMSIM_PRIO_CTRL] :
	       !l->busy[EDMSIM_PRIO_CTRL] && !l->busy[EDMSIM_PRIO_DATA];
}

void edmsim_blink_send(struct edmsim *s, struct edmsim_blinks *ls, u32 link, u32 prio,
		       u32 blocks, u32 kind, u32 a, u32 b, u32 c)
{
	struct edmsim_blink *l = &ls->l[link];
	struct edmsim_tx tx = {
		.kind = kind, .a = a, .b = b, .c = c, .blocks = blocks, .prio = prio,
		.ready = s->now, .next = BLINK_NONE,
	};
	u32 i;

	if (can_start(l, prio) && l->head[prio] == BLINK_NONE) {
		tx_start(s, ls, link, &tx);
		return;
	}
	i = tx_alloc(ls);
	ls->pool[i] = tx;
	if (l->tail[prio] == BLINK_NONE)
		l->head[prio] = i;
	else
		ls->pool[l->tail[prio]].next = i;
	l->tail[prio] = i;
}

/* Start the head of the prio FIFO, if any. */
static bool start_next(struct edmsim *s, struct edmsim_blinks *ls, u32 link, u32 prio)
{
	struct edmsim_blink *l = &ls->l[link];
	struct edmsim_tx tx;
	u32 i = l->head[prio];

	if (i == BLINK_NONE)
		return false;
	tx = ls->pool[i];
	l->head[prio] = tx.next;
	if (l->head[prio] == BLINK_NONE)
		l->tail[prio] = BLINK_NONE;
	ls->pool[i].next = ls->free;
	ls->free = i;
	tx_start(s, ls, link, &tx);
	return true;
}

/* A control message or a chunk left the link at s->now: take the next. */
void edmsim_blink_end(struct edmsim *s, struct edmsim_blinks *ls, const struct edmsim_ev *ev)
{
	struct edmsim_blink *l = &ls->l[ev->a];

	if (ev->c == EDMSIM_PRIO_DATA) {
		if (ev->b != l->data_gen)
			return;		/* stretched since: a later event ends it */
		l->busy[EDMSIM_PRIO_DATA] = false;
	} else {
		l->busy[EDMSIM_PRIO_CTRL] = false;
		if (start_next(s, ls, ev->a, EDMSIM_PRIO_CTRL))
			return;
	}
	if (can_start(l, EDMSIM_PRIO_DATA))
		start_next(s, ls, ev->a, EDMSIM_PRIO_DATA);
}

void edmsim_blinks_report(const struct edmsim_blinks *ls, u32 nmsg, FILE *f)
{
	static const char *const dir[] = { "up", "down" };
	static const char *const prio[] = { "ctrl", "data" };
	u32 d, p;

	for (d = 0; d < 2; d++)
		for (p = 0; p < EDMSIM_NR_PRIO; p++)
			fprintf(f, " %s_%s_wait_ns=%.3f", dir[d], prio[p],
				ls->wait_ps[d][p] / 1e3 / (nmsg ? nmsg : 1));
}
