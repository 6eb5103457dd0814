// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target of the 66-bit block layer (fabric/pcs.c). Each
 * input runs four checks; any failure or sanitizer report aborts.
 *
 * 1. Scrambler against a bit-serial reference written after figure 49-8,
 *    over random seeds, words and chunkings; descrambling inverts it.
 * 2. Round trip: frames, memory messages and /N/ /G/ are multiplexed the
 *    way the TX mux may (memory runs and /N/ /G/ inside frames, /N/ /G/
 *    inside memory runs), scrambled in random chunks, packed to wire bytes,
 *    unpacked, descrambled (once from the right seed, once from a wrong
 *    one, which may only spoil the first block) and decoded: each stream
 *    must come out whole and in order, with no error.
 * 3. Arbitrary blocks into the decoder: every event is checked against the
 *    input without the decoder's logic: a frame or message re-encodes to a
 *    subsequence of the blocks fed that ends at the current block, an
 *    /N/ /G/ re-packs to the current block, errors fit the block's class.
 * 4. Wire bytes: whatever unpacks packs back to the same bytes; and the
 *    sync-header monitor against a plain recount.
 */
#include <stdlib.h>
#include <string.h>

#include "edm/pcs.h"

#define MAXB 2048

struct in {
	const u8 *p;
	size_t n;
};

static u8 get8(struct in *in)
{
	u8 v;

	if (!in->n)
		return 0;
	v = *in->p++;
	in->n--;
	return v;
}

static u64 get64(struct in *in)
{
	u64 v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v |= (u64)get8(in) << (8 * i);
	return v;
}

static u32 get16(struct in *in)
{
	return get8(in) | (u32)get8(in) << 8;
}

#define CHECK(c) do { if (!(c)) abort(); } while (0)

/* ---- 1. scrambler ---- */

struct ref_scr {
	u8 s[58];	/* s[0] = S0, the latest scrambled bit */
};

static void ref_init(struct ref_scr *r, u64 seed)
{
	int k;

	for (k = 0; k < 58; k++)
		r->s[k] = seed >> k & 1;
}

static u64 ref_run(struct ref_scr *r, u64 in, bool descramble)
{
	u64 out = 0;
	int i;

	for (i = 0; i < 64; i++) {
		u8 b = in >> i & 1, o = b ^ r->s[38] ^ r->s[57];

		memmove(r->s + 1, r->s, 57);
		r->s[0] = descramble ? b : o;
		out |= (u64)o << i;
	}
	return out;
}

static void check_scrambler(struct in *in)
{
	struct edm_pcs_block b[64], orig[64];
	u64 seed = get64(in);
	struct edm_pcs_scr s, d;
	struct ref_scr rs, rd;
	u32 n = get8(in) % 64 + 1, i, done;

	for (i = 0; i < n; i++) {
		b[i].sync = get8(in) & 3;
		b[i].payload = get64(in);
		orig[i] = b[i];
	}
	edm_pcs_scr_init(&s, seed);
	ref_init(&rs, seed);
	for (done = 0; done < n; done += i) {
		i = get8(in) % 8 + 1;
		if (i > n - done)
			i = n - done;
		edm_pcs_scramble(&s, b + done, i);
	}
	for (i = 0; i < n; i++) {
		CHECK(b[i].payload == ref_run(&rs, orig[i].payload, false));
		CHECK(b[i].sync == orig[i].sync);
	}
	edm_pcs_scr_init(&d, seed);
	ref_init(&rd, seed);
	for (i = 0; i < n; i++) {
		CHECK(ref_run(&rd, b[i].payload, true) == orig[i].payload);
		CHECK(edm_pcs_descramble_word(&d, b[i].payload) == orig[i].payload);
	}
	/* The descrambler on any input, against the reference from any state. */
	seed = get64(in);
	edm_pcs_scr_init(&d, seed);
	ref_init(&rd, seed);
	for (i = 0; i < n; i++)
		CHECK(edm_pcs_descramble_word(&d, orig[i].payload) ==
		      ref_run(&rd, orig[i].payload, true));
}

/* ---- 2. round trip ---- */

enum { NFR = 8, NMSG = 8, NNG = 16, MAXLEN = 300 };

