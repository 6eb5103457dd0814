// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/edm<N>: the ops of fabric host N for user space. One misc device per
 * host; N comes from an IDA, and the host keeps it and our state
 * (edm_fab_host_set_cdev()) until edm_fab_cdev_del().
 *
 * Ops. EDM_IOC_SUBMIT checks every op of a batch, copies write data into a
 * kernel buffer and hands the op to the host stack; its done() (BH) moves it
 * to the file's completion list and wakes readers. EDM_IOC_REAP waits for
 * completions and, in process context, copies read data to the buffer the
 * op named. An op holds a reference on its file's context, so a file closed
 * with ops in flight is freed by the last done(); its node reference goes
 * with it. Each file bounds the ops and bytes it holds (submitted and not
 * yet reaped): past that, EAGAIN.
 *
 * Keys. EDM_IOC_KEY sets the key the file's ops, and its window's, present
 * to a memory node (0 until then: none); a keyed region refuses an op
 * without its key, which completes with -EKEYREJECTED. An op carries the
 * key its file had set for its node when it was submitted.
 *
 * The mmap window. EDM_IOC_TARGET probes a memory node and binds the window
 * to its region. A mapping (MAP_SHARED, never executable) of file offset O
 * shows region bytes from O. Trust model: the kernel owns the pages and
 * their contents; user space only loads and stores. A fault fetches the
 * page with a READ into a fresh page kept in the file's page cache (pages);
 * the first store after a fetch or a write-back goes through page_mkwrite,
 * which marks the page dirty there. fsync() (msync MS_SYNC) and the close
 * of a mapping (munmap) write dirty pages back with WRITEs: each page is
 * locked, write-protected by unmapping it (the next access faults and finds
 * it again in the cache) and sent. The cache is freed when the last mapping
 * goes.
 *
 * Locking: f->lock (BH) protects the completion list and the counters;
 * f->map_lock protects the binding, the mapping count and insertions into
 * pages. Order: mmap_lock, map_lock, page lock, i_mmap_rwsem.
 */
#include <linux/idr.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include "edm/compat.h"
#include "edm/fabric.h"

enum {
	EDM_FAB_CDEV_MAX = 4096,		/* hosts with a /dev/edm<N> */
	EDM_FAB_CDEV_PENDING_MAX = 1024,	/* ops a file holds */
	EDM_FAB_CDEV_PENDING_BYTES = 16 << 20,	/* bytes of op data a file holds */
};

#define EDM_FAB_PAGE_DIRTY	XA_MARK_0

/* The misc device of one host. */
struct edm_fab_cdev {
	struct miscdevice misc;
	struct edm_fab_node *host;	/* not counted: lives until edm_fab_cdev_del() */
	int index;
	char name[16];
};

/* An open file. */
struct edm_fab_file {
	struct kref ref;		/* the file, and each op in flight */
	struct edm_fab_node *host;	/* counted */
	wait_queue_head_t wq;		/* reapers and pollers */

	spinlock_t lock;		/* protects the five below */
	struct list_head cq;		/* completed ops, in completion order */
	u32 nready;			/* on cq */
	u32 pending;			/* submitted and not yet reaped */
	u64 pending_bytes;
	bool released;			/* the file is closed: done() frees */

	u64 *keys;			/* per memory node, READ_ONCE/WRITE_ONCE */

	struct mutex map_lock;		/* protects the five below */
	bool bound;
	u16 dst;			/* the window's memory node */
	u64 size;			/* its region */
	u32 nmaps;			/* open mappings of this file */
	struct xarray pages;		/* page offset -> struct page, mark DIRTY */
};

/* An op of a file, with its data. */
struct edm_fab_cop {
	struct edm_fab_op op;
	struct edm_fab_file *f;
	struct list_head cq;
	u64 user_data;
	u64 ubuf;			/* READ: where reap copies the data */
	u8 data[];
};

static DEFINE_IDA(edm_fab_cdev_ida);

/* ---- file context ---- */

static void edm_fab_cop_free(struct edm_fab_cop *cop)
{
	kvfree(cop);
}

static void edm_fab_pages_free(struct edm_fab_file *f)
{
	struct page *page;
	unsigned long idx;

	xa_for_each(&f->pages, idx, page) {
		xa_erase(&f->pages, idx);
		put_page(page);
	}
}

