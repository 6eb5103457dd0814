// SPDX-License-Identifier: GPL-2.0
/*
 * The shared pool's layout and its lock-free protocol; see
 * include/edm/shpool_core.h. No lock: every shared word changes by
 * compare-and-swap or has one writer.
 */
#include "edm/shpool_core.h"

#define EDM_SHP_PAGE		EDM_SHP_FRAME_PAGE

static u64 edm_shp_align(u64 x, u64 a)
{
	return (x + a - 1) & ~(a - 1);
}

void edm_shp_cfg_default(struct edm_shp_cfg *cfg)
{
	cfg->nhosts = EDM_SHP_DEFAULT_HOSTS;
	cfg->buf_shift = EDM_SHP_DEFAULT_BUF_SHIFT;
	cfg->ring_size = EDM_SHP_DEFAULT_RING;
	cfg->lease_ms = EDM_SHP_DEFAULT_LEASE_MS;
}

/* Where everything goes in @size bytes; -ENOSPC if fewer than 2 Buffers a host fit. */
static int edm_shp_layout(const struct edm_shp_cfg *cfg, u64 size, struct edm_shp_super *sb)
{
	u64 off, nbufs;

	memset(sb, 0, sizeof(*sb));
	sb->magic = EDM_SHP_MAGIC;
	sb->version = EDM_SHP_VERSION;
	sb->size = size;
	sb->nhosts = cfg->nhosts;
	sb->buf_shift = cfg->buf_shift;
	sb->ring_size = cfg->ring_size;
	sb->lease_ms = cfg->lease_ms;

	off = edm_shp_align(sizeof(*sb), EDM_SHP_LINE);
	sb->hosts_off = off;
	off += (u64)cfg->nhosts * sizeof(struct edm_shp_host);
	sb->nxports = cfg->nhosts * EDM_SHP_XPORTS_PER_HOST;
	sb->xports_off = edm_shp_align(off, EDM_SHP_LINE);
	off = sb->xports_off + (u64)sb->nxports * sizeof(struct edm_shp_export);
	sb->ring_bytes = sizeof(struct edm_shp_ring) +
			 (u64)cfg->ring_size * sizeof(struct edm_shp_desc);
	sb->rings_off = edm_shp_align(off, EDM_SHP_LINE);
	off = sb->rings_off + (u64)cfg->nhosts * cfg->nhosts * sb->ring_bytes;
	sb->holder_off = edm_shp_align(off, EDM_SHP_LINE);
	/* holder words and Buffers share what is left: 8 bytes + one Buffer each */
	if (size < sb->holder_off + EDM_SHP_PAGE)
		return -ENOSPC;
	nbufs = (size - sb->holder_off - EDM_SHP_PAGE) / ((1ULL << cfg->buf_shift) + 8);
	if (nbufs > 0xffffffffULL)
		nbufs = 0xffffffffULL;
	for (;;) {
		if (nbufs < 2ULL * cfg->nhosts)
			return -ENOSPC;
		sb->bufs_off = edm_shp_align(sb->holder_off + nbufs * 8, EDM_SHP_PAGE);
		if (sb->bufs_off + (nbufs << cfg->buf_shift) <= size)
			break;
		nbufs--;
	}
	sb->nbufs = nbufs;
	return 0;
}

int edm_shp_cfg_check(const struct edm_shp_cfg *cfg, u64 size)
{
	struct edm_shp_super sb;

	if (cfg->nhosts < 2 || cfg->nhosts > EDM_SHP_MAX_HOSTS)
		return -EINVAL;
	if (cfg->buf_shift < EDM_SHP_MIN_BUF_SHIFT || cfg->buf_shift > EDM_SHP_MAX_BUF_SHIFT)
		return -EINVAL;
	if (cfg->ring_size < EDM_SHP_MIN_RING || cfg->ring_size > EDM_SHP_MAX_RING ||
	    (cfg->ring_size & (cfg->ring_size - 1)))
		return -EINVAL;
	if (cfg->lease_ms < EDM_SHP_MIN_LEASE_MS || cfg->lease_ms > EDM_SHP_MAX_LEASE_MS)
		return -EINVAL;
	return edm_shp_layout(cfg, size, &sb);
}

/*
 * Write the layout into a blank range. -EEXIST if another host formats or
 * has formatted it (the format word is not BLANK).
 */
int edm_shp_format(void *base, u64 size, const struct edm_shp_cfg *cfg)
{
	struct edm_shp_super *sb = base, geo;
	int err;

	err = edm_shp_cfg_check(cfg, size);
	if (err)
		return err;
	edm_shp_layout(cfg, size, &geo);
	if (edm_shp_cas32(&sb->fmt, EDM_SHP_FMT_BLANK, EDM_SHP_FMT_BUSY) != EDM_SHP_FMT_BLANK)
		return -EEXIST;
	/* host table, rings and holder words start at zero: FREE, empty, free */
	memset((u8 *)base + geo.hosts_off, 0, geo.bufs_off - geo.hosts_off);
	geo.fmt = EDM_SHP_FMT_BUSY;
	geo.magic = 0;
	memcpy(sb, &geo, sizeof(geo));
	edm_shp_store(&sb->magic, EDM_SHP_MAGIC);
	edm_shp_release(&sb->fmt, EDM_SHP_FMT_READY);
	return 0;
}

