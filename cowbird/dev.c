// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/cowbird: one open file is one Cowbird instance (Documentation/cowbird.md).
 *
 * COWBIRD_IOC_CREATE checks the request with the ring core, finds the region
 * in the caller's network namespace (a fabric host's local region, named by
 * the host's fabric address, or a pool region, named by its ID; either
 * proven by its key), lays out and
 * allocates the shared area (vmalloc_user, zeroed), initializes each ring
 * and hands the instance to the engine. mmap maps that area, offset 0 and
 * the exact size only, shared and never executable. Each open file has an
 * inode of its own (a pseudo filesystem's, as DRM and VFIO do), so its
 * mappings live in an address space of their own: an instance in shared
 * pool memory can have them all zapped (dfabric/shpool_x.c) without touching
 * another file's. The mapping holds the
 * file, so release runs once nothing maps the area: it takes the instance
 * from the engine (which waits for the thread serving it), stops every ring
 * with EDEAD and drops the file's reference; the last reference frees.
 *
 * Trust model: user space writes only the library's half of the books, the
 * entries and the request data; the engine copies and checks each of them
 * (ring core) before use and writes only at offsets it computed.
 *
 * Locking: cowbird_file.lock serializes creates (EBUSY for the second); it
 * is held across copy_to_user, so mmap (under mmap_lock) must not take it:
 * the instance pointer is published once, complete, with a release store
 * and mmap reads it with an acquire load. Region lookup runs under the netns
 * registry lock; the instance then holds a reference on the host or the pool
 * region, so the region's memory outlives it even when the host or region
 * is deleted (its ops then fail with EACCES).
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/mount.h>
#include <linux/nsproxy.h>
#include <linux/pseudo_fs.h>
#include <net/net_namespace.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "edm/compat.h"
#include "edm/cowbird.h"
#include "edm/dev.h"
#include "edm/edm.h"
#include "edm/fabric.h"
#include "edm/pool.h"
#include "edm/region.h"
#include "edm/shpool_x.h"

/* Congestion control (see Documentation/cowbird.md). */
enum {
	COWBIRD_CC_TARGET_NS	= 1000000,	/* 1 ms: local copies are far below */
	COWBIRD_CC_RTT_NS	= 1000,
	/* remote: a 64 B fabric read is ~0.3 us modeled, ~150 us under TCG */
	COWBIRD_CC_RMT_TARGET_NS = 2000000,
	COWBIRD_CC_RMT_RTT_NS	= 200000,
	COWBIRD_CC_INIT		= 16 * COWBIRD_CC_ONE,
	COWBIRD_CC_MIN		= COWBIRD_CC_ONE,	/* no pacing below one op */
	COWBIRD_CC_MAX		= 1024 * COWBIRD_CC_ONE,
};

struct cowbird_file {
	struct mutex lock;		/* serializes CREATE */
	struct cowbird_inst *inst;	/* set once by CREATE, release; read acquire */
	struct inode *inode;		/* its own: file->f_mapping is its i_mapping */
};

/* The pseudo filesystem of the files' own inodes; pinned while a file is open. */
#define COWBIRD_FS_MAGIC	0x636f7762	/* "cowb" */

static struct vfsmount *cowbird_fs_mnt;
static int cowbird_fs_cnt;

static int cowbird_fs_init_fs_context(struct fs_context *fc)
{
	return init_pseudo(fc, COWBIRD_FS_MAGIC) ? 0 : -ENOMEM;
}

static struct file_system_type cowbird_fs_type = {
	.name = "cowbird",
	.owner = THIS_MODULE,
	.init_fs_context = cowbird_fs_init_fs_context,
	.kill_sb = kill_anon_super,
};

static DEFINE_IDA(cowbird_ida);

static void cowbird_inst_free(struct kref *ref)
{
	struct cowbird_inst *inst = container_of(ref, struct cowbird_inst, ref);

	cowbird_rmt_free(inst);
	kfree(inst->cc);
	kvfree(inst->reqs);
	kfree(inst->rings);
	if (inst->sx)
		edm_shpool_x_close(inst->sx);
	else if (!inst->imported)
		vfree(inst->area);
	if (inst->sx_net)
		put_net(inst->sx_net);
	if (inst->host)
		edm_fab_node_put(inst->host);
	if (inst->preg)
		edm_pool_region_put(inst->preg);
	ida_free(&cowbird_ida, inst->id);
	mutex_destroy(&inst->serve_lock);
	pr_debug("cowbird instance %u destroyed\n", inst->id);
	kfree(inst);
	edm_obj_put(EDM_OBJ_COWBIRD);
}

void cowbird_inst_put(struct cowbird_inst *inst)
{
	kref_put(&inst->ref, cowbird_inst_free);
}

/*
 * The region @id of @net under @key, with a reference taken on the host
 * serving it (*@host) or on the pool region (*@preg), and its size. ENOENT
 * when no region has that ID, EACCES when none of them has the key; with
 * @try, EAGAIN when the registry lock is taken (the export work may not
 * wait for it: a membership being deleted under it waits for the work).
 */
static int cowbird_region_find(struct net *net, u16 id, u64 key, struct edm_fab_node **host,
			       struct edm_pool_region **preg, u64 *size, bool try)
{
	struct edm_net *en = edm_net(net);
	struct edm_region_info ri;
	struct edm_pool_region *r;
	struct edm_dev *dev;
	unsigned long i;
	int err = -ENOENT;
	u64 sz, k;

	*host = NULL;
	*preg = NULL;
	if (!try)
		mutex_lock(&en->lock);
	else if (!mutex_trylock(&en->lock))
		return -EAGAIN;
	xa_for_each(&en->devs, i, dev) {
		struct edm_fab_node *n = edm_fab_node_of(dev);

		if (dev->type == EDM_DEV_TYPE_POOL) {
			r = xa_load(&edm_mpool_of(dev)->regions, id);
			if (!r)
				continue;
			err = -EACCES;
			edm_pool_region_info(r, &ri);
			if (ri.key == key) {
				edm_pool_region_get(r);
				*preg = r;
				*size = ri.size;
				err = 0;
				break;
			}
			continue;
		}
		if (!n || !edm_fab_node_is_host(n) || edm_fab_host_region(n, id, &sz, &k))
			continue;
		err = -EACCES;
		if (k == key) {
			*host = edm_fab_node_get(n);
			*size = sz;
			err = 0;
			break;
		}
	}
	mutex_unlock(&en->lock);
	return err;
}

/* The host at fabric address @addr in @net, with a reference taken; NULL if none. */
static struct edm_fab_node *cowbird_via_find(struct net *net, u16 addr)
{
	struct edm_net *en = edm_net(net);
	struct edm_fab_node *found = NULL;
	struct edm_dev *dev;
	unsigned long i;

	mutex_lock(&en->lock);
	xa_for_each(&en->devs, i, dev) {
		struct edm_fab_node *n = edm_fab_node_of(dev);

		if (n && edm_fab_node_is_host(n) && edm_fab_host_addr(n) == addr) {
			found = edm_fab_node_get(n);
			break;
		}
	}
	mutex_unlock(&en->lock);
	return found;
}

static int cowbird_rings_init(struct cowbird_inst *inst)
{
	const struct cowbird_layout *l = &inst->lay;
	u32 i;

	for (i = 0; i < l->nr_rings; i++) {
		u8 *rb = (u8 *)inst->area + l->ring_off + i * l->ring_stride;
		struct cowbird_ring_cfg rc = {
			.book = (struct cowbird_book *)((u8 *)inst->area + l->book_off) + i,
			.meta = (struct cowbird_meta *)(rb + l->meta_off),
			.cq = (struct cowbird_cqe *)(rb + l->cq_off),
			.reqs = inst->reqs + (size_t)i * l->entries,
			.region_size = inst->region_size,
			.entries = l->entries,
			.data_size = l->data_size,
			.batch = cowbird_engine_batch(),
			.region_id = inst->region_id,
		};
		int err = cowbird_ring_init(&inst->rings[i].r, &rc);

		if (err)
			return err;
		inst->rings[i].req = rb + l->req_off;
		inst->rings[i].resp = rb + l->resp_off;
	}
	return 0;
}

static int cowbird_inst_alloc(struct cowbird_inst *inst, bool remote)
{
	static const struct cowbird_cc_cfg ccc = {
		.target_local_ns = COWBIRD_CC_TARGET_NS,
		.target_remote_ns = COWBIRD_CC_TARGET_NS,
		.rtt_ns = COWBIRD_CC_RTT_NS,
		.cwnd_init = COWBIRD_CC_INIT,
		.cwnd_min = COWBIRD_CC_MIN,
		.cwnd_max = COWBIRD_CC_MAX,
	};
	static const struct cowbird_cc_cfg ccc_rmt = {
		.target_local_ns = COWBIRD_CC_TARGET_NS,
		.target_remote_ns = COWBIRD_CC_RMT_TARGET_NS,
		.rtt_ns = COWBIRD_CC_RMT_RTT_NS,
		.cwnd_init = COWBIRD_CC_INIT,
		.cwnd_min = COWBIRD_CC_MIN / 4,
		.cwnd_max = COWBIRD_RMT_SLOTS * COWBIRD_CC_ONE,
	};
	const struct cowbird_layout *l = &inst->lay;
	int err;

	if (edm_fault_should_fail(EDM_OBJ_COWBIRD))
		return -ENOMEM;
	/* Half of RAM at most: vmalloc would otherwise wake the OOM killer. */
	if (l->mmap_size > (u64)totalram_pages() << (PAGE_SHIFT - 1))
		return -ENOMEM;
	if (!inst->imported)
		inst->area = vmalloc_user(l->mmap_size);
	inst->rings = kcalloc(l->nr_rings, sizeof(*inst->rings), GFP_KERNEL_ACCOUNT);
	inst->reqs = kvcalloc((size_t)l->nr_rings * l->entries, sizeof(*inst->reqs),
			      GFP_KERNEL_ACCOUNT);
	inst->cc = kzalloc(cowbird_cc_size(COWBIRD_CC_NDST), GFP_KERNEL_ACCOUNT);
	if (!inst->area || !inst->rings || !inst->reqs || !inst->cc)
		return -ENOMEM;
	err = cowbird_cc_init(inst->cc, remote ? &ccc_rmt : &ccc, COWBIRD_CC_NDST);
	if (err)
		return err;
	return cowbird_rings_init(inst);
}

/*
 * A new instance of netns @net for a checked request @c, laid out, with its
 * ID (also in @c) and the references on @host or @preg, which it drops if
 * it fails; nothing allocated for its area yet.
 */
static struct cowbird_inst *cowbird_inst_new(struct net *net, struct edm_fab_node *host,
					     struct edm_pool_region *preg,
					     struct cowbird_create *c, u64 size)
{
	struct cowbird_inst *inst = kzalloc(sizeof(*inst), GFP_KERNEL_ACCOUNT);
	int id = inst ? ida_alloc_min(&cowbird_ida, 1, GFP_KERNEL) : -ENOMEM;

	if (id < 0) {
		kfree(inst);
		if (host)
			edm_fab_node_put(host);
		if (preg)
			edm_pool_region_put(preg);
		return ERR_PTR(id);
	}
	inst->id = id;
	kref_init(&inst->ref);
	INIT_LIST_HEAD(&inst->node);
	mutex_init(&inst->serve_lock);
	inst->net_cookie = net->net_cookie;	/* netlink shows it there */
	inst->host = host;
	inst->preg = preg;
	inst->region_id = c->region_id;
	inst->region_key = c->region_key;
	inst->dispatch_ns = (u64)c->dispatch_us * NSEC_PER_USEC;
	inst->region_size = size;
	cowbird_layout_fill(c, &inst->lay);
	c->instance_id = id;
	edm_obj_get(EDM_OBJ_COWBIRD);
	return inst;
}

/*
 * Cowbird across kernels over a shared pool (include/edm/shpool_x.h): the
 * pool carries the area between kernels; what it holds is ours to read
 * and write, so the pool calls these.
 *
 * The engine's instance for another kernel's offer: @area (@len bytes of
 * pool memory) laid out for @p, served with the region @p names in @net.
 * -EAGAIN: the registry is busy, try later.
 */
static void *cowbird_x_import(struct net *net, void *area, u64 len,
			      const struct edm_shpool_x_params *p, u32 owner_id,
			      bool (*ours)(const void *arg), const void *arg, u64 *region_size)
{
	struct cowbird_create c = {
		.abi_version = COWBIRD_ABI_VERSION,
		.region_id = p->region_id,
		.region_key = p->region_key,
		.nr_rings = p->nr_rings,
		.meta_order = p->meta_order,
		.data_order = p->data_order,
	};
	struct edm_pool_region *preg;
	struct edm_fab_node *host;
	struct cowbird_inst *inst;
	u64 size;
	int err;

	if (cowbird_layout_check(&c))
		return ERR_PTR(-EINVAL);
	err = cowbird_region_find(net, c.region_id, c.region_key, &host, &preg, &size, true);
	if (err)
		return ERR_PTR(err);
	inst = cowbird_inst_new(net, host, preg, &c, size);
	if (IS_ERR(inst))
		return inst;
	inst->imported = true;
	inst->area = area;
	inst->area_ours = ours;
	inst->area_ours_arg = arg;
	err = inst->lay.mmap_size > len ? -EINVAL : cowbird_inst_alloc(inst, false);
	if (!err)
		err = cowbird_engine_add(inst);
	if (err) {
		cowbird_inst_put(inst);
		return ERR_PTR(err);
	}
	*region_size = size;
	pr_debug("cowbird instance %u serves another kernel's instance %u: region %u\n",
		 inst->id, owner_id, inst->region_id);
	return inst;
}

static void cowbird_x_drop(void *handle, bool area_gone)
{
	struct cowbird_inst *inst = handle;

	inst->area_gone = area_gone;
	cowbird_engine_del(inst);
	cowbird_inst_put(inst);
}

/*
 * The kernel serving our offered instance died: stop every ring, so the
 * library says EPIPE instead of waiting. Our rings are not in our engine,
 * so the books are written here, as the engine would.
 */
static void cowbird_x_engine_lost(void *owner)
{
	struct cowbird_inst *inst = owner;
	struct cowbird_book *book = inst->area + inst->lay.book_off;
	u32 r;

	for (r = 0; r < inst->lay.nr_rings; r++)
		if (!READ_ONCE(book[r].error))
			/* pairs with the library's acquire of book.error */
			smp_store_release(&book[r].error, COWBIRD_RING_EDEAD);
}

static const struct edm_shpool_x_ops cowbird_x_ops = {
	.import = cowbird_x_import,
	.drop = cowbird_x_drop,
	.engine_lost = cowbird_x_engine_lost,
};

/*
 * An instance served by another kernel's engine over a shared pool: its
 * area is pool memory that this kernel only maps.
 */
static struct cowbird_inst *cowbird_inst_offer(struct cowbird_create *c)
{
	const struct edm_shpool_x_params p = {
		.shpool = c->shpool,
		.via = c->via,
		.region_id = c->region_id,
		.region_key = c->region_key,
		.nr_rings = c->nr_rings,
		.meta_order = c->meta_order,
		.data_order = c->data_order,
	};
	struct edm_shpool_x_area area;
	struct cowbird_inst *inst;
	int err;

	inst = cowbird_inst_new(current->nsproxy->net_ns, NULL, NULL, c, 0);
	if (IS_ERR(inst))
		return inst;
	/* the netns's devices (our membership) are deleted only after we are gone */
	inst->sx_net = get_net(current->nsproxy->net_ns);
	err = edm_fault_should_fail(EDM_OBJ_COWBIRD) ? -ENOMEM :
	      edm_shpool_x_open(inst->sx_net, &p, inst->lay.mmap_size, inst->id, inst, &inst->sx,
				&area);
	if (err) {
		cowbird_inst_put(inst);
		return ERR_PTR(err);
	}
	inst->area = area.va;
	inst->region_size = area.region_size;
	c->region_size = area.region_size;
	pr_debug("cowbird instance %u offered to host %u of shpool %u\n", inst->id, c->via,
		 c->shpool);
	return inst;
}

/* Builds an instance for a checked request; nothing is published. */
static struct cowbird_inst *cowbird_inst_create(struct cowbird_create *c)
{
	struct net *net = current->nsproxy->net_ns;
	struct edm_fab_node *host, *via = NULL;
	struct edm_pool_region *preg;
	struct cowbird_inst *inst;
	u64 size;
	int err;

	err = cowbird_region_find(net, c->region_id, c->region_key, &host, &preg, &size, false);
	if (err)
		return ERR_PTR(err);
	if (c->flags & COWBIRD_CREATE_FABRIC) {
		/* A pool region is the rack's own memory: no fabric between. */
		via = preg ? NULL : cowbird_via_find(net, c->via);
		err = preg ? -EINVAL : via ? 0 : -ENOENT;
	}
	if (err) {
		if (host)
			edm_fab_node_put(host);
		if (preg)
			edm_pool_region_put(preg);
		return ERR_PTR(err);
	}
	inst = cowbird_inst_new(net, host, preg, c, size);
	if (IS_ERR(inst)) {
		if (via)
			edm_fab_node_put(via);
		return inst;
	}
	/* From here on the release path frees whatever was allocated. */
	c->region_size = size;
	err = cowbird_inst_alloc(inst, !!via);
	if (!err && via)
		err = cowbird_rmt_init(inst, via);
	else if (via)
		edm_fab_node_put(via);
	if (err) {
		cowbird_inst_put(inst);
		return ERR_PTR(err);
	}
	pr_debug("cowbird instance %u created: region %u, %u rings%s\n", inst->id,
		 inst->region_id, inst->lay.nr_rings, via ? ", through the fabric" : "");
	return inst;
}

static long cowbird_ioc_create(struct cowbird_file *f, void __user *arg)
{
	struct cowbird_inst *inst;
	struct cowbird_create c;
	int err;

	if (copy_from_user(&c, arg, sizeof(c)))
		return -EFAULT;
	err = cowbird_layout_check(&c);
	if (err)
		return err;

	mutex_lock(&f->lock);
	if (f->inst) {
		err = -EBUSY;
		goto out;
	}
	if (c.flags & COWBIRD_CREATE_SHPOOL)
		inst = cowbird_inst_offer(&c);
	else
		inst = cowbird_inst_create(&c);
	if (IS_ERR(inst)) {
		err = PTR_ERR(inst);
		goto out;
	}
	if (copy_to_user(arg, &c, sizeof(c))) {
		cowbird_inst_put(inst);
		err = -EFAULT;
		goto out;
	}
	/* another kernel's engine serves an offered instance */
	err = inst->sx ? 0 : cowbird_engine_add(inst);
	if (err) {
		cowbird_inst_put(inst);
		goto out;
	}
	/* publish the built instance; pairs with cowbird_mmap()'s acquire */
	smp_store_release(&f->inst, inst);
out:
	mutex_unlock(&f->lock);
	return err;
}

static long cowbird_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct cowbird_file *f = file->private_data;

	switch (cmd) {
	case COWBIRD_IOC_CREATE:
		return cowbird_ioc_create(f, (void __user *)arg);
	default:
		return -ENOTTY;
	}
}

