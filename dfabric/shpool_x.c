// SPDX-License-Identifier: GPL-2.0
/*
 * Export slots of a shared pool (include/edm/shpool_x.h): they carry an
 * area of pool Buffers, a Cowbird instance's today, from the kernel whose
 * application maps it (the owner) to the kernel whose importer serves it.
 * What the area holds is the importer's business: this file calls the
 * registered edm_shpool_x_ops and never looks inside.
 *
 * Owner: edm_shpool_x_open() claims a slot and a run of Buffers for the
 * instance's mapping, zeroes it, offers it to the host slot the user named
 * and waits for that kernel's answer. edm_shpool_x_close() closes it; a
 * sweep frees it once the engine let go. The instance holds a reference on
 * its netns, so the membership is not deleted with the netns under it.
 *
 * The owner's user mappings are faulted in page by page, each fault under
 * x->map_lock, and revoked (unmap_mapping_range() on the address space of
 * the importer's file) once the area may no longer be ours: when this
 * kernel finds itself reaped (stalled past its lease: the others freed our
 * slots and may reuse the Buffers) and when the membership detaches. A
 * fault after that, or while the view is fenced, is SIGBUS.
 *
 * Importer: the export work (every EDM_SHPOOL_XWORK_MS) takes offers made
 * to this host, has the importer serve the pool memory with the params the
 * offer carries, in the membership's netns, and answers; it drops an import
 * (then acknowledges) once its owner closed it or died. It also tells the
 * importer of our own offers whose serving kernel died, and sweeps.
 *
 * Locking: sp->xlock protects the two lists and serializes this kernel's
 * export calls on its view. The owner's calls hold edm_shmem_lock as well
 * whenever they touch the membership, so it cannot detach under them (it
 * detaches under that lock, and clears x->sp); waiting for the answer
 * they take it for each look only. The work never takes edm_shmem_lock,
 * because detach cancels it synchronously. An importer that cannot serve
 * now says -EAGAIN (Cowbird's looks regions up with a trylock on the
 * registry lock, which detach may hold while it waits for the work): the
 * offer is left for the next run.
 * x->map_lock nests inside mmap_lock (faults, mmap) and inside xlock
 * (revoke); the zap itself runs after it is dropped.
 */
#include <linux/delay.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "edm/compat.h"
#include "edm/edm.h"
#include "edm/shpool_x.h"
#include "shpool.h"

/* An offer of this kernel's (one importer area, e.g. a Cowbird instance's mapping). */
struct edm_shpool_x {
	struct list_head node;		/* sp->xowned */
	struct edm_shpool *sp;		/* NULL once the membership detached */
	u32 xi;				/* its export slot */
	struct edm_shpool_x_params p;	/* as offered: the slot may be gone */
	u32 inst_id;
	void *owner;			/* the importer's, for ->engine_lost */
	bool lost;			/* its serving kernel died: the importer was told */
	void *va;
	phys_addr_t pa;			/* of va: user mappings */
	unsigned long npages;		/* of the mapping */
	struct mutex map_lock;		/* faults against a revoke; the two below */
	struct address_space *mapping;	/* the mapping file's own, once mapped */
	bool revoked;			/* no more user mappings: faults are SIGBUS */
};

/* An offer this kernel's importer serves. */
struct edm_shpool_imp {
	struct list_head node;		/* sp->ximports */
	u32 xi;
	u64 word;			/* the export word it was taken as */
	void *handle;			/* the importer's */
};

/* Set at module init before any membership, cleared at exit after the last. */
static const struct edm_shpool_x_ops *edm_shpool_x_importer;

void edm_shpool_x_register(const struct edm_shpool_x_ops *ops)
{
	WARN_ON(edm_shpool_x_importer);
	edm_shpool_x_importer = ops;
}

void edm_shpool_x_unregister(void)
{
	edm_shpool_x_importer = NULL;
}

/* How long an owner waits for the engine's answer: a lease, at least 2 s. */
static unsigned long edm_shpool_x_wait(const struct edm_shpool *sp)
{
	return msecs_to_jiffies(max(sp->v.geo.lease_ms, 2000U));
}

