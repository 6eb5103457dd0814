// SPDX-License-Identifier: GPL-2.0
/*
 * edm.ko's entry points. Each part of the module has one line in
 * edm_subsystems[]: init runs them in order and unwinds in reverse on error,
 * exit runs them in reverse. Order matters: the netlink family goes last, so
 * no request reaches a part before it is ready, and leaves first at exit.
 * A subsystem left out of the build (Kbuild's EDM_* knobs) has no line.
 */
#include <linux/module.h>

#include "edm/edm.h"
#include "edm/uapi_layout.h"	/* the ABI's structs, pinned at build time */

static const struct edm_subsys edm_subsystems[] = {
	{ "objects", edm_objects_init, edm_objects_exit },
#if IS_ENABLED(CONFIG_EDM_NETDIMM)
	/* before the registry: devices bound to a lower netdev need it while they live */
	{ "netdimm", edm_netdimm_notifier_init, edm_netdimm_notifier_exit },
#endif
#if IS_ENABLED(CONFIG_EDM_FABRIC)
	{ "fabric", edm_fab_init, edm_fab_exit },
	{ "edm-eth", edm_fab_eth_init, edm_fab_eth_exit },
#endif
#if IS_ENABLED(CONFIG_EDM_DFABRIC)
	/* before the registry: NIC pool members leave when their netdev goes */
	{ "nicpool", edm_nicpool_notifier_init, edm_nicpool_notifier_exit },
	/* before the registry: shared pools hold the ivshmem devices it binds */
	{ "shpool", edm_shpool_init, edm_shpool_exit },
	/* before the registry: pmem pools' memory goes back once the stack let go */
	{ "pool", edm_mpool_init, edm_mpool_exit },
#endif
#if IS_ENABLED(CONFIG_EDM_COWBIRD)
	/* /dev/cowbird and its engine threads; instances hold fabric hosts */
	{ "cowbird", edm_cowbird_init, edm_cowbird_exit },
#endif
	{ "registry", edm_registry_init, edm_registry_exit },
#if IS_ENABLED(CONFIG_EDM_NETDIMM)
	/* after the registry: `ip link add ... type ndimm` makes registry devices */
	{ "ndimm-link", edm_netdimm_link_init, edm_netdimm_link_exit },
#endif
#if IS_ENABLED(CONFIG_EDM_FABRIC)
	/* after the registry: `ip link add ... type fhost` makes fabric hosts */
	{ "fhost-link", edm_fab_host_link_init, edm_fab_host_link_exit },
#endif
#if IS_ENABLED(CONFIG_EDM_DFABRIC)
	/* after the registry: `ip link add ... type rackcn` makes CNs of its racks */
	{ "rackcn-link", edm_rack_cn_link_init, edm_rack_cn_link_exit },
	/* after the registry: `ip link add ... type shpool` joins shared pools */
	{ "shpool-link", edm_shpool_link_init, edm_shpool_link_exit },
#endif
	{ "netlink", edm_genl_init, edm_genl_exit },
};

static void edm_subsys_unwind(int count)
{
	while (count--)
		edm_subsystems[count].exit();
}

static int __init edm_init(void)
{
	int i, err;

	for (i = 0; i < ARRAY_SIZE(edm_subsystems); i++) {
		err = edm_subsystems[i].init();
		if (err) {
			pr_err("%s init failed: %d\n", edm_subsystems[i].name, err);
			edm_subsys_unwind(i);
			return err;
		}
	}
	pr_info("version %s loaded\n", EDM_VERSION);
	return 0;
}

static void __exit edm_exit(void)
{
	edm_subsys_unwind(ARRAY_SIZE(edm_subsystems));
	pr_info("unloaded\n");
}

module_init(edm_init);
module_exit(edm_exit);
MODULE_LICENSE("GPL");
MODULE_AUTHOR("The edm developers");
MODULE_DESCRIPTION("EDM, NetDIMM, DFabric and Cowbird: memory disaggregation, soft-emulated");
MODULE_VERSION(EDM_VERSION);
/* Which subsystems the build put in (Kbuild's EDM_* knobs): modinfo -F subsystems. */
MODULE_INFO(subsystems, "core"
#if IS_ENABLED(CONFIG_EDM_FABRIC)
	    " fabric"
#endif
#if IS_ENABLED(CONFIG_EDM_NETDIMM)
	    " netdimm"
#endif
#if IS_ENABLED(CONFIG_EDM_DFABRIC)
	    " dfabric"
#endif
#if IS_ENABLED(CONFIG_EDM_COWBIRD)
	    " cowbird"
#endif
	    );
