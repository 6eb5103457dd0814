/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The portability header of edm's kernel-agnostic cores.
 *
 * A core is plain C that needs no kernel service: it is compiled into edm.ko
 * and, unchanged, into the native unit tests, fuzzers and the simulator. It
 * may use only the types and helpers this header provides.
 */
#ifndef _EDM_CORE_H
#define _EDM_CORE_H

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/types.h>
#else
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;

#define BIT(nr) (1UL << (nr))
#endif

#endif /* _EDM_CORE_H */