/* ---- the owner's side ---- */

static struct edm_shpool *edm_shpool_x_find(struct net *net, u32 id)
{
	struct edm_net *en = edm_net(net);
	struct edm_shpool *sp = NULL;
	struct edm_dev *dev;

	mutex_lock(&en->lock);
	dev = xa_load(&en->devs, id);
	if (dev && dev->type == EDM_DEV_TYPE_SHPOOL)
		sp = edm_shpool_of(dev);
	/* held on: detaching needs it, so sp stays until we drop it */
	mutex_lock(&edm_shmem_lock);
	mutex_unlock(&en->lock);
	if (!sp || !sp->mem || READ_ONCE(sp->fenced)) {
		mutex_unlock(&edm_shmem_lock);
		return NULL;
	}
	return sp;
}

static int edm_shpool_x_errno(int err)
{
	switch (err) {
	case -ENOMEM:
		return -E2BIG;		/* no free run that long */
	case -ENOTCONN:
		return -ENODEV;
	case -EINVAL:
		return -EHOSTDOWN;	/* no such host slot, or ours */
	default:
		return err;
	}
}

/*
 * Claim, fill and offer; on success @x is on sp->xowned. edm_shmem_lock
 * held. A claim that cannot be offered (we were reaped) is closed here.
 */
static int edm_shpool_x_offer(struct edm_shpool *sp, struct edm_shpool_x *x,
			      const struct edm_shpool_x_params *p, u64 size, u32 inst_id,
			      struct edm_shpool_x_area *area)
{
	u32 bufsz = edm_shp_buf_size(&sp->v), nbufs = DIV_ROUND_UP_ULL(size, bufsz), buf;
	struct edm_shp_export *e;
	int err;

	if (size > (u64)sp->v.geo.nbufs * bufsz)
		return -E2BIG;
	mutex_lock(&sp->xlock);
	err = edm_shp_x_claim(&sp->v, p->via, nbufs, &x->xi, &buf);
	if (err) {
		mutex_unlock(&sp->xlock);
		return edm_shpool_x_errno(err);
	}
	e = edm_shp_x(&sp->v, x->xi);
	/* our own numbers, not what the shared slot says now */
	x->va = edm_shp_buf(&sp->v, buf);
	memset(x->va, 0, (size_t)nbufs * bufsz);	/* Buffers keep what they last held */
	WRITE_ONCE(e->region_id, p->region_id);
	WRITE_ONCE(e->region_key, p->region_key);
	WRITE_ONCE(e->nr_rings, p->nr_rings);
	WRITE_ONCE(e->meta_order, p->meta_order);
	WRITE_ONCE(e->data_order, p->data_order);
	WRITE_ONCE(e->inst_id, inst_id);
	err = edm_shp_x_offer(&sp->v, x->xi);
	if (err) {
		edm_shp_x_close(&sp->v, x->xi);
		mutex_unlock(&sp->xlock);
		return -ENODEV;
	}
	WRITE_ONCE(sp->x_offered, sp->x_offered + 1);
	x->sp = sp;
	x->p = *p;
	x->inst_id = inst_id;
	x->pa = sp->mem->phys + ((u8 *)x->va - (u8 *)sp->va);
	x->npages = size >> PAGE_SHIFT;
	list_add_tail(&x->node, &sp->xowned);
	area->va = x->va;
	mutex_unlock(&sp->xlock);
	return 0;
}

/*
 * The engine's answer to @x's offer, waiting at most a lease (at least
 * 2 s). Takes edm_shmem_lock for each look only, so that the membership
 * may detach meanwhile (it clears x->sp) and other users are not held up.
 */