/*
 * Build a view of a formatted range mapped at @base. -ENODATA: blank;
 * -EAGAIN: being formatted; -EINVAL: not ours, or a layout that does not
 * fit @size.
 */
int edm_shp_open(struct edm_shp *v, void *base, u64 size)
{
	struct edm_shp_super *sb = base, want;
	struct edm_shp_cfg cfg;
	u32 fmt = edm_shp_acquire(&sb->fmt);

	if (fmt == EDM_SHP_FMT_BLANK && !edm_shp_load(&sb->magic))
		return -ENODATA;
	if (fmt == EDM_SHP_FMT_BUSY)
		return -EAGAIN;
	if (fmt != EDM_SHP_FMT_READY || sb->magic != EDM_SHP_MAGIC ||
	    sb->version != EDM_SHP_VERSION || sb->size > size)
		return -EINVAL;
	cfg.nhosts = sb->nhosts;
	cfg.buf_shift = sb->buf_shift;
	cfg.ring_size = sb->ring_size;
	cfg.lease_ms = sb->lease_ms;
	if (edm_shp_cfg_check(&cfg, sb->size))
		return -EINVAL;
	edm_shp_layout(&cfg, sb->size, &want);
	want.fmt = EDM_SHP_FMT_READY;
	if (memcmp(&want, sb, sizeof(want)))
		return -EINVAL;

	memset(v, 0, sizeof(*v));
	v->base = base;
	v->size = size;
	v->sb = sb;
	v->geo = want;
	v->hosts = (struct edm_shp_host *)(v->base + want.hosts_off);
	v->holder = (u64 *)(v->base + want.holder_off);
	v->rings = v->base + want.rings_off;
	v->bufs = v->base + want.bufs_off;
	v->slot = EDM_SHP_MAX_HOSTS;
	return 0;
}

/* ---- hosts ---- */

u64 edm_shp_host_state(const struct edm_shp *v, u32 slot)
{
	return edm_shp_acquire(&v->hosts[slot].state);
}

bool edm_shp_fenced(const struct edm_shp *v)
{
	return v->slot >= v->geo.nhosts ||
	       edm_shp_host_state(v, v->slot) != EDM_SHP_HW(EDM_SHP_H_LIVE, v->epoch);
}

/* Take a free slot. -EBUSY: every slot is taken; -EALREADY: this view has one. */
int edm_shp_join(struct edm_shp *v, const char *name, const u8 *mac)
{
	u32 i, k, epoch;
	u64 w;

	if (v->slot < v->geo.nhosts)
		return -EALREADY;
	for (i = 0; i < v->geo.nhosts; i++) {
		struct edm_shp_host *h = &v->hosts[i];

		w = edm_shp_host_state(v, i);
		if (EDM_SHP_HW_STATE(w) != EDM_SHP_H_FREE)
			continue;
		epoch = (EDM_SHP_HW_EPOCH(w) + 1) & 0xffffff;
		if (!epoch)
			epoch = 1;
		if (edm_shp_cas64(&h->state, w, EDM_SHP_HW(EDM_SHP_H_JOINING, epoch)) != w)
			continue;
		memset(h->name, 0, sizeof(h->name));
		for (k = 0; k + 1 < sizeof(h->name) && name[k]; k++)
			h->name[k] = name[k];
		memcpy(h->mac, mac, sizeof(h->mac));
		edm_shp_store(&h->beat, 0);
		edm_shp_store(&h->up, 0);
		v->slot = i;
		v->epoch = epoch;
		v->tag = EDM_SHP_TAG(i, epoch);
		v->cursor = 0;
		edm_shp_release(&h->state, EDM_SHP_HW(EDM_SHP_H_LIVE, epoch));
		return 0;
	}
	return -EBUSY;
}

void edm_shp_beat(struct edm_shp *v)
{
	struct edm_shp_host *h;

	if (v->slot >= v->geo.nhosts)
		return;
	h = &v->hosts[v->slot];
	edm_shp_release(&h->beat, edm_shp_load(&h->beat) + 1);
}

static bool edm_shp_keep_none(void *arg, u32 buf)
{
	return false;
}

/* Free every Buffer tagged @tag that @keep does not want kept; how many. */
static u32 edm_shp_free_tagged_but(struct edm_shp *v, u32 tag,
				   bool (*keep)(void *arg, u32 buf), void *arg, u32 *kept)
{
	u32 i, n = 0;

	for (i = 0; i < v->geo.nbufs; i++) {
		u64 w = edm_shp_load(&v->holder[i]);

		if (EDM_SHP_WTAG(w) != tag)
			continue;
		if (keep(arg, i)) {
			(*kept)++;
			continue;
		}
		if (edm_shp_cas64(&v->holder[i], w, (u64)EDM_SHP_GEN(w) << 32) == w)
			n++;
	}
	return n;
}

/* The slot goes FREE (if it is still this life's LEAVING) and the view forgets it. */
static void edm_shp_leave_done(struct edm_shp *v)
{
	edm_shp_cas64(&v->hosts[v->slot].state, EDM_SHP_HW(EDM_SHP_H_LEAVING, v->epoch),
		      EDM_SHP_HW(EDM_SHP_H_FREE, v->epoch));
	v->slot = EDM_SHP_MAX_HOSTS;
	v->tag = 0;
}

