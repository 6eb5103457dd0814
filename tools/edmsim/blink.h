/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Block links shared by the PHY-level fabric models (blink.c): per link
 * direction, a data chunk and a control block may be on the wire at once
 * (control preempts at block granularity), each with its FIFO.
 */
#ifndef _EDMSIM_BLINK_H
#define _EDMSIM_BLINK_H

#include "edmsim.h"

enum edmsim_prio {
	EDMSIM_PRIO_CTRL,
	EDMSIM_PRIO_DATA,
	EDMSIM_NR_PRIO,
};

/* What to do when a transmission starts; a, b, c belong to its owner. */
struct edmsim_tx {
	u64 ready;		/* when it was handed to the link */
	u32 kind;
	u32 a;
	u32 b;
	u32 c;
	u32 blocks;
	u32 prio;
	u32 next;
};

struct edmsim_blink {
	u32 head[EDMSIM_NR_PRIO];
	u32 tail[EDMSIM_NR_PRIO];
	u64 data_end;			/* the chunk on the wire ends, preemptions included */
	u32 data_gen;			/* tells a stale end event from the current one */
	bool busy[EDMSIM_NR_PRIO];
};

struct edmsim_blinks {
	struct edmsim_blink *l;
	u64 *busy;			/* [link] ps on the wire, for utilization */
	u32 n;
	u32 nup;			/* links below this are host uplinks */
	u32 end_kind;			/* the owner's event kind: a link, b gen, c prio */
	void (*start)(struct edmsim *s, u32 link, const struct edmsim_tx *tx);
	struct edmsim_tx *pool;
	u32 cap;
	u32 used;
	u32 free;
	u64 wait_ps[2][EDMSIM_NR_PRIO];	/* [up or down][prio] */
	u64 sent[2][EDMSIM_NR_PRIO];
};

int edmsim_blinks_init(struct edmsim_blinks *ls, u32 n, u32 nup, u32 end_kind,
		       void (*start)(struct edmsim *, u32, const struct edmsim_tx *));
void edmsim_blinks_free(struct edmsim_blinks *ls);
void edmsim_blink_send(struct edmsim *s, struct edmsim_blinks *ls, u32 link, u32 prio,
		       u32 blocks, u32 kind, u32 a, u32 b, u32 c);
void edmsim_blink_end(struct edmsim *s, struct edmsim_blinks *ls, const struct edmsim_ev *ev);
void edmsim_blinks_report(const struct edmsim_blinks *ls, u32 nmsg, FILE *f);

#endif /* _EDMSIM_BLINK_H */