struct item {
	u32 len;
	u8 data[MAXLEN];
	struct edm_pcs_msg_hdr hdr;	/* messages */
	struct edm_pcs_ng ng;		/* /N/ /G/ */
	bool grant;
};

struct script {
	struct item fr[NFR], msg[NMSG], ng[NNG];
	u32 nfr, nmsg, nng;
	struct edm_pcs_block b[MAXB];
	u32 nb;
};

static void fill(struct in *in, u8 *p, u32 len)
{
	u8 seed = get8(in), step = get8(in) | 1;
	u32 i;

	for (i = 0; i < len; i++)
		p[i] = (u8)(seed + i * step);
}

static void script_items(struct script *sc, struct in *in)
{
	u32 i;

	sc->nfr = get8(in) % (NFR + 1);
	sc->nmsg = get8(in) % (NMSG + 1);
	sc->nng = get8(in) % (NNG + 1);
	for (i = 0; i < sc->nfr; i++) {
		sc->fr[i].len = get16(in) % MAXLEN + 1;
		fill(in, sc->fr[i].data, sc->fr[i].len);
	}
	for (i = 0; i < sc->nmsg; i++) {
		struct edm_pcs_msg_hdr *h = &sc->msg[i].hdr;

		h->dest = get16(in) % 512;
		h->src = get16(in) % 512;
		h->id = get8(in);
		h->kind = get8(in) % 16;
		h->len = get16(in) % (MAXLEN + 1);
		sc->msg[i].len = h->len;
		fill(in, sc->msg[i].data, h->len);
	}
	for (i = 0; i < sc->nng; i++) {
		sc->ng[i].ng.dest = get16(in) % 512;
		sc->ng[i].ng.id = get8(in);
		sc->ng[i].ng.size = get16(in);
		sc->ng[i].grant = get8(in) & 1;
	}
}

static void emit_ng(struct script *sc, u32 k)
{
	struct edm_pcs_block *b = &sc->b[sc->nb++];

	if (sc->ng[k].grant)
		CHECK(!edm_pcs_grant_pack(b, &sc->ng[k].ng));
	else
		CHECK(!edm_pcs_notify_pack(b, &sc->ng[k].ng));
}

/* The TX mux, its choices made by the input, within the rules of pcs.h. */
static void script_mux(struct script *sc, struct in *in)
{
	u32 fi = 0, fb = 0, mi = 0, mb = 0, ni = 0;

	sc->nb = 0;
	edm_pcs_idle_pack(&sc->b[sc->nb++]);	/* may be spoilt, see decode_script() */
	edm_pcs_idle_pack(&sc->b[sc->nb++]);
	while ((fi < sc->nfr || mi < sc->nmsg || ni < sc->nng) && sc->nb < MAXB - 2) {
		u8 c = get8(in) % 8;
		bool in_msg = mb > 0, in_fr = fb > 0;

		if (!in_fr && !in_msg && c == 7) {
			edm_pcs_idle_pack(&sc->b[sc->nb++]);
		} else if (!in_fr && !in_msg && c == 6) {
			edm_pcs_error_pack(&sc->b[sc->nb++]);
		} else if (ni < sc->nng && (c == 0 || (fi == sc->nfr && mi == sc->nmsg))) {
			emit_ng(sc, ni++);
		} else if (mi < sc->nmsg && (in_msg || c <= 3 || fi == sc->nfr)) {
			struct item *m = &sc->msg[mi];
			u32 n = edm_pcs_msg_nblocks(m->len);

			CHECK(!edm_pcs_msg_block(&m->hdr, m->data, mb, &sc->b[sc->nb++]));
			if (++mb == n) {
				mb = 0;
				mi++;
			}
		} else if (fi < sc->nfr && !in_msg) {
			struct item *f = &sc->fr[fi];

			CHECK(!edm_pcs_frame_block(f->data, f->len, fb, &sc->b[sc->nb++]));
			if (++fb == edm_pcs_frame_nblocks(f->len)) {
				fb = 0;
				fi++;
			}
		}
	}
	/* Expect only what was sent whole. */
	sc->nfr = fi;
	sc->nmsg = mi;
	sc->nng = ni;
}