/*
 * Leave, keeping the Buffers @keep says yes to (ones this host's network
 * stack still holds): every other Buffer goes back. With none kept the
 * slot is free again, as after edm_shp_leave(); else it stays LEAVING, and
 * the host beats (edm_shp_beat()) and frees the kept Buffers as they come
 * back (edm_shp_free()) until edm_shp_leave_end(). A life reaped already
 * (fenced) holds nothing: the view just forgets the slot. Buffers freed.
 */
u32 edm_shp_leave_keep(struct edm_shp *v, bool (*keep)(void *arg, u32 buf), void *arg)
{
	u64 live, leaving;
	u32 n = 0, kept = 0;

	if (v->slot >= v->geo.nhosts)
		return 0;
	live = EDM_SHP_HW(EDM_SHP_H_LIVE, v->epoch);
	leaving = EDM_SHP_HW(EDM_SHP_H_LEAVING, v->epoch);
	if (edm_shp_cas64(&v->hosts[v->slot].state, live, leaving) == live)
		n = edm_shp_free_tagged_but(v, v->tag, keep, arg, &kept);
	if (!kept)
		edm_shp_leave_done(v);
	return n;
}

/* Leave cleanly: give every Buffer back, free the slot. Buffers freed. */
u32 edm_shp_leave(struct edm_shp *v)
{
	return edm_shp_leave_keep(v, edm_shp_keep_none, NULL);
}

/* Has this view left, keeping Buffers (edm_shp_leave_keep()), and not ended yet? */
bool edm_shp_leaving(const struct edm_shp *v)
{
	return v->slot < v->geo.nhosts &&
	       edm_shp_host_state(v, v->slot) == EDM_SHP_HW(EDM_SHP_H_LEAVING, v->epoch);
}

/*
 * End a leave that kept Buffers: whatever is still tagged goes back, then
 * the slot. Nothing if the view was not leaving (or was reaped meanwhile).
 * Buffers freed.
 */
u32 edm_shp_leave_end(struct edm_shp *v)
{
	u32 n = 0, kept = 0;

	if (v->slot >= v->geo.nhosts)
		return 0;
	if (edm_shp_leaving(v))
		n = edm_shp_free_tagged_but(v, v->tag, edm_shp_keep_none, NULL, &kept);
	edm_shp_leave_done(v);
	return n;
}

/*
 * Reclaim the life of @slot seen in state word @seen (LIVE, JOINING,
 * LEAVING or DEAD: a reaper that died half way). Buffers freed; 0 if
 * another survivor won, or the slot moved on.
 */
u32 edm_shp_reap(struct edm_shp *v, u32 slot, u64 seen)
{
	struct edm_shp_host *h;
	u32 epoch = EDM_SHP_HW_EPOCH(seen), n, kept = 0;
	u64 dead = EDM_SHP_HW(EDM_SHP_H_DEAD, epoch);

	if (slot >= v->geo.nhosts || slot == v->slot)
		return 0;
	switch (EDM_SHP_HW_STATE(seen)) {
	case EDM_SHP_H_LIVE:
	case EDM_SHP_H_JOINING:
	case EDM_SHP_H_LEAVING:
	case EDM_SHP_H_DEAD:
		break;
	default:
		return 0;
	}
	h = &v->hosts[slot];
	if (seen != dead && edm_shp_cas64(&h->state, seen, dead) != seen)
		return 0;
	n = edm_shp_free_tagged_but(v, EDM_SHP_TAG(slot, epoch), edm_shp_keep_none, NULL, &kept);
	if (edm_shp_cas64(&h->state, dead, EDM_SHP_HW(EDM_SHP_H_FREE, epoch)) == dead) {
		edm_shp_store(&h->reaped, edm_shp_load(&h->reaped) + 1);
		v->st.reaped_hosts++;
	}
	v->st.reaped_bufs += n;
	return n;
}

/* Buffers held by the life now in @slot. */
u32 edm_shp_held(const struct edm_shp *v, u32 slot)
{
	u64 w = edm_shp_host_state(v, slot);
	u32 i, n = 0, tag = EDM_SHP_TAG(slot, EDM_SHP_HW_EPOCH(w));

	if (EDM_SHP_HW_STATE(w) == EDM_SHP_H_FREE)
		return 0;
	for (i = 0; i < v->geo.nbufs; i++)
		n += EDM_SHP_WTAG(edm_shp_load(&v->holder[i])) == tag;
	return n;
}

/* Say whether this host's receive side runs: senders pass nothing to one that does not. */
void edm_shp_set_up(struct edm_shp *v, bool up)
{
	if (v->slot < v->geo.nhosts)
		edm_shp_release(&v->hosts[v->slot].up, up);
}

/* Is @slot another live host whose receive side runs? */
bool edm_shp_peer_up(const struct edm_shp *v, u32 slot)
{
	return slot < v->geo.nhosts && slot != v->slot &&
	       EDM_SHP_HW_STATE(edm_shp_host_state(v, slot)) == EDM_SHP_H_LIVE &&
	       edm_shp_acquire(&v->hosts[slot].up);
}