/* The last reference: the file is closed and no op is in flight. May run in BH. */
static void edm_fab_file_free(struct kref *ref)
{
	struct edm_fab_file *f = container_of(ref, struct edm_fab_file, ref);
	struct edm_fab_cop *cop, *tmp;

	list_for_each_entry_safe(cop, tmp, &f->cq, cq)
		edm_fab_cop_free(cop);
	edm_fab_node_put(f->host);
	kfree(f->keys);
	kfree(f);
}

static void edm_fab_file_put(struct edm_fab_file *f)
{
	kref_put(&f->ref, edm_fab_file_free);
}

/* misc_open() calls us under misc_mtx, which misc_deregister() also takes. */
static int edm_fab_cdev_open(struct inode *inode, struct file *file)
{
	struct edm_fab_cdev *c = container_of(file->private_data, struct edm_fab_cdev, misc);
	struct edm_fab_file *f;

	f = kzalloc(sizeof(*f), GFP_KERNEL_ACCOUNT);
	if (!f)
		return -ENOMEM;
	f->keys = kcalloc(EDM_FAB_ADDR_MAX + 1, sizeof(*f->keys), GFP_KERNEL_ACCOUNT);
	if (!f->keys) {
		kfree(f);
		return -ENOMEM;
	}
	kref_init(&f->ref);
	init_waitqueue_head(&f->wq);
	spin_lock_init(&f->lock);
	INIT_LIST_HEAD(&f->cq);
	mutex_init(&f->map_lock);
	xa_init(&f->pages);
	f->host = edm_fab_node_get(c->host);
	file->private_data = f;
	return nonseekable_open(inode, file);
}

/* Completions nobody will reap are freed now; ops in flight free themselves. */
static int edm_fab_cdev_release(struct inode *inode, struct file *file)
{
	struct edm_fab_file *f = file->private_data;
	struct edm_fab_cop *cop, *tmp;
	LIST_HEAD(stale);

	edm_fab_pages_free(f);		/* no mapping is left: each holds the file */
	spin_lock_bh(&f->lock);
	f->released = true;
	list_splice_init(&f->cq, &stale);
	f->nready = 0;
	spin_unlock_bh(&f->lock);
	list_for_each_entry_safe(cop, tmp, &stale, cq)
		edm_fab_cop_free(cop);
	edm_fab_file_put(f);
	return 0;
}

/* ---- submit ---- */

static bool edm_op_is_rmw(u8 opcode)
{
	return opcode == EDM_OP_CAS || opcode == EDM_OP_FADD || opcode == EDM_OP_SWAP;
}

/* Checks only: EINVAL for a malformed op, ERANGE past any region, EFAULT. */
static int edm_fab_op_check(const struct edm_op *uop)
{
	if (uop->opcode > EDM_OP_MAX || (uop->flags & ~EDM_OP_F_POSTED))
		return -EINVAL;
	if ((uop->flags & EDM_OP_F_POSTED) && uop->opcode != EDM_OP_WRITE)
		return -EINVAL;
	if (!uop->len || uop->len > EDM_OP_MAX_LEN || uop->dst > EDM_FAB_ADDR_MAX)
		return -EINVAL;
	if (uop->addr >= EDM_FAB_REGION_MAX || uop->len > EDM_FAB_REGION_MAX - uop->addr)
		return -ERANGE;
	if (edm_op_is_rmw(uop->opcode))
		return uop->len != 8 || (uop->addr & 7) ? -EINVAL : 0;
	if (!access_ok(u64_to_user_ptr(uop->buf), uop->len))
		return -EFAULT;
	return 0;
}

/* Room for one more op of @len bytes: EAGAIN when the file holds enough. */
static int edm_fab_reserve(struct edm_fab_file *f, u32 len)
{
	int err = 0;

	spin_lock_bh(&f->lock);
	if (f->pending >= EDM_FAB_CDEV_PENDING_MAX ||
	    f->pending_bytes + len > EDM_FAB_CDEV_PENDING_BYTES) {
		err = -EAGAIN;
	} else {
		f->pending++;
		f->pending_bytes += len;
	}
	spin_unlock_bh(&f->lock);
	return err;
}

