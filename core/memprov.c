// SPDX-License-Identifier: GPL-2.0
/*
 * What every memory provider shares (include/edm/memprov.h): the pick of a
 * provider by the kind of file at a path, the hold on the dev_pagemap of a
 * range with struct pages, and the release.
 *
 * Locking: none of its own; its user serializes calls on one provider.
 */
#include <linux/fs.h>
#include <linux/memremap.h>
#include <linux/mm.h>
#include <linux/namei.h>
#include <linux/range.h>
#include <net/netlink.h>

#include "edm/memprov.h"

int edm_memprov_get(struct edm_memprov *mp, const char *path, u64 want,
		    struct netlink_ext_ack *extack)
{
	struct path p;
	umode_t mode;
	dev_t rdev;
	int err;

	err = kern_path(path, LOOKUP_FOLLOW, &p);
	if (err) {
		NL_SET_ERR_MSG(extack, "no device at that path");
		return err == -ENOENT ? -ENODEV : err;
	}
	mode = d_inode(p.dentry)->i_mode;
	rdev = d_inode(p.dentry)->i_rdev;
	path_put(&p);
	if (S_ISBLK(mode))
		return edm_memprov_pmem_get(mp, path, extack);
	if (S_ISCHR(mode))
		return edm_memprov_devdax_get(mp, path, rdev, want, extack);
	NL_SET_ERR_MSG(extack, "that path is neither a pmem block device nor a DAX device");
	return -ENODEV;
}

/* Is [start, end] inside one of @pgmap's ranges? */
static bool edm_memprov_in_pgmap(const struct dev_pagemap *pgmap, u64 start, u64 end)
{
	int i;

	for (i = 0; i < pgmap->nr_range; i++)
		if (start >= pgmap->ranges[i].start && end <= pgmap->ranges[i].end)
			return true;
	return false;
}

int edm_memprov_hold(struct edm_memprov *mp, bool need, struct netlink_ext_ack *extack)
{
	unsigned long pfn = PHYS_PFN(mp->phys);
	struct dev_pagemap *pgmap;

	pgmap = pfn_valid(pfn) ? get_dev_pagemap(pfn, NULL) : NULL;
	if (!pgmap) {
		if (!need)
			return 0;
		NL_SET_ERR_MSG(extack, "the device's memory has no struct pages, or it is going");
		return -ENXIO;
	}
	if (!edm_memprov_in_pgmap(pgmap, mp->phys, mp->phys + mp->len - 1)) {
		put_dev_pagemap(pgmap);
		NL_SET_ERR_MSG(extack, "the device's memory is not one range of struct pages");
		return -ENXIO;
	}
	mp->pgmap = pgmap;
	return 0;
}

void edm_memprov_release(struct edm_memprov *mp)
{
	if (mp->ops)
		mp->ops->release(mp);
	if (mp->pgmap)
		put_dev_pagemap(mp->pgmap);	/* the device's unbind may go on */
	mp->pgmap = NULL;
	mp->ops = NULL;
	mp->va = NULL;
}
