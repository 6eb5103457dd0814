// SPDX-License-Identifier: GPL-2.0
/*
 * The memory-node side of the EDM host stack: a host with a region serves
 * it to the fabric. Reads, writes, and compare-and-swap, fetch-and-add and
 * swap on 8-byte words are executed here and so atomic. A read or RMW
 * request is recorded when it arrives (struct edm_served) and acted on only
 * when its grant comes (edm_host_serve_chunk()); the chunks of an
 * acknowledged write are followed until its last one, which a WACK answers.
 *
 * Keys. A keyed region serves only requests that carry its key (fab.h has
 * where). A read or RMW is checked when it arrives and again when its grant
 * comes, so a rekey refuses the requests already waiting; a write's every
 * chunk is checked. A refused request is answered with a NACK (RERR, or a
 * WACK's KEY, GONE or RANGE bit for an acknowledged write; a posted write's
 * chunk is dropped) and counted by reason.
 *
 * A request is answered on the port it came on (h->rx_port when it came),
 * whatever port the host's own ops use: with a standby switch, requesters
 * may reach a memory node through either.
 *
 * Locking: everything under node->lock, called from the node's poll; no lock
 * of its own.
 */
#include <linux/slab.h>
#include <linux/xarray.h>

#include "edm/compat.h"
#include "fab.h"

/*
 * A request this memory node is answering. Nothing is read or changed before
 * the request's grant: see edm_host_serve_chunk().
 */
struct edm_served {
	u64 addr;
	u32 len;
	u32 sent;
	u8 err;				/* EDM_RERR_*, 0: none */
	u8 rmw;				/* an RMW's opcode until it runs, 0: none */
	bool value;			/* answer with @val, not region bytes */
	u64 val;
	u64 arg0, arg1;			/* the RMW's operands */
	u64 key;			/* what the request carried */
	bool probe;			/* a size probe, answered without a key */
	u8 port;			/* it came on, and is answered on, this port */
};

/* Counts a refused request: every one in SERVED_ERRORS, a NACK by its reason. */
static void edm_host_nack_count(struct edm_fab_host *h, u8 code)
{
	h->st[EDM_A_FSTAT_SERVED_ERRORS]++;
	if (code == EDM_RERR_KEY)
		h->st[EDM_A_FSTAT_NACKS_KEY]++;
	else if (code == EDM_RERR_GONE)
		h->st[EDM_A_FSTAT_NACKS_GONE]++;
	else if (code == EDM_RERR_RANGE)
		h->st[EDM_A_FSTAT_NACKS_RANGE]++;
}

/* Whether the region takes a request that carries @key: 0, or the NACK's EDM_RERR_* code. */
static u8 edm_host_key_check(const struct edm_fab_host *h, u64 key)
{
	if (!h->region)
		return EDM_RERR_GONE;
	if (h->region_keyed && key != h->region_key)
		return EDM_RERR_KEY;
	return 0;
}

/* Ends a served request with a NACK of @code, counted; its answer is then a RERR. */
static void edm_served_nack(struct edm_fab_host *h, struct edm_served *s, u8 code)
{
	s->err = code;
	s->len = 1;
	s->sent = 0;
	s->rmw = 0;
	s->value = false;
	edm_host_nack_count(h, code);
}

/* Runs a served RMW on its word, under node->lock: atomic against every access. */
static void edm_host_rmw_run(struct edm_fab_host *h, struct edm_served *s)
{
	/* words are little endian, as on the wire */
	__le64 *word = (__le64 *)(h->region + s->addr);

	lockdep_assert_held(&h->node->lock);
	s->value = true;
	s->val = le64_to_cpu(*word);
	if (s->rmw == EDM_OP_CAS) {
		if (s->val == s->arg0)
			*word = cpu_to_le64(s->arg1);
	} else if (s->rmw == EDM_OP_FADD) {
		*word = cpu_to_le64(s->val + s->arg0);
	} else {
		*word = cpu_to_le64(s->arg0);
	}
	s->rmw = 0;
	h->st[EDM_A_FSTAT_SERVED_RMWS]++;
}

/*
 * One granted chunk of a served request's answer. The region is read, and an
 * RMW run, only here, when the grant arrives: the switch grants a pair's
 * messages one after the other in the order they were issued, so a READ and
 * an RMW (or two RMWs) from one requester act on the region in that order.
 * Running an RMW when its request arrived would let it overtake a READ
 * issued before it whose grants were still queued.
 */
