// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the shared pool core (dfabric/shpool_core.c) facing a
 * range that other hosts may have scribbled on. The first bytes pick the
 * geometry; the range is an exact-size heap block, so ASan sees any access
 * past it. Then each 4 bytes are one operation by one of 3 views: alloc,
 * free, send, pass, post of a made-up descriptor, take, join, leave, reap,
 * beat, an export operation (claim and offer, take and answer, close,
 * ack, sweep and the readers), or a write of a byte anywhere before the
 * Buffers (superblock, host table, export slots, rings, holder words:
 * what a buggy peer could corrupt). Whatever the range holds, the core
 * must stay inside it, and what it hands out (a Buffer from alloc or
 * take, a slot from join, an export slot and its run from claim or take)
 * must be in bounds: each area handed out is written whole.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "edm/shpool_core.h"

enum { NV = 3, SIZE = 128 * 1024 };

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct edm_shp_cfg cfg;
	struct edm_shp v[NV];
	struct edm_shp_desc d;
	u32 held[NV] = { 0 }, i, b, x;
	u64 hw[NV] = { 0 }, nw;
	u8 meta[20], mac[6];
	size_t k;
	u8 *base;
	int rc;

	if (size < 4)
		return 0;
	cfg.nhosts = 2 + data[0] % 4;
	cfg.buf_shift = EDM_SHP_MIN_BUF_SHIFT + data[1] % 2;
	cfg.ring_size = EDM_SHP_MIN_RING << data[2] % 3;
	cfg.lease_ms = EDM_SHP_MIN_LEASE_MS;
	base = aligned_alloc(4096, SIZE);
	if (!base)
		return 0;
	memset(base, 0, SIZE);
	if (edm_shp_format(base, SIZE, &cfg))
		abort();
	for (i = 0; i < NV; i++)
		if (edm_shp_open(&v[i], base, SIZE))
			abort();
	for (k = 3; k + 4 <= size; k += 4) {
		struct edm_shp *p = &v[data[k] % NV];
		u32 arg = data[k + 1] | data[k + 2] << 8, n = p->geo.nbufs, h = data[k] % NV;

		memset(meta, data[k + 3], sizeof(meta));
		memset(mac, data[k + 1], sizeof(mac));
		switch (data[k] / NV % 16) {
		case 0:
			if (!edm_shp_alloc(p, &b, &nw)) {
				if (b >= n)
					abort();
				held[h] = b;
				hw[h] = nw;
			}
			break;
		case 1:
			edm_shp_free(p, held[h], hw[h]);
			break;
		case 2:
			edm_shp_send(p, arg % (p->geo.nhosts + 1), held[h], hw[h], data[k + 3] * 16,
				     meta, data[k + 3] % 20);
			break;
		case 3:
			edm_shp_pass(p, held[h], hw[h], arg % (p->geo.nhosts + 1), &nw);
			break;
		case 4:
			/* made up, but near enough to pass for real now and then */
			x = data[k + 3] % p->geo.nhosts;
			memset(&d, data[k + 3], sizeof(d));
			d.buf = data[k + 3] & 0x10 ? arg : arg % n;
			d.len = data[k + 3] & 0x20 ? arg : arg % 2048;
			if (data[k + 3] & 0x40)
				d.hw = p->holder[arg % n];
			else if (data[k + 3] & 0x80)
				d.hw = (u64)arg << 32 |
				       EDM_SHP_TAG(x, EDM_SHP_HW_EPOCH(edm_shp_host_state(p, x)));
			edm_shp_post(p, x, &d);
			break;
		case 5:
			rc = edm_shp_take(p, arg % (p->geo.nhosts + 1), &d);
			if (!rc) {
				if (d.buf >= n || d.len > edm_shp_buf_size(p))
					abort();
				memset(edm_shp_buf(p, d.buf), 0, d.len);	/* it is ours */
				held[h] = d.buf;
				hw[h] = d.hw;
			}
			edm_shp_pending(p, arg % (p->geo.nhosts + 1));
			edm_shp_room(p, arg % (p->geo.nhosts + 1));
			break;
		case 6:
			if (!edm_shp_join(p, "f", mac) && p->slot >= p->geo.nhosts)
				abort();
			break;
		case 7:
			if (edm_shp_leave(p) > n)
				abort();
			break;
		case 8:
			x = arg % p->geo.nhosts;
			if (edm_shp_reap(p, x, edm_shp_host_state(p, x)) > n ||
			    edm_shp_held(p, x) > n)
				abort();
			edm_shp_find_mac(p, mac);
			edm_shp_fenced(p);
			break;
		case 9:
			edm_shp_beat(p);
			break;
		case 12:
			rc = edm_shp_x_claim(p, arg % (p->geo.nhosts + 1), 1 + data[k + 3] % 4, &x,
					     &b);
			if (!rc) {
				if (x >= p->geo.nxports || b + 1 + data[k + 3] % 4 > n)
					abort();
				memset(edm_shp_buf(p, b), 1,
				       (size_t)(1 + data[k + 3] % 4) << p->geo.buf_shift);
				if (data[k + 3] & 0x80)
					edm_shp_x_offer(p, x);
			}
			break;
		case 13: {
			struct edm_shp_export e;

			x = arg % (p->geo.nxports + 1);
			rc = edm_shp_x_take(p, x, &e);
			if (!rc) {
				if (x >= p->geo.nxports || !e.nbufs || e.buf + e.nbufs > n)
					abort();
				memset(edm_shp_buf(p, e.buf), 2, (size_t)e.nbufs << p->geo.buf_shift);
				edm_shp_x_answer(p, x, data[k + 3] & 1 ? -13 : 0, 4096);
			} else if (rc == -EINVAL) {
				edm_shp_x_answer(p, x, -22, 0);
			}
			break;
		}
		case 14:
			x = arg % p->geo.nxports;
			if (data[k + 3] & 1)
				edm_shp_x_close(p, x);
			else
				edm_shp_x_ack(p, x);
			if (data[k + 3] & 2)
				edm_shp_x_untake(p, x);
			break;
		case 15: {
			u64 rs;

			x = arg % p->geo.nxports;
			if (edm_shp_x_sweep(p) > p->geo.nxports)
				abort();
			rc = edm_shp_x_next_offer(p, x);
			if (rc >= (int)p->geo.nxports)
				abort();
			edm_shp_x_result(p, x, &rs);
			edm_shp_x_engine_lost(p, x);
			edm_shp_x_wanted(p, x, edm_shp_x(p, x)->word);
			break;
		}
		case 10:
		case 11:
			/* a peer scribbles on the shared metadata */
			base[(arg | (u32)data[k + 3] << 16) % p->geo.bufs_off] = data[k + 3];
			break;
		}
	}
	free(base);
	return 0;
}
