/* SPDX-License-Identifier: GPL-2.0 */
/*
 * EDM's 66-bit block layer (paper 3.2, IEEE 802.3 clause 49): the 64b/66b
 * block codec for Ethernet frames and EDM memory traffic, the self-synchronizing
 * scrambler, the sync-header error monitor and the on-the-wire packing of
 * blocks into Ethernet frames.
 *
 * A kernel-agnostic core: edm.ko, the unit tests and the fuzzer link this one
 * source. It never allocates and takes no lock; every state struct belongs to
 * one caller, who serializes the calls on it.
 *
 * Bit order. A block is a 2-bit sync header and a 64-bit payload, each held
 * with bit 0 = the bit transmitted first, as clause 49 numbers them. So the
 * header clause 49 writes "01" (data) is EDM_PCS_SYNC_DATA = 0x2, and "10"
 * (control) is EDM_PCS_SYNC_CTRL = 0x1; the paper's 3.2 swaps the two
 * strings, we follow the standard. A control block's type is payload bits
 * 0..7; data byte Dn (n = 0 first on the wire) is payload bits 8n..8n+7.
 *
 * EDM block types. Clause 49 uses 15 type values, which with 0x00 form an
 * [8,4,4] code: no byte is at distance 4 from all of them, but the one-bit
 * values are at distance >= 3 from each, and at distance 2 from each other.
 * EDM takes five of them (MS 0x01, MT 0x02, MST 0x04, N 0x08, G 0x10;
 * 0x20, 0x40, 0x80 stay free). A wire bit error becomes at most three payload
 * bit errors 19, 39 or 58 bits apart after descrambling, so it flips at most
 * one bit of a type field: every such flip gives an invalid type, and two
 * flips can never turn an Ethernet block into a memory block or back.
 *
 * /MD/. The paper makes /MD/ "identical to /D/". We keep that: /MD/ is a data
 * block (sync 01, 8 payload bytes) and a receiver tells it from /D/ by
 * position: a data block inside an /MS/../MT/ run is /MD/. This holds because
 * of one transmit rule, which the TX mux must keep:
 *
 *   - an Ethernet frame is /S/ {/D/} /T/ with no /I/ or /E/ inside, but any
 *     memory block (a whole /MS/../MT/ run, /MST/, /N/, /G/) may be
 *     inserted between two of its blocks (intra-frame preemption, 3.2.3);
 *   - a memory message /MS/ /MD/{len/8} /MT/ is never interrupted by frame
 *     blocks, idles or another message; only /N/ and /G/ may be inserted.
 *
 * Memory block layouts (bit ranges of the payload, reserved bits are zero):
 *
 *   /N/, /G/   0..7 type | 8..16 dest | 17..24 id | 25..40 size | 41..63 rsv
 *   /MS/       0..7 type | 8..16 dest | 17..24 id | 25..28 kind | 29..37 src
 *              | 38..53 len | 54..63 rsv
 *   /MST/      as /MS/ up to bit 37 | 38..39 len | 40..63 payload bytes 0..2
 *   /MT/       0..7 type | bytes 1..7: the last len % 8 payload bytes, then 0
 *
 * dest and id sit at the same place in all four, so a switch reads them
 * without knowing the type; size is the message size in an /N/ and the chunk
 * in a /G/ (3.1.4); src lets a requester match an RRES that the switch
 * forwarded unparsed. A message of len <= EDM_PCS_MST_MAX bytes is always one
 * /MST/, a longer one /MS/, len / 8 /MD/ and an /MT/: one encoding per
 * message, and the decoder rejects any other.
 *
 * Wire form (for EDM over Ethernet): blocks in groups of up to eight, each
 * group a little-endian u16 of sync headers (block i in bits 2i..2i+1, unused
 * bits 0) followed by each block's payload as 8 little-endian bytes. Eight
 * blocks take 66 bytes: exactly 66 bits per block. Bad sync headers (00, 11)
 * travel unchanged, so corruption can be injected and detected end to end.
 */
#ifndef _EDM_PCS_H
#define _EDM_PCS_H

