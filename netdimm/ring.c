// SPDX-License-Identifier: GPL-2.0
/*
 * ndimm descriptor rings: a power of two of descriptors in zone memory (the
 * paper allocates them with __alloc_netdimm_pages(zone, -1)), and the
 * release of a descriptor's buffers. Each segment holds one page reference:
 * a zone page goes back to the zone, a page the descriptor borrowed (the
 * TX fast path's skb pages, or ordinary pages after a zone fallback) is
 * put. Called by the ring's consumer only; no locking of its own.
 */
#include <linux/mm.h>

#include "netdimm.h"

int edm_netdimm_ring_init(struct edm_netdimm *nd, struct edm_netdimm_ring *r, u32 size)
{
	size_t bytes = size * sizeof(struct edm_netdimm_desc);

	r->order = get_order(bytes);
	r->pages = edm_netdimm_alloc_pages(nd->zone, -1, r->order);
	if (!r->pages)
		return -ENOMEM;
	r->desc = page_address(r->pages);
	memset(r->desc, 0, bytes);
	r->size = size;
	r->prod = 0;
	r->cons = 0;
	spin_lock_init(&r->lock);
	return 0;
}

/* Free slots, as a producer sees them. */
u32 edm_netdimm_ring_free(const struct edm_netdimm_ring *r)
{
	/* acquire: pairs with the consumer's release of cons */
	return r->size - (READ_ONCE(r->prod) - smp_load_acquire(&r->cons));
}

void edm_netdimm_desc_release(struct edm_netdimm *nd, struct edm_netdimm_desc *d)
{
	u16 i;

	for (i = 0; i < d->nseg; i++) {
		struct page *page = d->seg[i].page;

		if (!page)		/* handed to an skb */
			continue;
		if (!(d->flags & EDM_NETDIMM_D_FOREIGN) && edm_netdimm_owns(nd->zone, page))
			edm_netdimm_free_pages(nd->zone, page, 0);
		else
			put_page(page);
	}
	d->nseg = 0;
}

/* The ring's users are stopped: release what is still posted. */
void edm_netdimm_ring_fini(struct edm_netdimm *nd, struct edm_netdimm_ring *r)
{
	if (!r->pages)
		return;
	for (; r->cons != r->prod; r->cons++)
		edm_netdimm_desc_release(nd, edm_netdimm_slot(r, r->cons));
	edm_netdimm_free_pages(nd->zone, r->pages, r->order);
	r->pages = NULL;
	r->desc = NULL;
}