static int edm_shpool_x_answer(struct edm_shpool_x *x, struct edm_shpool_x_area *area)
{
	unsigned long deadline = 0;
	struct edm_shpool *sp;
	int err;

	for (;;) {
		mutex_lock(&edm_shmem_lock);
		sp = x->sp;
		err = sp ? edm_shp_x_result(&sp->v, x->xi, &area->region_size) : -ENODEV;
		if (sp && !deadline)
			deadline = jiffies + edm_shpool_x_wait(sp);
		mutex_unlock(&edm_shmem_lock);
		if (err != -EAGAIN)
			return err;
		if (time_after(jiffies, deadline))
			return -ETIMEDOUT;
		if (fatal_signal_pending(current))
			return -EINTR;
		usleep_range(1000, 2000);
	}
}

int edm_shpool_x_open(struct net *net, const struct edm_shpool_x_params *p, u64 size,
		      u32 inst_id, void *owner, struct edm_shpool_x **xp,
		      struct edm_shpool_x_area *area)
{
	struct edm_shpool_x *x;
	struct edm_shpool *sp;
	int err;

	/* runs start on 4 KiB boundaries of the pool: user mappings need pages */
	if (PAGE_SIZE != 4096)
		return -EOPNOTSUPP;
	x = kzalloc(sizeof(*x), GFP_KERNEL_ACCOUNT);
	if (!x)
		return -ENOMEM;
	INIT_LIST_HEAD(&x->node);
	mutex_init(&x->map_lock);
	x->owner = owner;
	sp = edm_shpool_x_find(net, p->shpool);
	if (!sp) {
		kfree(x);
		return -ENODEV;
	}
	err = edm_shpool_x_offer(sp, x, p, size, inst_id, area);
	mutex_unlock(&edm_shmem_lock);
	if (!err)
		err = edm_shpool_x_answer(x, area);
	if (err) {
		edm_shpool_x_close(x);	/* frees x */
		return err;
	}
	*xp = x;
	return 0;
}

/*
 * A page of the mapping: only while the area is ours. Not revoked means
 * x->sp is still attached (detach revokes before it clears x->sp, and
 * waits for map_lock to do so), so its view may be read here; a fenced
 * view's pages are SIGBUS even before the export work revokes.
 */
static vm_fault_t edm_shpool_x_fault(struct vm_fault *vmf)
{
	struct edm_shpool_x *x = vmf->vma->vm_private_data;
	vm_fault_t ret = VM_FAULT_SIGBUS;

	mutex_lock(&x->map_lock);
	if (!x->revoked && !edm_shp_fenced(&x->sp->v) && vmf->pgoff < x->npages)
		ret = vmf_insert_pfn(vmf->vma, vmf->address, PHYS_PFN(x->pa) + vmf->pgoff);
	mutex_unlock(&x->map_lock);
	return ret;
}

static const struct vm_operations_struct edm_shpool_x_vm_ops = {
	.fault = edm_shpool_x_fault,
};

/*
 * Map @x's area into @vma (checked by the caller: offset 0, the exact
 * size, shared). Its pages come one fault at a time, so that a revoke
 * cannot miss one; ENODEV once revoked.
 */
int edm_shpool_x_mmap(struct edm_shpool_x *x, struct vm_area_struct *vma)
{
	int err = 0;

	mutex_lock(&x->map_lock);
	if (x->revoked) {
		err = -ENODEV;
	} else {
		x->mapping = vma->vm_file->f_mapping;
		vm_flags_set(vma, VM_PFNMAP | VM_IO | VM_DONTEXPAND | VM_DONTDUMP);
		vma->vm_ops = &edm_shpool_x_vm_ops;
		vma->vm_private_data = x;
	}
	mutex_unlock(&x->map_lock);
	return err;
}

/*
 * The area may stop being ours: no user mapping of it survives this call,
 * and none can be made. Under sp->xlock, so the file (whose address space
 * x->mapping is) is not released meanwhile: its release closes @x under
 * that lock first. Counted once.
 */
static void edm_shpool_x_revoke(struct edm_shpool *sp, struct edm_shpool_x *x)
{
	struct address_space *mapping;
	bool first;

	lockdep_assert_held(&sp->xlock);
	mutex_lock(&x->map_lock);
	first = !x->revoked;
	x->revoked = true;
	mapping = x->mapping;
	mutex_unlock(&x->map_lock);
	if (!first)
		return;
	if (mapping)
		unmap_mapping_range(mapping, 0, 0, 1);
	WRITE_ONCE(sp->x_revoked, sp->x_revoked + 1);
	netdev_warn(sp->netdev, "export %u may be reused by others: its mappings are gone\n",
		    x->xi);
	edm_shpool_notify_xdown(sp, x->xi, x->inst_id, x->p.region_id, x->p.via,
				EDM_SHPOOL_DOWN_REVOKED);
}

