/* SPDX-License-Identifier: GPL-2.0 */
/*
 * edm.ko's internal interfaces between its parts: the subsystem table,
 * object accounting and the debugfs root.
 */
#ifndef _EDM_EDM_H
#define _EDM_EDM_H

#include <linux/atomic.h>
#include <linux/dcache.h>

/*
 * A part of the module with module-lifetime state. core/main.c calls every
 * init in table order and unwinds with the exits in reverse.
 */
struct edm_subsys {
	const char *name;
	int (*init)(void);
	void (*exit)(void);
};

/* Kinds of objects whose live count is audited (debugfs "objects"). */
enum edm_obj_kind {
	EDM_OBJ_DEV,
	EDM_OBJ_FABRIC,		/* fabric nodes, until their last reference */
	EDM_OBJ_COWBIRD,	/* Cowbird instances, until their last reference */
	EDM_OBJ_POOL,		/* DFabric pools, until their last reference */
	EDM_OBJ_CN,		/* rack compute nodes */
	EDM_OBJ_REGION,		/* pool regions, until their last reference */
	EDM_OBJ_NICPOOL,	/* NIC pools */
	EDM_OBJ_SHPOOL,		/* shared pool memberships */

	__EDM_OBJ_CNT
};

void edm_obj_get(enum edm_obj_kind kind);
void edm_obj_put(enum edm_obj_kind kind);

struct delayed_work;
/*
 * At module exit: wait for what outlived its objects (memory the network
 * stack still holds). @dw, the work that looks for it, is stopped; then
 * @scan runs every @ms until it finds nothing left, told every 10 s to say
 * what it waits for.
 */
void edm_exit_wait(struct delayed_work *dw, bool (*scan)(bool say), unsigned int ms);

/* Fault injection: true when the next creation of @kind must fail. */
bool edm_fault_should_fail(enum edm_obj_kind kind);

/* The module's debugfs directory, or an error pointer if debugfs is off. */
extern struct dentry *edm_debugfs_root;

int edm_objects_init(void);
void edm_objects_exit(void);
int edm_registry_init(void);
void edm_registry_exit(void);
int edm_genl_init(void);
void edm_genl_exit(void);

/* The subsystems' module-lifetime entry points, in core/main.c's table. */
int edm_netdimm_notifier_init(void);		/* netdimm/lower.c */
void edm_netdimm_notifier_exit(void);
int edm_netdimm_link_init(void);		/* netdimm/link.c */
void edm_netdimm_link_exit(void);
int edm_fab_init(void);				/* fabric/link.c */
void edm_fab_exit(void);
int edm_fab_eth_init(void);				/* fabric/eth.c */
void edm_fab_eth_exit(void);
int edm_fab_host_link_init(void);		/* fabric/host_link.c */
void edm_fab_host_link_exit(void);
int edm_rack_cn_link_init(void);		/* dfabric/rack_link.c */
void edm_rack_cn_link_exit(void);
int edm_nicpool_notifier_init(void);		/* dfabric/nicpool.c */
void edm_nicpool_notifier_exit(void);
int edm_shpool_init(void);			/* dfabric/shpool.c */
void edm_shpool_exit(void);
int edm_mpool_init(void);			/* dfabric/pool.c */
void edm_mpool_exit(void);
int edm_shpool_link_init(void);		/* dfabric/shpool_link.c */
void edm_shpool_link_exit(void);
int edm_cowbird_init(void);			/* cowbird/dev.c */
void edm_cowbird_exit(void);

#endif /* _EDM_EDM_H */
