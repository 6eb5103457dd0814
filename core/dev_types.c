// SPDX-License-Identifier: GPL-2.0
/*
 * The device types, one line each: a new kind of device adds its ops here.
 * The null type carries no traffic; it exists so the registry, the netlink
 * API and the tools can be exercised on their own. Each other type is
 * defined by its subsystem; a type whose subsystem is left out of the build
 * has no ops, and DEV_NEW of it is EOPNOTSUPP. Constant: no locking.
 */
#include "edm/dev.h"

static int edm_null_create(struct edm_dev *dev, const void *cfg, struct netlink_ext_ack *extack)
{
	return 0;
}

static void edm_null_destroy(struct edm_dev *dev)
{
}

static const struct edm_dev_type_ops edm_null_dev_type = {
	.name = "null",
	.create = edm_null_create,
	.destroy = edm_null_destroy,
};

static const struct edm_dev_type_ops * const edm_dev_types[__EDM_DEV_TYPE_CNT] = {
	[EDM_DEV_TYPE_NULL] = &edm_null_dev_type,
#if IS_ENABLED(CONFIG_EDM_NETDIMM)
	[EDM_DEV_TYPE_NETDIMM] = &edm_netdimm_dev_type,
#endif
#if IS_ENABLED(CONFIG_EDM_FABRIC)
	[EDM_DEV_TYPE_FSWITCH] = &edm_fswitch_dev_type,
	[EDM_DEV_TYPE_FHOST] = &edm_fhost_dev_type,
#endif
#if IS_ENABLED(CONFIG_EDM_DFABRIC)
	[EDM_DEV_TYPE_POOL] = &edm_pool_dev_type,
	[EDM_DEV_TYPE_RACK] = &edm_rack_dev_type,
	[EDM_DEV_TYPE_NICPOOL] = &edm_nicpool_dev_type,
	[EDM_DEV_TYPE_SHPOOL] = &edm_shpool_dev_type,
#endif
};

const struct edm_dev_type_ops *edm_dev_type_ops(enum edm_dev_type type)
{
	if (type <= EDM_DEV_TYPE_UNSPEC || type > EDM_DEV_TYPE_MAX)
		return NULL;
	return edm_dev_types[type];
}