/* The live host (not this one) with that MAC, or -ENOENT. */
int edm_shp_find_mac(const struct edm_shp *v, const u8 *mac)
{
	u64 w;
	u32 i;

	for (i = 0; i < v->geo.nhosts; i++) {
		if (i == v->slot ||
		    EDM_SHP_HW_STATE(edm_shp_host_state(v, i)) != EDM_SHP_H_LIVE)
			continue;
		w = edm_shp_load(&v->hosts[i].mac_word);	/* one load: never half a change */
		if (!memcmp(&w, mac, sizeof(v->hosts[i].mac)))
			return i;
	}
	return -ENOENT;
}

/*
 * This host's MAC becomes @mac (its netdev's address changed while up): one
 * swap of its slot's MAC word, expecting @old, the MAC it has now. A life of
 * ours reaped meanwhile writes nothing into the slot's next life: that life
 * wrote its own MAC when it joined, so the swap fails, or it will write it
 * after. Peers route by the word from their next frame on. -ENOTCONN: not
 * live (reaped, or not joined), or the word is not @old.
 */
int edm_shp_set_mac(struct edm_shp *v, const u8 *old, const u8 *mac)
{
	struct edm_shp_host *h;
	u64 w, nw;

	if (v->slot >= v->geo.nhosts || edm_shp_fenced(v))
		return -ENOTCONN;
	h = &v->hosts[v->slot];
	w = edm_shp_load(&h->mac_word);
	if (memcmp(&w, old, sizeof(h->mac)))
		return -ENOTCONN;
	nw = w;
	memcpy(&nw, mac, sizeof(h->mac));
	if (edm_shp_cas64(&h->mac_word, w, nw) != w)
		return -ENOTCONN;
	return 0;
}

/* ---- Buffers ---- */

u32 edm_shp_buf_size(const struct edm_shp *v)
{
	return 1U << v->geo.buf_shift;
}

/* Are frames laid out in pages (Buffers of a page or more), see EDM_SHP_FRAME_HEAD? */
bool edm_shp_frame_paged(const struct edm_shp *v)
{
	return edm_shp_buf_size(v) >= EDM_SHP_FRAME_PAGE;
}

/* The longest frame a Buffer holds. */
u32 edm_shp_frame_max(const struct edm_shp *v)
{
	if (!edm_shp_frame_paged(v))
		return edm_shp_buf_size(v);
	return edm_shp_buf_size(v) - EDM_SHP_FRAME_PAGE + EDM_SHP_FRAME_HEAD;
}

/*
 * Where a frame of @len bytes (at most edm_shp_frame_max()) lies in its
 * Buffer: its first @len0 bytes at @off0, the rest at @off1.
 */
void edm_shp_frame_parts(const struct edm_shp *v, u32 len, u32 *off0, u32 *len0, u32 *off1)
{
	if (!edm_shp_frame_paged(v)) {
		*off0 = 0;
		*len0 = len;
		*off1 = len;
		return;
	}
	*off0 = EDM_SHP_FRAME_HEADROOM;
	*len0 = len < EDM_SHP_FRAME_HEAD ? len : EDM_SHP_FRAME_HEAD;
	*off1 = EDM_SHP_FRAME_PAGE;
}

void *edm_shp_buf(const struct edm_shp *v, u32 buf)
{
	return v->bufs + ((u64)buf << v->geo.buf_shift);
}

/* A free Buffer, now held by this host. -ENOMEM: none; -ENOTCONN: not live. */
int edm_shp_alloc(struct edm_shp *v, u32 *buf, u64 *hw)
{
	u32 n = v->geo.nbufs, i, k;

	if (v->slot >= v->geo.nhosts)
		return -ENOTCONN;
	for (k = 0, i = v->cursor; k < n; k++, i = i + 1 == n ? 0 : i + 1) {
		u64 w = edm_shp_load(&v->holder[i]), nw;

		if (EDM_SHP_WTAG(w))
			continue;
		nw = (u64)(EDM_SHP_GEN(w) + 1) << 32 | v->tag;
		if (edm_shp_cas64(&v->holder[i], w, nw) != w)
			continue;
		/*
		 * A reaper that swapped our state before our swap sees our tag in
		 * its scan, or we see its state: a reaped life keeps no Buffer.
		 */
		edm_shp_fence();
		if (edm_shp_fenced(v)) {
			edm_shp_cas64(&v->holder[i], nw, nw & ~0xffffffffULL);
			return -ENOTCONN;
		}
		v->cursor = i + 1 == n ? 0 : i + 1;
		*buf = i;
		*hw = nw;
		v->st.allocs++;
		return 0;
	}
	v->st.no_buf++;
	return -ENOMEM;
}

/* Give back a Buffer this host holds as @hw. -EPERM: it does not. */
int edm_shp_free(struct edm_shp *v, u32 buf, u64 hw)
{
	if (buf >= v->geo.nbufs || v->slot >= v->geo.nhosts || EDM_SHP_WTAG(hw) != v->tag)
		return -EINVAL;
	if (edm_shp_cas64(&v->holder[buf], hw, (u64)EDM_SHP_GEN(hw) << 32) != hw)
		return -EPERM;
	return 0;
}