void edm_host_serve_chunk(struct edm_fab_host *h, const struct edm_gq_ent *g)
{
	unsigned long key = (unsigned long)g->dest << 8 | g->id;
	struct edm_served *s = xa_load(&h->served, key);
	struct edm_pcs_msg_hdr hdr = { .dest = g->dest, .src = h->addr, .id = g->id };
	struct edm_fab_port *p;
	__le64 val;
	u8 code;
	u32 n;

	lockdep_assert_held(&h->node->lock);
	if (!s || g->port != s->port) {
		h->st[EDM_A_FSTAT_STRAY]++;
		return;
	}
	p = &h->node->port[s->port];
	/* a probe is answered without a key; everything else is checked again */
	code = s->err || s->probe ? 0 : edm_host_key_check(h, s->key);
	if (code)
		edm_served_nack(h, s, code);
	if (s->err) {
		code = s->err;
		hdr.kind = EDM_KIND_RERR;
		hdr.len = 1;
		edm_mux_put_msg(p, &hdr, &code);
		s->sent = s->len;
	} else if (s->value || s->rmw) {
		if (s->rmw)
			edm_host_rmw_run(h, s);
		val = cpu_to_le64(s->val);
		hdr.kind = EDM_PCS_RRES;
		hdr.len = EDM_VALUE_BYTES;
		if (!edm_mux_put_msg(p, &hdr, (u8 *)&val))
			s->sent = s->len;
	} else {
		n = min(g->size, s->len - s->sent);
		hdr.kind = EDM_PCS_RRES;
		hdr.len = n;
		if (!edm_mux_put_msg(p, &hdr, h->region + s->addr + s->sent))
			s->sent += n;
	}
	if (s->sent == s->len) {
		edm_xa_take(&h->served, key);
		kfree(s);
	}
}

static void edm_host_served_new(struct edm_fab_host *h, const struct edm_pcs_msg_hdr *hdr,
				struct edm_served *s)
{
	unsigned long key = (unsigned long)hdr->src << 8 | hdr->id;
	struct edm_served *old;

	s->port = h->rx_port->index;
	old = xa_store(&h->served, key, s, GFP_ATOMIC);
	if (xa_is_err(old)) {
		kfree(s);
		h->st[EDM_A_FSTAT_SERVED_ERRORS]++;
		return;
	}
	kfree(old);	/* a request whose answer was never granted */
}

static bool edm_region_ok(const struct edm_fab_host *h, u64 addr, u64 len)
{
	return h->region && addr <= h->region_size && len <= h->region_size - addr;
}

void edm_host_rx_rreq(struct edm_fab_host *h, const struct edm_pcs_msg_hdr *hdr, const u8 *pl)
{
	struct edm_served *s;
	u64 w, addr;
	u32 len;
	u8 code;

	lockdep_assert_held(&h->node->lock);
	if (hdr->id < EDM_HOST_RD_ID0 || hdr->len != EDM_RREQ_BYTES) {
		h->st[EDM_A_FSTAT_SERVED_ERRORS]++;
		return;
	}
	s = kzalloc(sizeof(*s), GFP_ATOMIC);
	if (!s)
		return;
	w = get_unaligned_le64(pl);
	addr = edm_msg_addr(w);
	len = edm_rreq_len(w);
	s->key = get_unaligned_le64(pl + 8);
	code = len ? edm_host_key_check(h, s->key) : 0;
	if (!len) {
		s->value = true;
		s->probe = true;
		s->val = h->region_size;
		s->len = EDM_VALUE_BYTES;
	} else if (code) {
		edm_served_nack(h, s, code);
	} else if (!edm_region_ok(h, addr, len)) {
		edm_served_nack(h, s, EDM_RERR_RANGE);
	} else {
		s->addr = addr;
		s->len = len;
		h->st[EDM_A_FSTAT_SERVED_READS]++;
	}
	edm_host_served_new(h, hdr, s);
}

/* Kept until its grant, which runs it (edm_host_serve_chunk()). */
void edm_host_rx_rmw(struct edm_fab_host *h, const struct edm_pcs_msg_hdr *hdr, const u8 *pl)
{
	struct edm_served *s;
	u64 w, addr;
	u32 op;
	u8 code;

	lockdep_assert_held(&h->node->lock);
	if (hdr->id < EDM_HOST_RD_ID0 || hdr->len != EDM_RMWREQ_BYTES) {
		h->st[EDM_A_FSTAT_SERVED_ERRORS]++;
		return;
	}
	s = kzalloc(sizeof(*s), GFP_ATOMIC);
	if (!s)
		return;
	w = get_unaligned_le64(pl);
	addr = edm_msg_addr(w);
	op = edm_rmwreq_op(w);
	s->key = get_unaligned_le64(pl + 24);
	s->len = EDM_VALUE_BYTES;
	code = edm_host_key_check(h, s->key);
	if (!edm_op_is_rmw(op))
		code = EDM_RERR_INVAL;
	else if (!code && (!IS_ALIGNED(addr, 8) || !edm_region_ok(h, addr, 8)))
		code = EDM_RERR_RANGE;
	if (code) {
		edm_served_nack(h, s, code);
		edm_host_served_new(h, hdr, s);
		return;
	}
	s->addr = addr;
	s->rmw = op;
	s->arg0 = get_unaligned_le64(pl + 8);
	s->arg1 = get_unaligned_le64(pl + 16);
	edm_host_served_new(h, hdr, s);
}

