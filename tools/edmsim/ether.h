/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Ethernet machinery shared by the raw Ethernet and PFC models
 * (ether.c): frames, one FIFO per host NIC, and an output-queued
 * store-and-forward layer 2 switch. What a congested switch does, drop or
 * pause, is the model's policy (fabric_eth.c, fabric_pfc.c).
 */
#ifndef _EDMSIM_ETHER_H
#define _EDMSIM_ETHER_H

#include "edmsim.h"

enum ether_kind {
	ETHER_RREQ,
	ETHER_DATA,		/* RRES or WREQ */
	ETHER_ACK,		/* the memory node's answer to a whole WREQ */
};

enum ether_ev {
	ETHER_EV_NIC_DONE,	/* a host: its frame is out */
	ETHER_EV_SW_RX,		/* a frame: stored at the switch */
	ETHER_EV_SW_ENQ,	/* a frame: forwarded, at its egress queue */
	ETHER_EV_TX_END,	/* a frame: left its egress (if the policy asks) */
	ETHER_EV_HOST_RX,	/* a frame: received whole by its host */
	ETHER_EV_POLICY,	/* and above: the policy's own */
};

struct ether_frame {
	u32 msg;
	u32 bytes;		/* data it carries */
	u32 wire;		/* bytes of wire time, preamble and gap included */
	u32 next;
	u16 src;
	u16 dst;
	u16 idx;		/* frame number within its message */
	u8 kind;
};

struct ether_nic {
	u32 head;
	u32 tail;
	bool busy;
	bool paused;		/* PFC */
};

struct ether;

struct ether_policy {
	bool needs_tx_end;
	/* The message enters its initiator. */
	void (*start)(struct edmsim *s, struct ether *e, u32 mi);
	/* A frame is stored at the switch, from host fr->src. */
	void (*rx)(struct edmsim *s, struct ether *e, const struct ether_frame *fr);
	/* May the frame join its egress queue? false drops it. */
	bool (*admit)(struct edmsim *s, struct ether *e, const struct ether_frame *fr);
	void (*tx_end)(struct edmsim *s, struct ether *e, const struct ether_frame *fr);
	void (*event)(struct edmsim *s, struct ether *e, const struct edmsim_ev *ev);
};

struct ether {
	const struct ether_policy *pol;
	void *pol_priv;
	struct ether_frame *fr;
	u32 nfr;
	u32 cap;
	u32 free;
	struct ether_nic *nic;
	struct edmsim_link *egress;	/* [host] switch -> host */
	u64 *busy;			/* [host] up, [nodes + host] down */
	u64 **rxmap;			/* [msg] frames received, messages of 2+ frames */
	u8 *acked;			/* [msg] the writer got its ACK */
	u32 *txq;			/* [msg] initiator's frames not yet sent */
	u64 frames;
	u64 dup_frames;			/* received twice: retransmissions */
};

int ether_init(struct edmsim *s, struct ether *e, const struct ether_policy *pol);
void ether_fini(struct edmsim *s, struct ether *e);
void ether_arrive(struct edmsim *s, u32 mi);
void ether_event(struct edmsim *s, const struct edmsim_ev *ev);
u64 ether_unloaded(const struct edmsim *s, const struct edmsim_msg *m);
void ether_send_msg(struct edmsim *s, struct ether *e, u32 mi);
void ether_nic_kick(struct edmsim *s, struct ether *e, u32 h);
u64 ether_egress_bytes(const struct edmsim *s, const struct ether *e, u32 port);

#endif /* _EDMSIM_ETHER_H */
