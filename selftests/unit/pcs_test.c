// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the 66-bit block layer (fabric/pcs.c). Expected
 * values come from IEEE 802.3 clause 49 (figure 49-7 block formats, figure
 * 49-8 scrambler), from the layouts documented in edm/pcs.h worked out by
 * hand, or from a bit-serial scrambler written here after figure 49-8.
 */
#include <stdint.h>
#include <string.h>

#include "kselftest_harness.h"
#include "edm/pcs.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Figure 49-8 bit by bit: S0 holds the latest scrambled bit, taps S38, S57. */
struct ref_scr {
	u8 s[58];
};

static void ref_init(struct ref_scr *r, u64 seed)
{
	int k;

	for (k = 0; k < 58; k++)
		r->s[k] = seed >> k & 1;
}

static void ref_shift(struct ref_scr *r, u8 bit)
{
	memmove(r->s + 1, r->s, 57);
	r->s[0] = bit;
}

static u64 ref_scramble(struct ref_scr *r, u64 in)
{
	u64 out = 0;
	int i;

	for (i = 0; i < 64; i++) {
		u8 o = (in >> i & 1) ^ r->s[38] ^ r->s[57];

		ref_shift(r, o);
		out |= (u64)o << i;
	}
	return out;
}

static u64 ref_descramble(struct ref_scr *r, u64 in)
{
	u64 out = 0;
	int i;

	for (i = 0; i < 64; i++) {
		u8 b = in >> i & 1;

		out |= (u64)(b ^ r->s[38] ^ r->s[57]) << i;
		ref_shift(r, b);
	}
	return out;
}

static u64 rng_state = 0x9e3779b97f4a7c15ULL;

static u64 rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static int cls(const struct edm_pcs_block *b)
{
	return edm_pcs_classify(b);
}

static u8 popcount8(u8 v)
{
	u8 n = 0;

	for (; v; v &= v - 1)
		n++;
	return n;
}

/* ---- scrambler ---- */

TEST(scrambler_impulse_response)
{
	struct edm_pcs_scr scr;

	/*
	 * Zero state, a single 1 at bit 0: s[n] = d[n] ^ s[n-39] ^ s[n-58]
	 * sets n = 0, 39, 58 in the first block; in the second, n counts the
	 * ways to write n as a sum of 39s and 58s, mod 2: 78 = 39+39 (one way),
	 * 97 = 39+58 = 58+39 (two, cancels), 116 = 58+58, 117 = 3*39.
	 */
	edm_pcs_scr_init(&scr, 0);
	EXPECT_EQ(0x0400008000000001ULL, edm_pcs_scramble_word(&scr, 1));
	EXPECT_EQ((1ULL << (78 - 64)) | (1ULL << (116 - 64)) | (1ULL << (117 - 64)),
		  edm_pcs_scramble_word(&scr, 0));
}

TEST(scrambler_seed_convention)
{
	struct edm_pcs_scr scr;

	/* All ones, zero data: bits 0..38 see 1^1, bits 39..57 see 0^1, 58..63 0^0. */
	edm_pcs_scr_init(&scr, (1ULL << 58) - 1);
	EXPECT_EQ(0x03ffff8000000000ULL, edm_pcs_scramble_word(&scr, 0));

	/* S0 (scrambled 1 bit ago) reaches bits 38 and 57 of the next block. */
	edm_pcs_scr_init(&scr, 1);
	EXPECT_EQ((1ULL << 38) | (1ULL << 57), edm_pcs_scramble_word(&scr, 0));

	/* S57 (58 bits ago) reaches bit 0, which then echoes at 39 and 58. */
	edm_pcs_scr_init(&scr, 1ULL << 57);
	EXPECT_EQ(0x0400008000000001ULL, edm_pcs_scramble_word(&scr, 0));

	/* Bits above S57 are not part of the seed. */
	edm_pcs_scr_init(&scr, ~0ULL << 58);
	EXPECT_EQ(0U, edm_pcs_scramble_word(&scr, 0));
}

TEST(scrambler_matches_bit_serial_reference)
{
	int round;

	for (round = 0; round < 200; round++) {
		u64 seed = rnd() & ((1ULL << 58) - 1);
		struct edm_pcs_scr scr, dscr;
		struct ref_scr ref, dref;
		int i;

		edm_pcs_scr_init(&scr, seed);
		edm_pcs_scr_init(&dscr, seed);
		ref_init(&ref, seed);
		ref_init(&dref, seed);
		for (i = 0; i < 20; i++) {
			u64 d = rnd(), s = edm_pcs_scramble_word(&scr, d), x = rnd();

			ASSERT_EQ(ref_scramble(&ref, d), s);
			/* the descrambler on arbitrary input, not only scrambled */
			ASSERT_EQ(ref_descramble(&dref, x), edm_pcs_descramble_word(&dscr, x));
		}
	}
}

TEST(scrambler_chunking_does_not_matter)
{
	struct edm_pcs_block whole[64], chunked[64], orig[64];
	struct edm_pcs_scr a, b, c;
	u32 i, done;

	for (i = 0; i < 64; i++) {
		whole[i].sync = i & 1 ? EDM_PCS_SYNC_DATA : EDM_PCS_SYNC_CTRL;
		whole[i].payload = rnd();
		chunked[i] = whole[i];
		orig[i] = whole[i];
	}
	edm_pcs_scr_init(&a, 0x123456789abcdefULL);
	edm_pcs_scr_init(&b, 0x123456789abcdefULL);
	edm_pcs_scramble(&a, whole, 64);
	for (done = 0; done < 64; ) {
		u32 n = 1 + rnd() % 9;

		if (n > 64 - done)
			n = 64 - done;
		edm_pcs_scramble(&b, chunked + done, n);
		done += n;
	}
	for (i = 0; i < 64; i++) {
		ASSERT_EQ(whole[i].payload, chunked[i].payload);
		ASSERT_EQ(i & 1 ? EDM_PCS_SYNC_DATA : EDM_PCS_SYNC_CTRL, chunked[i].sync);
	}
	/* And back, in other chunks. */
	edm_pcs_scr_init(&c, 0x123456789abcdefULL);
	for (done = 0; done < 64; done += 4)
		edm_pcs_descramble(&c, chunked + done, 4);
	for (i = 0; i < 64; i++) {
		ASSERT_NE(orig[i].payload, whole[i].payload);	/* it was scrambled */
		ASSERT_EQ(orig[i].payload, chunked[i].payload);
	}
}

