/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/*
 * edm: the user-space ABI of edm.ko.
 *
 * Generic netlink family "edm". Documentation/netlink/specs/edm.yaml is the
 * source of truth; selftests/edm/spec_check.py keeps this header, the spec
 * and the kernel's policies in agreement. Values are never renumbered: new
 * commands and attributes are appended before the __MAX markers.
 *
 * Each message kind has its own attribute space, as ethtool's netlink does:
 * EDM_A_INFO_* for the version reply, EDM_A_DEV_* for device messages.
 */
#ifndef _UAPI_LINUX_EDM_H
#define _UAPI_LINUX_EDM_H

#define EDM_GENL_NAME		"edm"
#define EDM_GENL_VERSION	1
#define EDM_MCGRP_EVENTS	"events"

/* Longest device name, terminating NUL included. */
#define EDM_NAME_LEN		16

enum edm_dev_type {
	EDM_DEV_TYPE_UNSPEC,
	/* A device that carries no traffic: exercises the registry. */
	EDM_DEV_TYPE_NULL,

	__EDM_DEV_TYPE_CNT,
	EDM_DEV_TYPE_MAX = __EDM_DEV_TYPE_CNT - 1
};

enum edm_backend {
	EDM_BACKEND_UNSPEC,
	/* Software emulation: used whenever no hardware is present. */
	EDM_BACKEND_SOFT,

	__EDM_BACKEND_CNT,
	EDM_BACKEND_MAX = __EDM_BACKEND_CNT - 1
};

enum {
	EDM_A_INFO_UNSPEC,
	EDM_A_INFO_VERSION,		/* string: module version */
	EDM_A_INFO_ABI_VERSION,		/* u32: EDM_GENL_VERSION */
	EDM_A_INFO_KERNEL_RELEASE,	/* string: uname -r of the running kernel */
	EDM_A_INFO_DEV_COUNT,		/* u32: devices in the caller's netns */

	__EDM_A_INFO_CNT,
	EDM_A_INFO_MAX = __EDM_A_INFO_CNT - 1
};

enum {
	EDM_A_DEV_UNSPEC,
	EDM_A_DEV_ID,			/* u32, assigned by the kernel, >= 1 */
	EDM_A_DEV_NAME,			/* string, [a-zA-Z0-9_.-], < EDM_NAME_LEN */
	EDM_A_DEV_TYPE,			/* u32: enum edm_dev_type */
	EDM_A_DEV_BACKEND,		/* u32: enum edm_backend */

	__EDM_A_DEV_CNT,
	EDM_A_DEV_MAX = __EDM_A_DEV_CNT - 1
};

enum {
	EDM_CMD_UNSPEC,
	EDM_CMD_VERSION_GET,		/* do: reply carries EDM_A_INFO_* */
	EDM_CMD_DEV_GET,		/* do (by ID or NAME) and dump */
	EDM_CMD_DEV_NEW,		/* admin; also the created event */
	EDM_CMD_DEV_DEL,		/* admin; also the deleted event */

	__EDM_CMD_CNT,
	EDM_CMD_MAX = __EDM_CMD_CNT - 1
};

#endif /* _UAPI_LINUX_EDM_H */