void edm_shpool_x_close(struct edm_shpool_x *x)
{
	struct edm_shpool *sp;

	mutex_lock(&edm_shmem_lock);
	sp = x->sp;
	if (sp) {
		mutex_lock(&sp->xlock);
		list_del(&x->node);
		edm_shp_x_close(&sp->v, x->xi);
		edm_shp_x_sweep(&sp->v);
		mutex_unlock(&sp->xlock);
	}
	mutex_unlock(&edm_shmem_lock);
	mutex_destroy(&x->map_lock);
	kfree(x);
}

/* The kernel serving it died: the importer tells its users (Cowbird stops the rings). */
static void edm_shpool_x_lost(struct edm_shpool *sp, struct edm_shpool_x *x)
{
	const struct edm_shpool_x_ops *ops = edm_shpool_x_importer;

	if (ops)
		ops->engine_lost(x->owner);
	x->lost = true;
	WRITE_ONCE(sp->x_lost, sp->x_lost + 1);
	netdev_warn(sp->netdev, "the kernel serving export %u is gone: its users were told\n",
		    x->xi);
	edm_shpool_notify_xdown(sp, x->xi, x->inst_id, x->p.region_id, x->p.via,
				EDM_SHPOOL_DOWN_ENGINE_GONE);
}

/* ---- the importer's side ---- */

/* Only with an importer: an import exists only if one made it. */
static void edm_shpool_x_drop(struct edm_shpool *sp, struct edm_shpool_imp *im, bool ack)
{
	list_del(&im->node);
	edm_shpool_x_importer->drop(im->handle, !ack);
	if (ack)
		edm_shp_x_ack(&sp->v, im->xi);
	WRITE_ONCE(sp->x_dropped, sp->x_dropped + 1);
	kfree(im);
}

/* The engine's question before each pass over an imported area. */
static bool edm_shpool_x_ours(const void *v)
{
	return !edm_shp_fenced(v);
}

static void edm_shpool_x_serve(struct edm_shpool *sp, u32 xi)
{
	const struct edm_shpool_x_ops *ops = edm_shpool_x_importer;
	struct edm_shpool_x_params p = {};
	struct edm_shpool_imp *im;
	struct edm_shp_export e;
	u64 region_size = 0;
	void *handle;
	int err;

	err = edm_shp_x_take(&sp->v, xi, &e);
	if (err && err != -EINVAL)
		return;		/* not ours to answer (stale, taken, or we were reaped) */
	if (!err && !ops)
		err = -EOPNOTSUPP;
	if (!err) {
		p.region_id = e.region_id;
		p.region_key = e.region_key;
		p.nr_rings = e.nr_rings;
		p.meta_order = e.meta_order;
		p.data_order = e.data_order;
		handle = ops->import(sp->edev->net, edm_shp_buf(&sp->v, e.buf),
				     (u64)e.nbufs << sp->v.geo.buf_shift, &p, e.inst_id,
				     edm_shpool_x_ours, &sp->v, &region_size);
		if (handle == ERR_PTR(-EAGAIN)) {
			edm_shp_x_untake(&sp->v, xi);	/* the registry is busy: next run */
			return;
		}
		err = PTR_ERR_OR_ZERO(handle);
	}
	im = err ? NULL : kzalloc(sizeof(*im), GFP_KERNEL);
	if (!err && !im) {
		ops->drop(handle, false);
		err = -ENOMEM;
	}
	edm_shp_x_answer(&sp->v, xi, err, err ? 0 : region_size);
	if (err) {
		edm_shp_x_ack(&sp->v, xi);
		WRITE_ONCE(sp->x_refused, sp->x_refused + 1);
		return;
	}
	im->xi = xi;
	im->word = e.word;
	im->handle = handle;
	list_add_tail(&im->node, &sp->ximports);
	WRITE_ONCE(sp->x_served, sp->x_served + 1);
}

