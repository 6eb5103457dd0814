// SPDX-License-Identifier: GPL-2.0
/*
 * The sockets' remembered zones. The paper adds a zone field to struct sock
 * so a connection's next buffers are allocated on its NetDIMM; a module
 * cannot patch struct sock, so each device keeps an rhashtable from the
 * socket's address to the zone offset its last buffer took. The address is
 * a key only, never dereferenced: a socket that reuses a freed one's
 * address inherits its hint, which costs nothing but a placement choice.
 * TX then asks the allocator for the same sub-array, and the allocCache
 * answers. Bounded by EDM_NETDIMM_SOCKS_MAX;
 * entries idle for EDM_NETDIMM_SOCK_AGE_MS are dropped by a periodic sweep.
 *
 * Lookups run under RCU in xmit; inserts race benignly (the first wins);
 * entries are freed after a grace period.
 */
#include <linux/rhashtable.h>
#include <linux/slab.h>
#include <net/sock.h>

#include "netdimm.h"

struct edm_netdimm_sock {
	struct rhash_head node;
	unsigned long key;		/* the socket's address */
	s64 off;			/* zone offset of its last TX buffer */
	unsigned long used;		/* jiffies */
	struct rcu_head rcu;
};

static const struct rhashtable_params edm_netdimm_sock_params = {
	.key_len = sizeof(unsigned long),
	.key_offset = offsetof(struct edm_netdimm_sock, key),
	.head_offset = offsetof(struct edm_netdimm_sock, node),
	.automatic_shrinking = true,
};

s64 edm_netdimm_sock_hint(struct edm_netdimm *nd, struct sock *sk)
{
	unsigned long key = (unsigned long)sk;
	struct edm_netdimm_sock *e;
	s64 off = -1;

	rcu_read_lock();
	e = rhashtable_lookup(&nd->socks, &key, edm_netdimm_sock_params);
	if (e) {
		off = READ_ONCE(e->off);
		WRITE_ONCE(e->used, jiffies);
	}
	rcu_read_unlock();
	return off;
}

void edm_netdimm_sock_remember(struct edm_netdimm *nd, struct sock *sk, s64 off)
{
	unsigned long key = (unsigned long)sk;
	struct edm_netdimm_sock *e;

	rcu_read_lock();
	e = rhashtable_lookup(&nd->socks, &key, edm_netdimm_sock_params);
	if (e)
		WRITE_ONCE(e->off, off);
	rcu_read_unlock();
	if (e || atomic_read(&nd->nsocks) >= EDM_NETDIMM_SOCKS_MAX)
		return;
	e = kzalloc(sizeof(*e), GFP_ATOMIC | __GFP_NOWARN);
	if (!e)
		return;
	e->key = key;
	e->off = off;
	e->used = jiffies;
	if (rhashtable_lookup_insert_fast(&nd->socks, &e->node, edm_netdimm_sock_params))
		kfree(e);
	else
		atomic_inc(&nd->nsocks);
}

static void edm_netdimm_sock_sweep(struct work_struct *work)
{
	struct edm_netdimm *nd = container_of(to_delayed_work(work), struct edm_netdimm, sock_gc);
	unsigned long age = msecs_to_jiffies(EDM_NETDIMM_SOCK_AGE_MS);
	struct rhashtable_iter iter;
	struct edm_netdimm_sock *e;

	rhashtable_walk_enter(&nd->socks, &iter);
	rhashtable_walk_start(&iter);
	while ((e = rhashtable_walk_next(&iter))) {
		if (IS_ERR(e))
			continue;	/* -EAGAIN: a resize; keep walking */
		if (time_before(jiffies, READ_ONCE(e->used) + age))
			continue;
		if (!rhashtable_remove_fast(&nd->socks, &e->node, edm_netdimm_sock_params)) {
			atomic_dec(&nd->nsocks);
			kfree_rcu(e, rcu);
		}
	}
	rhashtable_walk_stop(&iter);
	rhashtable_walk_exit(&iter);
	schedule_delayed_work(&nd->sock_gc, age);
}

int edm_netdimm_socks_init(struct edm_netdimm *nd)
{
	int err = rhashtable_init(&nd->socks, &edm_netdimm_sock_params);

	if (err)
		return err;
	INIT_DELAYED_WORK(&nd->sock_gc, edm_netdimm_sock_sweep);
	schedule_delayed_work(&nd->sock_gc, msecs_to_jiffies(EDM_NETDIMM_SOCK_AGE_MS));
	return 0;
}

static void edm_netdimm_sock_free(void *ptr, void *arg)
{
	kfree(ptr);
}

/* After the netdev is gone: no xmit can look up or insert. */
void edm_netdimm_socks_fini(struct edm_netdimm *nd)
{
	cancel_delayed_work_sync(&nd->sock_gc);
	rhashtable_free_and_destroy(&nd->socks, edm_netdimm_sock_free, NULL);
}
