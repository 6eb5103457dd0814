// SPDX-License-Identifier: GPL-2.0
/*
 * Pool regions (include/edm/region.h): whole Sections of a CXL memory pool
 * that a Cowbird instance binds to with a key, as it binds to a fabric
 * memory host's region.
 *
 * A region takes a node id of the pool and allocates its Sections as
 * Buffers of the Section class (2 MiB) for that node, so the pool's own
 * accounting and reference checks cover them; they need not be consecutive
 * in the FAS, and a copy is split at Section ends. They are zeroed before
 * anyone can reach them: a Section may have carried packets. Deleting a
 * region flushes its node, which gives every Section back to the LPPU.
 *
 * Locking: see region.h. The pool's xarray of regions is changed under the
 * registry lock of the pool's netns; the core under the LPPU lock.
 */
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "edm/edm.h"
#include "edm/pool.h"
#include "edm/region.h"

static void edm_pool_region_free(struct edm_pool_region *r)
{
	struct edm_mpool *p = r->pool;
	struct edm_lppu *l = &p->lppu;

	/* The node holds nothing the stack has: its flush frees every Section. */
	spin_lock_bh(&l->lock);
	edm_pool_node_flush(l->core, r->node);
	spin_unlock_bh(&l->lock);
	ida_free(&p->ids, r->node);
	kvfree(r->refs);
	kvfree(r->va);
	kfree(r);
	edm_mpool_put(p);
	edm_obj_put(EDM_OBJ_REGION);
}

static void edm_pool_region_release(struct kref *ref)
{
	edm_pool_region_free(container_of(ref, struct edm_pool_region, ref));
}

void edm_pool_region_get(struct edm_pool_region *r)
{
	kref_get(&r->ref);
}

void edm_pool_region_put(struct edm_pool_region *r)
{
	kref_put(&r->ref, edm_pool_region_release);
}

/* Allocates and maps the region's Sections, zeroed. */
static int edm_pool_region_fill(struct edm_pool_region *r)
{
	struct edm_mpool *p = r->pool;
	struct edm_lppu *l = &p->lppu;
	struct edm_pool_buf b;
	u32 i;
	int err = 0;

	for (i = 0; i < r->nsec && !err; i++) {
		spin_lock_bh(&l->lock);
		err = edm_pool_alloc(l->core, r->node, EDM_POOL_SECTION_SIZE, EDM_POOL_LOC_ANY,
				     0, &r->refs[i]) ?:
		      edm_pool_ref_resolve(l->core, r->node, r->refs[i], EDM_POOL_SECTION_SIZE,
					   &b);
		spin_unlock_bh(&l->lock);
		if (err)
			break;
		r->va[i] = page_address(edm_mpool_ref_page(p, &b));
		memset(r->va[i], 0, EDM_POOL_SECTION_SIZE);
		cond_resched();
	}
	return err;
}

/*
 * A region of @size bytes (rounded up to Sections) with ID @id in pool @p,
 * published in the pool: the caller checked that no region of the netns
 * has @id. *@out is the pool's reference, dropped by edm_pool_region_delete().
 */
int edm_pool_region_create(struct edm_mpool *p, u32 id, u64 size,
			   struct edm_pool_region **out, struct netlink_ext_ack *extack)
{
	struct edm_pool_region *r;
	int node, err;

	edm_registry_assert_held(p->edev->net);
	if (!size || size > (u64)p->nsections << EDM_POOL_SECTION_SHIFT) {
		NL_SET_ERR_MSG(extack, "a region's size is 1 byte to the pool's");
		return -ERANGE;
	}
	node = ida_alloc_range(&p->ids, EDM_POOL_LPPU_NODE + 1, EDM_POOL_NNODES - 1,
			       GFP_KERNEL);
	if (node < 0) {
		NL_SET_ERR_MSG(extack, "the pool has no node id left");
		return node == -ENOSPC ? -ENOSPC : node;
	}
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r) {
		ida_free(&p->ids, node);
		return -ENOMEM;
	}
	edm_obj_get(EDM_OBJ_REGION);
	kref_init(&r->ref);
	spin_lock_init(&r->lock);
	edm_mpool_get(p);
	r->pool = p;
	r->node = node;
	r->id = id;
	r->nsec = DIV_ROUND_UP_ULL(size, EDM_POOL_SECTION_SIZE);
	r->size = (u64)r->nsec << EDM_POOL_SECTION_SHIFT;
	r->key = get_random_u64();
	/* From here on the release frees whatever was allocated. */
	r->refs = kvcalloc(r->nsec, sizeof(*r->refs), GFP_KERNEL);
	r->va = kvcalloc(r->nsec, sizeof(*r->va), GFP_KERNEL);
	err = r->refs && r->va ? edm_pool_region_fill(r) : -ENOMEM;
	if (!err && edm_fault_should_fail(EDM_OBJ_REGION))
		err = -ENOMEM;		/* the error path frees the Sections it has */
	if (err == -ENOMEM)
		NL_SET_ERR_MSG(extack, "the pool has not that many free Sections");
	if (!err) {
		err = xa_insert(&p->regions, id, r, GFP_KERNEL);
		if (err == -EBUSY) {
			NL_SET_ERR_MSG(extack, "the pool has a region of that id");
			err = -EEXIST;
		}
	}
	if (err) {
		r->dead = true;
		edm_pool_region_put(r);
		return err;
	}
	*out = r;
	return 0;
}

