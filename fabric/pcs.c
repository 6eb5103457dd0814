// SPDX-License-Identifier: GPL-2.0
/*
 * EDM's 66-bit block layer (paper 3.2, IEEE 802.3 clause 49): block codec,
 * receive state machine, scrambler, sync-header monitor and wire form. The
 * block formats and the /MD/ transmit rule are documented in edm/pcs.h.
 *
 * What it owns: nothing but the caller's state structs and buffers. The
 * receive side is two small state machines, frames and memory messages,
 * each IDLE, inside a run (DATA) or dropping what is left of a bad run
 * (DROP). Any error drops whatever was in progress in both, because a
 * damaged block may have been a frame's /D/ or a memory block, and puts both
 * in DROP so the rest of the damaged runs is discarded quietly instead of
 * raising an error per block. DROP ends on a block that can only come after
 * a run: /S/, /T/, /I/, /E/ for frames; /MS/, /MST/, /MT/, /S/, /T/, /I/, /E/
 * for messages.
 *
 * Locking: none; the caller serializes all calls on one struct.
 */
#include "edm/core.h"
#include "edm/pcs.h"

enum {
	PCS_DEST_SHIFT	= 8,
	PCS_ID_SHIFT	= 17,
	PCS_SIZE_SHIFT	= 25,		/* /N/, /G/ */
	PCS_NG_END	= 41,
	PCS_KIND_SHIFT	= 25,		/* /MS/, /MST/ */
	PCS_SRC_SHIFT	= 29,
	PCS_LEN_SHIFT	= 38,
	PCS_MS_END	= 54,
	PCS_MST_LEN_BITS = 2,
	PCS_MST_DATA	= 40,
	PCS_DEST_BITS	= 9,
	PCS_ID_BITS	= 8,
	PCS_SIZE_BITS	= 16,
	PCS_KIND_BITS	= 4,
	PCS_CC_BITS	= 7,
	PCS_TYPE_MASK	= 0xff,
	PCS_CC_MASK	= 0x7f,
	PCS_NCODES	= 8,		/* control codes in a 0x1e block */
	PCS_PREAMBLE_LEN = 7,		/* preamble and SFD after /S/ */
	PCS_TERM_MAX	= 7,		/* bytes a /T/ or /MT/ holds */
	PCS_SCR_TAP	= 39,
	PCS_WIRE_SYNC	= 2,		/* bytes of sync headers per group */
};

enum { PCS_IDLE, PCS_DATA, PCS_DROP };

static const u8 pcs_term_type[PCS_TERM_MAX + 1] = {
	EDM_PCS_BT_T0, EDM_PCS_BT_T1, EDM_PCS_BT_T2, EDM_PCS_BT_T3,
	EDM_PCS_BT_T4, EDM_PCS_BT_T5, EDM_PCS_BT_T6, EDM_PCS_BT_T7,
};

static u64 pcs_field(u64 p, unsigned int shift, unsigned int bits)
{
	return (p >> shift) & ((1ULL << bits) - 1);
}

/* Bits @bit..63 set; none when @bit is 64. */
static u64 pcs_above(unsigned int bit)
{
	return bit >= 64 ? 0 : ~0ULL << bit;
}

static u64 pcs_load(const u8 *p, u32 n)
{
	u64 v = 0;
	u32 i;

	for (i = 0; i < n; i++)
		v |= (u64)p[i] << (8 * i);
	return v;
}

static void pcs_store(u8 *p, u64 v, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		p[i] = (u8)(v >> (8 * i));
}

static void pcs_set(struct edm_pcs_block *b, u8 sync, u64 payload)
{
	b->sync = sync;
	b->payload = payload;
}

static u8 pcs_type(const struct edm_pcs_block *b)
{
	return b->payload & PCS_TYPE_MASK;
}

static int pcs_term_len(u8 type)
{
	int n;

	for (n = 0; n <= PCS_TERM_MAX; n++)
		if (pcs_term_type[n] == type)
			return n;
	return -1;
}

/* Table 49-1 codes that are valid but that this codec does not handle. */
static bool pcs_cc_unsupp(u8 c)
{
	return c == 0x06 || c == 0x2d || c == 0x33 || c == 0x4b || c == 0x55 ||
	       c == 0x66 || c == 0x78;
}

