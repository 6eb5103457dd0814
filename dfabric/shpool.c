// SPDX-License-Identifier: GPL-2.0
/*
 * Shared pools (dfabric/shpool.h): the ivshmem PCI driver that offers
 * memory devices (the ivshmem memory provider, include/edm/memprov.h), the
 * SHPOOL device type that joins one or a pmem device (formatting it if
 * blank) and leaves it, and the beat work that keeps this kernel's lease
 * and reaps members whose beat stopped.
 *
 * Locking: edm_shmem_lock, see shpool.h. A membership detaches once, under
 * it, either when its device is deleted or when the PCI device goes away
 * under it (unbind, unplug); after that it only answers GET.
 *
 * Lingering: a membership that detaches while the network stack still
 * holds Buffers it lent (shpool_net.c) leaves keeping them: its slot stays
 * LEAVING, so no other member passes it anything or reaps what it holds,
 * and it keeps the memory (and the device's dev_pagemap: an unbind waits).
 * It goes on edm_shpool_lingering (edm_shpool_linger_lock, a mutex), where
 * one work beats for it and gives its Buffers back as the stack lets go,
 * then ends the leave and releases the memory. It holds the module (rmmod
 * says it is in use); the module's exit waits for any that could not, saying
 * so every 10 s, as the pool's leftovers do.
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/io.h>
#include <linux/rtnetlink.h>
#include <linux/utsname.h>

#include "edm/edm.h"
#include "shpool.h"
#include "trace.h"

#define EDM_IVSHMEM_VENDOR	0x1af4	/* Red Hat, Inc. (Qumranet) */
#define EDM_IVSHMEM_DEVICE	0x1110
#define EDM_IVSHMEM_BAR		2

/* the bound devices, their users and attachments (shpool.h) */
DEFINE_MUTEX(edm_shmem_lock);
static LIST_HEAD(edm_shmem_list);
/* memberships attached to a pmem device, for its removal notice */
static LIST_HEAD(edm_shpool_pmem_list);

/*
 * Test knob, debugfs edm/shpool_stall: while set, every membership's beat
 * and export works do nothing, as if this kernel were paused; set past the
 * lease, the other members reap us, and clearing it lets this kernel find
 * itself fenced (cowbird_guests.sh).
 */
bool edm_shpool_stall;

/*
 * Test knob, debugfs edm/shpool_rx_copy: while set, every frame is copied
 * out of its Buffer, even where it could be lent (to measure the copy).
 */
bool edm_shpool_rx_copy;

static DEFINE_MUTEX(edm_shpool_linger_lock);
static LIST_HEAD(edm_shpool_lingering);
static void edm_shpool_linger_work(struct work_struct *work);
static DECLARE_DELAYED_WORK(edm_shpool_linger_dwork, edm_shpool_linger_work);

void edm_shpool_stats(struct edm_shpool *sp, struct edm_shpool_stats *sum)
{
	int cpu, i;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct edm_shpool_stats *c = per_cpu_ptr(sp->ctrs, cpu);

		for (i = 0; i < ARRAY_SIZE(sum->v); i++)
			sum->v[i] += READ_ONCE(c->v[i]);
	}
	/* the core's own counters, each written by one side */
	sum->v[EDM_A_SHSTAT_ALLOCS] = READ_ONCE(sp->v.st.allocs);
	sum->v[EDM_A_SHSTAT_TX_RING_FULL] = READ_ONCE(sp->v.st.ring_full);
	sum->v[EDM_A_SHSTAT_TAKEN_BACK] = READ_ONCE(sp->v.st.taken_back);
	sum->v[EDM_A_SHSTAT_RX_REFUSED] = READ_ONCE(sp->v.st.refused);
	sum->v[EDM_A_SHSTAT_REAPED_HOSTS] = READ_ONCE(sp->v.st.reaped_hosts);
	sum->v[EDM_A_SHSTAT_REAPED_BUFS] = READ_ONCE(sp->v.st.reaped_bufs);
	sum->v[EDM_A_SHSTAT_X_OFFERED] = READ_ONCE(sp->x_offered);
	sum->v[EDM_A_SHSTAT_X_SERVED] = READ_ONCE(sp->x_served);
	sum->v[EDM_A_SHSTAT_X_REFUSED] = READ_ONCE(sp->x_refused);
	sum->v[EDM_A_SHSTAT_X_DROPPED] = READ_ONCE(sp->x_dropped);
	sum->v[EDM_A_SHSTAT_X_LOST] = READ_ONCE(sp->x_lost);
	sum->v[EDM_A_SHSTAT_X_FREED] = READ_ONCE(sp->v.st.x_swept);
	sum->v[EDM_A_SHSTAT_X_REVOKED] = READ_ONCE(sp->x_revoked);
}