TEST(descrambler_self_synchronizes_after_58_bits)
{
	struct edm_pcs_scr tx, rx;
	struct ref_scr ref;
	u64 d[4], first;
	int i;

	edm_pcs_scr_init(&tx, 0x2aaaaaaaaaaaaaaULL);
	edm_pcs_scr_init(&rx, 0x155555555555555ULL);	/* every bit wrong */
	ref_init(&ref, 0x2aaaaaaaaaaaaaaULL);
	for (i = 0; i < 4; i++)
		d[i] = rnd();
	first = edm_pcs_descramble_word(&rx, edm_pcs_scramble_word(&tx, d[0]));
	ref_scramble(&ref, d[0]);
	/* Bits 58..63 of the first block depend on that block alone. */
	EXPECT_EQ(d[0] >> 58, first >> 58);
	EXPECT_NE(d[0] & ((1ULL << 58) - 1), first & ((1ULL << 58) - 1));
	for (i = 1; i < 4; i++)
		EXPECT_EQ(d[i], edm_pcs_descramble_word(&rx, edm_pcs_scramble_word(&tx, d[i])));
}

/* ---- single blocks (figure 49-7) ---- */

TEST(idle_and_error_blocks)
{
	struct edm_pcs_block b;

	edm_pcs_idle_pack(&b);
	EXPECT_EQ(0x1, b.sync);				/* "10" */
	EXPECT_EQ(0x1eULL, b.payload);			/* eight /I/ = 0x00 */
	EXPECT_EQ(EDM_PCS_K_IDLE, cls(&b));
	edm_pcs_error_pack(&b);
	EXPECT_EQ(0x1, b.sync);
	EXPECT_EQ(0x3c78f1e3c78f1e1eULL, b.payload);	/* eight 7-bit 0x1e */
	EXPECT_EQ(EDM_PCS_K_ERROR, cls(&b));
	b.payload = 0x1e | 0x1eULL << 57;		/* one /E/ among /I/ */
	EXPECT_EQ(EDM_PCS_K_ERROR, cls(&b));
	b.payload = 0x1e | 0x07ULL << 8;		/* no such control code */
	EXPECT_EQ(EDM_PCS_K_BAD, cls(&b));
	b.payload = 0x1e | 0x06ULL << 8;		/* LPI: valid, not ours */
	EXPECT_EQ(EDM_PCS_K_UNSUPP, cls(&b));
}

TEST(frame_blocks_match_clause_49)
{
	const u8 frame[13] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13 };
	struct edm_pcs_block b[3];

	ASSERT_EQ(3U, edm_pcs_frame_nblocks(13));
	ASSERT_EQ(3, edm_pcs_frame_encode(frame, 13, b, 3));
	EXPECT_EQ(0x1, b[0].sync);
	EXPECT_EQ(0xd555555555555578ULL, b[0].payload);	/* /S/, preamble, SFD */
	EXPECT_EQ(0x2, b[1].sync);				/* "01" */
	EXPECT_EQ(0x0807060504030201ULL, b[1].payload);
	EXPECT_EQ(0x1, b[2].sync);
	EXPECT_EQ(0x0d0c0b0a09d2ULL, b[2].payload);		/* /T/ after 5 bytes */
	EXPECT_EQ(-ENOSPC, edm_pcs_frame_encode(frame, 13, b, 2));
	EXPECT_EQ(-EINVAL, edm_pcs_frame_encode(frame, 0, b, 3));
	EXPECT_EQ(-EINVAL, edm_pcs_frame_block(frame, 13, 3, b));
}

TEST(terminate_types_by_length)
{
	static const u8 want[8] = { 0x87, 0x99, 0xaa, 0xb4, 0xcc, 0xd2, 0xe1, 0xff };
	const u8 data[7] = { 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7 };
	u8 back[7];
	u32 n;

	for (n = 0; n < 8; n++) {
		struct edm_pcs_block b;
		u64 p = want[n];
		u32 i;

		for (i = 0; i < n; i++)
			p |= (u64)data[i] << (8 + 8 * i);
		ASSERT_EQ(0, edm_pcs_term_pack(&b, data, n));
		EXPECT_EQ(p, b.payload);
		EXPECT_EQ(EDM_PCS_K_TERM, cls(&b));
		EXPECT_EQ((int)n, edm_pcs_term_unpack(&b, back));
		EXPECT_EQ(0, memcmp(data, back, n));
		if (n < 7) {	/* a nonzero bit among the idle codes */
			b.payload |= 1ULL << 63;
			EXPECT_EQ(EDM_PCS_K_BAD, cls(&b));
			EXPECT_EQ(-EINVAL, edm_pcs_term_unpack(&b, back));
		}
	}
	EXPECT_EQ(-ERANGE, edm_pcs_term_pack(NULL, data, 8));
}