static enum edm_pcs_class pcs_classify_c(u64 p)
{
	bool error = false, unsupp = false;
	int i;

	for (i = 0; i < PCS_NCODES; i++) {
		u8 c = pcs_field(p, 8 + PCS_CC_BITS * i, PCS_CC_BITS);

		if (c == EDM_PCS_CC_ERROR)
			error = true;
		else if (pcs_cc_unsupp(c))
			unsupp = true;
		else if (c != EDM_PCS_CC_IDLE)
			return EDM_PCS_K_BAD;
	}
	if (unsupp)
		return EDM_PCS_K_UNSUPP;
	return error ? EDM_PCS_K_ERROR : EDM_PCS_K_IDLE;
}

static bool pcs_ms_ok(u64 p)
{
	return !(p & pcs_above(PCS_MS_END)) &&
	       pcs_field(p, PCS_LEN_SHIFT, PCS_SIZE_BITS) > EDM_PCS_MST_MAX;
}

static bool pcs_mst_ok(u64 p)
{
	u64 len = pcs_field(p, PCS_LEN_SHIFT, PCS_MST_LEN_BITS);

	return !(p & pcs_above(PCS_MST_DATA + 8 * len));
}

static enum edm_pcs_class pcs_classify_ctrl(u64 p)
{
	u8 type = p & PCS_TYPE_MASK;
	int n;

	switch (type) {
	case EDM_PCS_BT_C:
		return pcs_classify_c(p);
	case EDM_PCS_BT_S:
		return EDM_PCS_K_START;
	case EDM_PCS_BT_C_O:
	case EDM_PCS_BT_C_S:
	case EDM_PCS_BT_O_S:
	case EDM_PCS_BT_O_O:
	case EDM_PCS_BT_O_C:
		return EDM_PCS_K_UNSUPP;
	case EDM_PCS_BT_MS:
		return pcs_ms_ok(p) ? EDM_PCS_K_MS : EDM_PCS_K_BAD;
	case EDM_PCS_BT_MT:
		return EDM_PCS_K_MT;	/* its tail is checked against the /MS/ */
	case EDM_PCS_BT_MST:
		return pcs_mst_ok(p) ? EDM_PCS_K_MST : EDM_PCS_K_BAD;
	case EDM_PCS_BT_N:
	case EDM_PCS_BT_G:
		if (p & pcs_above(PCS_NG_END))
			return EDM_PCS_K_BAD;
		return type == EDM_PCS_BT_N ? EDM_PCS_K_NOTIFY : EDM_PCS_K_GRANT;
	}
	/* A /T/: the bits after its data, padding and /I/ codes, are zero. */
	n = pcs_term_len(type);
	if (n < 0 || (p & pcs_above(8 + 8 * n)))
		return EDM_PCS_K_BAD;
	return EDM_PCS_K_TERM;
}

enum edm_pcs_class edm_pcs_classify(const struct edm_pcs_block *b)
{
	switch (b->sync) {
	case EDM_PCS_SYNC_DATA:
		return EDM_PCS_K_DATA;
	case EDM_PCS_SYNC_CTRL:
		return pcs_classify_ctrl(b->payload);
	default:
		return EDM_PCS_K_BAD;
	}
}

void edm_pcs_idle_pack(struct edm_pcs_block *b)
{
	pcs_set(b, EDM_PCS_SYNC_CTRL, EDM_PCS_BT_C);
}

void edm_pcs_error_pack(struct edm_pcs_block *b)
{
	u64 p = EDM_PCS_BT_C;
	int i;

	for (i = 0; i < PCS_NCODES; i++)
		p |= (u64)EDM_PCS_CC_ERROR << (8 + PCS_CC_BITS * i);
	pcs_set(b, EDM_PCS_SYNC_CTRL, p);
}

static void edm_pcs_data_pack(struct edm_pcs_block *b, const u8 *data)
{
	pcs_set(b, EDM_PCS_SYNC_DATA, pcs_load(data, 8));
}

void edm_pcs_data_unpack(const struct edm_pcs_block *b, u8 *data)
{
	pcs_store(data, b->payload, 8);
}

void edm_pcs_start_pack(struct edm_pcs_block *b, const u8 *data)
{
	pcs_set(b, EDM_PCS_SYNC_CTRL, EDM_PCS_BT_S | pcs_load(data, 7) << 8);
}