static void edm_fab_unreserve(struct edm_fab_file *f, u32 nr, u64 bytes)
{
	spin_lock_bh(&f->lock);
	f->pending -= nr;
	f->pending_bytes -= bytes;
	spin_unlock_bh(&f->lock);
}

/* The host stack's completion, in BH context, exactly once per op. */
static void edm_fab_cdev_done(struct edm_fab_op *op)
{
	struct edm_fab_cop *cop = container_of(op, struct edm_fab_cop, op);
	struct edm_fab_file *f = cop->f;
	bool orphan;

	spin_lock_bh(&f->lock);
	orphan = f->released;
	if (!orphan) {
		list_add_tail(&cop->cq, &f->cq);
		f->nready++;
	}
	spin_unlock_bh(&f->lock);
	if (orphan)
		edm_fab_cop_free(cop);
	else
		wake_up_interruptible_poll(&f->wq, EPOLLIN | EPOLLRDNORM);
	edm_fab_file_put(f);
}

static struct edm_fab_cop *edm_fab_cop_alloc(struct edm_fab_file *f, const struct edm_op *uop)
{
	struct edm_fab_cop *cop;

	cop = kvmalloc(struct_size(cop, data, uop->len), GFP_KERNEL_ACCOUNT);
	if (!cop)
		return NULL;
	memset(cop, 0, sizeof(*cop));
	cop->f = f;
	cop->user_data = uop->user_data;
	cop->ubuf = uop->buf;
	cop->op.opcode = uop->opcode;
	cop->op.dst = uop->dst;
	cop->op.addr = uop->addr;
	cop->op.len = uop->len;
	cop->op.buf = cop->data;
	cop->op.arg0 = uop->arg0;
	cop->op.arg1 = uop->arg1;
	cop->op.key = READ_ONCE(f->keys[uop->dst]);
	/* a write is done when it landed, unless the caller wants it posted */
	if (uop->opcode == EDM_OP_WRITE && !(uop->flags & EDM_OP_F_POSTED))
		cop->op.flags = EDM_FAB_OP_ACKED;
	cop->op.done = edm_fab_cdev_done;
	return cop;
}

/* An op's kernel copy: all of the submission that may sleep or fault. */
static struct edm_fab_cop *edm_fab_prepare_one(struct edm_fab_file *f, const struct edm_op *uop)
{
	struct edm_fab_cop *cop;
	int err;

	err = edm_fab_op_check(uop);
	if (err)
		return ERR_PTR(err);
	cop = edm_fab_cop_alloc(f, uop);
	if (!cop)
		return ERR_PTR(-ENOMEM);
	if (uop->opcode == EDM_OP_WRITE) {
		if (copy_from_user(cop->data, u64_to_user_ptr(uop->buf), uop->len)) {
			edm_fab_cop_free(cop);
			return ERR_PTR(-EFAULT);
		}
	} else {
		memset(cop->data, 0, uop->len);	/* never hand back stale bytes */
	}
	return cop;
}

/* Hand a prepared op to the host stack; the caller frees it if refused. */
static int edm_fab_submit_one(struct edm_fab_file *f, struct edm_fab_cop *cop)
{
	int err;

	err = edm_fab_reserve(f, cop->op.len);
	if (err)
		return err;
	/* done() may run before edm_fab_host_submit() returns: count first. */
	kref_get(&f->ref);
	err = edm_fab_host_submit(f->host, &cop->op);
	if (err) {
		edm_fab_file_put(f);	/* not the last: the file holds one */
		edm_fab_unreserve(f, 1, cop->op.len);
	}
	return err;
}

/*
 * Ops are taken in order; the first one refused stops the batch and its
 * error is the call's. done says how many were taken either way.
 *
 * First every op is checked and copied in, then all are queued with BH off:
 * the host's poll runs once, at local_bh_enable(), with the whole batch in
 * its queue, so the requests leave in shared bursts instead of each one
 * crossing the fabric before the next is queued.
 */