/*
 * @skip: leading blocks whose errors and events are not checked. A spoilt
 * first block may even start a run, which the /I/ after it then ends with
 * an error; from the third block on all is clean.
 */
static void decode_script(struct script *sc, struct edm_pcs_block *rx, u32 skip)
{
	static u8 fbuf[MAXLEN], mbuf[MAXLEN];
	u32 i, fi = 0, mi = 0, ni = 0;
	struct edm_pcs_event ev;
	struct edm_pcs_dec dec;

	edm_pcs_dec_init(&dec, fbuf, sizeof(fbuf), mbuf, sizeof(mbuf));
	for (i = 0; i < sc->nb; i++) {
		int err = edm_pcs_dec_block(&dec, &rx[i], &ev);

		if (i < skip)
			continue;
		CHECK(!err);
		switch (ev.type) {
		case EDM_PCS_EV_FRAME:
			CHECK(fi < sc->nfr && ev.len == sc->fr[fi].len);
			CHECK(!memcmp(fbuf, sc->fr[fi].data, ev.len));
			fi++;
			break;
		case EDM_PCS_EV_MSG:
			CHECK(mi < sc->nmsg && ev.len == sc->msg[mi].len);
			CHECK(!memcmp(&ev.hdr, &sc->msg[mi].hdr, sizeof(ev.hdr)));
			CHECK(!memcmp(mbuf, sc->msg[mi].data, ev.len));
			mi++;
			break;
		case EDM_PCS_EV_NOTIFY:
		case EDM_PCS_EV_GRANT:
			CHECK(ni < sc->nng);
			CHECK(sc->ng[ni].grant == (ev.type == EDM_PCS_EV_GRANT));
			CHECK(!memcmp(&ev.ng, &sc->ng[ni].ng, sizeof(ev.ng)));
			ni++;
			break;
		default:
			break;
		}
	}
	CHECK(fi == sc->nfr && mi == sc->nmsg && ni == sc->nng);
}

static void check_round_trip(struct in *in)
{
	static struct script sc;
	static struct edm_pcs_block tx[MAXB], rx[MAXB];
	static u8 wire[MAXB * 9];
	u64 seed = get64(in), wrong = get64(in);
	struct edm_pcs_scr s, d;
	u32 done, k;
	int len;

	script_items(&sc, in);
	script_mux(&sc, in);
	memcpy(tx, sc.b, sc.nb * sizeof(tx[0]));
	edm_pcs_scr_init(&s, seed);
	for (done = 0; done < sc.nb; done += k) {
		k = get8(in) % 70 + 1;
		if (k > sc.nb - done)
			k = sc.nb - done;
		edm_pcs_scramble(&s, tx + done, k);
	}
	len = edm_pcs_wire_pack(tx, sc.nb, wire, sizeof(wire));
	CHECK(len == (int)edm_pcs_wire_size(sc.nb));
	CHECK(edm_pcs_wire_unpack(wire, len, rx, MAXB) == (int)sc.nb);

	edm_pcs_scr_init(&d, seed);
	edm_pcs_descramble(&d, rx, sc.nb);
	for (k = 0; k < sc.nb; k++)
		CHECK(rx[k].sync == sc.b[k].sync && rx[k].payload == sc.b[k].payload);
	decode_script(&sc, rx, 0);

	CHECK(edm_pcs_wire_unpack(wire, len, rx, MAXB) == (int)sc.nb);
	edm_pcs_scr_init(&d, wrong);
	edm_pcs_descramble(&d, rx, sc.nb);
	CHECK(rx[0].payload >> 58 == sc.b[0].payload >> 58);
	for (k = 1; k < sc.nb; k++)
		CHECK(rx[k].payload == sc.b[k].payload);
	decode_script(&sc, rx, 2);
}

/* ---- 3. arbitrary blocks ---- */

static bool same(const struct edm_pcs_block *a, const struct edm_pcs_block *b)
{
	return a->sync == b->sync && a->payload == b->payload;
}

/* Is e[0..m-1] a subsequence of b[0..i] that ends at b[i]? */
static bool subseq_ending(const struct edm_pcs_block *e, u32 m, const struct edm_pcs_block *b,
			  u32 i)
{
	u32 k = m;
	long j;

	if (!m || !same(&e[m - 1], &b[i]))
		return false;
	k--;
	for (j = (long)i - 1; j >= 0 && k; j--)
		if (same(&e[k - 1], &b[j]))
			k--;
	return k == 0;
}