/* ---- the beat: this kernel's lease, and the others' ---- */

static void edm_shpool_check_peer(struct edm_shpool *sp, u32 slot, unsigned long lease)
{
	u64 st = edm_shp_host_state(&sp->v, slot);
	u64 beat = READ_ONCE(sp->v.hosts[slot].beat);
	u64 won = sp->v.st.reaped_hosts;
	u32 n;

	if (st != sp->seen_state[slot] || beat != sp->seen_beat[slot]) {
		sp->seen_state[slot] = st;
		sp->seen_beat[slot] = beat;
		sp->seen_at[slot] = jiffies;
		clear_bit(slot, sp->silent);
		return;
	}
	/* two beats missed: its full ring no longer stops our queue */
	if (time_after(jiffies, sp->seen_at[slot] + 2 * sp->beat_jiffies))
		set_bit(slot, sp->silent);
	if (EDM_SHP_HW_STATE(st) == EDM_SHP_H_FREE ||
	    time_before(jiffies, sp->seen_at[slot] + lease))
		return;
	n = edm_shp_reap(&sp->v, slot, st);
	if (sp->v.st.reaped_hosts != won) {	/* not another survivor */
		u32 ms = jiffies_to_msecs(jiffies - sp->seen_at[slot]);

		trace_edm_shpool_reap(netdev_name(sp->netdev), slot, EDM_SHP_HW_EPOCH(st), ms, n);
		netdev_info(sp->netdev,
			    "host %u (%.*s, epoch %u) silent for %u ms: reaped, %u Buffers freed\n",
			    slot, EDM_SHP_NAME_LEN, sp->v.hosts[slot].name, EDM_SHP_HW_EPOCH(st),
			    ms, n);
		edm_shpool_notify_reap(sp, slot);
	}
	sp->seen_at[slot] = jiffies;
}

static void edm_shpool_beat(struct work_struct *work)
{
	struct edm_shpool *sp = container_of(to_delayed_work(work), struct edm_shpool, beat);
	unsigned long lease = msecs_to_jiffies(sp->v.geo.lease_ms);
	u32 i;

	if (READ_ONCE(edm_shpool_stall))
		goto again;
	if (edm_shp_fenced(&sp->v)) {
		/* reaped while alive (stalled past the lease): our Buffers are gone */
		if (!sp->fenced) {
			WRITE_ONCE(sp->fenced, true);
			edm_shpool_stat(sp, EDM_A_SHSTAT_FENCED, 1);
			netif_carrier_off(sp->netdev);
			netdev_err(sp->netdev, "reaped by another member: leave and join again\n");
			edm_shpool_notify_reap(sp, sp->v.slot);
		}
		return;
	}
	edm_shp_beat(&sp->v);
	if (trace_edm_shpool_lease_enabled())
		trace_edm_shpool_lease(netdev_name(sp->netdev), sp->v.slot,
				       EDM_SHP_HW_EPOCH(edm_shp_host_state(&sp->v, sp->v.slot)),
				       edm_shp_load(&sp->v.hosts[sp->v.slot].beat));
	for (i = 0; i < sp->v.geo.nhosts; i++)
		if (i != sp->v.slot)
			edm_shpool_check_peer(sp, i, lease);
again:
	queue_delayed_work(system_power_efficient_wq, &sp->beat, sp->beat_jiffies);
}

/* ---- joining and leaving ---- */

static struct edm_shmem *edm_shmem_find(const char *name)
{
	struct edm_shmem *m;

	lockdep_assert_held(&edm_shmem_lock);
	list_for_each_entry(m, &edm_shmem_list, node)
		if (!strcmp(pci_name(m->pdev), name))
			return m;
	return NULL;
}