#include "edm/core.h"

enum edm_pcs_sync {
	EDM_PCS_SYNC_BAD0	= 0x0,
	EDM_PCS_SYNC_CTRL	= 0x1,		/* "10" on the wire */
	EDM_PCS_SYNC_DATA	= 0x2,		/* "01" on the wire */
	EDM_PCS_SYNC_BAD3	= 0x3,
};

/* Block type field values: clause 49's (figure 49-7), then EDM's own. */
enum edm_pcs_btype {
	EDM_PCS_BT_C		= 0x1e,		/* eight control codes: /I/, /E/ */
	EDM_PCS_BT_C_O		= 0x2d,		/* not supported */
	EDM_PCS_BT_C_S		= 0x33,		/* not supported (start in lane 4) */
	EDM_PCS_BT_O_S		= 0x66,		/* not supported */
	EDM_PCS_BT_O_O		= 0x55,		/* not supported */
	EDM_PCS_BT_S		= 0x78,		/* start in lane 0, 7 bytes */
	EDM_PCS_BT_O_C		= 0x4b,		/* not supported */
	EDM_PCS_BT_T0		= 0x87,		/* terminate after 0 bytes */
	EDM_PCS_BT_T1		= 0x99,
	EDM_PCS_BT_T2		= 0xaa,
	EDM_PCS_BT_T3		= 0xb4,
	EDM_PCS_BT_T4		= 0xcc,
	EDM_PCS_BT_T5		= 0xd2,
	EDM_PCS_BT_T6		= 0xe1,
	EDM_PCS_BT_T7		= 0xff,		/* terminate after 7 bytes */
	EDM_PCS_BT_MS		= 0x01,
	EDM_PCS_BT_MT		= 0x02,
	EDM_PCS_BT_MST		= 0x04,
	EDM_PCS_BT_N		= 0x08,
	EDM_PCS_BT_G		= 0x10,
};

/* 7-bit control codes of a 0x1e block (table 49-1). */
enum edm_pcs_ccode {
	EDM_PCS_CC_IDLE		= 0x00,
	EDM_PCS_CC_ERROR	= 0x1e,
};

enum {
	EDM_PCS_PREAMBLE	= 0x55,		/* the six bytes after /S/ */
	EDM_PCS_SFD		= 0xd5,		/* the seventh */
	EDM_PCS_DEST_MAX	= 511,		/* 9 bits: a 512-node cluster */
	EDM_PCS_ID_MAX		= 255,		/* 8 bits */
	EDM_PCS_SIZE_MAX	= 65535,	/* 16 bits: /N/ size, /G/ chunk */
	EDM_PCS_KIND_MAX	= 15,		/* 4 bits */
	EDM_PCS_MSG_MAX		= 65535,	/* 16-bit len of /MS/ */
	EDM_PCS_MST_MAX		= 3,		/* payload bytes an /MST/ holds */
	EDM_PCS_SCR_BITS	= 58,		/* scrambler length, x^58+x^39+1 */
	EDM_PCS_GROUP		= 8,		/* blocks per wire group */
	EDM_PCS_GROUP_BYTES	= 66,		/* a full wire group */
	EDM_PCS_WIRE_MAX	= 1 << 24,	/* blocks per wire pack/unpack call */
	/* Clause 49's hi_ber: 16 bad headers in 125 us, 19531 blocks at 10G */
	EDM_PCS_SHERR_THRESHOLD	= 16,
	EDM_PCS_SHERR_WINDOW	= 19531,
};

/* Memory message kinds (paper 2.3), carried in /MS/ and /MST/. */
enum edm_pcs_msg_kind {
	EDM_PCS_RREQ,
	EDM_PCS_WREQ,
	EDM_PCS_RMWREQ,
	EDM_PCS_RRES,
	EDM_PCS_NR_KINDS,	/* the field holds up to EDM_PCS_KIND_MAX */
};