int edm_pcs_term_pack(struct edm_pcs_block *b, const u8 *data, u32 n)
{
	if (n > PCS_TERM_MAX)
		return -ERANGE;
	pcs_set(b, EDM_PCS_SYNC_CTRL, pcs_term_type[n] | pcs_load(data, n) << 8);
	return 0;
}

/* Returns the number of bytes, 0..7, copied to @data. */
int edm_pcs_term_unpack(const struct edm_pcs_block *b, u8 *data)
{
	int n;

	if (edm_pcs_classify(b) != EDM_PCS_K_TERM)
		return -EINVAL;
	n = pcs_term_len(pcs_type(b));
	pcs_store(data, b->payload >> 8, n);
	return n;
}

static int pcs_ng_pack(struct edm_pcs_block *b, u8 type, const struct edm_pcs_ng *ng)
{
	if (ng->dest > EDM_PCS_DEST_MAX || ng->id > EDM_PCS_ID_MAX ||
	    ng->size > EDM_PCS_SIZE_MAX)
		return -ERANGE;
	pcs_set(b, EDM_PCS_SYNC_CTRL, type | (u64)ng->dest << PCS_DEST_SHIFT |
		(u64)ng->id << PCS_ID_SHIFT | (u64)ng->size << PCS_SIZE_SHIFT);
	return 0;
}

static int pcs_ng_unpack(const struct edm_pcs_block *b, enum edm_pcs_class want,
			 struct edm_pcs_ng *ng)
{
	if (edm_pcs_classify(b) != want)
		return -EINVAL;
	ng->dest = pcs_field(b->payload, PCS_DEST_SHIFT, PCS_DEST_BITS);
	ng->id = pcs_field(b->payload, PCS_ID_SHIFT, PCS_ID_BITS);
	ng->size = pcs_field(b->payload, PCS_SIZE_SHIFT, PCS_SIZE_BITS);
	return 0;
}

int edm_pcs_notify_pack(struct edm_pcs_block *b, const struct edm_pcs_ng *ng)
{
	return pcs_ng_pack(b, EDM_PCS_BT_N, ng);
}

int edm_pcs_grant_pack(struct edm_pcs_block *b, const struct edm_pcs_ng *ng)
{
	return pcs_ng_pack(b, EDM_PCS_BT_G, ng);
}

int edm_pcs_notify_unpack(const struct edm_pcs_block *b, struct edm_pcs_ng *ng)
{
	return pcs_ng_unpack(b, EDM_PCS_K_NOTIFY, ng);
}

int edm_pcs_grant_unpack(const struct edm_pcs_block *b, struct edm_pcs_ng *ng)
{
	return pcs_ng_unpack(b, EDM_PCS_K_GRANT, ng);
}

/* Every field of @hdr in range; -ERANGE names none in particular. */
int edm_pcs_msg_check(const struct edm_pcs_msg_hdr *hdr)
{
	if (hdr->dest > EDM_PCS_DEST_MAX || hdr->src > EDM_PCS_DEST_MAX ||
	    hdr->id > EDM_PCS_ID_MAX || hdr->kind > EDM_PCS_KIND_MAX ||
	    hdr->len > EDM_PCS_MSG_MAX)
		return -ERANGE;
	return 0;
}

/* Type, dest, id, kind and src: the part /MS/ and /MST/ share. */
static u64 pcs_msg_head(u8 type, const struct edm_pcs_msg_hdr *hdr)
{
	return type | (u64)hdr->dest << PCS_DEST_SHIFT | (u64)hdr->id << PCS_ID_SHIFT |
	       (u64)hdr->kind << PCS_KIND_SHIFT | (u64)hdr->src << PCS_SRC_SHIFT;
}

static void pcs_msg_head_unpack(u64 p, struct edm_pcs_msg_hdr *hdr, unsigned int len_bits)
{
	hdr->dest = pcs_field(p, PCS_DEST_SHIFT, PCS_DEST_BITS);
	hdr->id = pcs_field(p, PCS_ID_SHIFT, PCS_ID_BITS);
	hdr->kind = pcs_field(p, PCS_KIND_SHIFT, PCS_KIND_BITS);
	hdr->src = pcs_field(p, PCS_SRC_SHIFT, PCS_DEST_BITS);
	hdr->len = pcs_field(p, PCS_LEN_SHIFT, len_bits);
}

