// SPDX-License-Identifier: GPL-2.0
/*
 * Backends: what runs a device. Hardware backends, when they exist, come
 * first in edm_backends[] and claim the device types they can drive on this
 * machine; the soft-emulated backend is last and takes every type, so a
 * machine with no edm hardware still runs every device. The table is
 * constant: no locking.
 */
#include "edm/dev.h"

static const struct edm_backend_ops * const edm_backends[] = {
	&edm_soft_backend,
};

const struct edm_backend_ops *edm_backend_pick(enum edm_dev_type type, enum edm_backend want,
					       struct netlink_ext_ack *extack)
{
	const struct edm_backend_ops *be;
	int i;

	for (i = 0; i < ARRAY_SIZE(edm_backends); i++) {
		be = edm_backends[i];
		if (want != EDM_BACKEND_UNSPEC && be->id != want)
			continue;
		if (be->probe(type))
			return be;
	}
	NL_SET_ERR_MSG(extack, "requested backend is not present for this device type");
	return ERR_PTR(-EOPNOTSUPP);
}