TEST(frame_of_multiple_of_8_ends_in_t0)
{
	u8 frame[16];
	struct edm_pcs_block b[4];

	memset(frame, 0xee, sizeof(frame));
	ASSERT_EQ(4, edm_pcs_frame_encode(frame, 16, b, 4));
	EXPECT_EQ(0x87ULL, b[3].payload);
	EXPECT_EQ(EDM_PCS_SYNC_DATA, b[2].sync);
}

TEST(edm_types_sit_apart_from_clause_49)
{
	static const u8 std[] = { 0x1e, 0x2d, 0x33, 0x66, 0x55, 0x78, 0x4b, 0x87,
				  0x99, 0xaa, 0xb4, 0xcc, 0xd2, 0xe1, 0xff };
	static const u8 edm[] = { EDM_PCS_BT_MS, EDM_PCS_BT_MT, EDM_PCS_BT_MST,
				  EDM_PCS_BT_N, EDM_PCS_BT_G };
	u32 i, j;

	for (i = 0; i < ARRAY_LEN(edm); i++) {
		for (j = 0; j < ARRAY_LEN(std); j++)
			EXPECT_LE(3, popcount8(edm[i] ^ std[j]));
		for (j = 0; j < i; j++)
			EXPECT_LE(2, popcount8(edm[i] ^ edm[j]));
	}
}

TEST(one_bit_flip_of_a_type_is_never_valid)
{
	static const u8 types[] = { 0x1e, 0x78, 0x87, 0x99, 0xaa, 0xb4, 0xcc, 0xd2, 0xe1,
				    0xff, EDM_PCS_BT_MT, EDM_PCS_BT_N, EDM_PCS_BT_G };
	u32 i, bit;

	/* The rest of the payload zero: valid for each type listed. */
	for (i = 0; i < ARRAY_LEN(types); i++) {
		struct edm_pcs_block b = { EDM_PCS_SYNC_CTRL, types[i] };

		ASSERT_NE(EDM_PCS_K_BAD, cls(&b));
		for (bit = 0; bit < 8; bit++) {
			b.payload = types[i] ^ (1u << bit);
			EXPECT_EQ(EDM_PCS_K_BAD, cls(&b)) {
				TH_LOG("type 0x%02x bit %u", types[i], bit);
			}
		}
	}
}

TEST(bad_sync_headers)
{
	struct edm_pcs_block b = { 0, 0x1e };

	EXPECT_EQ(EDM_PCS_K_BAD, cls(&b));
	b.sync = 3;
	EXPECT_EQ(EDM_PCS_K_BAD, cls(&b));
	b.sync = EDM_PCS_SYNC_DATA;
	EXPECT_EQ(EDM_PCS_K_DATA, cls(&b));
}

TEST(notify_and_grant_layout)
{
	struct edm_pcs_ng ng = { .dest = 0x1a5, .id = 0x3c, .size = 0xbeef }, back;
	struct edm_pcs_block b;

	ASSERT_EQ(0, edm_pcs_notify_pack(&b, &ng));
	EXPECT_EQ(EDM_PCS_SYNC_CTRL, b.sync);
	/* 0x08 | 0x1a5 << 8 | 0x3c << 17 | 0xbeef << 25 */
	EXPECT_EQ(0x17dde79a508ULL, b.payload);
	EXPECT_EQ(-EINVAL, edm_pcs_grant_unpack(&b, &back));
	ASSERT_EQ(0, edm_pcs_notify_unpack(&b, &back));
	EXPECT_EQ(0x1a5U, back.dest);
	EXPECT_EQ(0x3cU, back.id);
	EXPECT_EQ(0xbeefU, back.size);

	ASSERT_EQ(0, edm_pcs_grant_pack(&b, &ng));
	EXPECT_EQ(0x17dde79a510ULL, b.payload);
	EXPECT_EQ(-EINVAL, edm_pcs_notify_unpack(&b, &back));
	ASSERT_EQ(0, edm_pcs_grant_unpack(&b, &back));
	EXPECT_EQ(0xbeefU, back.size);

	b.payload |= 1ULL << 41;			/* reserved */
	EXPECT_EQ(-EINVAL, edm_pcs_grant_unpack(&b, &back));
}

TEST(notify_and_grant_range_checks)
{
	struct edm_pcs_ng ng = { .dest = 511, .id = 255, .size = 65535 };
	struct edm_pcs_block b;

	EXPECT_EQ(0, edm_pcs_notify_pack(&b, &ng));
	EXPECT_EQ(((1ULL << 41) - 0x100) | 0x08, b.payload);	/* bits 8..40 set */
	ng.dest = 512;
	EXPECT_EQ(-ERANGE, edm_pcs_notify_pack(&b, &ng));
	ng.dest = 0;
	ng.id = 256;
	EXPECT_EQ(-ERANGE, edm_pcs_grant_pack(&b, &ng));
	ng.id = 0;
	ng.size = 65536;
	EXPECT_EQ(-ERANGE, edm_pcs_grant_pack(&b, &ng));
}