static int cowbird_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct cowbird_file *f = file->private_data;
	/* pairs with the release in cowbird_ioc_create(): a non-NULL inst is complete */
	struct cowbird_inst *inst = smp_load_acquire(&f->inst);

	if (!inst)
		return -EINVAL;
	if (vma->vm_pgoff || vma->vm_end - vma->vm_start != inst->lay.mmap_size)
		return -EINVAL;
	/* /dev/edm<N>'s rule (and /dev/ndimm<i>'s for private mappings) */
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;		/* a private copy would never reach the engine */
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	vm_flags_clear(vma, VM_MAYEXEC);
	/* pool memory: faulted in while the area is ours, revoked after */
	if (inst->sx)
		return edm_shpool_x_mmap(inst->sx, vma);
	return remap_vmalloc_range(vma, inst->area, 0);
}

static int cowbird_open(struct inode *inode, struct file *file)
{
	struct cowbird_file *f;
	int err;

	f = kzalloc(sizeof(*f), GFP_KERNEL_ACCOUNT);
	if (!f)
		return -ENOMEM;
	err = simple_pin_fs(&cowbird_fs_type, &cowbird_fs_mnt, &cowbird_fs_cnt);
	if (err)
		goto err_free;
	f->inode = alloc_anon_inode(cowbird_fs_mnt->mnt_sb);
	if (IS_ERR(f->inode)) {
		err = PTR_ERR(f->inode);
		goto err_fs;
	}
	mutex_init(&f->lock);
	/* before any mmap can link a vma to the device inode's mapping */
	file->f_mapping = f->inode->i_mapping;
	file->private_data = f;
	return nonseekable_open(inode, file);
err_fs:
	simple_release_fs(&cowbird_fs_mnt, &cowbird_fs_cnt);
err_free:
	kfree(f);
	return err;
}