static long edm_fab_ioc_submit(struct edm_fab_file *f, struct edm_submit __user *usub,
			       size_t usize)
{
	struct edm_fab_cop **cops;
	struct edm_submit sub;
	struct edm_op *ops;
	u32 i, n, done = 0;
	int err = 0, ret;

	err = copy_struct_from_user(&sub, sizeof(sub), usub, usize);
	if (err)
		goto out;
	if (!sub.nr || sub.nr > EDM_OP_BATCH_MAX) {
		err = -EINVAL;
		goto out;
	}
	ops = memdup_user(u64_to_user_ptr(sub.ops), array_size(sub.nr, sizeof(*ops)));
	if (IS_ERR(ops)) {
		err = PTR_ERR(ops);
		goto out;
	}
	cops = kmalloc_array(sub.nr, sizeof(*cops), GFP_KERNEL);
	if (!cops) {
		kfree(ops);
		err = -ENOMEM;
		goto out;
	}
	for (n = 0; n < sub.nr; n++) {
		cops[n] = edm_fab_prepare_one(f, &ops[n]);
		if (IS_ERR(cops[n])) {
			err = PTR_ERR(cops[n]);
			break;
		}
	}
	kfree(ops);
	local_bh_disable();
	for (done = 0; done < n; done++) {
		ret = edm_fab_submit_one(f, cops[done]);
		if (ret) {
			err = ret;
			break;
		}
	}
	local_bh_enable();
	for (i = done; i < n; i++)
		edm_fab_cop_free(cops[i]);
	kfree(cops);
out:
	if (put_user(done, &usub->done) && !err)
		err = -EFAULT;
	return err;
}

/* ---- reap ---- */

/* Enough completions, or all there will be: nothing else is in flight. */
static bool edm_fab_reap_ready(struct edm_fab_file *f, u32 min)
{
	bool ready;

	spin_lock_bh(&f->lock);
	ready = f->nready >= min || f->nready == f->pending;
	spin_unlock_bh(&f->lock);
	return ready;
}

/* The user's view of a completion; a READ's data goes to its buffer now. */
static void edm_fab_cqe_fill(struct edm_fab_cop *cop, struct edm_cqe *cqe)
{
	const struct edm_fab_op *op = &cop->op;

	memset(cqe, 0, sizeof(*cqe));
	cqe->user_data = cop->user_data;
	cqe->result = op->result;
	cqe->lat_ns = op->lat_ns;
	cqe->model_ns = op->model_ns;
	cqe->status = op->status;
	cqe->bytes = op->status ? 0 : min(op->bytes, op->len);
	if (op->opcode == EDM_OP_READ && cqe->bytes &&
	    copy_to_user(u64_to_user_ptr(cop->ubuf), cop->data, cqe->bytes)) {
		cqe->status = -EFAULT;
		cqe->bytes = 0;
	}
}

/* Copy out up to @max completions; those that cannot be go back to the head. */
static int edm_fab_reap_copy(struct edm_fab_file *f, struct edm_cqe __user *ucqe, u32 max)
{
	struct edm_fab_cop *cop, *tmp;
	struct edm_cqe cqe;
	u32 n = 0, back = 0;
	u64 bytes = 0;
	LIST_HEAD(local);

	spin_lock_bh(&f->lock);
	list_for_each_entry_safe(cop, tmp, &f->cq, cq) {
		if (n == max)
			break;
		list_move_tail(&cop->cq, &local);
		n++;
	}
	f->nready -= n;
	spin_unlock_bh(&f->lock);

	n = 0;
	list_for_each_entry_safe(cop, tmp, &local, cq) {
		edm_fab_cqe_fill(cop, &cqe);
		if (copy_to_user(&ucqe[n], &cqe, sizeof(cqe)))
			break;
		list_del(&cop->cq);
		bytes += cop->op.len;
		edm_fab_cop_free(cop);
		n++;
	}
	list_for_each_entry(cop, &local, cq)
		back++;
	edm_fab_unreserve(f, n, bytes);
	if (back) {
		spin_lock_bh(&f->lock);
		list_splice(&local, &f->cq);
		f->nready += back;
		spin_unlock_bh(&f->lock);
	}
	return n || !back ? n : -EFAULT;
}

