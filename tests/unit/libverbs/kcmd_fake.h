/* SPDX-License-Identifier: MIT */
/*
 * A fake uverbs cmd fd for the command unit tests (test_lv_cmd_mr.c,
 * test_lv_cmd_flow.c): this file's write() and ioctl() replace libc's in
 * the test binary.  On KF_FD they record the exact request (the write's
 * bytes; the ioctl header and attribute array) and answer as the kernel
 * would: a write's canned response is copied to the response address the
 * request carries (offset 8 in both the legacy and the extended header);
 * an ioctl's canned outputs go into its attributes (an object handle into
 * .data, a value through an output attribute's pointer).  Every other fd
 * goes to the real system call.
 */
#ifndef KCMD_FAKE_H
#define KCMD_FAKE_H

#include <stddef.h>
#include <stdint.h>

#include "libverbs/lv_kern.h"

#define KF_FD 917
#define KF_MAX_OUTS 8

struct kf_out {
	uint16_t id;
	uint16_t len;		/* 0: an object handle into .data */
	uint64_t value;
};

struct kf {
	/* The last write on KF_FD and the number of them. */
	uint8_t wbuf[4096];
	size_t wlen;
	int writes;
	const void *wresp;	/* copied to the response address */
	size_t wresp_len;
	int werr;		/* fail writes with this errno */
	/* The last ioctl on KF_FD and the number of them. */
	struct ib_uverbs_ioctl_hdr ihdr;
	struct ib_uverbs_attr iattrs[32];
	int ioctls;
	int ierr;		/* fail ioctls with this errno */
	struct kf_out outs[KF_MAX_OUTS];
	int nouts;
};

extern struct kf kf;

/* Clears the record and the canned answers. */
void kf_reset(void);
/* A kernel context (priv set, driver id rxe) whose cmd fd is KF_FD. */
struct ibv_context *kf_ctx(void);
/* The recorded ioctl's attribute with this id, or NULL. */
const struct ib_uverbs_attr *kf_attr(uint16_t id);
/* Fields of the recorded write at a byte offset. */
uint16_t kf_w16(size_t off);
uint32_t kf_w32(size_t off);
uint64_t kf_w64(size_t off);
void kf_out(uint16_t id, uint16_t len, uint64_t value);

#endif /* KCMD_FAKE_H */
