/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ABI's structs pinned: every struct of include/uapi/linux/ with its size
 * and each field's offset, as the headers' layout comments give them. Moving
 * a field, or changing a size, is an ABI break and fails the build of edm.ko
 * (core/main.c includes this) and of selftests/unit/uapi_layout.c, which
 * make unit builds natively and, compile only, for 32-bit x86: the ioctls use
 * compat_ptr_ioctl(), which hands a 32-bit caller's struct over as it is, so
 * the structs must be the same there.
 *
 * Compile time only: no code, no lock.
 */
#ifndef _EDM_UAPI_LAYOUT_H
#define _EDM_UAPI_LAYOUT_H

#ifdef __KERNEL__
#include <linux/build_bug.h>
#endif
#include <uapi/linux/cowbird.h>
#include <uapi/linux/edm.h>

/* user space defines static_assert itself: no libc header (none for -m32 here) */
#define EDM_UAPI_SIZE(s, n)	static_assert(sizeof(struct s) == (n), "sizeof(struct " #s ")")
#define EDM_UAPI_AT(s, f, off)	\
	static_assert(__builtin_offsetof(struct s, f) == (off), #s "." #f)

/* /dev/edm<N> (edm.h) */
EDM_UAPI_SIZE(edm_op, 48);
EDM_UAPI_AT(edm_op, user_data, 0);
EDM_UAPI_AT(edm_op, addr, 8);
EDM_UAPI_AT(edm_op, buf, 16);
EDM_UAPI_AT(edm_op, arg0, 24);
EDM_UAPI_AT(edm_op, arg1, 32);
EDM_UAPI_AT(edm_op, len, 40);
EDM_UAPI_AT(edm_op, dst, 44);
EDM_UAPI_AT(edm_op, opcode, 46);
EDM_UAPI_AT(edm_op, flags, 47);

EDM_UAPI_SIZE(edm_cqe, 40);
EDM_UAPI_AT(edm_cqe, user_data, 0);
EDM_UAPI_AT(edm_cqe, result, 8);
EDM_UAPI_AT(edm_cqe, lat_ns, 16);
EDM_UAPI_AT(edm_cqe, model_ns, 24);
EDM_UAPI_AT(edm_cqe, status, 32);
EDM_UAPI_AT(edm_cqe, bytes, 36);

EDM_UAPI_SIZE(edm_submit, 16);
EDM_UAPI_AT(edm_submit, ops, 0);
EDM_UAPI_AT(edm_submit, nr, 8);
EDM_UAPI_AT(edm_submit, done, 12);

EDM_UAPI_SIZE(edm_reap, 24);
EDM_UAPI_AT(edm_reap, cqes, 0);
EDM_UAPI_AT(edm_reap, max, 8);
EDM_UAPI_AT(edm_reap, min, 12);
EDM_UAPI_AT(edm_reap, timeout_ms, 16);
EDM_UAPI_AT(edm_reap, nr, 20);

EDM_UAPI_SIZE(edm_target, 16);
EDM_UAPI_AT(edm_target, dst, 0);
EDM_UAPI_AT(edm_target, pad0, 2);
EDM_UAPI_AT(edm_target, pad1, 4);
EDM_UAPI_AT(edm_target, size, 8);

EDM_UAPI_SIZE(edm_key, 16);
EDM_UAPI_AT(edm_key, dst, 0);
EDM_UAPI_AT(edm_key, pad0, 2);
EDM_UAPI_AT(edm_key, pad1, 4);
EDM_UAPI_AT(edm_key, key, 8);

/* /dev/cowbird (cowbird.h) */
EDM_UAPI_SIZE(cowbird_meta, 32);
EDM_UAPI_AT(cowbird_meta, rw_type, 0);
EDM_UAPI_AT(cowbird_meta, region_id, 2);
EDM_UAPI_AT(cowbird_meta, length, 4);
EDM_UAPI_AT(cowbird_meta, req_addr, 8);
EDM_UAPI_AT(cowbird_meta, resp_addr, 16);
EDM_UAPI_AT(cowbird_meta, index, 24);
EDM_UAPI_AT(cowbird_meta, pad, 28);

EDM_UAPI_SIZE(cowbird_cqe, 32);
EDM_UAPI_AT(cowbird_cqe, index, 0);
EDM_UAPI_AT(cowbird_cqe, status, 4);
EDM_UAPI_AT(cowbird_cqe, rw_type, 6);
EDM_UAPI_AT(cowbird_cqe, length, 8);
EDM_UAPI_AT(cowbird_cqe, pad, 12);
EDM_UAPI_AT(cowbird_cqe, issue_delay_ns, 16);
EDM_UAPI_AT(cowbird_cqe, total_delay_ns, 24);

EDM_UAPI_SIZE(cowbird_book, 128);
EDM_UAPI_AT(cowbird_book, tail, 0);
EDM_UAPI_AT(cowbird_book, head, 8);
EDM_UAPI_AT(cowbird_book, user_rsvd, 16);
EDM_UAPI_AT(cowbird_book, consumed, 64);
EDM_UAPI_AT(cowbird_book, rd_done, 68);
EDM_UAPI_AT(cowbird_book, wr_done, 72);
EDM_UAPI_AT(cowbird_book, error, 76);
EDM_UAPI_AT(cowbird_book, batches, 80);
EDM_UAPI_AT(cowbird_book, eng_rsvd, 88);

EDM_UAPI_SIZE(cowbird_create, 104);
EDM_UAPI_AT(cowbird_create, abi_version, 0);
EDM_UAPI_AT(cowbird_create, flags, 4);
EDM_UAPI_AT(cowbird_create, region_key, 8);
EDM_UAPI_AT(cowbird_create, region_id, 16);
EDM_UAPI_AT(cowbird_create, nr_rings, 18);
EDM_UAPI_AT(cowbird_create, meta_order, 20);
EDM_UAPI_AT(cowbird_create, data_order, 21);
EDM_UAPI_AT(cowbird_create, via, 22);
EDM_UAPI_AT(cowbird_create, instance_id, 24);
EDM_UAPI_AT(cowbird_create, pad1, 28);
EDM_UAPI_AT(cowbird_create, region_size, 32);
EDM_UAPI_AT(cowbird_create, mmap_size, 40);
EDM_UAPI_AT(cowbird_create, book_off, 48);
EDM_UAPI_AT(cowbird_create, ring_off, 56);
EDM_UAPI_AT(cowbird_create, ring_stride, 64);
EDM_UAPI_AT(cowbird_create, meta_off, 72);
EDM_UAPI_AT(cowbird_create, cq_off, 76);
EDM_UAPI_AT(cowbird_create, req_off, 80);
EDM_UAPI_AT(cowbird_create, resp_off, 84);
EDM_UAPI_AT(cowbird_create, shpool, 88);
EDM_UAPI_AT(cowbird_create, dispatch_us, 92);
EDM_UAPI_AT(cowbird_create, rsvd1, 96);

#endif /* _EDM_UAPI_LAYOUT_H */