/* An /MS/ is for messages an /MST/ cannot hold: -EINVAL for the others. */
int edm_pcs_ms_pack(struct edm_pcs_block *b, const struct edm_pcs_msg_hdr *hdr)
{
	int err = edm_pcs_msg_check(hdr);

	if (err)
		return err;
	if (hdr->len <= EDM_PCS_MST_MAX)
		return -EINVAL;
	pcs_set(b, EDM_PCS_SYNC_CTRL,
		pcs_msg_head(EDM_PCS_BT_MS, hdr) | (u64)hdr->len << PCS_LEN_SHIFT);
	return 0;
}

int edm_pcs_ms_unpack(const struct edm_pcs_block *b, struct edm_pcs_msg_hdr *hdr)
{
	if (edm_pcs_classify(b) != EDM_PCS_K_MS)
		return -EINVAL;
	pcs_msg_head_unpack(b->payload, hdr, PCS_SIZE_BITS);
	return 0;
}

int edm_pcs_mst_pack(struct edm_pcs_block *b, const struct edm_pcs_msg_hdr *hdr,
		     const u8 *payload)
{
	int err = edm_pcs_msg_check(hdr);

	if (err)
		return err;
	if (hdr->len > EDM_PCS_MST_MAX)
		return -ERANGE;
	pcs_set(b, EDM_PCS_SYNC_CTRL,
		pcs_msg_head(EDM_PCS_BT_MST, hdr) | (u64)hdr->len << PCS_LEN_SHIFT |
		pcs_load(payload, hdr->len) << PCS_MST_DATA);
	return 0;
}

/* @payload receives hdr->len bytes, at most EDM_PCS_MST_MAX. */
int edm_pcs_mst_unpack(const struct edm_pcs_block *b, struct edm_pcs_msg_hdr *hdr,
		       u8 *payload)
{
	if (edm_pcs_classify(b) != EDM_PCS_K_MST)
		return -EINVAL;
	pcs_msg_head_unpack(b->payload, hdr, PCS_MST_LEN_BITS);
	pcs_store(payload, b->payload >> PCS_MST_DATA, hdr->len);
	return 0;
}

int edm_pcs_mt_pack(struct edm_pcs_block *b, const u8 *tail, u32 n)
{
	if (n > PCS_TERM_MAX)
		return -ERANGE;
	pcs_set(b, EDM_PCS_SYNC_CTRL, EDM_PCS_BT_MT | pcs_load(tail, n) << 8);
	return 0;
}

/* @n, the tail length, comes from the /MS/: len % 8. */
static int edm_pcs_mt_unpack(const struct edm_pcs_block *b, u8 *tail, u32 n)
{
	if (n > PCS_TERM_MAX || edm_pcs_classify(b) != EDM_PCS_K_MT ||
	    (b->payload & pcs_above(8 + 8 * n)))
		return -EINVAL;
	pcs_store(tail, b->payload >> 8, n);
	return 0;
}

u32 edm_pcs_frame_nblocks(u32 len)
{
	return len / 8 + 2;
}

/*
 * Block @i of the frame: /S/ with the preamble and SFD, len / 8 /D/, then a
 * /T/ with the last len % 8 bytes. Ethernet frames are never empty.
 */
int edm_pcs_frame_block(const u8 *frame, u32 len, u32 i, struct edm_pcs_block *b)
{
	static const u8 preamble[PCS_PREAMBLE_LEN] = {
		EDM_PCS_PREAMBLE, EDM_PCS_PREAMBLE, EDM_PCS_PREAMBLE,
		EDM_PCS_PREAMBLE, EDM_PCS_PREAMBLE, EDM_PCS_PREAMBLE, EDM_PCS_SFD,
	};
	u32 ndata = len / 8;

	if (!len || i > ndata + 1)
		return -EINVAL;
	if (i == 0)
		edm_pcs_start_pack(b, preamble);
	else if (i <= ndata)
		edm_pcs_data_pack(b, frame + 8 * (i - 1));
	else
		edm_pcs_term_pack(b, frame + 8 * ndata, len % 8);
	return 0;
}

/* Returns the number of blocks written, edm_pcs_frame_nblocks(len). */
int edm_pcs_frame_encode(const u8 *frame, u32 len, struct edm_pcs_block *out, u32 cap)
{
	u32 i, n = edm_pcs_frame_nblocks(len);

	if (!len)
		return -EINVAL;
	if (cap < n)
		return -ENOSPC;
	for (i = 0; i < n; i++)
		edm_pcs_frame_block(frame, len, i, &out[i]);
	return n;
}