/* Format the pool if blank, then open it; a later joiner's format options must match. */
static int edm_shpool_open(struct edm_shpool *sp, const struct edm_shpool_cfg *cfg,
			   struct netlink_ext_ack *extack)
{
	const struct edm_shp_super *g = &sp->v.geo;
	int err, tries;

	for (tries = 0; tries < 100; tries++) {
		err = edm_shp_open(&sp->v, sp->va, sp->mem->len);
		if (err == -ENODATA) {
			err = edm_shp_format(sp->va, sp->mem->len, &cfg->fmt);
			if (!err)
				sp->formatted = true;
			else if (err != -EEXIST)
				break;
			continue;
		}
		if (err != -EAGAIN)
			break;
		msleep(20);	/* another member is writing the layout */
	}
	if (err == -ENOSPC) {
		NL_SET_ERR_MSG(extack, "the memory is too small for that many hosts and Buffers");
		return err;
	}
	if (err == -EINVAL && !sp->formatted) {
		NL_SET_ERR_MSG(extack, "the memory holds no shared pool of this version");
		return err;
	}
	if (err) {
		NL_SET_ERR_MSG(extack, "cannot format or open the shared pool");
		return err;
	}
	if (sp->formatted)
		return 0;
	if ((cfg->fmt_given & BIT(EDM_A_SHPOOL_NHOSTS) && cfg->fmt.nhosts != g->nhosts) ||
	    (cfg->fmt_given & BIT(EDM_A_SHPOOL_BUF_SHIFT) && cfg->fmt.buf_shift != g->buf_shift) ||
	    (cfg->fmt_given & BIT(EDM_A_SHPOOL_RING) && cfg->fmt.ring_size != g->ring_size) ||
	    (cfg->fmt_given & BIT(EDM_A_SHPOOL_LEASE_MS) && cfg->fmt.lease_ms != g->lease_ms)) {
		NL_SET_ERR_MSG(extack,
			       "the pool is formatted with other hosts, buf-shift, ring or lease-ms");
		return -EINVAL;
	}
	return 0;
}

/* While frames are lent: take back the Buffers the stack let go of. */
static void edm_shpool_reclaim_work(struct work_struct *work)
{
	struct edm_shpool *sp = container_of(to_delayed_work(work), struct edm_shpool, reclaim);

	if (edm_shpool_reclaim(sp))
		queue_delayed_work(system_power_efficient_wq, &sp->reclaim,
				   msecs_to_jiffies(EDM_SHPOOL_RECLAIM_MS));
}

/* ---- lingering: left, with Buffers the stack still holds ---- */

/* Beat for each lingering membership, take back what the stack let go of, end what it can. */
static bool edm_shpool_linger_scan(bool say)
{
	struct edm_shpool *sp, *tmp;
	LIST_HEAD(done);
	bool more;

	mutex_lock(&edm_shpool_linger_lock);
	list_for_each_entry_safe(sp, tmp, &edm_shpool_lingering, linger_node) {
		if (edm_shp_leaving(&sp->v) && !READ_ONCE(edm_shpool_stall))
			edm_shp_beat(&sp->v);
		if (edm_shpool_reclaim(sp)) {
			if (say)
				pr_info("shared pool %s: %d Buffers still held by the network stack\n",
					sp->device, atomic_read(&sp->nlent));
			continue;
		}
		list_move_tail(&sp->linger_node, &done);
	}
	more = !list_empty(&edm_shpool_lingering);
	mutex_unlock(&edm_shpool_linger_lock);
	list_for_each_entry_safe(sp, tmp, &done, linger_node) {
		list_del_init(&sp->linger_node);
		edm_shp_leave_end(&sp->v);
		edm_memprov_release(&sp->prov);
		if (sp->module_held)
			module_put(THIS_MODULE);
		edm_shpool_put(sp);
	}
	return more;
}

static void edm_shpool_linger_work(struct work_struct *work)
{
	if (edm_shpool_linger_scan(false))
		schedule_delayed_work(&edm_shpool_linger_dwork,
				      msecs_to_jiffies(EDM_SHPOOL_RECLAIM_MS));
}

/*
 * The stack still holds Buffers of ours once a short wait is over (frames
 * on their way up let go within it; one in a socket's queue stays until the
 * socket reads it): leave keeping those, and linger.
 */