/* Unpublish @r and drop the pool's reference; bound instances see EACCES. */
void edm_pool_region_delete(struct edm_pool_region *r)
{
	edm_registry_assert_held(r->pool->edev->net);
	xa_erase(&r->pool->regions, r->id);
	spin_lock(&r->lock);
	r->dead = true;
	spin_unlock(&r->lock);
	edm_pool_region_put(r);
}

/* Every region of @p, as the pool goes. */
void edm_pool_regions_delete(struct edm_mpool *p)
{
	struct edm_pool_region *r;
	unsigned long id;

	edm_registry_assert_held(p->edev->net);
	xa_for_each(&p->regions, id, r)
		edm_pool_region_delete(r);
}

/* The region of @p with the lowest ID at or past *@id, and that ID; or NULL. */
struct edm_pool_region *edm_pool_region_next(struct edm_mpool *p, unsigned long *id)
{
	edm_registry_assert_held(p->edev->net);
	return xa_find(&p->regions, id, ULONG_MAX, XA_PRESENT);
}

/* Under r->lock: whether @key opens @r; a refusal is counted. */
static bool edm_pool_region_key_ok(struct edm_pool_region *r, u64 key)
{
	lockdep_assert_held(&r->lock);
	if (!r->dead && r->key == key)
		return true;
	r->stats[EDM_A_RSTAT_ACCESS_ERRORS]++;
	return false;
}

/*
 * Copies @len bytes between the region at @off and @buf: -EACCES for a key
 * that is not (or no longer) the region's, -EFAULT outside it.
 */
int edm_pool_region_io(struct edm_pool_region *r, u64 key, u64 off, void *buf, u32 len,
		       bool write)
{
	u8 *p = buf;
	u32 n;
	int err = 0;

	spin_lock(&r->lock);
	if (!edm_pool_region_key_ok(r, key)) {
		err = -EACCES;
	} else if (off > r->size || len > r->size - off) {
		r->stats[EDM_A_RSTAT_RANGE_ERRORS]++;
		err = -EFAULT;
	} else {
		r->stats[write ? EDM_A_RSTAT_WRITES : EDM_A_RSTAT_READS]++;
		r->stats[write ? EDM_A_RSTAT_WRITE_BYTES : EDM_A_RSTAT_READ_BYTES] += len;
		for (; len; len -= n, off += n, p += n) {
			u8 *sec = r->va[off >> EDM_POOL_SECTION_SHIFT];
			u32 in = off & (EDM_POOL_SECTION_SIZE - 1);

			n = min_t(u32, len, EDM_POOL_SECTION_SIZE - in);
			if (write)
				memcpy(sec + in, p, n);
			else
				memcpy(p, sec + in, n);
		}
	}
	spin_unlock(&r->lock);
	return err;
}

/* A new random key; the bytes stay. */
void edm_pool_region_rekey(struct edm_pool_region *r)
{
	u64 key;

	spin_lock(&r->lock);
	do {
		key = get_random_u64();
	} while (key == r->key);
	r->key = key;
	r->key_gen++;
	spin_unlock(&r->lock);
}

void edm_pool_region_info(struct edm_pool_region *r, struct edm_region_info *ri)
{
	spin_lock(&r->lock);
	ri->addr = r->id;
	ri->size = r->size;
	ri->key = r->key;
	ri->key_gen = r->key_gen;
	memcpy(ri->stats, r->stats, sizeof(ri->stats));
	spin_unlock(&r->lock);
}