TEST(ms_and_mst_layout)
{
	struct edm_pcs_msg_hdr h = { .dest = 0x1a5, .src = 0x0f1, .id = 0x3c,
				     .kind = EDM_PCS_RRES, .len = 0x1234 }, back;
	const u8 two[2] = { 0xaa, 0xbb };
	struct edm_pcs_block b;
	u8 out[3];

	ASSERT_EQ(0, edm_pcs_ms_pack(&b, &h));
	/* 0x01 | 0x1a5 << 8 | 0x3c << 17 | 3 << 25 | 0xf1 << 29 | 0x1234 << 38 */
	EXPECT_EQ(0x48d1e2679a501ULL, b.payload);
	ASSERT_EQ(0, edm_pcs_ms_unpack(&b, &back));
	EXPECT_EQ(0, memcmp(&h, &back, sizeof(h)));

	h.len = 2;
	EXPECT_EQ(-EINVAL, edm_pcs_ms_pack(&b, &h));	/* fits an /MST/ */
	ASSERT_EQ(0, edm_pcs_mst_pack(&b, &h, two));
	EXPECT_EQ(0xbbaa9e2679a504ULL, b.payload);
	ASSERT_EQ(0, edm_pcs_mst_unpack(&b, &back, out));
	EXPECT_EQ(0, memcmp(&h, &back, sizeof(h)));
	EXPECT_EQ(0, memcmp(two, out, 2));
	b.payload |= 1ULL << 56;			/* byte past len */
	EXPECT_EQ(-EINVAL, edm_pcs_mst_unpack(&b, &back, out));

	/* An /MS/ whose len would fit an /MST/ is malformed. */
	b.payload = 0x01 | 3ULL << 38;
	b.sync = EDM_PCS_SYNC_CTRL;
	EXPECT_EQ(EDM_PCS_K_BAD, cls(&b));
	b.payload = 0x01 | 4ULL << 38 | 1ULL << 54;	/* reserved */
	EXPECT_EQ(EDM_PCS_K_BAD, cls(&b));
	b.payload = 0x01 | 4ULL << 38;
	EXPECT_EQ(EDM_PCS_K_MS, cls(&b));
}

TEST(msg_range_checks)
{
	struct edm_pcs_msg_hdr h = { .dest = 511, .src = 511, .id = 255, .kind = 15, .len = 65535 };
	struct edm_pcs_block b;

	EXPECT_EQ(0, edm_pcs_msg_check(&h));
	EXPECT_EQ(0, edm_pcs_ms_pack(&b, &h));
	h.dest = 512;
	EXPECT_EQ(-ERANGE, edm_pcs_ms_pack(&b, &h));
	h.dest = 0;
	h.src = 512;
	EXPECT_EQ(-ERANGE, edm_pcs_msg_check(&h));
	h.src = 0;
	h.id = 256;
	EXPECT_EQ(-ERANGE, edm_pcs_msg_check(&h));
	h.id = 0;
	h.kind = 16;
	EXPECT_EQ(-ERANGE, edm_pcs_msg_check(&h));
	h.kind = 0;
	h.len = 65536;
	EXPECT_EQ(-ERANGE, edm_pcs_msg_encode(&h, NULL, &b, 1));
	h.len = 4;
	EXPECT_EQ(-ERANGE, edm_pcs_mst_pack(&b, &h, NULL));
	EXPECT_EQ(-ERANGE, edm_pcs_mt_pack(&b, NULL, 8));
}

TEST(msg_block_counts)
{
	/* /MST/ up to 3 bytes, then /MS/ + len/8 /MD/ + /MT/. */
	EXPECT_EQ(1U, edm_pcs_msg_nblocks(0));
	EXPECT_EQ(1U, edm_pcs_msg_nblocks(3));
	EXPECT_EQ(2U, edm_pcs_msg_nblocks(4));
	EXPECT_EQ(2U, edm_pcs_msg_nblocks(7));
	EXPECT_EQ(3U, edm_pcs_msg_nblocks(8));
	EXPECT_EQ(10U, edm_pcs_msg_nblocks(64));
	EXPECT_EQ(34U, edm_pcs_msg_nblocks(256));
}

TEST(msg_of_13_bytes)
{
	struct edm_pcs_msg_hdr h = { .dest = 7, .src = 9, .id = 1, .kind = EDM_PCS_WREQ,
				     .len = 13 };
	const u8 p[13] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13 };
	struct edm_pcs_block b[3];

	ASSERT_EQ(3, edm_pcs_msg_encode(&h, p, b, 3));
	EXPECT_EQ(EDM_PCS_K_MS, cls(&b[0]));
	EXPECT_EQ(EDM_PCS_SYNC_DATA, b[1].sync);		/* /MD/ looks like /D/ */
	EXPECT_EQ(0x0807060504030201ULL, b[1].payload);
	EXPECT_EQ(EDM_PCS_SYNC_CTRL, b[2].sync);
	EXPECT_EQ(0x0d0c0b0a0902ULL, b[2].payload);		/* /MT/, 5 bytes */
	EXPECT_EQ(-ENOSPC, edm_pcs_msg_encode(&h, p, b, 2));
}

/* ---- receive state machine ---- */

FIXTURE(dec) {
	struct edm_pcs_dec dec;
	struct edm_pcs_event ev;
	u8 frame[256];
	u8 msg[256];
};

FIXTURE_SETUP(dec)
{
	struct edm_pcs_block idle;

	edm_pcs_dec_init(&self->dec, self->frame, sizeof(self->frame),
			 self->msg, sizeof(self->msg));
	edm_pcs_idle_pack(&idle);
	ASSERT_EQ(0, edm_pcs_dec_block(&self->dec, &idle, &self->ev));
	ASSERT_EQ(EDM_PCS_EV_IDLE, (int)self->ev.type);
}

FIXTURE_TEARDOWN(dec)
{
}

static int feed(struct edm_pcs_dec *dec, struct edm_pcs_event *ev, const struct edm_pcs_block *b)
{
	return edm_pcs_dec_block(dec, b, ev);
}

static struct edm_pcs_block blk(u8 sync, u64 payload)
{
	struct edm_pcs_block b = { sync, payload };

	return b;
}

static struct edm_pcs_block idle_blk(void)
{
	return blk(EDM_PCS_SYNC_CTRL, 0x1e);
}

/* Feeds all; returns the first error, events of the last block in ev. */
static int feed_all(struct edm_pcs_dec *dec, struct edm_pcs_event *ev,
		    const struct edm_pcs_block *b, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		int err = feed(dec, ev, &b[i]);

		if (err)
			return err;
		if (i + 1 < n && ev->type != EDM_PCS_EV_NONE)
			return 1000 + i;	/* an event too early */
	}
	return 0;
}