u32 edm_pcs_msg_nblocks(u32 len)
{
	return len <= EDM_PCS_MST_MAX ? 1 : len / 8 + 2;
}

int edm_pcs_msg_block(const struct edm_pcs_msg_hdr *hdr, const u8 *payload, u32 i,
		      struct edm_pcs_block *b)
{
	int err = edm_pcs_msg_check(hdr);
	u32 ndata = hdr->len / 8;

	if (err)
		return err;
	if (i >= edm_pcs_msg_nblocks(hdr->len))
		return -EINVAL;
	if (hdr->len <= EDM_PCS_MST_MAX)
		return edm_pcs_mst_pack(b, hdr, payload);
	if (i == 0)
		return edm_pcs_ms_pack(b, hdr);
	if (i <= ndata) {
		edm_pcs_data_pack(b, payload + 8 * (i - 1));
		return 0;
	}
	return edm_pcs_mt_pack(b, payload + 8 * ndata, hdr->len % 8);
}

/* Returns the number of blocks written, edm_pcs_msg_nblocks(hdr->len). */
int edm_pcs_msg_encode(const struct edm_pcs_msg_hdr *hdr, const u8 *payload,
		       struct edm_pcs_block *out, u32 cap)
{
	int err = edm_pcs_msg_check(hdr);
	u32 i, n;

	if (err)
		return err;
	n = edm_pcs_msg_nblocks(hdr->len);
	if (cap < n)
		return -ENOSPC;
	for (i = 0; i < n; i++)
		edm_pcs_msg_block(hdr, payload, i, &out[i]);
	return n;
}

/*
 * The receiver starts in DROP: a link that comes up mid-run discards the
 * rest of it and synchronizes on the first /I/, /S/ or /T/.
 */
void edm_pcs_dec_init(struct edm_pcs_dec *dec, u8 *frame, u32 frame_cap, u8 *msg, u32 msg_cap)
{
	memset(dec, 0, sizeof(*dec));
	dec->frame = frame;
	dec->frame_cap = frame_cap;
	dec->msg = msg;
	dec->msg_cap = msg_cap;
	dec->fstate = PCS_DROP;
	dec->mstate = PCS_DROP;
}

static int pcs_dec_fail(struct edm_pcs_dec *dec, int err)
{
	dec->fstate = PCS_DROP;
	dec->mstate = PCS_DROP;
	return err;
}

static bool pcs_dec_busy(const struct edm_pcs_dec *dec)
{
	return dec->fstate == PCS_DATA || dec->mstate == PCS_DATA;
}

static int pcs_dec_data(struct edm_pcs_dec *dec, const struct edm_pcs_block *b)
{
	if (dec->mstate == PCS_DATA) {
		if (dec->hdr.len - dec->msg_len < 8)
			return pcs_dec_fail(dec, -EPROTO);	/* /MD/ past len */
		edm_pcs_data_unpack(b, dec->msg + dec->msg_len);
		dec->msg_len += 8;
		return 0;
	}
	if (dec->mstate == PCS_DROP)
		return 0;
	if (dec->fstate == PCS_DATA) {
		if (dec->frame_cap - dec->frame_len < 8)
			return pcs_dec_fail(dec, -EMSGSIZE);
		edm_pcs_data_unpack(b, dec->frame + dec->frame_len);
		dec->frame_len += 8;
		return 0;
	}
	if (dec->fstate == PCS_DROP)
		return 0;
	return pcs_dec_fail(dec, -EPROTO);	/* /D/ outside a frame */
}

/* /I/ and /E/ end every run; inside one they are an error. */
static int pcs_dec_idle(struct edm_pcs_dec *dec, struct edm_pcs_event *ev, bool error)
{
	if (pcs_dec_busy(dec))
		return pcs_dec_fail(dec, error ? -EIO : -EPROTO);
	dec->fstate = PCS_IDLE;
	dec->mstate = PCS_IDLE;
	ev->type = error ? EDM_PCS_EV_ERROR : EDM_PCS_EV_IDLE;
	return 0;
}