static long edm_fab_ioc_reap(struct edm_fab_file *f, struct edm_reap __user *ureap,
			     size_t usize)
{
	struct edm_cqe __user *ucqe;
	struct edm_reap r;
	long ret;

	ret = copy_struct_from_user(&r, sizeof(r), ureap, usize);
	if (ret)
		return ret;
	if (!r.max || r.max > EDM_OP_BATCH_MAX || r.min > r.max)
		return -EINVAL;
	ucqe = u64_to_user_ptr(r.cqes);
	if (!access_ok(ucqe, array_size(r.max, sizeof(*ucqe))))
		return -EFAULT;
	if (r.min && r.timeout_ms) {
		ret = wait_event_interruptible_timeout(f->wq, edm_fab_reap_ready(f, r.min),
						       msecs_to_jiffies(r.timeout_ms));
		if (ret < 0)
			return -EINTR;	/* what completed stays queued */
	}
	ret = edm_fab_reap_copy(f, ucqe, r.max);
	if (ret < 0)
		return ret;
	return put_user((u32)ret, &ureap->nr) ? -EFAULT : 0;
}

/* ---- the mmap window ---- */

static long edm_fab_ioc_target(struct edm_fab_file *f, struct edm_target __user *ut,
			       size_t usize)
{
	struct edm_target t;
	u64 size = 0;
	int err;

	err = copy_struct_from_user(&t, sizeof(t), ut, usize);
	if (err)
		return err;
	if (t.pad0 || t.pad1 || t.dst > EDM_FAB_ADDR_MAX)
		return -EINVAL;
	mutex_lock(&f->map_lock);
	if (f->nmaps) {
		err = -EBUSY;	/* the mapped pages belong to the current target */
	} else {
		err = edm_fab_host_probe(f->host, t.dst, &size);
		if (!err) {
			edm_fab_pages_free(f);
			f->bound = true;
			f->dst = t.dst;
			f->size = size;
		}
	}
	mutex_unlock(&f->map_lock);
	if (err)
		return err;
	return put_user(size, &ut->size) ? -EFAULT : 0;
}

static long edm_fab_ioc_key(struct edm_fab_file *f, struct edm_key __user *uk, size_t usize)
{
	struct edm_key k;
	int err;

	err = copy_struct_from_user(&k, sizeof(k), uk, usize);
	if (err)
		return err;
	if (k.pad0 || k.pad1 || k.dst > EDM_FAB_ADDR_MAX)
		return -EINVAL;
	WRITE_ONCE(f->keys[k.dst], k.key);
	return 0;
}

/* Bytes of page @idx inside the region: 1..PAGE_SIZE, the last one may be short. */
static u32 edm_fab_page_len(const struct edm_fab_file *f, pgoff_t idx)
{
	u64 off = (u64)idx << PAGE_SHIFT;

	return min_t(u64, PAGE_SIZE, f->size - off);
}

static int edm_fab_page_io(struct edm_fab_file *f, u32 opcode, pgoff_t idx, struct page *page)
{
	struct edm_fab_op op = {
		.opcode = opcode,
		.dst = f->dst,
		.addr = (u64)idx << PAGE_SHIFT,
		.len = edm_fab_page_len(f, idx),
		.buf = page_address(page),
		.key = READ_ONCE(f->keys[f->dst]),
		/* a dirty page is clean only once the memory node has it */
		.flags = opcode == EDM_OP_WRITE ? EDM_FAB_OP_ACKED : 0,
	};

	return edm_fab_host_sync_op(f->host, &op);
}

/* The cached page @idx, fetched over the fabric if need be; referenced. */
static struct page *edm_fab_page_get(struct edm_fab_file *f, pgoff_t idx)
{
	struct page *page;
	int err;

	mutex_lock(&f->map_lock);
	page = xa_load(&f->pages, idx);
	if (page)
		goto out;
	page = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!page) {
		page = ERR_PTR(-ENOMEM);
		goto out_unlock;
	}
	err = edm_fab_page_io(f, EDM_OP_READ, idx, page);
	if (!err)
		err = xa_err(xa_store(&f->pages, idx, page, GFP_KERNEL_ACCOUNT));
	if (err) {
		put_page(page);
		page = ERR_PTR(err);
		goto out_unlock;
	}
out:
	get_page(page);
out_unlock:
	mutex_unlock(&f->map_lock);
	return page;
}