TEST_F(dec, frames_of_every_small_length)
{
	u8 frame[100];
	u32 len, i;

	for (i = 0; i < sizeof(frame); i++)
		frame[i] = (u8)(i * 7 + 3);
	for (len = 1; len <= sizeof(frame); len++) {
		struct edm_pcs_block b[16], idle = idle_blk();
		int n = edm_pcs_frame_encode(frame, len, b, 16);

		ASSERT_EQ((int)(len / 8 + 2), n);
		ASSERT_EQ(0, feed_all(&self->dec, &self->ev, b, n));
		ASSERT_EQ(EDM_PCS_EV_FRAME, (int)self->ev.type);
		ASSERT_EQ(len, self->ev.len);
		ASSERT_EQ(0, memcmp(frame, self->frame, len));
		ASSERT_EQ(0, feed(&self->dec, &self->ev, &idle));
	}
}

TEST_F(dec, messages_of_every_small_length)
{
	u8 p[100];
	u32 len, i;

	for (i = 0; i < sizeof(p); i++)
		p[i] = (u8)(i * 13 + 1);
	for (len = 0; len <= sizeof(p); len++) {
		struct edm_pcs_msg_hdr h = { .dest = len * 5, .src = 511 - len, .id = len,
					     .kind = len % 16, .len = len };
		struct edm_pcs_block b[16];
		int n = edm_pcs_msg_encode(&h, p, b, 16);

		ASSERT_EQ((int)edm_pcs_msg_nblocks(len), n);
		ASSERT_EQ(0, feed_all(&self->dec, &self->ev, b, n));
		ASSERT_EQ(EDM_PCS_EV_MSG, (int)self->ev.type);
		ASSERT_EQ(len, self->ev.len);
		ASSERT_EQ(0, memcmp(&h, &self->ev.hdr, sizeof(h)));
		ASSERT_EQ(0, memcmp(p, self->msg, len));
	}
}

TEST_F(dec, memory_blocks_preempt_a_frame)
{
	struct edm_pcs_msg_hdr h = { .dest = 3, .src = 4, .id = 5, .len = 20 };
	struct edm_pcs_ng ng = { .dest = 300, .id = 200, .size = 64 };
	struct edm_pcs_block fb[6], mb[4], nb, gb;
	u8 frame[33], p[20];
	u32 i;

	for (i = 0; i < sizeof(frame); i++)
		frame[i] = 0x40 + i;
	memset(p, 0x99, sizeof(p));
	ASSERT_EQ(6, edm_pcs_frame_encode(frame, 33, fb, 6));
	ASSERT_EQ(4, edm_pcs_msg_encode(&h, p, mb, 4));
	ASSERT_EQ(0, edm_pcs_notify_pack(&nb, &ng));
	ASSERT_EQ(0, edm_pcs_grant_pack(&gb, &ng));

	/* /S/ /D/ [N] /D/ [MS G MD MD MT] /D/ /D/ /T/ */
	ASSERT_EQ(0, feed_all(&self->dec, &self->ev, fb, 2));
	ASSERT_EQ(0, feed(&self->dec, &self->ev, &nb));
	EXPECT_EQ(EDM_PCS_EV_NOTIFY, (int)self->ev.type);
	EXPECT_EQ(300U, self->ev.ng.dest);
	EXPECT_EQ(200U, self->ev.ng.id);
	EXPECT_EQ(64U, self->ev.ng.size);
	ASSERT_EQ(0, feed(&self->dec, &self->ev, &fb[2]));
	ASSERT_EQ(0, feed(&self->dec, &self->ev, &mb[0]));
	ASSERT_EQ(0, feed(&self->dec, &self->ev, &gb));
	EXPECT_EQ(EDM_PCS_EV_GRANT, (int)self->ev.type);
	ASSERT_EQ(0, feed_all(&self->dec, &self->ev, mb + 1, 3));
	ASSERT_EQ(EDM_PCS_EV_MSG, (int)self->ev.type);
	EXPECT_EQ(20U, self->ev.len);
	EXPECT_EQ(0, memcmp(p, self->msg, 20));
	ASSERT_EQ(0, feed_all(&self->dec, &self->ev, fb + 3, 3));
	ASSERT_EQ(EDM_PCS_EV_FRAME, (int)self->ev.type);
	EXPECT_EQ(33U, self->ev.len);
	EXPECT_EQ(0, memcmp(frame, self->frame, 33));
}

TEST_F(dec, data_outside_a_frame)
{
	struct edm_pcs_block d = blk(EDM_PCS_SYNC_DATA, 1);

	EXPECT_EQ(-EPROTO, feed(&self->dec, &self->ev, &d));
	/* The rest of the stray run is dropped quietly. */
	EXPECT_EQ(0, feed(&self->dec, &self->ev, &d));
	EXPECT_EQ(EDM_PCS_EV_NONE, (int)self->ev.type);
}

TEST_F(dec, start_inside_a_frame)
{
	u8 frame[8] = { 0 };
	struct edm_pcs_block b[3];

	edm_pcs_frame_encode(frame, 8, b, 3);
	ASSERT_EQ(0, feed_all(&self->dec, &self->ev, b, 2));
	EXPECT_EQ(-EPROTO, feed(&self->dec, &self->ev, &b[0]));
	/* Its /T/ is swallowed, and the next frame comes through. */
	EXPECT_EQ(0, feed(&self->dec, &self->ev, &b[2]));
	EXPECT_EQ(EDM_PCS_EV_NONE, (int)self->ev.type);
	EXPECT_EQ(0, feed_all(&self->dec, &self->ev, b, 3));
	EXPECT_EQ(EDM_PCS_EV_FRAME, (int)self->ev.type);
}