/* No mapping is left (each holds the file): take the instance from the engine, free. */
static int cowbird_release(struct inode *inode, struct file *file)
{
	struct cowbird_file *f = file->private_data;

	if (f->inst) {
		if (!f->inst->sx)
			cowbird_engine_del(f->inst);
		cowbird_inst_put(f->inst);
	}
	/* after the instance: an export is closed (never revoked again) by now */
	iput(f->inode);
	simple_release_fs(&cowbird_fs_mnt, &cowbird_fs_cnt);
	mutex_destroy(&f->lock);
	kfree(f);
	return 0;
}

static const struct file_operations cowbird_fops = {
	.owner = THIS_MODULE,
	.open = cowbird_open,
	.release = cowbird_release,
	.unlocked_ioctl = cowbird_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = cowbird_mmap,
};

static struct miscdevice cowbird_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = COWBIRD_DEV_NAME,
	.fops = &cowbird_fops,
	.mode = 0600,
};

static int cowbird_regions_show(struct seq_file *m, void *v)
{
	edm_fab_regions_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cowbird_regions);

int edm_cowbird_init(void)
{
	int err;

	err = edm_cowbird_engine_init();
	if (err)
		return err;
	err = misc_register(&cowbird_misc);
	if (err) {
		edm_cowbird_engine_exit();
		return err;
	}
	/* before the registry: no membership exists yet */
	edm_shpool_x_register(&cowbird_x_ops);
	/* Every netns's regions and keys, root only (Documentation/cowbird.md). */
	debugfs_create_file("cowbird_regions", 0400, edm_debugfs_root, NULL,
			    &cowbird_regions_fops);
	return 0;
}

/* No file is open: the module is in use while one is. */
void edm_cowbird_exit(void)
{
	debugfs_lookup_and_remove("cowbird_regions", edm_debugfs_root);
	edm_shpool_x_unregister();	/* the registry is gone: no membership is left */
	misc_deregister(&cowbird_misc);
	edm_cowbird_engine_exit();
	ida_destroy(&cowbird_ida);
}