static bool edm_shpool_linger(struct edm_shpool *sp)
{
	int i;

	for (i = 0; i < 10 && edm_shpool_reclaim(sp); i++)
		usleep_range(4000, 5000);
	if (!atomic_read(&sp->nlent))
		return false;
	edm_shp_leave_keep(&sp->v, edm_shpool_keep_lent, sp);
	pr_info("shared pool %s: %d Buffers still held by the network stack: %s\n",
		sp->device, atomic_read(&sp->nlent), "it stays until they are back");
	kref_get(&sp->ref);
	/* fails while the module goes: its exit waits then (edm_shpool_exit()) */
	sp->module_held = try_module_get(THIS_MODULE);
	mutex_lock(&edm_shpool_linger_lock);
	list_add_tail(&sp->linger_node, &edm_shpool_lingering);
	mutex_unlock(&edm_shpool_linger_lock);
	schedule_delayed_work(&edm_shpool_linger_dwork, msecs_to_jiffies(EDM_SHPOOL_RECLAIM_MS));
	return true;
}

/*
 * Leave the pool and unmap it. The netdev is closed first (its NAPI and
 * poll timer stop: nothing of ours touches the view after), then
 * unregistered at once, or on @kill (the batch of `ip link del` and of a
 * netns's exit); it is freed once its last reference is gone. Buffers the
 * stack still holds keep the memory mapped until they are back (lingering).
 */
static void edm_shpool_detach(struct edm_shpool *sp, struct list_head *kill)
{
	struct net_device *nd = sp->netdev;

	lockdep_assert_held(&edm_shmem_lock);
	ASSERT_RTNL();
	if (!sp->mem)
		return;
	edm_shpool_x_detach(sp);	/* while the pool is still ours */
	dev_close(nd);
	unregister_netdevice_queue(nd, kill);
	cancel_delayed_work_sync(&sp->beat);
	cancel_delayed_work_sync(&sp->reclaim);
	if (!edm_shpool_linger(sp)) {
		if (!sp->fenced)
			edm_shp_leave(&sp->v);
		edm_memprov_release(&sp->prov);
	}
	sp->va = NULL;
	if (sp->shm)
		sp->shm->user = NULL;
	sp->shm = NULL;
	list_del_init(&sp->pmem_node);
	sp->mem = NULL;
	sp->netdev = NULL;
}

/*
 * The pmem device of lending @id is going (its namespace unbound): the
 * membership on it, if it is still attached, leaves as for an ivshmem
 * device unplugged.
 */
static void edm_shpool_pmem_gone(u64 id)
{
	struct edm_shpool *sp;

	rtnl_lock();
	mutex_lock(&edm_shmem_lock);
	list_for_each_entry(sp, &edm_shpool_pmem_list, pmem_node) {
		if (sp->prov.id != id)
			continue;
		netdev_warn(sp->netdev, "%s going away: shared pool %s leaves\n", sp->device,
			    sp->edev->name);
		edm_shpool_detach(sp, NULL);
		break;
	}
	mutex_unlock(&edm_shmem_lock);
	rtnl_unlock();
}

/* The ivshmem provider: the BAR, mapped write-back for as long as it is lent. */
static void edm_shmem_release(struct edm_memprov *mp)
{
	memunmap(mp->va);
}

static const struct edm_memprov_ops edm_shmem_prov_ops = {
	.kind = "ivshmem",
	.release = edm_shmem_release,
};

/* The memory @cfg names: an ivshmem device's PCI name, or a pmem device's path. */
static int edm_shpool_get_mem(struct edm_shpool *sp, const struct edm_shpool_cfg *cfg,
			      struct netlink_ext_ack *extack)
{
	struct edm_shmem *m;
	void *va;

	lockdep_assert_held(&edm_shmem_lock);
	if (edm_memprov_is_path(cfg->device))
		return edm_memprov_get(&sp->prov, cfg->device, 0, extack);
	m = edm_shmem_find(cfg->device);
	if (!m) {
		NL_SET_ERR_MSG(extack, "no ivshmem device of that PCI name is bound to edm");
		return -ENODEV;
	}
	if (m->user) {
		NL_SET_ERR_MSG(extack, "this kernel has joined that device already");
		return -EBUSY;
	}
	va = memremap(m->start, m->len, MEMREMAP_WB);
	if (!va) {
		NL_SET_ERR_MSG(extack, "cannot map the device's memory");
		return -ENOMEM;
	}
	sp->prov = (struct edm_memprov){
		.ops = &edm_shmem_prov_ops, .va = va, .phys = m->start, .len = m->len,
	};
	sp->shm = m;
	return 0;
}

