// SPDX-License-Identifier: GPL-2.0
/*
 * The local region of a memory host as Cowbird (cowbird/) and the region
 * netlink commands (cowbird/region_nl.c) see it: its size, copies through
 * its key, rekeying, and the list of every host with a region. The fabric
 * serves the same region in fabric/responder.c.
 *
 * A region is named by its host's fabric address and proven by its key; the
 * key lives under node->lock, which every access through it takes, so a
 * rekey cuts off every instance at once (cowbird/region_nl.c).
 *
 * Locking: a region's key and counters are under its node->lock;
 * edm_fab_regions is under edm_fab_regions_lock (BH), taken before
 * node->lock.
 */
#include <linux/list.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>

#include "fab.h"

/*
 * Every host with a region, for the root-only debugfs file that lists those
 * of every netns with their keys (netlink shows each netns its own). A
 * spinlock, BH: the last node reference may go in BH. Order:
 * edm_fab_regions_lock, node->lock.
 */
static LIST_HEAD(edm_fab_regions);
static DEFINE_SPINLOCK(edm_fab_regions_lock);	/* protects edm_fab_regions */

/* One line per live region: netns inode, fabric address, host name, size, key. */
void edm_fab_regions_show(struct seq_file *m)
{
	struct edm_fab_host *h;

	spin_lock_bh(&edm_fab_regions_lock);
	list_for_each_entry(h, &edm_fab_regions, regions) {
		struct edm_fab_node *n = h->node;

		spin_lock(&n->lock);
		if (!n->dead)
			seq_printf(m, "%u %u %s %llu 0x%016llx\n", n->net->ns.inum, h->addr,
				   n->name, h->region_size, h->region_key);
		spin_unlock(&n->lock);
	}
	spin_unlock_bh(&edm_fab_regions_lock);
}

/* Lists @h's region for edm_fab_regions_show(); at creation, with a region. */
void edm_fab_regions_add(struct edm_fab_host *h)
{
	spin_lock_bh(&edm_fab_regions_lock);
	list_add_tail(&h->regions, &edm_fab_regions);
	spin_unlock_bh(&edm_fab_regions_lock);
}

/* Unlists @h (a no-op when it has no region); when the host is freed. */
void edm_fab_regions_del(struct edm_fab_host *h)
{
	spin_lock_bh(&edm_fab_regions_lock);
	list_del(&h->regions);
	spin_unlock_bh(&edm_fab_regions_lock);
}

/* 0 when @n serves a region at fabric address @addr; its size and key. */
int edm_fab_host_region(struct edm_fab_node *n, u32 addr, u64 *size, u64 *key)
{
	struct edm_fab_host *h = to_host(n);
	int err = -ENOENT;

	spin_lock_bh(&n->lock);
	if (!n->dead && h->addr == addr && h->region) {
		*size = h->region_size;
		*key = h->region_key;
		err = 0;
	}
	spin_unlock_bh(&n->lock);
	return err;
}

/* Under node->lock: whether @key opens @n's region; a refusal is counted. */
static bool edm_region_key_ok(struct edm_fab_node *n, u64 key)
{
	struct edm_fab_host *h = to_host(n);

	lockdep_assert_held(&n->lock);
	if (!n->dead && h->region && h->region_key == key)
		return true;
	h->region_st[EDM_A_RSTAT_ACCESS_ERRORS]++;
	return false;
}

/*
 * Copies len bytes between the region at off and buf, under node->lock so
 * the copy is atomic against the fabric's own reads, writes and RMWs.
 * -EACCES when the key is no longer the region's or the host is gone. The
 * caller has checked off and len against the size edm_fab_host_region()
 * gave, which never changes.
 */
int edm_fab_host_region_io(struct edm_fab_node *n, u64 key, u64 off, void *buf, u32 len,
			   bool write)
{
	struct edm_fab_host *h = to_host(n);
	int err = 0;

	spin_lock_bh(&n->lock);
	if (!edm_region_key_ok(n, key)) {
		err = -EACCES;
	} else if (off > h->region_size || len > h->region_size - off) {
		err = -EFAULT;
		h->region_st[EDM_A_RSTAT_RANGE_ERRORS]++;
	} else if (write) {
		memcpy(h->region + off, buf, len);
		h->region_st[EDM_A_RSTAT_WRITES]++;
		h->region_st[EDM_A_RSTAT_WRITE_BYTES] += len;
	} else {
		memcpy(buf, h->region + off, len);
		h->region_st[EDM_A_RSTAT_READS]++;
		h->region_st[EDM_A_RSTAT_READ_BYTES] += len;
	}
	spin_unlock_bh(&n->lock);
	return err;
}

/*
 * For an op that reaches the region some other way (Cowbird's fabric target):
 * 0 when @key is still the region's, else -EACCES, counted like a refused copy.
 */
int edm_fab_host_region_check(struct edm_fab_node *n, u64 key)
{
	bool ok;

	spin_lock_bh(&n->lock);
	ok = edm_region_key_ok(n, key);
	spin_unlock_bh(&n->lock);
	return ok ? 0 : -EACCES;
}

/* 0 and what netlink shows of @n's region, or -ENOENT when it serves none. */
int edm_fab_host_region_info(struct edm_fab_node *n, struct edm_region_info *ri)
{
	struct edm_fab_host *h = to_host(n);
	int err = -ENOENT;

	spin_lock_bh(&n->lock);
	if (!n->dead && h->region) {
		ri->addr = h->addr;
		ri->size = h->region_size;
		ri->key = h->region_key;
		ri->key_gen = h->region_key_gen;
		BUILD_BUG_ON(sizeof(ri->stats) != sizeof(h->region_st));
		memcpy(ri->stats, h->region_st, sizeof(ri->stats));
		err = 0;
	}
	spin_unlock_bh(&n->lock);
	return err;
}

/*
 * Draws a new key for @n's region, never the old one, and counts the rekey;
 * the region's bytes are not touched. From the moment node->lock is dropped
 * every access with the old key fails with -EACCES. -ENOENT without a region.
 */
int edm_fab_host_rekey(struct edm_fab_node *n)
{
	struct edm_fab_host *h = to_host(n);
	int err = -ENOENT;
	u64 key;

	spin_lock_bh(&n->lock);
	if (!n->dead && h->region) {
		do {
			key = get_random_u64();
		} while (key == h->region_key || !key);
		h->region_key = key;
		h->region_key_gen++;
		err = 0;
	}
	spin_unlock_bh(&n->lock);
	return err;
}
