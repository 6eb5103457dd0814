// SPDX-License-Identifier: GPL-2.0
/*
 * Compiles include/edm/uapi_layout.h's static_asserts in user space, with
 * the system's <linux/types.h> (natively and with -m32; see uapi.mk), and
 * C11's keyword under the name <assert.h> would give it.
 */
#define static_assert _Static_assert
#include "edm/uapi_layout.h"