static vm_fault_t edm_fab_vm_fault(struct vm_fault *vmf)
{
	struct edm_fab_file *f = vmf->vma->vm_private_data;
	struct page *page;

	/* mmap() bounded the mapping and the binding cannot change under it */
	if (vmf->pgoff >= DIV_ROUND_UP(f->size, PAGE_SIZE))
		return VM_FAULT_SIGBUS;
	page = edm_fab_page_get(f, vmf->pgoff);
	if (IS_ERR(page))
		return PTR_ERR(page) == -ENOMEM ? VM_FAULT_OOM : VM_FAULT_SIGBUS;
	vmf->page = page;
	return 0;
}

/* The first store since the page was fetched or written back. */
static vm_fault_t edm_fab_vm_mkwrite(struct vm_fault *vmf)
{
	struct edm_fab_file *f = vmf->vma->vm_private_data;

	lock_page(vmf->page);
	xa_set_mark(&f->pages, vmf->pgoff, EDM_FAB_PAGE_DIRTY);
	return VM_FAULT_LOCKED;
}

/*
 * Write back the dirty pages in [first, last]; the first error stops it and
 * leaves that page dirty. Under map_lock.
 */
static int edm_fab_writeback(struct edm_fab_file *f, struct address_space *mapping,
			     pgoff_t first, pgoff_t last)
{
	unsigned long idx = first;
	struct page *page;
	int err = 0;

	lockdep_assert_held(&f->map_lock);
	for (page = xa_find(&f->pages, &idx, last, EDM_FAB_PAGE_DIRTY); page && !err;
	     page = xa_find_after(&f->pages, &idx, last, EDM_FAB_PAGE_DIRTY)) {
		lock_page(page);
		xa_clear_mark(&f->pages, idx, EDM_FAB_PAGE_DIRTY);
		/* the next store faults and marks it again */
		unmap_mapping_range(mapping, (loff_t)idx << PAGE_SHIFT, PAGE_SIZE, 1);
		err = edm_fab_page_io(f, EDM_OP_WRITE, idx, page);
		if (err)
			xa_set_mark(&f->pages, idx, EDM_FAB_PAGE_DIRTY);
		unlock_page(page);
	}
	return err;
}

static void edm_fab_vm_open(struct vm_area_struct *vma)
{
	struct edm_fab_file *f = vma->vm_private_data;

	mutex_lock(&f->map_lock);
	f->nmaps++;
	mutex_unlock(&f->map_lock);
}

/* munmap: what this mapping dirtied goes back; the last one frees the cache. */
static void edm_fab_vm_close(struct vm_area_struct *vma)
{
	struct edm_fab_file *f = vma->vm_private_data;
	int err;

	mutex_lock(&f->map_lock);
	err = edm_fab_writeback(f, vma->vm_file->f_mapping, vma->vm_pgoff,
				vma->vm_pgoff + vma_pages(vma) - 1);
	if (err)
		pr_warn_ratelimited("%s: munmap lost dirty pages: %d\n",
				    edm_fab_node_name(f->host), err);
	if (!--f->nmaps)
		edm_fab_pages_free(f);
	mutex_unlock(&f->map_lock);
}

static const struct vm_operations_struct edm_fab_vm_ops = {
	.open = edm_fab_vm_open,
	.close = edm_fab_vm_close,
	.fault = edm_fab_vm_fault,
	.page_mkwrite = edm_fab_vm_mkwrite,
};

static int edm_fab_cdev_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct edm_fab_file *f = file->private_data;
	unsigned long npages = vma_pages(vma);
	u64 limit;
	int err = 0;

	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;		/* a private copy would never be written back */
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	mutex_lock(&f->map_lock);
	limit = DIV_ROUND_UP(f->size, PAGE_SIZE);
	if (!f->bound)
		err = -EINVAL;
	else if (vma->vm_pgoff > limit || npages > limit - vma->vm_pgoff)
		err = -ERANGE;
	if (!err) {
		f->nmaps++;
		vm_flags_clear(vma, VM_MAYEXEC);
		vm_flags_set(vma, VM_IO | VM_DONTEXPAND | VM_DONTDUMP);
		vma->vm_private_data = f;
		vma->vm_ops = &edm_fab_vm_ops;
	}
	mutex_unlock(&f->map_lock);
	return err;
}