static int edm_shpool_attach(struct edm_shpool *sp, const struct edm_shpool_cfg *cfg,
			     struct netlink_ext_ack *extack)
{
	struct net_device *nd;
	int err;

	mutex_lock(&edm_shmem_lock);
	err = edm_shpool_get_mem(sp, cfg, extack);
	if (err)
		goto out;
	sp->mem = &sp->prov;
	sp->va = sp->prov.va;
	err = edm_shpool_open(sp, cfg, extack);
	if (err)
		goto err_unmap;
	edm_shpool_zc_setup(sp);
	nd = edm_shpool_netdev_alloc(sp, cfg->ifname, cfg->netdev);
	if (IS_ERR(nd)) {
		err = PTR_ERR(nd);
		NL_SET_ERR_MSG(extack, "cannot allocate the netdev");
		goto err_unmap;
	}
	err = edm_shp_join(&sp->v, sp->hostname, nd->dev_addr);
	if (err) {
		NL_SET_ERR_MSG(extack, "every host slot of the pool is taken");
		edm_shpool_netdev_free(nd, !cfg->netdev);
		goto err_unmap;
	}
	sp->netdev = nd;
	netif_carrier_off(nd);		/* until it is opened */
	err = register_netdevice(nd);
	if (err) {
		NL_SET_ERR_MSG(extack, "cannot register the netdev (name taken?)");
		sp->netdev = NULL;
		edm_shp_leave(&sp->v);
		edm_shpool_netdev_free(nd, !cfg->netdev);
		goto err_unmap;
	}
	edm_shpool_netdev_registered(nd);
	sp->beat_jiffies = max(1UL, msecs_to_jiffies(sp->v.geo.lease_ms / EDM_SHPOOL_BEATS));
	if (sp->shm)
		sp->shm->user = sp;
	else
		list_add_tail(&sp->pmem_node, &edm_shpool_pmem_list);
	queue_delayed_work(system_power_efficient_wq, &sp->beat, 0);
	edm_shpool_x_start(sp);
	mutex_unlock(&edm_shmem_lock);
	return 0;

err_unmap:
	edm_memprov_release(&sp->prov);
	sp->va = NULL;
	sp->shm = NULL;
	sp->mem = NULL;
out:
	mutex_unlock(&edm_shmem_lock);
	return err;
}

static int edm_shpool_create(struct edm_dev *edev, const void *arg,
			     struct netlink_ext_ack *extack)
{
	const struct edm_shpool_cfg *cfg = arg;
	struct edm_shpool *sp;
	int err;

	if (!cfg) {
		NL_SET_ERR_MSG(extack, "join shared pools with SHPOOL_JOIN (edmctl shpool join)");
		return -EOPNOTSUPP;
	}
	sp = kzalloc(sizeof(*sp), GFP_KERNEL);
	if (!sp)
		return -ENOMEM;
	sp->ctrs = alloc_percpu(struct edm_shpool_stats);
	if (!sp->ctrs) {
		kfree(sp);
		return -ENOMEM;
	}
	kref_init(&sp->ref);
	sp->edev = edev;
	strscpy(sp->device, cfg->device, sizeof(sp->device));
	strscpy(sp->hostname, cfg->hostname ?: utsname()->nodename, sizeof(sp->hostname));
	INIT_DELAYED_WORK(&sp->beat, edm_shpool_beat);
	INIT_DELAYED_WORK(&sp->reclaim, edm_shpool_reclaim_work);
	INIT_LIST_HEAD(&sp->pmem_node);
	INIT_LIST_HEAD(&sp->linger_node);
	edm_shpool_x_init(sp);
	err = edm_shpool_attach(sp, cfg, extack);
	if (err) {
		edm_shpool_put(sp);
		return err;
	}
	edev->type_priv = sp;
	edm_obj_get(EDM_OBJ_SHPOOL);
	return 0;
}

static void edm_shpool_release(struct kref *ref)
{
	struct edm_shpool *sp = container_of(ref, struct edm_shpool, ref);

	bitmap_free(sp->lent);
	kvfree(sp->lent_hw);
	kvfree(sp->lent_pages);
	mutex_destroy(&sp->xlock);
	free_percpu(sp->ctrs);
	kfree(sp);
}