static int pcs_dec_start(struct edm_pcs_dec *dec, const struct edm_pcs_block *b)
{
	u64 pre = b->payload >> 8;
	int i;

	if (pcs_dec_busy(dec))
		return pcs_dec_fail(dec, -EPROTO);
	for (i = 0; i < PCS_PREAMBLE_LEN; i++) {
		u8 want = i == PCS_PREAMBLE_LEN - 1 ? EDM_PCS_SFD : EDM_PCS_PREAMBLE;

		if (((pre >> (8 * i)) & 0xff) != want)
			return pcs_dec_fail(dec, -EBADMSG);
	}
	dec->mstate = PCS_IDLE;
	dec->fstate = PCS_DATA;
	dec->frame_len = 0;
	return 0;
}

static int pcs_dec_term(struct edm_pcs_dec *dec, const struct edm_pcs_block *b,
			struct edm_pcs_event *ev)
{
	u8 tail[PCS_TERM_MAX];
	int n;

	if (dec->mstate == PCS_DATA || dec->fstate == PCS_IDLE)
		return pcs_dec_fail(dec, -EPROTO);
	dec->mstate = PCS_IDLE;
	if (dec->fstate == PCS_DROP) {
		dec->fstate = PCS_IDLE;
		return 0;
	}
	n = edm_pcs_term_unpack(b, tail);
	if (dec->frame_cap - dec->frame_len < (u32)n)
		return pcs_dec_fail(dec, -EMSGSIZE);
	if (!dec->frame_len && !n)
		return pcs_dec_fail(dec, -EBADMSG);	/* empty frame */
	memcpy(dec->frame + dec->frame_len, tail, n);
	dec->frame_len += n;
	dec->fstate = PCS_IDLE;
	ev->type = EDM_PCS_EV_FRAME;
	ev->len = dec->frame_len;
	return 0;
}

static int pcs_dec_ms(struct edm_pcs_dec *dec, const struct edm_pcs_block *b)
{
	struct edm_pcs_msg_hdr hdr;

	if (dec->mstate == PCS_DATA)
		return pcs_dec_fail(dec, -EPROTO);
	edm_pcs_ms_unpack(b, &hdr);
	if (hdr.len > dec->msg_cap)
		return pcs_dec_fail(dec, -EMSGSIZE);
	dec->hdr = hdr;
	dec->msg_len = 0;
	dec->mstate = PCS_DATA;
	return 0;
}

static int pcs_dec_mt(struct edm_pcs_dec *dec, const struct edm_pcs_block *b,
		      struct edm_pcs_event *ev)
{
	u8 tail[PCS_TERM_MAX];
	u32 n;

	if (dec->mstate == PCS_DROP) {
		dec->mstate = PCS_IDLE;
		return 0;
	}
	if (dec->mstate == PCS_IDLE)
		return pcs_dec_fail(dec, -EPROTO);	/* /MT/ outside a message */
	n = dec->hdr.len - dec->msg_len;
	if (n > PCS_TERM_MAX)
		return pcs_dec_fail(dec, -EPROTO);	/* /MD/ missing */
	if (edm_pcs_mt_unpack(b, tail, n))
		return pcs_dec_fail(dec, -EBADMSG);
	memcpy(dec->msg + dec->msg_len, tail, n);
	dec->msg_len += n;
	dec->mstate = PCS_IDLE;
	ev->type = EDM_PCS_EV_MSG;
	ev->hdr = dec->hdr;
	ev->len = dec->msg_len;
	return 0;
}

static int pcs_dec_mst(struct edm_pcs_dec *dec, const struct edm_pcs_block *b,
		       struct edm_pcs_event *ev)
{
	u8 payload[EDM_PCS_MST_MAX];
	struct edm_pcs_msg_hdr hdr;

	if (dec->mstate == PCS_DATA)
		return pcs_dec_fail(dec, -EPROTO);
	edm_pcs_mst_unpack(b, &hdr, payload);
	if (hdr.len > dec->msg_cap)
		return pcs_dec_fail(dec, -EMSGSIZE);
	memcpy(dec->msg, payload, hdr.len);
	dec->mstate = PCS_IDLE;
	ev->type = EDM_PCS_EV_MSG;
	ev->hdr = hdr;
	ev->len = hdr.len;
	return 0;
}