/*
 * Make the live host in @dst the holder. -EHOSTDOWN: it is not live;
 * -EPERM: this host does not hold the Buffer as @hw.
 */
int edm_shp_pass(struct edm_shp *v, u32 buf, u64 hw, u32 dst, u64 *new_hw)
{
	u64 st, nw;

	if (buf >= v->geo.nbufs || dst >= v->geo.nhosts || v->slot >= v->geo.nhosts ||
	    dst == v->slot || EDM_SHP_WTAG(hw) != v->tag)
		return -EINVAL;
	st = edm_shp_host_state(v, dst);
	if (EDM_SHP_HW_STATE(st) != EDM_SHP_H_LIVE)
		return -EHOSTDOWN;
	nw = (u64)EDM_SHP_GEN(hw) << 32 | EDM_SHP_TAG(dst, EDM_SHP_HW_EPOCH(st));
	if (edm_shp_cas64(&v->holder[buf], hw, nw) != hw)
		return -EPERM;
	/* a reaper that swapped the state before our swap sees our word, or we see its state */
	edm_shp_fence();
	if (edm_shp_host_state(v, dst) != st) {
		if (edm_shp_cas64(&v->holder[buf], nw, hw) == nw) {
			v->st.taken_back++;
			return -EHOSTDOWN;
		}
		/* the reaper freed it, or the receiver had it already */
	}
	v->st.passes++;
	*new_hw = nw;
	return 0;
}

/* ---- rings ---- */

static struct edm_shp_ring *edm_shp_ring(const struct edm_shp *v, u32 src, u32 dst)
{
	return (struct edm_shp_ring *)(v->rings +
				       ((u64)src * v->geo.nhosts + dst) * v->geo.ring_bytes);
}

static struct edm_shp_desc *edm_shp_slot(const struct edm_shp *v, struct edm_shp_ring *r,
					 u32 i)
{
	return (struct edm_shp_desc *)(r + 1) + (i & (v->geo.ring_size - 1));
}

/* Queue @d on the ring to @dst. -ENOSPC: full. The view's one producer. */
int edm_shp_post(struct edm_shp *v, u32 dst, const struct edm_shp_desc *d)
{
	struct edm_shp_ring *r;
	u32 prod;

	if (dst >= v->geo.nhosts || v->slot >= v->geo.nhosts)
		return -EINVAL;
	r = edm_shp_ring(v, v->slot, dst);
	prod = edm_shp_load(&r->prod);
	if (prod - edm_shp_acquire(&r->cons) >= v->geo.ring_size) {
		v->st.ring_full++;
		return -ENOSPC;
	}
	memcpy(edm_shp_slot(v, r, prod), d, sizeof(*d));
	edm_shp_release(&r->prod, prod + 1);
	v->st.posts++;
	return 0;
}

/*
 * Pass a Buffer to @dst and queue it there. On an error the Buffer is
 * still this host's, as @hw, for the caller to free: -ENOSPC (ring full),
 * -EHOSTDOWN, -EINVAL.
 */
int edm_shp_send(struct edm_shp *v, u32 dst, u32 buf, u64 hw, u32 len, const void *meta,
		 u32 meta_len)
{
	struct edm_shp_desc d = { .buf = buf, .len = len };
	struct edm_shp_ring *r;
	int err;

	if (dst >= v->geo.nhosts || v->slot >= v->geo.nhosts || meta_len > sizeof(d.meta) ||
	    len > edm_shp_buf_size(v))
		return -EINVAL;
	r = edm_shp_ring(v, v->slot, dst);
	if (edm_shp_load(&r->prod) - edm_shp_acquire(&r->cons) >= v->geo.ring_size) {
		v->st.ring_full++;
		return -ENOSPC;
	}
	err = edm_shp_pass(v, buf, hw, dst, &d.hw);
	if (err)
		return err;
	if (meta_len)
		memcpy(d.meta, meta, meta_len);
	/* this host is the ring's one producer and saw room, unless the ring is corrupt */
	err = edm_shp_post(v, dst, &d);
	if (err && edm_shp_cas64(&v->holder[buf], d.hw, hw) != d.hw)
		return 0;	/* the reaper has it, or the receiver */
	return err;
}

/* Descriptors the ring to @dst has room for. */
u32 edm_shp_room(const struct edm_shp *v, u32 dst)
{
	struct edm_shp_ring *r;

	if (dst >= v->geo.nhosts || v->slot >= v->geo.nhosts)
		return 0;
	r = edm_shp_ring(v, v->slot, dst);
	return v->geo.ring_size - (edm_shp_load(&r->prod) - edm_shp_acquire(&r->cons));
}

bool edm_shp_pending(const struct edm_shp *v, u32 src)
{
	struct edm_shp_ring *r;

	if (src >= v->geo.nhosts || v->slot >= v->geo.nhosts)
		return false;
	r = edm_shp_ring(v, src, v->slot);
	return edm_shp_acquire(&r->prod) != edm_shp_load(&r->cons);
}

/*
 * Take the next descriptor on the ring from @src. -EAGAIN: empty;
 * -ENOTCONN: this life was reaped; -ESTALE: one was there but its Buffer
 * is not this host's as it says (queued for a reaped life, or garbage): it
 * is consumed and refused.
 */