TEST_F(dec, bad_sync_header_drops_the_frame)
{
	u8 frame[24] = { 0 };
	struct edm_pcs_block b[5], bad;

	edm_pcs_frame_encode(frame, 24, b, 5);
	ASSERT_EQ(0, feed_all(&self->dec, &self->ev, b, 2));
	bad = b[2];
	bad.sync = 0;
	EXPECT_EQ(-EBADMSG, feed(&self->dec, &self->ev, &bad));
	EXPECT_EQ(0, feed(&self->dec, &self->ev, &b[3]));
	EXPECT_EQ(0, feed(&self->dec, &self->ev, &b[4]));
	EXPECT_EQ(EDM_PCS_EV_NONE, (int)self->ev.type);
	bad.sync = 3;
	EXPECT_EQ(-EBADMSG, feed(&self->dec, &self->ev, &bad));
}

TEST_F(dec, terminate_without_start)
{
	struct edm_pcs_block t = blk(EDM_PCS_SYNC_CTRL, 0x87);

	EXPECT_EQ(-EPROTO, feed(&self->dec, &self->ev, &t));
}

TEST_F(dec, empty_frame_is_rejected)
{
	struct edm_pcs_block b[2] = {
		blk(EDM_PCS_SYNC_CTRL, 0xd555555555555578ULL),
		blk(EDM_PCS_SYNC_CTRL, 0x87),
	};

	EXPECT_EQ(0, feed(&self->dec, &self->ev, &b[0]));
	EXPECT_EQ(-EBADMSG, feed(&self->dec, &self->ev, &b[1]));
}

TEST_F(dec, bad_preamble)
{
	struct edm_pcs_block s = blk(EDM_PCS_SYNC_CTRL, 0xd555555555545578ULL);

	EXPECT_EQ(-EBADMSG, feed(&self->dec, &self->ev, &s));
	s.payload = 0x5555555555555578ULL;			/* no SFD */
	EXPECT_EQ(-EBADMSG, feed(&self->dec, &self->ev, &s));
}

TEST_F(dec, idle_or_error_inside_a_frame)
{
	struct edm_pcs_block s = blk(EDM_PCS_SYNC_CTRL, 0xd555555555555578ULL), e, i = idle_blk();

	edm_pcs_error_pack(&e);
	EXPECT_EQ(0, feed(&self->dec, &self->ev, &s));
	EXPECT_EQ(-EPROTO, feed(&self->dec, &self->ev, &i));
	EXPECT_EQ(0, feed(&self->dec, &self->ev, &i));
	EXPECT_EQ(EDM_PCS_EV_IDLE, (int)self->ev.type);
	EXPECT_EQ(0, feed(&self->dec, &self->ev, &s));
	EXPECT_EQ(-EIO, feed(&self->dec, &self->ev, &e));
	EXPECT_EQ(0, feed(&self->dec, &self->ev, &e));		/* between frames */
	EXPECT_EQ(EDM_PCS_EV_ERROR, (int)self->ev.type);
}

TEST_F(dec, frame_blocks_inside_a_memory_message)
{
	struct edm_pcs_msg_hdr h = { .len = 16 };
	struct edm_pcs_block mb[4], s = blk(EDM_PCS_SYNC_CTRL, 0xd555555555555578ULL);
	struct edm_pcs_block t = blk(EDM_PCS_SYNC_CTRL, 0x87), i = idle_blk();
	u8 p[16] = { 0 };

	edm_pcs_msg_encode(&h, p, mb, 4);
	EXPECT_EQ(0, feed(&self->dec, &self->ev, &mb[0]));
	EXPECT_EQ(-EPROTO, feed(&self->dec, &self->ev, &s));
	EXPECT_EQ(0, feed(&self->dec, &self->ev, &i));
	EXPECT_EQ(0, feed(&self->dec, &self->ev, &mb[0]));
	EXPECT_EQ(-EPROTO, feed(&self->dec, &self->ev, &t));
	EXPECT_EQ(0, feed(&self->dec, &self->ev, &i));
	EXPECT_EQ(0, feed(&self->dec, &self->ev, &mb[0]));
	EXPECT_EQ(-EPROTO, feed(&self->dec, &self->ev, &i));
	EXPECT_EQ(0, feed(&self->dec, &self->ev, &mb[0]));	/* a new /MS/ ends DROP */
	EXPECT_EQ(-EPROTO, feed(&self->dec, &self->ev, &mb[0]));	/* /MS/ in /MS/ */
}

TEST_F(dec, memory_message_length_mismatch)
{
	struct edm_pcs_msg_hdr h = { .len = 16 };
	struct edm_pcs_block mb[4], i = idle_blk();
	u8 p[16] = { 0 };

	edm_pcs_msg_encode(&h, p, mb, 4);
	/* One /MD/ too many */
	EXPECT_EQ(0, feed_all(&self->dec, &self->ev, mb, 3));
	EXPECT_EQ(-EPROTO, feed(&self->dec, &self->ev, &mb[1]));
	EXPECT_EQ(0, feed(&self->dec, &self->ev, &mb[3]));	/* ends DROP */
	EXPECT_EQ(EDM_PCS_EV_NONE, (int)self->ev.type);
	/* One too few */
	EXPECT_EQ(0, feed_all(&self->dec, &self->ev, mb, 2));
	EXPECT_EQ(-EPROTO, feed(&self->dec, &self->ev, &mb[3]));
	EXPECT_EQ(0, feed(&self->dec, &self->ev, &i));
	/* /MT/ with bytes past len % 8 (which is 0 here) */
	EXPECT_EQ(0, feed_all(&self->dec, &self->ev, mb, 3));
	mb[3].payload |= 0x100;
	EXPECT_EQ(-EBADMSG, feed(&self->dec, &self->ev, &mb[3]));
	/* /MT/ alone */
	EXPECT_EQ(0, feed(&self->dec, &self->ev, &i));
	EXPECT_EQ(-EPROTO, feed(&self->dec, &self->ev, &mb[3]));
}