static void edm_shpool_x_engine(struct edm_shpool *sp, bool fenced)
{
	struct edm_shpool_imp *im, *tmp;
	int i;

	/* reaped: the owners may have freed the areas already; write nothing there */
	list_for_each_entry_safe(im, tmp, &sp->ximports, node)
		if (fenced || !edm_shp_x_wanted(&sp->v, im->xi, im->word))
			edm_shpool_x_drop(sp, im, !fenced);
	if (fenced)
		return;
	for (i = 0; (i = edm_shp_x_next_offer(&sp->v, i)) >= 0; i++)
		edm_shpool_x_serve(sp, i);
}

static void edm_shpool_x_work(struct work_struct *work)
{
	struct edm_shpool *sp = container_of(to_delayed_work(work), struct edm_shpool, xwork);
	bool fenced = edm_shp_fenced(&sp->v);
	struct edm_shpool_x *x;

	if (READ_ONCE(edm_shpool_stall))
		goto again;
	mutex_lock(&sp->xlock);
	edm_shpool_x_engine(sp, fenced);
	/* reaped: the others freed our export slots; our mappings must go */
	list_for_each_entry(x, &sp->xowned, node)
		if (fenced)
			edm_shpool_x_revoke(sp, x);
		else if (!x->lost && edm_shp_x_engine_lost(&sp->v, x->xi))
			edm_shpool_x_lost(sp, x);
	if (!fenced)
		edm_shp_x_sweep(&sp->v);
	mutex_unlock(&sp->xlock);
again:
	queue_delayed_work(system_power_efficient_wq, &sp->xwork,
			   msecs_to_jiffies(EDM_SHPOOL_XWORK_MS));
}

void edm_shpool_x_init(struct edm_shpool *sp)
{
	mutex_init(&sp->xlock);
	INIT_LIST_HEAD(&sp->xowned);
	INIT_LIST_HEAD(&sp->ximports);
	INIT_DELAYED_WORK(&sp->xwork, edm_shpool_x_work);
}

void edm_shpool_x_start(struct edm_shpool *sp)
{
	queue_delayed_work(system_power_efficient_wq, &sp->xwork, 0);
}

/*
 * Are instances of this kernel's using the membership? Under
 * edm_shmem_lock, which a create holds from finding the membership until
 * its offer is on the list: a leave cannot slip between.
 */
bool edm_shpool_x_busy(struct edm_shpool *sp)
{
	bool busy;

	mutex_lock(&edm_shmem_lock);
	mutex_lock(&sp->xlock);
	busy = !list_empty(&sp->xowned);
	mutex_unlock(&sp->xlock);
	mutex_unlock(&edm_shmem_lock);
	return busy;
}

/*
 * The membership is going: drop what our engine serves (acknowledged),
 * revoke and close our own offers (their instances are told nothing more:
 * a user touching the area gets SIGBUS), sweep. edm_shmem_lock held;
 * before leaving the pool.
 */
void edm_shpool_x_detach(struct edm_shpool *sp)
{
	struct edm_shpool_x *x, *tmp;
	bool fenced;

	lockdep_assert_held(&edm_shmem_lock);
	cancel_delayed_work_sync(&sp->xwork);
	mutex_lock(&sp->xlock);
	fenced = edm_shp_fenced(&sp->v);
	while (!list_empty(&sp->ximports))
		edm_shpool_x_drop(sp, list_first_entry(&sp->ximports, struct edm_shpool_imp, node),
				  !fenced);
	list_for_each_entry_safe(x, tmp, &sp->xowned, node) {
		edm_shpool_x_revoke(sp, x);
		edm_shp_x_close(&sp->v, x->xi);
		list_del_init(&x->node);
		x->sp = NULL;
	}
	if (!fenced)
		edm_shp_x_sweep(&sp->v);
	mutex_unlock(&sp->xlock);
}