int edm_shp_take(struct edm_shp *v, u32 src, struct edm_shp_desc *d)
{
	struct edm_shp_ring *r;
	u32 cons, prod;

	if (src >= v->geo.nhosts || v->slot >= v->geo.nhosts)
		return -EINVAL;
	/* a reaped life takes nothing: what is queued now is the slot's next life's */
	if (edm_shp_fenced(v))
		return -ENOTCONN;
	r = edm_shp_ring(v, src, v->slot);
	cons = edm_shp_load(&r->cons);
	prod = edm_shp_acquire(&r->prod);
	if (prod == cons)
		return -EAGAIN;
	memcpy(d, edm_shp_slot(v, r, cons), sizeof(*d));
	edm_shp_release(&r->cons, cons + 1);
	/*
	 * A bad length is refused even when the Buffer is ours as it says: the
	 * descriptor may be a copy of one we took already and still use.
	 */
	if (d->buf >= v->geo.nbufs || d->len > edm_shp_buf_size(v) ||
	    EDM_SHP_WTAG(d->hw) != v->tag || edm_shp_load(&v->holder[d->buf]) != d->hw) {
		v->st.refused++;
		return -ESTALE;
	}
	v->st.takes++;
	return 0;
}

/* ---- exports ---- */

/* Is @tag the life now in its slot, and is that life LIVE? */
bool edm_shp_tag_live(const struct edm_shp *v, u32 tag)
{
	u32 slot = EDM_SHP_TAG_SLOT(tag);

	return tag && slot < v->geo.nhosts &&
	       edm_shp_host_state(v, slot) == EDM_SHP_HW(EDM_SHP_H_LIVE, tag >> 8);
}

struct edm_shp_export *edm_shp_x(const struct edm_shp *v, u32 i)
{
	return (struct edm_shp_export *)(v->base + v->geo.xports_off) + i;
}

/* Give back the Buffers of [buf, buf + n) that export @i holds. */
static void edm_shp_x_free_run(struct edm_shp *v, u32 i, u32 buf, u32 n)
{
	u32 b;

	for (b = buf; b < buf + n && b < v->geo.nbufs; b++) {
		u64 w = edm_shp_load(&v->holder[b]);

		if (EDM_SHP_WTAG(w) == EDM_SHP_XTAG(i))
			edm_shp_cas64(&v->holder[b], w, (u64)EDM_SHP_GEN(w) << 32);
	}
}

/* Take [buf, buf + n) for export @i, all or nothing. */
static bool edm_shp_x_take_run(struct edm_shp *v, u32 i, u32 buf, u32 n)
{
	u32 b;

	for (b = buf; b < buf + n; b++) {
		u64 w = edm_shp_load(&v->holder[b]);

		if (EDM_SHP_WTAG(w) ||
		    edm_shp_cas64(&v->holder[b], w,
				  (u64)(EDM_SHP_GEN(w) + 1) << 32 | EDM_SHP_XTAG(i)) != w) {
			edm_shp_x_free_run(v, i, buf, b - buf);
			return false;
		}
	}
	return true;
}

/*
 * Claim an export slot for @target to serve and a run of @nbufs Buffers
 * starting on a page, for the caller to fill and offer. -EINVAL: bad
 * target or size; -EBUSY: no free slot; -ENOMEM: no such run;
 * -ENOTCONN: this host is not (or no longer) live.
 */
int edm_shp_x_claim(struct edm_shp *v, u32 target, u32 nbufs, u32 *xi, u32 *buf)
{
	u32 step = v->geo.buf_shift < 12 ? 1U << (12 - v->geo.buf_shift) : 1;
	struct edm_shp_export *x = NULL;
	u32 i, b;

	if (v->slot >= v->geo.nhosts)
		return -ENOTCONN;
	if (target >= v->geo.nhosts || target == v->slot || !nbufs || nbufs > v->geo.nbufs)
		return -EINVAL;
	for (i = 0; i < v->geo.nxports; i++) {
		x = edm_shp_x(v, i);
		if (edm_shp_cas64(&x->word, 0, EDM_SHP_XW(EDM_SHP_X_CLAIMED, v->tag)) == 0)
			break;
	}
	if (i == v->geo.nxports)
		return -EBUSY;
	/* the engine word is 0 already: the sweep cleared it before freeing */
	edm_shp_store(&x->ack, 0);
	edm_shp_store(&x->result, EDM_SHP_XR_PENDING);
	edm_shp_store(&x->error, 0);
	edm_shp_store(&x->target, target);
	edm_shp_store(&x->nbufs, 0);
	for (b = 0; b + nbufs <= v->geo.nbufs; b += step) {
		/* a sweeper after our death frees what the slot says we hold */
		edm_shp_store(&x->buf, b);
		edm_shp_release(&x->nbufs, nbufs);
		if (edm_shp_x_take_run(v, i, b, nbufs))
			break;
	}
	if (b + nbufs > v->geo.nbufs) {
		edm_shp_store(&x->nbufs, 0);
		/* a swap: a stalled life must not free a slot claimed again since */
		edm_shp_cas64(&x->word, EDM_SHP_XW(EDM_SHP_X_CLAIMED, v->tag), 0);
		v->st.no_buf++;
		return -ENOMEM;
	}
	/* as in edm_shp_alloc(): a reaped life keeps nothing */
	edm_shp_fence();
	if (edm_shp_fenced(v)) {
		edm_shp_x_free_run(v, i, b, nbufs);
		edm_shp_cas64(&x->word, EDM_SHP_XW(EDM_SHP_X_CLAIMED, v->tag), 0);
		return -ENOTCONN;
	}
	v->st.x_claimed++;
	*xi = i;
	*buf = b;
	return 0;
}