/* msync(MS_SYNC) and fsync(): write back the dirty pages of [start, end]. */
static int edm_fab_cdev_fsync(struct file *file, loff_t start, loff_t end, int datasync)
{
	struct edm_fab_file *f = file->private_data;
	int err;

	if (start < 0 || end < start)
		return -EINVAL;
	mutex_lock(&f->map_lock);
	err = edm_fab_writeback(f, file->f_mapping, start >> PAGE_SHIFT, end >> PAGE_SHIFT);
	mutex_unlock(&f->map_lock);
	return err;
}

/* ---- file operations ---- */

static __poll_t edm_fab_cdev_poll(struct file *file, poll_table *wait)
{
	struct edm_fab_file *f = file->private_data;
	__poll_t mask = 0;

	poll_wait(file, &f->wq, wait);
	spin_lock_bh(&f->lock);
	if (f->nready)
		mask |= EPOLLIN | EPOLLRDNORM;
	spin_unlock_bh(&f->lock);
	return mask;
}

/*
 * The command's number carries the size of the caller's struct
 * (_IOC_SIZE): at least the first version's, which is ours today. A longer
 * one, from a caller built against a later header, works when the bytes
 * this module does not know are zero, and is refused with -E2BIG when not
 * (copy_struct_from_user(), as openat2() and clone3() do). Outputs are
 * written at their fixed offsets, never past the first version's struct.
 */
static long edm_fab_cdev_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct edm_fab_file *f = file->private_data;
	void __user *uarg = (void __user *)arg;
	size_t usize = _IOC_SIZE(cmd);

	if (_IOC_TYPE(cmd) != EDM_IOC_MAGIC || _IOC_DIR(cmd) != (_IOC_READ | _IOC_WRITE))
		return -ENOTTY;
	switch (_IOC_NR(cmd)) {
	case _IOC_NR(EDM_IOC_SUBMIT):
		if (usize < sizeof(struct edm_submit))
			return -ENOTTY;
		return edm_fab_ioc_submit(f, uarg, usize);
	case _IOC_NR(EDM_IOC_REAP):
		if (usize < sizeof(struct edm_reap))
			return -ENOTTY;
		return edm_fab_ioc_reap(f, uarg, usize);
	case _IOC_NR(EDM_IOC_TARGET):
		if (usize < sizeof(struct edm_target))
			return -ENOTTY;
		return edm_fab_ioc_target(f, uarg, usize);
	case _IOC_NR(EDM_IOC_KEY):
		if (usize < sizeof(struct edm_key))
			return -ENOTTY;
		return edm_fab_ioc_key(f, uarg, usize);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations edm_fab_cdev_fops = {
	.owner = THIS_MODULE,
	.open = edm_fab_cdev_open,
	.release = edm_fab_cdev_release,
	.unlocked_ioctl = edm_fab_cdev_ioctl,
	.compat_ioctl = compat_ptr_ioctl,	/* the structs are the same in 32 bits */
	.poll = edm_fab_cdev_poll,
	.mmap = edm_fab_cdev_mmap,
	.fsync = edm_fab_cdev_fsync,
};

/* ---- one device per host ---- */

int edm_fab_cdev_add(struct edm_fab_node *host)
{
	struct edm_fab_cdev *c;
	int index, err;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	index = ida_alloc_max(&edm_fab_cdev_ida, EDM_FAB_CDEV_MAX - 1, GFP_KERNEL);
	if (index < 0) {
		err = index;
		goto err_free;
	}
	c->host = host;
	c->index = index;
	snprintf(c->name, sizeof(c->name), "edm%d", index);
	c->misc.minor = MISC_DYNAMIC_MINOR;
	c->misc.name = c->name;
	c->misc.fops = &edm_fab_cdev_fops;
	c->misc.mode = 0600;
	err = misc_register(&c->misc);
	if (err)
		goto err_ida;
	edm_fab_host_set_cdev(host, c, index);
	return 0;

err_ida:
	ida_free(&edm_fab_cdev_ida, index);
err_free:
	kfree(c);
	return err;
}

/* Open files keep their own node reference and outlive the device. */
void edm_fab_cdev_del(struct edm_fab_node *host)
{
	struct edm_fab_cdev *c = edm_fab_host_cdev(host);

	if (!c)
		return;
	misc_deregister(&c->misc);	/* after it, no open() is running or will */
	edm_fab_host_set_cdev(host, NULL, -1);
	ida_free(&edm_fab_cdev_ida, c->index);
	kfree(c);
}
