// SPDX-License-Identifier: GPL-2.0
/*
 * The soft-emulated backend: runs every device type in software, with real
 * kernel objects standing in for the hardware. Per-device state belongs to
 * the device type; this file only says yes. No locking of its own.
 */
#include "edm/dev.h"

static bool edm_soft_probe(enum edm_dev_type type)
{
	return true;
}

static int edm_soft_dev_init(struct edm_dev *dev, struct netlink_ext_ack *extack)
{
	return 0;
}

static void edm_soft_dev_uninit(struct edm_dev *dev)
{
}

const struct edm_backend_ops edm_soft_backend = {
	.id = EDM_BACKEND_SOFT,
	.name = "soft",
	.probe = edm_soft_probe,
	.dev_init = edm_soft_dev_init,
	.dev_uninit = edm_soft_dev_uninit,
};