/*
 * Feed one received (descrambled) block. Returns 0 and what it completed in
 * @ev, or an error for a block that is malformed (-EBADMSG), unsupported
 * (-EOPNOTSUPP), out of sequence (-EPROTO), too big for a buffer (-EMSGSIZE)
 * or an /E/ inside a run (-EIO); in-progress runs are then dropped.
 */
int edm_pcs_dec_block(struct edm_pcs_dec *dec, const struct edm_pcs_block *b,
		      struct edm_pcs_event *ev)
{
	ev->type = EDM_PCS_EV_NONE;
	ev->len = 0;
	switch (edm_pcs_classify(b)) {
	case EDM_PCS_K_DATA:
		return pcs_dec_data(dec, b);
	case EDM_PCS_K_IDLE:
		return pcs_dec_idle(dec, ev, false);
	case EDM_PCS_K_ERROR:
		return pcs_dec_idle(dec, ev, true);
	case EDM_PCS_K_START:
		return pcs_dec_start(dec, b);
	case EDM_PCS_K_TERM:
		return pcs_dec_term(dec, b, ev);
	case EDM_PCS_K_MS:
		return pcs_dec_ms(dec, b);
	case EDM_PCS_K_MT:
		return pcs_dec_mt(dec, b, ev);
	case EDM_PCS_K_MST:
		return pcs_dec_mst(dec, b, ev);
	case EDM_PCS_K_NOTIFY:
		ev->type = EDM_PCS_EV_NOTIFY;
		return edm_pcs_notify_unpack(b, &ev->ng);
	case EDM_PCS_K_GRANT:
		ev->type = EDM_PCS_EV_GRANT;
		return edm_pcs_grant_unpack(b, &ev->ng);
	case EDM_PCS_K_UNSUPP:
		return pcs_dec_fail(dec, -EOPNOTSUPP);
	default:
		return pcs_dec_fail(dec, -EBADMSG);
	}
}

/*
 * @seed holds S0..S57 of figure 49-8 in bits 0..57 (S0: the bit scrambled
 * last); higher bits are ignored.
 */
void edm_pcs_scr_init(struct edm_pcs_scr *scr, u64 seed)
{
	int k;

	scr->state = 0;
	for (k = 0; k < EDM_PCS_SCR_BITS; k++)
		if (seed >> k & 1)
			scr->state |= 1ULL << (63 - k);
}

/*
 * Bit n of a block is scrambled as s[n] = d[n] ^ s[n - 39] ^ s[n - 58]. For
 * n < 39 (n < 58) the tap lies in the previous block, bit n + 25 (n + 6) of
 * the state: that is t. The taps inside the block reach back to bits 0..24,
 * which t already holds final, so one more pass of shifts completes it.
 */
u64 edm_pcs_scramble_word(struct edm_pcs_scr *scr, u64 payload)
{
	u64 t = payload ^ scr->state >> (64 - PCS_SCR_TAP) ^ scr->state >> (64 - EDM_PCS_SCR_BITS);
	u64 s = t ^ t << PCS_SCR_TAP ^ t << EDM_PCS_SCR_BITS;

	scr->state = s;
	return s;
}

/* d[n] = r[n] ^ r[n - 39] ^ r[n - 58]: self-synchronizing after 58 bits. */
u64 edm_pcs_descramble_word(struct edm_pcs_scr *scr, u64 payload)
{
	u64 d = payload ^ payload << PCS_SCR_TAP ^ payload << EDM_PCS_SCR_BITS ^
		scr->state >> (64 - PCS_SCR_TAP) ^ scr->state >> (64 - EDM_PCS_SCR_BITS);

	scr->state = payload;
	return d;
}

void edm_pcs_scramble(struct edm_pcs_scr *scr, struct edm_pcs_block *b, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		b[i].payload = edm_pcs_scramble_word(scr, b[i].payload);
}

void edm_pcs_descramble(struct edm_pcs_scr *scr, struct edm_pcs_block *b, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		b[i].payload = edm_pcs_descramble_word(scr, b[i].payload);
}

int edm_pcs_sherr_init(struct edm_pcs_sherr *c, u32 threshold, u32 window)
{
	if (window && threshold > window)
		return -EINVAL;		/* could never trip */
	memset(c, 0, sizeof(*c));
	c->threshold = threshold;
	c->window = window;
	return 0;
}

