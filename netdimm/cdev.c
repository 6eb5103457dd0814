// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/ndimm<i>: lets a process map memory of NETi zone i, so that it can
 * build packets in the zone and send them with MSG_ZEROCOPY, which then
 * takes the TX fast path. Each mmap() of a shared mapping gets fresh zeroed
 * zone pages, kept on one sub-array as far as the allocator can; they are
 * lent to the mapping and come back to the zone once it, and every skb
 * that pinned them, lets go.
 *
 * The misc device may outlive the ndimm: an open file keeps this small
 * struct alive (kref), and the ndimm's deletion clears its zone pointer
 * under ->lock, after which mmap() fails with ENODEV.
 */
#include <linux/kref.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "edm/compat.h"
#include "netdimm.h"

/* The most one mapping may take, a bound on what one caller can pin. */
#define EDM_NETDIMM_MAP_MAX	SZ_64M

struct edm_netdimm_cdev {
	struct miscdevice misc;
	char name[24];
	struct kref ref;
	struct mutex lock;		/* protects zone */
	struct edm_netdimm_zone *zone;	/* NULL once the ndimm is gone */
};

static void edm_netdimm_cdev_free(struct kref *ref)
{
	kfree(container_of(ref, struct edm_netdimm_cdev, ref));
}

/* misc_open() calls us under misc_mtx, which misc_deregister() also takes. */
static int edm_netdimm_cdev_open(struct inode *inode, struct file *file)
{
	struct edm_netdimm_cdev *c =
		container_of(file->private_data, struct edm_netdimm_cdev, misc);

	kref_get(&c->ref);
	file->private_data = c;
	return 0;
}

static int edm_netdimm_cdev_release(struct inode *inode, struct file *file)
{
	struct edm_netdimm_cdev *c = file->private_data;

	kref_put(&c->ref, edm_netdimm_cdev_free);
	return 0;
}

static int edm_netdimm_map(struct edm_netdimm_zone *z, struct vm_area_struct *vma)
{
	unsigned long addr;
	s64 hint = -1;
	int err;

	for (addr = vma->vm_start; addr < vma->vm_end; addr += PAGE_SIZE) {
		struct page *page = edm_netdimm_alloc_pages(z, hint, 0);

		if (!page)
			return -ENOMEM;
		clear_page(page_address(page));	/* the zone held other users' packets */
		err = vm_insert_page(vma, addr, page);
		if (err) {
			edm_netdimm_free_pages(z, page, 0);
			return err;
		}
		edm_netdimm_lend(z, page);		/* the mapping holds it now */
		if (hint < 0)
			hint = edm_netdimm_page_off(z, page);
	}
	return 0;
}

static int edm_netdimm_cdev_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct edm_netdimm_cdev *c = file->private_data;
	int err;

	if (!(vma->vm_flags & VM_SHARED) || vma->vm_pgoff)
		return -EINVAL;		/* private copies would leave the zone */
	if (vma->vm_end - vma->vm_start > EDM_NETDIMM_MAP_MAX)
		return -E2BIG;
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	mutex_lock(&c->lock);
	err = c->zone ? edm_netdimm_map(c->zone, vma) : -ENODEV;
	mutex_unlock(&c->lock);
	return err;
}

static const struct file_operations edm_netdimm_cdev_fops = {
	.owner = THIS_MODULE,
	.open = edm_netdimm_cdev_open,
	.release = edm_netdimm_cdev_release,
	.mmap = edm_netdimm_cdev_mmap,
};

int edm_netdimm_cdev_create(struct edm_netdimm *nd)
{
	struct edm_netdimm_cdev *c;
	int err;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	kref_init(&c->ref);
	mutex_init(&c->lock);
	c->zone = nd->zone;
	snprintf(c->name, sizeof(c->name), "ndimm%u", nd->zone->index);
	c->misc.minor = MISC_DYNAMIC_MINOR;
	c->misc.name = c->name;
	c->misc.fops = &edm_netdimm_cdev_fops;
	c->misc.mode = 0600;
	err = misc_register(&c->misc);
	if (err) {
		kfree(c);
		return err;
	}
	nd->cdev = c;
	return 0;
}

void edm_netdimm_cdev_destroy(struct edm_netdimm *nd)
{
	struct edm_netdimm_cdev *c = nd->cdev;

	if (!c)
		return;
	misc_deregister(&c->misc);
	mutex_lock(&c->lock);
	c->zone = NULL;
	mutex_unlock(&c->lock);
	kref_put(&c->ref, edm_netdimm_cdev_free);
	nd->cdev = NULL;
}