TEST_F(dec, no_md_past_an_uneven_length)
{
	struct edm_pcs_msg_hdr h = { .len = 13 };
	struct edm_pcs_block mb[3];
	u8 p[13] = { 0 };

	/* 13 bytes: one /MD/ and 5 in the /MT/; a second /MD/ would overrun. */
	edm_pcs_msg_encode(&h, p, mb, 3);
	EXPECT_EQ(0, feed_all(&self->dec, &self->ev, mb, 2));
	EXPECT_EQ(-EPROTO, feed(&self->dec, &self->ev, &mb[1]));
	EXPECT_EQ(0, feed(&self->dec, &self->ev, &mb[2]));	/* ends DROP */
	EXPECT_EQ(EDM_PCS_EV_NONE, (int)self->ev.type);
}

TEST_F(dec, buffers_bound_frames_and_messages)
{
	struct edm_pcs_msg_hdr h = { .len = 257 };
	static u8 big[300];
	struct edm_pcs_block b[40];
	int n;

	n = edm_pcs_frame_encode(big, 257, b, 40);
	ASSERT_EQ(34, n);
	EXPECT_EQ(-EMSGSIZE, feed_all(&self->dec, &self->ev, b, n));
	n = edm_pcs_frame_encode(big, 256, b, 40);
	EXPECT_EQ(0, feed_all(&self->dec, &self->ev, b, n));	/* DROP ends on /S/ */
	EXPECT_EQ(EDM_PCS_EV_FRAME, (int)self->ev.type);
	n = edm_pcs_frame_encode(big, 260, b, 40);
	EXPECT_EQ(-EMSGSIZE, feed_all(&self->dec, &self->ev, b, n));	/* on the /T/ */
	EXPECT_EQ(0, feed(&self->dec, &self->ev, &b[0]));
	n = edm_pcs_msg_encode(&h, big, b, 40);
	EXPECT_EQ(-EMSGSIZE, feed(&self->dec, &self->ev, &b[0]));
}

TEST_F(dec, unsupported_clause_49_blocks)
{
	struct edm_pcs_block o = blk(EDM_PCS_SYNC_CTRL, 0x4b);

	EXPECT_EQ(-EOPNOTSUPP, feed(&self->dec, &self->ev, &o));
	o.payload = 0x33;
	EXPECT_EQ(-EOPNOTSUPP, feed(&self->dec, &self->ev, &o));
	o.payload = 0x20;				/* unassigned */
	EXPECT_EQ(-EBADMSG, feed(&self->dec, &self->ev, &o));
}

TEST(decoder_starts_dropping)
{
	struct edm_pcs_block d = blk(EDM_PCS_SYNC_DATA, 5), t = blk(EDM_PCS_SYNC_CTRL, 0x87);
	struct edm_pcs_event ev;
	struct edm_pcs_dec dec;
	u8 buf[16];

	edm_pcs_dec_init(&dec, buf, sizeof(buf), buf, sizeof(buf));
	EXPECT_EQ(0, edm_pcs_dec_block(&dec, &d, &ev));		/* mid-frame link-up */
	EXPECT_EQ(0, edm_pcs_dec_block(&dec, &t, &ev));
	EXPECT_EQ(EDM_PCS_EV_NONE, (int)ev.type);
	EXPECT_EQ(-EPROTO, edm_pcs_dec_block(&dec, &d, &ev));	/* now synchronized */
}

/* ---- sync-header monitor ---- */

TEST(sherr_trips_once_per_window_count)
{
	struct edm_pcs_sherr c;
	int i, trips = 0;

	ASSERT_EQ(0, edm_pcs_sherr_init(&c, 3, 10));
	/* Two bad in the first window of 10, two in the second: no trip. */
	for (i = 0; i < 20; i++)
		trips += edm_pcs_sherr_feed(&c, i % 10 < 2 ? 0 : EDM_PCS_SYNC_DATA);
	EXPECT_EQ(0, trips);
	EXPECT_EQ(4U, c.errors);
	EXPECT_EQ(20U, c.blocks);
	/* Third window: bad, good, bad, bad -> trips on its 4th block. */
	EXPECT_FALSE(edm_pcs_sherr_feed(&c, 3));
	EXPECT_FALSE(edm_pcs_sherr_feed(&c, EDM_PCS_SYNC_CTRL));
	EXPECT_FALSE(edm_pcs_sherr_feed(&c, 0));
	EXPECT_TRUE(edm_pcs_sherr_feed(&c, 3));
	EXPECT_TRUE(c.tripped);
	EXPECT_FALSE(edm_pcs_sherr_feed(&c, 3));		/* reported once */
	edm_pcs_sherr_rearm(&c);
	EXPECT_FALSE(c.tripped);
	EXPECT_EQ(8U, c.errors);					/* totals kept */
	EXPECT_FALSE(edm_pcs_sherr_feed(&c, 0));
	EXPECT_FALSE(edm_pcs_sherr_feed(&c, 0));
	EXPECT_TRUE(edm_pcs_sherr_feed(&c, 0));
}