/* What one block is, by its sync header, type and control codes. */
enum edm_pcs_class {
	EDM_PCS_K_BAD,		/* sync 00/11, unknown type or malformed */
	EDM_PCS_K_UNSUPP,	/* a clause 49 type this codec does not use */
	EDM_PCS_K_DATA,		/* /D/ or /MD/, told apart by position */
	EDM_PCS_K_IDLE,		/* 0x1e, all /I/ */
	EDM_PCS_K_ERROR,	/* 0x1e, /I/ and at least one /E/ */
	EDM_PCS_K_START,
	EDM_PCS_K_TERM,
	EDM_PCS_K_MS,
	EDM_PCS_K_MT,
	EDM_PCS_K_MST,
	EDM_PCS_K_NOTIFY,
	EDM_PCS_K_GRANT,
};

struct edm_pcs_block {
	u8 sync;		/* enum edm_pcs_sync */
	u64 payload;
};

/* /N/ and /G/: wide fields so that a too-large value is caught, not cut. */
struct edm_pcs_ng {
	u32 dest;		/* 0..EDM_PCS_DEST_MAX */
	u32 id;			/* 0..EDM_PCS_ID_MAX */
	u32 size;		/* /N/: message bytes, /G/: chunk bytes */
};

/* The header of a memory message, in its /MS/ or /MST/. */
struct edm_pcs_msg_hdr {
	u32 dest;		/* 0..EDM_PCS_DEST_MAX */
	u32 src;		/* 0..EDM_PCS_DEST_MAX */
	u32 id;			/* 0..EDM_PCS_ID_MAX */
	u32 kind;		/* enum edm_pcs_msg_kind, 0..EDM_PCS_KIND_MAX */
	u32 len;		/* payload bytes, 0..EDM_PCS_MSG_MAX */
};

/*
 * Scrambler or descrambler state: the last 64 scrambled payload bits, bit 63
 * the latest; bits 6..63 are the 58-bit register S0..S57 (S0 = bit 63).
 */
struct edm_pcs_scr {
	u64 state;
};

/*
 * Sync-header error monitor of one link: counts headers that are neither
 * 01 nor 10, and trips once when @threshold of them fall in one window of
 * @window blocks (0: no window, count since the last rearm).
 */
struct edm_pcs_sherr {
	u64 blocks;		/* headers fed */
	u64 errors;		/* bad headers fed */
	u32 threshold;		/* 0: never trips */
	u32 window;
	u32 win_blocks;		/* blocks in the current window */
	u32 win_errors;		/* bad headers in the current window */
	bool tripped;		/* the link must be disabled */
};

/* Decoder events: what a block completed, if anything. */
enum edm_pcs_ev {
	EDM_PCS_EV_NONE,	/* consumed, nothing complete (/S/, /D/, /MD/, ...) */
	EDM_PCS_EV_IDLE,
	EDM_PCS_EV_ERROR,	/* an /E/ block between frames */
	EDM_PCS_EV_FRAME,	/* frame of ev->len bytes in dec->frame */
	EDM_PCS_EV_MSG,		/* message ev->hdr, payload in dec->msg */
	EDM_PCS_EV_NOTIFY,	/* ev->ng */
	EDM_PCS_EV_GRANT,	/* ev->ng */
};

struct edm_pcs_event {
	enum edm_pcs_ev type;
	u32 len;			/* EV_FRAME: frame bytes */
	struct edm_pcs_msg_hdr hdr;	/* EV_MSG */
	struct edm_pcs_ng ng;		/* EV_NOTIFY, EV_GRANT */
};

/*
 * Receive state machine: one for frames, one for memory messages, each
 * idle, inside a run (DATA) or dropping the rest of a bad run (DROP).
 * Buffers are the caller's; the frame buffer gets the frame without its
 * preamble and SFD.
 */
struct edm_pcs_dec {
	u8 *frame;
	u32 frame_cap;
	u32 frame_len;
	u8 *msg;
	u32 msg_cap;
	u32 msg_len;			/* payload bytes received so far */
	struct edm_pcs_msg_hdr hdr;	/* of the message in progress */
	u8 fstate;
	u8 mstate;
};