void edm_shpool_put(struct edm_shpool *sp)
{
	kref_put(&sp->ref, edm_shpool_release);
}

static void edm_shpool_destroy(struct edm_dev *edev)
{
	struct edm_shpool *sp = edm_shpool_of(edev);

	mutex_lock(&edm_shmem_lock);
	edm_shpool_detach(sp, edev->kill);
	mutex_unlock(&edm_shmem_lock);
	sp->edev = NULL;	/* the netdev may outlive the device */
	edm_shpool_put(sp);
	edm_obj_put(EDM_OBJ_SHPOOL);
}

const struct edm_dev_type_ops edm_shpool_dev_type = {
	.name = "shpool",
	.create = edm_shpool_create,
	.destroy = edm_shpool_destroy,
};

/* ---- the ivshmem driver ---- */

static int edm_shmem_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct edm_shmem *m;
	int err;

	err = pcim_enable_device(pdev);
	if (err)
		return err;
	if (!(pci_resource_flags(pdev, EDM_IVSHMEM_BAR) & IORESOURCE_MEM) ||
	    pci_resource_len(pdev, EDM_IVSHMEM_BAR) < SZ_1M) {
		dev_err(&pdev->dev, "no shared memory BAR of 1 MiB or more\n");
		return -ENODEV;
	}
	/* released by pcim on unbind; mapped write-back at join */
	err = pci_request_region(pdev, EDM_IVSHMEM_BAR, "edm-shmem");
	if (err)
		return err;
	m = devm_kzalloc(&pdev->dev, sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	m->pdev = pdev;
	m->start = pci_resource_start(pdev, EDM_IVSHMEM_BAR);
	m->len = pci_resource_len(pdev, EDM_IVSHMEM_BAR);
	pci_set_drvdata(pdev, m);
	mutex_lock(&edm_shmem_lock);
	list_add_tail(&m->node, &edm_shmem_list);
	mutex_unlock(&edm_shmem_lock);
	dev_info(&pdev->dev, "shared memory: %llu MiB for shared pools\n", m->len >> 20);
	return 0;
}

static void edm_shmem_remove(struct pci_dev *pdev)
{
	struct edm_shmem *m = pci_get_drvdata(pdev);

	rtnl_lock();
	mutex_lock(&edm_shmem_lock);
	if (m->user) {
		dev_warn(&pdev->dev, "device going away: shared pool %s leaves\n",
			 m->user->edev->name);
		edm_shpool_detach(m->user, NULL);
	}
	list_del(&m->node);
	mutex_unlock(&edm_shmem_lock);
	rtnl_unlock();
}

static const struct pci_device_id edm_shmem_ids[] = {
	{ PCI_DEVICE(EDM_IVSHMEM_VENDOR, EDM_IVSHMEM_DEVICE) },
	{ }
};
MODULE_DEVICE_TABLE(pci, edm_shmem_ids);

static struct pci_driver edm_shmem_driver = {
	.name = "edm-shmem",
	.id_table = edm_shmem_ids,
	.probe = edm_shmem_probe,
	.remove = edm_shmem_remove,
};

int edm_shpool_init(void)
{
	int err = pci_register_driver(&edm_shmem_driver);

	if (err)
		return err;
	debugfs_create_bool("shpool_stall", 0600, edm_debugfs_root, &edm_shpool_stall);
	debugfs_create_bool("shpool_rx_copy", 0600, edm_debugfs_root, &edm_shpool_rx_copy);
	edm_memprov_pmem_set_gone(edm_shpool_pmem_gone);
	return 0;
}

/*
 * The registry is gone: no membership is attached to a pmem device. Wait
 * for the lingering ones that could not hold the module.
 */
void edm_shpool_exit(void)
{
	edm_exit_wait(&edm_shpool_linger_dwork, edm_shpool_linger_scan, EDM_SHPOOL_RECLAIM_MS);
	edm_memprov_pmem_set_gone(NULL);
	debugfs_lookup_and_remove("shpool_rx_copy", edm_debugfs_root);
	debugfs_lookup_and_remove("shpool_stall", edm_debugfs_root);
	pci_unregister_driver(&edm_shmem_driver);
}