static void gen_block(struct in *in, struct edm_pcs_block *b)
{
	u8 c = get8(in);
	u8 bytes[8];
	u64 r = get64(in);

	memcpy(bytes, &r, sizeof(bytes));
	switch (c % 16) {
	case 0: case 7: case 15:
		b->sync = EDM_PCS_SYNC_DATA;
		b->payload = r;
		break;
	case 1:
		b->sync = EDM_PCS_SYNC_CTRL;
		b->payload = 0xd555555555555578ULL;
		break;
	case 2:
		edm_pcs_start_pack(b, bytes);
		break;
	case 3:
		edm_pcs_term_pack(b, bytes, c / 16 % 8);
		break;
	case 4:
		edm_pcs_idle_pack(b);
		break;
	case 5:
		edm_pcs_error_pack(b);
		break;
	case 6: {
		struct edm_pcs_msg_hdr h = { r % 512, (r >> 9) % 512, r >> 18 & 255, r >> 26 & 15,
					     4 + (r >> 32) % 60 };

		if (c & 0x80)
			h.len = (r >> 32) & 0xffff;
		if (h.len < 4)
			h.len = 4;
		CHECK(!edm_pcs_ms_pack(b, &h));
		break;
	}
	case 8:
		edm_pcs_mt_pack(b, bytes, c / 16 % 8);
		break;
	case 9: {
		struct edm_pcs_msg_hdr h = { r % 512, 0, r >> 20 & 255, 0, c / 16 % 4 };

		CHECK(!edm_pcs_mst_pack(b, &h, bytes + 5));
		break;
	}
	case 10:
	case 11: {
		struct edm_pcs_ng ng = { r % 512, r >> 9 & 255, r >> 17 & 0xffff };

		if (c % 16 == 10)
			CHECK(!edm_pcs_notify_pack(b, &ng));
		else
			CHECK(!edm_pcs_grant_pack(b, &ng));
		break;
	}
	case 12:
		b->sync = c & 0x10 ? 3 : 0;
		b->payload = r;
		break;
	case 13:
		b->sync = EDM_PCS_SYNC_CTRL;
		b->payload = r;
		break;
	default:
		b->sync = EDM_PCS_SYNC_CTRL;
		b->payload = (r & ~0xffULL) | 0x4b;
		break;
	}
}

static bool err_fits(int err, enum edm_pcs_class k)
{
	switch (k) {
	case EDM_PCS_K_BAD:
		return err == -EBADMSG;
	case EDM_PCS_K_UNSUPP:
		return err == -EOPNOTSUPP;
	case EDM_PCS_K_NOTIFY:
	case EDM_PCS_K_GRANT:
		return !err;			/* allowed anywhere */
	case EDM_PCS_K_IDLE:
		return !err || err == -EPROTO;
	case EDM_PCS_K_ERROR:
		return !err || err == -EIO;
	case EDM_PCS_K_DATA:
	case EDM_PCS_K_MS:
	case EDM_PCS_K_MST:
		return !err || err == -EPROTO || err == -EMSGSIZE;
	default:				/* /S/ /T/ /MT/ */
		return !err || err == -EPROTO || err == -EMSGSIZE || err == -EBADMSG;
	}
}