/* Single blocks */
enum edm_pcs_class edm_pcs_classify(const struct edm_pcs_block *b);
void edm_pcs_idle_pack(struct edm_pcs_block *b);
void edm_pcs_error_pack(struct edm_pcs_block *b);
void edm_pcs_data_unpack(const struct edm_pcs_block *b, u8 *data);
void edm_pcs_start_pack(struct edm_pcs_block *b, const u8 *data);
int edm_pcs_term_pack(struct edm_pcs_block *b, const u8 *data, u32 n);
int edm_pcs_term_unpack(const struct edm_pcs_block *b, u8 *data);
int edm_pcs_notify_pack(struct edm_pcs_block *b, const struct edm_pcs_ng *ng);
int edm_pcs_grant_pack(struct edm_pcs_block *b, const struct edm_pcs_ng *ng);
int edm_pcs_notify_unpack(const struct edm_pcs_block *b, struct edm_pcs_ng *ng);
int edm_pcs_grant_unpack(const struct edm_pcs_block *b, struct edm_pcs_ng *ng);
int edm_pcs_ms_pack(struct edm_pcs_block *b, const struct edm_pcs_msg_hdr *hdr);
int edm_pcs_ms_unpack(const struct edm_pcs_block *b, struct edm_pcs_msg_hdr *hdr);
int edm_pcs_mst_pack(struct edm_pcs_block *b, const struct edm_pcs_msg_hdr *hdr,
		     const u8 *payload);
int edm_pcs_mst_unpack(const struct edm_pcs_block *b, struct edm_pcs_msg_hdr *hdr,
		       u8 *payload);
int edm_pcs_mt_pack(struct edm_pcs_block *b, const u8 *tail, u32 n);

/* Whole frames and messages: block i of n, or all n at once */
u32 edm_pcs_frame_nblocks(u32 len);
int edm_pcs_frame_block(const u8 *frame, u32 len, u32 i, struct edm_pcs_block *b);
int edm_pcs_frame_encode(const u8 *frame, u32 len, struct edm_pcs_block *out, u32 cap);
int edm_pcs_msg_check(const struct edm_pcs_msg_hdr *hdr);
u32 edm_pcs_msg_nblocks(u32 len);
int edm_pcs_msg_block(const struct edm_pcs_msg_hdr *hdr, const u8 *payload, u32 i,
		      struct edm_pcs_block *b);
int edm_pcs_msg_encode(const struct edm_pcs_msg_hdr *hdr, const u8 *payload,
		       struct edm_pcs_block *out, u32 cap);

/* Receive */
void edm_pcs_dec_init(struct edm_pcs_dec *dec, u8 *frame, u32 frame_cap, u8 *msg, u32 msg_cap);
int edm_pcs_dec_block(struct edm_pcs_dec *dec, const struct edm_pcs_block *b,
		      struct edm_pcs_event *ev);

/* Scrambler (x^58 + x^39 + 1), on payloads only */
void edm_pcs_scr_init(struct edm_pcs_scr *scr, u64 seed);
u64 edm_pcs_scramble_word(struct edm_pcs_scr *scr, u64 payload);
u64 edm_pcs_descramble_word(struct edm_pcs_scr *scr, u64 payload);
void edm_pcs_scramble(struct edm_pcs_scr *scr, struct edm_pcs_block *b, u32 n);
void edm_pcs_descramble(struct edm_pcs_scr *scr, struct edm_pcs_block *b, u32 n);

/* Sync-header error monitor */
int edm_pcs_sherr_init(struct edm_pcs_sherr *c, u32 threshold, u32 window);
bool edm_pcs_sherr_feed(struct edm_pcs_sherr *c, u8 sync);
void edm_pcs_sherr_rearm(struct edm_pcs_sherr *c);

/* Wire form */
u32 edm_pcs_wire_size(u32 nblocks);
int edm_pcs_wire_pack(const struct edm_pcs_block *b, u32 n, u8 *buf, u32 cap);
int edm_pcs_wire_unpack(const u8 *buf, u32 len, struct edm_pcs_block *b, u32 cap);

#endif /* _EDM_PCS_H */