/*
 * Feed the sync header of one received block. Returns true once, on the
 * block that brings the current window to @threshold bad headers: the
 * caller disables the link and reports it. Windows are consecutive, not
 * sliding, like clause 49's 125 us hi_ber timer.
 */
bool edm_pcs_sherr_feed(struct edm_pcs_sherr *c, u8 sync)
{
	bool bad = sync != EDM_PCS_SYNC_DATA && sync != EDM_PCS_SYNC_CTRL;

	c->blocks++;
	if (c->window) {
		if (c->win_blocks == c->window) {
			c->win_blocks = 0;
			c->win_errors = 0;
		}
		c->win_blocks++;
	}
	if (!bad)
		return false;
	c->errors++;
	c->win_errors++;	/* trips (or never will) before it wraps */
	if (c->tripped || !c->threshold || c->win_errors < c->threshold)
		return false;
	c->tripped = true;
	return true;
}

/* The link was re-enabled: count afresh, totals kept. */
void edm_pcs_sherr_rearm(struct edm_pcs_sherr *c)
{
	c->tripped = false;
	c->win_blocks = 0;
	c->win_errors = 0;
}

/* Bytes that @nblocks, at most EDM_PCS_WIRE_MAX, take on the wire. */
u32 edm_pcs_wire_size(u32 nblocks)
{
	u32 rest = nblocks % EDM_PCS_GROUP;
	u32 full = nblocks / EDM_PCS_GROUP * EDM_PCS_GROUP_BYTES;

	return full + (rest ? PCS_WIRE_SYNC + 8 * rest : 0);
}

/* Returns the bytes written, edm_pcs_wire_size(n). */
int edm_pcs_wire_pack(const struct edm_pcs_block *b, u32 n, u8 *buf, u32 cap)
{
	u32 i, size;

	if (n > EDM_PCS_WIRE_MAX)
		return -EINVAL;
	size = edm_pcs_wire_size(n);
	if (size > cap)
		return -ENOSPC;
	for (i = 0; i < n; i++)
		if (b[i].sync > EDM_PCS_SYNC_BAD3)
			return -EINVAL;
	for (i = 0; i < n; i += EDM_PCS_GROUP) {
		u32 j, g = n - i < EDM_PCS_GROUP ? n - i : EDM_PCS_GROUP;
		u8 *p = buf + i / EDM_PCS_GROUP * EDM_PCS_GROUP_BYTES;
		u32 sync = 0;

		for (j = 0; j < g; j++) {
			sync |= (u32)b[i + j].sync << (2 * j);
			pcs_store(p + PCS_WIRE_SYNC + 8 * j, b[i + j].payload, 8);
		}
		pcs_store(p, sync, PCS_WIRE_SYNC);
	}
	return size;
}

/* Blocks in @len wire bytes, or -EINVAL if no block count packs to @len. */
static int pcs_wire_count(u32 len)
{
	u32 rest = len % EDM_PCS_GROUP_BYTES;

	if (rest && (rest < PCS_WIRE_SYNC + 8 || (rest - PCS_WIRE_SYNC) % 8))
		return -EINVAL;
	return len / EDM_PCS_GROUP_BYTES * EDM_PCS_GROUP +
	       (rest ? (rest - PCS_WIRE_SYNC) / 8 : 0);
}

/* Returns the number of blocks read. Unused sync bits must be zero. */
int edm_pcs_wire_unpack(const u8 *buf, u32 len, struct edm_pcs_block *b, u32 cap)
{
	int n = pcs_wire_count(len);
	u32 i;

	if (n < 0)
		return n;
	if ((u32)n > cap)
		return -ENOSPC;
	if (n % EDM_PCS_GROUP) {
		u32 last = (u32)n / EDM_PCS_GROUP * EDM_PCS_GROUP_BYTES;

		if (pcs_load(buf + last, PCS_WIRE_SYNC) >> (2 * (n % EDM_PCS_GROUP)))
			return -EINVAL;
	}
	for (i = 0; i < (u32)n; i++) {
		const u8 *p = buf + i / EDM_PCS_GROUP * EDM_PCS_GROUP_BYTES;
		u32 j = i % EDM_PCS_GROUP;

		b[i].sync = pcs_load(p, PCS_WIRE_SYNC) >> (2 * j) & 3;
		b[i].payload = pcs_load(p + PCS_WIRE_SYNC + 8 * j, 8);
	}
	return n;
}