static void check_event(const struct edm_pcs_event *ev, const struct edm_pcs_dec *dec,
			const struct edm_pcs_block *b, u32 i, enum edm_pcs_class k)
{
	static struct edm_pcs_block e[EDM_PCS_MSG_MAX / 8 + 2];
	struct edm_pcs_block one;
	int m;

	switch (ev->type) {
	case EDM_PCS_EV_NONE:
		break;
	case EDM_PCS_EV_IDLE:
		CHECK(k == EDM_PCS_K_IDLE);
		break;
	case EDM_PCS_EV_ERROR:
		CHECK(k == EDM_PCS_K_ERROR);
		break;
	case EDM_PCS_EV_FRAME:
		CHECK(k == EDM_PCS_K_TERM && ev->len && ev->len <= dec->frame_cap);
		m = edm_pcs_frame_encode(dec->frame, ev->len, e, EDM_PCS_MSG_MAX / 8 + 2);
		CHECK(m > 0 && subseq_ending(e, m, b, i));
		break;
	case EDM_PCS_EV_MSG:
		CHECK(k == EDM_PCS_K_MT || k == EDM_PCS_K_MST);
		CHECK(ev->len == ev->hdr.len && ev->len <= dec->msg_cap);
		m = edm_pcs_msg_encode(&ev->hdr, dec->msg, e, EDM_PCS_MSG_MAX / 8 + 2);
		CHECK(m > 0 && subseq_ending(e, m, b, i));
		break;
	case EDM_PCS_EV_NOTIFY:
		CHECK(!edm_pcs_notify_pack(&one, &ev->ng) && same(&one, &b[i]));
		break;
	case EDM_PCS_EV_GRANT:
		CHECK(!edm_pcs_grant_pack(&one, &ev->ng) && same(&one, &b[i]));
		break;
	default:
		abort();
	}
}

static void check_arbitrary(struct in *in)
{
	static struct edm_pcs_block b[MAXB];
	u32 fcap = get16(in) % 512, mcap = get16(in) % 512;
	u32 n = get16(in) % MAXB, i;
	struct edm_pcs_event ev;
	struct edm_pcs_dec dec;
	bool prev_err = false;
	u8 *fbuf, *mbuf;

	/* Exact-size heap buffers, so ASan sees any write past a capacity. */
	fbuf = malloc(fcap ? fcap : 1);
	mbuf = malloc(mcap ? mcap : 1);
	CHECK(fbuf && mbuf);
	edm_pcs_dec_init(&dec, fbuf, fcap, mbuf, mcap);
	for (i = 0; i < n && in->n; i++) {
		enum edm_pcs_class k;
		int err;

		gen_block(in, &b[i]);
		k = edm_pcs_classify(&b[i]);
		err = edm_pcs_dec_block(&dec, &b[i], &ev);
		CHECK(err_fits(err, k));
		if (err)
			CHECK(ev.type == EDM_PCS_EV_NONE);
		/* After an error nothing is in progress: an /I/ is just an /I/. */
		if (prev_err && k == EDM_PCS_K_IDLE)
			CHECK(!err && ev.type == EDM_PCS_EV_IDLE);
		check_event(&ev, &dec, b, i, k);
		prev_err = err && k != EDM_PCS_K_NOTIFY && k != EDM_PCS_K_GRANT;
	}
	free(fbuf);
	free(mbuf);
}

/* ---- 4. wire bytes and the sync-header monitor ---- */

static void check_wire(const u8 *data, size_t size)
{
	static struct edm_pcs_block b[MAXB];
	static u8 again[MAXB * 9];
	u32 len = size < MAXB * 8 ? size : MAXB * 8;
	int n = edm_pcs_wire_unpack(data, len, b, MAXB);

	if (n < 0)
		return;
	CHECK(edm_pcs_wire_pack(b, n, again, sizeof(again)) == (int)len);
	CHECK(!memcmp(again, data, len));
}

static void check_sherr(struct in *in)
{
	u32 thr = get8(in) % 8, win = get8(in) % 32, i, bad = 0, inwin = 0;
	struct edm_pcs_sherr c;
	bool tripped = false;

	if (edm_pcs_sherr_init(&c, thr, win)) {
		CHECK(win && thr > win);
		return;
	}
	for (i = 0; i < 256 && in->n; i++) {
		u8 sync = get8(in) & 3;
		bool trip, want;

		if (win && inwin == win) {
			inwin = 0;
			bad = 0;
		}
		inwin++;
		bad += sync == 0 || sync == 3;
		want = !tripped && thr && bad == thr && (sync == 0 || sync == 3);
		trip = edm_pcs_sherr_feed(&c, sync);
		CHECK(trip == want);
		tripped |= trip;
		CHECK(c.tripped == tripped);
	}
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct in in = { data, size };

	check_wire(data, size);
	check_scrambler(&in);
	in = (struct in){ data, size };
	check_sherr(&in);
	in = (struct in){ data, size };
	check_round_trip(&in);
	in = (struct in){ data, size };
	check_arbitrary(&in);
	return 0;
}