/*
 * The owner filled export @i: publish it to its target. -ENOTCONN: the
 * slot is no longer ours as claimed (this life was reaped meanwhile).
 */
int edm_shp_x_offer(struct edm_shp *v, u32 i)
{
	u64 w = EDM_SHP_XW(EDM_SHP_X_CLAIMED, v->tag);

	if (edm_shp_fenced(v))
		return -ENOTCONN;	/* a sweep frees the claim */
	/* a full barrier: what the owner wrote is visible before OFFERED */
	if (edm_shp_cas64(&edm_shp_x(v, i)->word, w, EDM_SHP_XW(EDM_SHP_X_OFFERED, v->tag)) != w)
		return -ENOTCONN;
	return 0;
}

/*
 * The engine's answer to offer @i: 0 (served; *@region_size), its refusal,
 * -EAGAIN (none yet) or -EHOSTDOWN (the target is not live, or its life
 * that took the offer is gone).
 */
int edm_shp_x_result(const struct edm_shp *v, u32 i, u64 *region_size)
{
	struct edm_shp_export *x = edm_shp_x(v, i);
	u32 r = edm_shp_acquire(&x->result), e = edm_shp_load(&x->engine);
	u32 target = edm_shp_load(&x->target);

	if (r == EDM_SHP_XR_SERVED) {
		*region_size = edm_shp_load(&x->region_size);
		return 0;
	}
	if (r == EDM_SHP_XR_REFUSED) {
		s32 err = edm_shp_load(&x->error);

		return err < 0 && err > -4096 ? err : -EPROTO;
	}
	/* the slot is shared memory: a target out of the table is no live host */
	if (e ? !edm_shp_tag_live(v, e) : target >= v->geo.nhosts ||
	    EDM_SHP_HW_STATE(edm_shp_host_state(v, target)) != EDM_SHP_H_LIVE)
		return -EHOSTDOWN;
	return -EAGAIN;
}

/* Did the engine serving export @i die (its area is served no more)? */
bool edm_shp_x_engine_lost(const struct edm_shp *v, u32 i)
{
	u32 e = edm_shp_load(&edm_shp_x(v, i)->engine);

	return e && e != EDM_SHP_X_BLOCKED && !edm_shp_tag_live(v, e);
}

/* The owner is done with export @i; a sweep frees it once nobody touches it. */
void edm_shp_x_close(struct edm_shp *v, u32 i)
{
	struct edm_shp_export *x = edm_shp_x(v, i);
	u64 w = edm_shp_load(&x->word);

	if (EDM_SHP_XW_OWNER(w) != v->tag)
		return;
	if (EDM_SHP_XW_STATE(w) == EDM_SHP_X_CLAIMED || EDM_SHP_XW_STATE(w) == EDM_SHP_X_OFFERED)
		edm_shp_cas64(&x->word, w, EDM_SHP_XW(EDM_SHP_X_CLOSED, v->tag));
}

/* The first export at or after @from offered to this host and untaken; -ENOENT. */
int edm_shp_x_next_offer(const struct edm_shp *v, u32 from)
{
	u32 i;

	if (v->slot >= v->geo.nhosts)
		return -ENOENT;
	for (i = from; i < v->geo.nxports; i++) {
		struct edm_shp_export *x = edm_shp_x(v, i);

		if (EDM_SHP_XW_STATE(edm_shp_acquire(&x->word)) == EDM_SHP_X_OFFERED &&
		    edm_shp_load(&x->target) == v->slot && !edm_shp_load(&x->engine))
			return i;
	}
	return -ENOENT;
}

/*
 * Become the engine of offer @i and copy it to @copy, checked: its run is
 * inside the pool and held by the export. -ESTALE: it is no longer a live
 * owner's offer to this host (the take is undone: the slot may have been
 * freed and claimed again since it was seen); -EBUSY: another life took
 * it, or it was blocked; -EINVAL: a bad run (answer it refused).
 */