/* Answers the acknowledged write of @hdr's sender and id, ending at @end. */
static void edm_host_wack(struct edm_fab_host *h, const struct edm_pcs_msg_hdr *hdr, u64 end,
			  u64 flags)
{
	struct edm_pcs_msg_hdr ack = {
		.dest = hdr->src, .src = h->addr, .id = hdr->id, .kind = EDM_KIND_WACK,
		.len = EDM_VALUE_BYTES,
	};
	__le64 pl = cpu_to_le64(end | flags);

	if (edm_mux_put_msg(h->rx_port, &ack, (const u8 *)&pl))
		h->st[EDM_A_FSTAT_SERVED_ERRORS]++;	/* the sender's op times out */
}

/*
 * Follows an acknowledged write's chunks: each must start where the last
 * ended. On its last chunk, answers with a WACK carrying the end address
 * and whether the run was whole (a lost chunk breaks it: the sender's op
 * fails; nothing is resent).
 */
static void edm_host_wrun(struct edm_fab_host *h, const struct edm_pcs_msg_hdr *hdr, u64 word,
			  u64 end)
{
	unsigned long key = (unsigned long)hdr->src << 8 | hdr->id;
	u64 start = edm_msg_addr(word);
	void *next = xa_load(&h->wruns, key);
	bool whole;

	if (word & EDM_WREQ_FIRST)
		whole = true;
	else
		whole = next && xa_to_value(next) == start;
	if (!(word & EDM_WREQ_LAST)) {
		/* a broken run stays broken: 0 is never a next address (chunks are not empty) */
		if (xa_is_err(xa_store(&h->wruns, key, xa_mk_value(whole ? end : 0), GFP_ATOMIC)))
			h->st[EDM_A_FSTAT_SERVED_ERRORS]++;
		return;
	}
	if (next)
		edm_xa_take(&h->wruns, key);
	edm_host_wack(h, hdr, end, whole ? EDM_WACK_WHOLE : 0);
}

/* The WACK bit that says why an acknowledged write's last chunk was refused. */
static u64 edm_wack_nack(u8 code)
{
	return code == EDM_RERR_KEY ? EDM_WACK_KEY :
	       code == EDM_RERR_GONE ? EDM_WACK_GONE : EDM_WACK_RANGE;
}

void edm_host_rx_wreq(struct edm_fab_host *h, const struct edm_pcs_msg_hdr *hdr, const u8 *pl)
{
	u64 addr, word;
	u32 n;
	u8 code;

	lockdep_assert_held(&h->node->lock);
	if (hdr->len < EDM_WREQ_HDR_BYTES) {
		h->st[EDM_A_FSTAT_SERVED_ERRORS]++;
		return;
	}
	word = get_unaligned_le64(pl);
	addr = edm_msg_addr(word);
	n = hdr->len - EDM_WREQ_HDR_BYTES;
	if (word & ~EDM_MSG_ADDR_MASK & ~EDM_WREQ_FLAGS) {
		h->st[EDM_A_FSTAT_SERVED_ERRORS]++;
		return;
	}
	code = edm_host_key_check(h, get_unaligned_le64(pl + 8));
	if (!code && !edm_region_ok(h, addr, n))
		code = EDM_RERR_RANGE;
	if (code) {
		edm_host_nack_count(h, code);
		/*
		 * Chunks ascend and a rekey is for good: the last one is refused
		 * too, and says why to an acked write.
		 */
		if ((word & (EDM_WREQ_ACK | EDM_WREQ_LAST)) == (EDM_WREQ_ACK | EDM_WREQ_LAST)) {
			xa_erase(&h->wruns, (unsigned long)hdr->src << 8 | hdr->id);
			edm_host_wack(h, hdr, addr + n, edm_wack_nack(code));
		}
		return;
	}
	memcpy(h->region + addr, pl + EDM_WREQ_HDR_BYTES, n);
	h->st[EDM_A_FSTAT_SERVED_WRITE_CHUNKS]++;
	if (word & EDM_WREQ_LAST)
		h->st[EDM_A_FSTAT_SERVED_WRITES]++;
	if (word & EDM_WREQ_ACK)
		edm_host_wrun(h, hdr, word, addr + n);
}

/* Port @port is gone (a failover): drop the requests it brought, waiting for grants. */
void edm_host_serve_reset(struct edm_fab_host *h, u32 port)
{
	struct edm_served *s;
	unsigned long key;

	lockdep_assert_held(&h->node->lock);
	xa_for_each(&h->served, key, s) {
		if (s->port != port)
			continue;
		xa_erase(&h->served, key);
		kfree(s);
	}
}