TEST(sherr_without_window_and_disabled)
{
	struct edm_pcs_sherr c;
	int i;

	ASSERT_EQ(0, edm_pcs_sherr_init(&c, 2, 0));
	for (i = 0; i < 100000; i++)
		ASSERT_FALSE(edm_pcs_sherr_feed(&c, EDM_PCS_SYNC_DATA));
	EXPECT_FALSE(edm_pcs_sherr_feed(&c, 0));
	for (i = 0; i < 100000; i++)
		ASSERT_FALSE(edm_pcs_sherr_feed(&c, EDM_PCS_SYNC_CTRL));
	EXPECT_TRUE(edm_pcs_sherr_feed(&c, 3));
	ASSERT_EQ(0, edm_pcs_sherr_init(&c, 0, 0));
	for (i = 0; i < 1000; i++)
		ASSERT_FALSE(edm_pcs_sherr_feed(&c, 0));
	EXPECT_EQ(-EINVAL, edm_pcs_sherr_init(&c, 11, 10));
	EXPECT_EQ(0, edm_pcs_sherr_init(&c, EDM_PCS_SHERR_THRESHOLD, EDM_PCS_SHERR_WINDOW));
}

/* ---- wire form ---- */

TEST(wire_layout)
{
	struct edm_pcs_block b[9], back[9];
	u8 buf[80];
	int i;

	for (i = 0; i < 9; i++)
		b[i] = blk(i % 4, 0x1122334455667700ULL | i);
	EXPECT_EQ(0U, edm_pcs_wire_size(0));
	EXPECT_EQ(10U, edm_pcs_wire_size(1));
	EXPECT_EQ(66U, edm_pcs_wire_size(8));
	EXPECT_EQ(76U, edm_pcs_wire_size(9));
	ASSERT_EQ(76, edm_pcs_wire_pack(b, 9, buf, sizeof(buf)));
	/* Syncs 0,1,2,3,0,1,2,3 two bits each from bit 0: 0b11100100 twice. */
	EXPECT_EQ(0xe4, buf[0]);
	EXPECT_EQ(0xe4, buf[1]);
	EXPECT_EQ(0x00, buf[2]);				/* block 0, LE */
	EXPECT_EQ(0x11, buf[9]);
	EXPECT_EQ(0x07, buf[2 + 7 * 8]);
	EXPECT_EQ(0x00, buf[66]);				/* block 8: sync 0 */
	EXPECT_EQ(0x00, buf[67]);
	EXPECT_EQ(0x08, buf[68]);
	ASSERT_EQ(9, edm_pcs_wire_unpack(buf, 76, back, 9));
	for (i = 0; i < 9; i++) {
		EXPECT_EQ(b[i].sync, back[i].sync);
		EXPECT_EQ(b[i].payload, back[i].payload);
	}
	EXPECT_EQ(-ENOSPC, edm_pcs_wire_pack(b, 9, buf, 75));
	EXPECT_EQ(-ENOSPC, edm_pcs_wire_unpack(buf, 76, back, 8));
	buf[66] = 0x04;						/* sync of a 10th block */
	EXPECT_EQ(-EINVAL, edm_pcs_wire_unpack(buf, 76, back, 9));
	b[3].sync = 4;
	EXPECT_EQ(-EINVAL, edm_pcs_wire_pack(b, 9, buf, sizeof(buf)));
}

TEST(wire_rejects_lengths_no_count_packs_to)
{
	static const u32 bad[] = { 1, 2, 9, 11, 17, 65, 67, 75 };
	struct edm_pcs_block b[16];
	u8 buf[140] = { 0 };
	u32 i;

	for (i = 0; i < ARRAY_LEN(bad); i++)
		EXPECT_EQ(-EINVAL, edm_pcs_wire_unpack(buf, bad[i], b, 16));
	EXPECT_EQ(0, edm_pcs_wire_unpack(buf, 0, b, 16));
	EXPECT_EQ(16, edm_pcs_wire_unpack(buf, 132, b, 16));
}

/* ---- the whole path ---- */

TEST(frame_and_message_over_scrambled_wire)
{
	struct edm_pcs_msg_hdr h = { .dest = 1, .src = 2, .id = 3, .kind = EDM_PCS_RREQ,
				     .len = 10 };
	const u8 p[10] = { 0xde, 0xad, 0xbe, 0xef, 0, 0, 0, 0, 0x40, 0 };
	struct edm_pcs_block tx[32], rx[32];
	struct edm_pcs_scr s, d;
	struct edm_pcs_event ev;
	struct edm_pcs_dec dec;
	u8 frame[64], fbuf[64], mbuf[16], wire[300];
	int n = 0, k, i, frames = 0, msgs = 0;

	for (i = 0; i < 64; i++)
		frame[i] = (u8)rnd();
	edm_pcs_idle_pack(&tx[n++]);
	n += edm_pcs_frame_encode(frame, 64, tx + n, 32 - n);
	n += edm_pcs_msg_encode(&h, p, tx + n, 32 - n);
	edm_pcs_idle_pack(&tx[n++]);
	edm_pcs_scr_init(&s, 0x3ff);
	edm_pcs_scramble(&s, tx, n);
	k = edm_pcs_wire_pack(tx, n, wire, sizeof(wire));
	ASSERT_EQ((int)edm_pcs_wire_size(n), k);
	ASSERT_EQ(n, edm_pcs_wire_unpack(wire, k, rx, 32));
	edm_pcs_scr_init(&d, 0x3ff);
	edm_pcs_descramble(&d, rx, n);
	edm_pcs_dec_init(&dec, fbuf, sizeof(fbuf), mbuf, sizeof(mbuf));
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, edm_pcs_dec_block(&dec, &rx[i], &ev));
		frames += ev.type == EDM_PCS_EV_FRAME;
		msgs += ev.type == EDM_PCS_EV_MSG;
	}
	EXPECT_EQ(1, frames);
	EXPECT_EQ(1, msgs);
	EXPECT_EQ(0, memcmp(frame, fbuf, 64));
	EXPECT_EQ(0, memcmp(p, mbuf, 10));
}

TEST_HARNESS_MAIN