int edm_shp_x_take(struct edm_shp *v, u32 i, struct edm_shp_export *copy)
{
	struct edm_shp_export *x;
	u32 b;

	if (v->slot >= v->geo.nhosts || i >= v->geo.nxports || edm_shp_fenced(v))
		return -ENOTCONN;
	x = edm_shp_x(v, i);
	if (edm_shp_cas32(&x->engine, 0, v->tag) != 0)
		return -EBUSY;
	/* pairs with the owner's release of OFFERED: its fields are written */
	copy->word = edm_shp_acquire(&x->word);
	copy->target = edm_shp_load(&x->target);
	if (EDM_SHP_XW_STATE(copy->word) != EDM_SHP_X_OFFERED || copy->target != v->slot ||
	    !edm_shp_tag_live(v, EDM_SHP_XW_OWNER(copy->word))) {
		edm_shp_x_untake(v, i);
		return -ESTALE;
	}
	copy->buf = edm_shp_load(&x->buf);
	copy->nbufs = edm_shp_load(&x->nbufs);
	copy->inst_id = edm_shp_load(&x->inst_id);
	copy->region_key = edm_shp_load(&x->region_key);
	copy->region_id = edm_shp_load(&x->region_id);
	copy->nr_rings = edm_shp_load(&x->nr_rings);
	copy->meta_order = edm_shp_load(&x->meta_order);
	copy->data_order = edm_shp_load(&x->data_order);
	if (!copy->nbufs || copy->buf >= v->geo.nbufs || copy->nbufs > v->geo.nbufs - copy->buf)
		return -EINVAL;
	for (b = copy->buf; b < copy->buf + copy->nbufs; b++)
		if (EDM_SHP_WTAG(edm_shp_load(&v->holder[b])) != EDM_SHP_XTAG(i))
			return -EINVAL;
	return 0;
}

/* Put back an offer taken but not answered, for a later take. */
void edm_shp_x_untake(struct edm_shp *v, u32 i)
{
	edm_shp_cas32(&edm_shp_x(v, i)->engine, v->tag, 0);
}

/* The engine's answer to offer @i: 0 (it serves it) or why not. */
void edm_shp_x_answer(struct edm_shp *v, u32 i, int err, u64 region_size)
{
	struct edm_shp_export *x = edm_shp_x(v, i);

	/* a life reaped while stalled must not answer the slot's next offer */
	if (edm_shp_load(&x->engine) != v->tag)
		return;
	edm_shp_store(&x->region_size, region_size);
	edm_shp_store(&x->error, err);
	edm_shp_release(&x->result, err ? EDM_SHP_XR_REFUSED : EDM_SHP_XR_SERVED);
}

/* Engine: is export @i, taken as @word, still a live owner's, and this life live? */
bool edm_shp_x_wanted(const struct edm_shp *v, u32 i, u64 word)
{
	return !edm_shp_fenced(v) && edm_shp_acquire(&edm_shp_x(v, i)->word) == word &&
	       edm_shp_tag_live(v, EDM_SHP_XW_OWNER(word));
}

/* Engine: it touches export @i no more (after everything it wrote there). */
void edm_shp_x_ack(struct edm_shp *v, u32 i)
{
	struct edm_shp_export *x = edm_shp_x(v, i);

	/*
	 * The acker's tag, not a flag: an ack counts only from the engine the
	 * slot has now, so a life reaped while stalled cannot ack the slot's
	 * next export for its new engine.
	 */
	if (edm_shp_load(&x->engine) == v->tag)
		edm_shp_release(&x->ack, v->tag);
}

/* May export @i, whose word is @w, be freed now? */
static bool edm_shp_x_done(struct edm_shp *v, struct edm_shp_export *x, u64 w)
{
	u32 st = EDM_SHP_XW_STATE(w), e;

	if (st == EDM_SHP_X_FREE)
		return false;
	/* a sweeper that died half way: whoever sees it gone finishes */
	if (st == EDM_SHP_X_FREEING)
		return !edm_shp_tag_live(v, EDM_SHP_XW_OWNER(w));
	if (st != EDM_SHP_X_CLOSED) {
		u32 owner = EDM_SHP_XW_OWNER(w);

		if (owner == v->tag ? !edm_shp_fenced(v) : edm_shp_tag_live(v, owner))
			return false;
	}
	e = edm_shp_load(&x->engine);
	if (!e) {
		e = edm_shp_cas32(&x->engine, 0, EDM_SHP_X_BLOCKED) ?: EDM_SHP_X_BLOCKED;
		/*
		 * The slot may have been freed and offered again since @w was
		 * read: then this block is not ours to leave on a live offer.
		 */
		if (e == EDM_SHP_X_BLOCKED && edm_shp_acquire(&x->word) != w) {
			edm_shp_cas32(&x->engine, EDM_SHP_X_BLOCKED, 0);
			return false;
		}
	}
	return e == EDM_SHP_X_BLOCKED || edm_shp_acquire(&x->ack) == e ||
	       !edm_shp_tag_live(v, e);
}

/*
 * Free every export that was closed or whose owner died, once nobody may
 * touch its area. Any host may sweep; one swap wins each. How many freed.
 */
u32 edm_shp_x_sweep(struct edm_shp *v)
{
	u32 i, n = 0;

	for (i = 0; i < v->geo.nxports; i++) {
		struct edm_shp_export *x = edm_shp_x(v, i);
		u64 w = edm_shp_acquire(&x->word);
		u32 buf, nb;

		if (!edm_shp_x_done(v, x, w))
			continue;
		/* FREEING names the sweeper, so a sweep that dies is finished by another */
		if (edm_shp_cas64(&x->word, w, EDM_SHP_XW(EDM_SHP_X_FREEING, v->tag)) != w)
			continue;
		nb = edm_shp_acquire(&x->nbufs);
		buf = edm_shp_load(&x->buf);
		edm_shp_x_free_run(v, i, buf, nb);
		edm_shp_store(&x->nbufs, 0);
		edm_shp_store(&x->engine, 0);
		edm_shp_release(&x->word, 0);
		v->st.x_swept++;
		n++;
	}
	return n;
}
