/* SPDX-License-Identifier: MIT */
/* Unit tests of the QP/CQ/SRQ/post/poll/context commands of the provider
 * ABI (lv_cmd_qp.c, lv_cmd_cq_srq.c, lv_cmd_post.c, lv_cmd_ctx.c).
 *
 * The cmd fd is a fake kernel: this binary defines write() and ioctl(),
 * which win over libc's for the library objects linked in.  On the fake
 * fd, write() keeps the exact request bytes, then copies the canned
 * response of the test to the response address the command carries
 * (the core's first u64, or the extended header's) and can fail with a
 * chosen errno afterwards, as the kernel does; ioctl() keeps the header
 * and its attributes and answers through the test's hook, or fails with
 * a chosen errno (ENOTTY, EOPNOTSUPP, ... for the write fallback).
 * Offsets and command numbers below are written from the kernel's
 * rdma/ib_user_verbs.h and ib_user_ioctl_cmds.h layouts, not from the
 * structs the library uses. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>

#include "libverbs/lv_cmd.h"
#include "libverbs/lv_kern.h"

int ibv_cmd_create_cq_ex(struct ibv_context *c,
			 const struct ibv_cq_init_attr_ex *attr,
			 struct verbs_cq *vcq, void *cmd, size_t cmd_size,
			 struct ib_uverbs_ex_create_cq_resp *resp,
			 size_t resp_size, uint32_t cmd_flags);
int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe, void *cmd, size_t cmd_size,
		      struct ib_uverbs_resize_cq_resp *resp, size_t resp_size);
int ibv_cmd_modify_cq(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr,
		      void *cmd, size_t cmd_size);
int ibv_cmd_create_srq_ex(struct ibv_context *c, struct verbs_srq *vsrq,
			  struct ibv_srq_init_attr_ex *attr, void *cmd,
			  size_t cmd_size,
			  struct ib_uverbs_create_srq_resp *resp,
			  size_t resp_size);
int ibv_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *a, int mask,
		       void *cmd, size_t cmd_size);
int ibv_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *a, void *cmd,
		      size_t cmd_size);
int ibv_cmd_create_qp_ex(struct ibv_context *c, struct verbs_qp *vqp,
			 struct ibv_qp_init_attr_ex *a, void *cmd,
			 size_t cmd_size,
			 struct ib_uverbs_create_qp_resp *resp,
			 size_t resp_size);
int ibv_cmd_create_qp_ex2(struct ibv_context *c, struct verbs_qp *vqp,
			  struct ibv_qp_init_attr_ex *a, void *cmd,
			  size_t cmd_size,
			  struct ib_uverbs_ex_create_qp_resp *resp,
			  size_t resp_size);
int ibv_cmd_modify_qp_ex(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int mask, void *cmd, size_t cmd_size,
			 struct ib_uverbs_ex_modify_qp_resp *resp,
			 size_t resp_size);
int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
		     struct ibv_qp_init_attr *init, void *cmd,
		     size_t cmd_size);
int ibv_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);
int ibv_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);
int ibv_cmd_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		      struct ibv_send_wr **bad_wr);
int ibv_cmd_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr);
int ibv_cmd_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad_wr);
int ibv_cmd_poll_cq(struct ibv_cq *cq, int ne, struct ibv_wc *wc);
int ibv_cmd_query_context(struct ibv_context *c,
			  struct ibv_command_buffer *driver);

/* ---- the fake kernel ---- */

static struct {
	int fd;
	uint8_t req[4096];
	size_t req_len;
	unsigned int writes, ioctls;
	const void *resp;		/* copied to the command's response */
	size_t resp_len;
	int write_errno;		/* after the response, as the kernel */
	int ioctl_errno;
	struct ib_uverbs_ioctl_hdr hdr;
	struct ib_uverbs_attr attrs[32];
	void (*answer)(struct ib_uverbs_ioctl_hdr *h);
} k = { .fd = -1 };

static uint32_t u32_at(size_t off)
{
	uint32_t v;

	memcpy(&v, k.req + off, 4);
	return v;
}

static uint64_t u64_at(size_t off)
{
	uint64_t v;

	memcpy(&v, k.req + off, 8);
	return v;
}

ssize_t write(int fd, const void *buf, size_t n)
{
	const uint8_t *b = buf;
	uint32_t command;
	uint64_t resp = 0;
	size_t room = 0;

	if (fd != k.fd || n < 8)
		return syscall(SYS_write, fd, buf, n);
	k.writes++;
	k.req_len = n;
	memcpy(k.req, buf, n < sizeof(k.req) ? n : sizeof(k.req));
	memcpy(&command, b, 4);
	if (command & IB_USER_VERBS_CMD_FLAG_EXTENDED) {
		uint16_t out = (uint16_t)(b[6] | b[7] << 8);
		uint16_t pout = (uint16_t)(b[18] | b[19] << 8);

		memcpy(&resp, b + 8, 8);
		room = (size_t)(out + pout) * 8;
	} else if (n >= 16) {
		memcpy(&resp, b + 8, 8);
		room = (size_t)(b[6] | b[7] << 8) * 4;
	}
	if (resp && k.resp)
		memcpy((void *)(uintptr_t)resp, k.resp,
		       k.resp_len < room ? k.resp_len : room);
	if (k.write_errno) {
		errno = k.write_errno;
		return -1;
	}
	return (ssize_t)n;
}

int ioctl(int fd, unsigned long req, ...)
{
	struct ib_uverbs_ioctl_hdr *h;
	va_list ap;

	va_start(ap, req);
	h = va_arg(ap, struct ib_uverbs_ioctl_hdr *);
	va_end(ap);
	if (fd != k.fd)
		return (int)syscall(SYS_ioctl, fd, req, h);
	k.ioctls++;
	assert_int_equal(req, RDMA_VERBS_IOCTL);
	k.hdr = *h;
	memcpy(k.attrs, h->attrs,
	       (h->num_attrs < 32 ? h->num_attrs : 32) * sizeof(k.attrs[0]));
	if (k.ioctl_errno) {
		errno = k.ioctl_errno;
		return -1;
	}
	if (k.answer)
		k.answer(h);
	return 0;
}

/* The recorded attribute with this id, or NULL. */
static struct ib_uverbs_attr *attr_of(uint16_t id)
{
	for (unsigned int i = 0; i < k.hdr.num_attrs && i < 32; i++)
		if (k.attrs[i].attr_id == id)
			return &k.attrs[i];
	return NULL;
}

static struct ib_uverbs_attr *live_attr(struct ib_uverbs_ioctl_hdr *h,
					uint16_t id)
{
	for (unsigned int i = 0; i < h->num_attrs; i++)
		if (h->attrs[i].attr_id == id)
			return &h->attrs[i];
	return NULL;
}

/* A kernel context of the rxe driver on the fake fd. */
static struct verbs_device vdev;
static struct verbs_context vctx;
static struct lv_kern_priv kpriv;
static struct ibv_context *ctx = &vctx.context;

static int setup(void **state)
{
	memset(&k, 0, sizeof(k));
	k.fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (k.fd < 0)
		return -1;
	memset(&vdev, 0, sizeof(vdev));
	memset(&vctx, 0, sizeof(vctx));
	memset(&kpriv, 0, sizeof(kpriv));
	kpriv.driver_id = RDMA_DRIVER_RXE;
	vctx.priv = (struct verbs_ex_private *)&kpriv;
	ctx->cmd_fd = k.fd;
	ctx->async_fd = 9;
	ctx->device = &vdev.device;
	return 0;
}

static int teardown(void **state)
{
	close(k.fd);
	k.fd = -1;
	return 0;
}

/* ---- create_cq_ex: ioctl, then the write fallback ---- */

struct cq_cmd {			/* rdma-core's ibv_create_cq_ex + driver */
	uint8_t hdr[24];
	uint8_t core[32];
	uint64_t driver;
};

struct cq_resp {
	struct ib_uverbs_ex_create_cq_resp core;
	uint64_t driver[2];
};

static void answer_cq(struct ib_uverbs_ioctl_hdr *h)
{
	struct ib_uverbs_attr *a = live_attr(h, UVERBS_ATTR_CREATE_CQ_HANDLE);
	struct ib_uverbs_attr *cqe = live_attr(h, UVERBS_ATTR_CREATE_CQ_RESP_CQE);
	struct ib_uverbs_attr *uhw = live_attr(h, UVERBS_ATTR_UHW_OUT);
	static const uint64_t drv[2] = { 0x1111, 0x2222 };
	uint32_t n = 128;

	assert_non_null(a);
	assert_non_null(cqe);
	assert_non_null(uhw);
	a->data = 0x77;
	memcpy((void *)(uintptr_t)cqe->data, &n, 4);
	assert_int_equal(uhw->len, 16);
	memcpy((void *)(uintptr_t)uhw->data, drv, 16);
}

static void test_cmd_ex__create_cq_ex_ioctl(void **state)
{
	struct ibv_comp_channel ch = { .fd = 42 };
	struct ibv_cq_init_attr_ex attr = {
		.cqe = 100, .channel = &ch, .comp_vector = 3,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS,
		.flags = IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN,
	};
	struct cq_cmd cmd = { .driver = 0xabcdef0123ull };
	struct cq_resp resp;
	struct verbs_cq vcq = { 0 };
	struct ib_uverbs_attr *a;
	uint32_t u32;

	k.answer = answer_cq;
	assert_int_equal(ibv_cmd_create_cq_ex(ctx, &attr, &vcq, &cmd,
					      sizeof(cmd), &resp.core,
					      sizeof(resp), 0), 0);
	assert_int_equal(k.ioctls, 1);
	assert_int_equal(k.writes, 0);
	/* object CQ (3), method CQ_CREATE (0), driver id, 10 attributes. */
	assert_int_equal(k.hdr.object_id, 3);
	assert_int_equal(k.hdr.method_id, 0);
	assert_int_equal(k.hdr.driver_id, RDMA_DRIVER_RXE);
	assert_int_equal(k.hdr.num_attrs, 10);
	assert_int_equal(k.hdr.length, 24 + 10 * 16);
	a = attr_of(UVERBS_ATTR_CREATE_CQ_CQE);
	assert_non_null(a);
	assert_int_equal(a->len, 4);
	assert_int_equal(a->flags, UVERBS_ATTR_F_MANDATORY);
	memcpy(&u32, &a->data, 4);
	assert_int_equal(u32, 100);
	a = attr_of(UVERBS_ATTR_CREATE_CQ_USER_HANDLE);
	assert_int_equal(a->len, 8);
	assert_int_equal(a->data, (uintptr_t)&vcq.cq);
	assert_int_equal(attr_of(UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL)->data, 42);
	memcpy(&u32, &attr_of(UVERBS_ATTR_CREATE_CQ_COMP_VECTOR)->data, 4);
	assert_int_equal(u32, 3);
	memcpy(&u32, &attr_of(UVERBS_ATTR_CREATE_CQ_FLAGS)->data, 4);
	assert_int_equal(u32, IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN);
	/* The async fd is optional: an older kernel still creates the CQ. */
	a = attr_of(UVERBS_ATTR_CREATE_CQ_EVENT_FD);
	assert_int_equal(a->data, 9);
	assert_int_equal(a->flags & UVERBS_ATTR_F_MANDATORY, 0);
	assert_int_equal(attr_of(UVERBS_ATTR_CREATE_CQ_RESP_CQE)->len, 4);
	/* The provider's 8 bytes of udata inline, its 16 out after core. */
	a = attr_of(UVERBS_ATTR_UHW_IN);
	assert_int_equal(a->len, 8);
	assert_int_equal(a->data, 0xabcdef0123ull);
	a = attr_of(UVERBS_ATTR_UHW_OUT);
	assert_int_equal(a->data, (uintptr_t)&resp.driver);
	/* The result. */
	assert_int_equal(vcq.cq.handle, 0x77);
	assert_int_equal(vcq.cq.cqe, 128);
	assert_ptr_equal(vcq.cq.context, ctx);
	assert_int_equal(resp.core.base.cq_handle, 0x77);
	assert_int_equal(resp.driver[0], 0x1111);
	assert_int_equal(resp.driver[1], 0x2222);
	/* A mask bit it does not know: refused before any I/O. */
	attr.comp_mask = 1u << 5;
	assert_int_equal(ibv_cmd_create_cq_ex(ctx, &attr, &vcq, NULL, 0, NULL,
					      0, 0), EOPNOTSUPP);
	assert_int_equal(k.ioctls, 1);
}

/* The extended write command the fallback sends, byte for byte. */
static void check_cq_write(const struct cq_resp *resp, uint32_t flags)
{
	assert_int_equal(k.req_len, sizeof(struct cq_cmd));
	assert_int_equal(u32_at(0), 0x80000000u | 18);	/* EX | CREATE_CQ */
	assert_int_equal(k.req[4], 32 / 8);		/* core in words */
	assert_int_equal(k.req[6], 16 / 8);		/* core out words */
	assert_int_equal(u64_at(8), (uintptr_t)resp);	/* response */
	assert_int_equal(k.req[16], 8 / 8);		/* provider in */
	assert_int_equal(k.req[18], 16 / 8);		/* provider out */
	assert_int_equal(u32_at(24 + 8), 100);		/* cqe */
	assert_int_equal(u32_at(24 + 12), 3);		/* comp_vector */
	assert_int_equal(u32_at(24 + 16), (uint32_t)-1);/* no channel */
	assert_int_equal(u32_at(24 + 24), flags);
	assert_int_equal(u64_at(56), 0xabcdef0123ull);	/* driver data */
}

static void test_cmd_ex__create_cq_ex_enotty_falls_back(void **state)
{
	struct ibv_cq_init_attr_ex attr = { .cqe = 100, .comp_vector = 3 };
	struct cq_cmd cmd = { .driver = 0xabcdef0123ull };
	struct cq_resp canned = {
		.core.base = { .cq_handle = 0x55, .cqe = 256 },
		.driver = { 7, 8 },
	};
	struct cq_resp resp;
	struct verbs_cq vcq = { 0 };

	k.ioctl_errno = ENOTTY;
	k.resp = &canned;
	k.resp_len = sizeof(canned);
	assert_int_equal(ibv_cmd_create_cq_ex(ctx, &attr, &vcq, &cmd,
					      sizeof(cmd), &resp.core,
					      sizeof(resp), 0), 0);
	assert_int_equal(k.ioctls, 1);
	assert_int_equal(k.writes, 1);
	check_cq_write(&resp, 0);
	assert_int_equal(u64_at(24), (uintptr_t)&vcq.cq);	/* user_handle */
	assert_int_equal(vcq.cq.handle, 0x55);
	assert_int_equal(vcq.cq.cqe, 256);
	assert_int_equal(resp.driver[1], 8);
	/* No ioctl framework: the next create goes straight to write. */
	assert_int_equal(ibv_cmd_create_cq_ex(ctx, &attr, &vcq, &cmd,
					      sizeof(cmd), &resp.core,
					      sizeof(resp), 0), 0);
	assert_int_equal(k.ioctls, 1);
	assert_int_equal(k.writes, 2);
}

static void test_cmd_ex__create_cq_ex_eopnotsupp_falls_back(void **state)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = 100, .comp_vector = 3,
		.wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP,
	};
	struct cq_cmd cmd = { .driver = 0xabcdef0123ull };
	struct cq_resp resp;
	struct verbs_cq vcq = { 0 };
	static const int fallback[] = { EOPNOTSUPP, EPROTONOSUPPORT };

	for (size_t i = 0; i < 2; i++) {
		memset(kpriv.unsupported_ioctls, 0,
		       sizeof(kpriv.unsupported_ioctls));
		k.ioctl_errno = fallback[i];
		k.ioctls = k.writes = 0;
		assert_int_equal(ibv_cmd_create_cq_ex(ctx, &attr, &vcq, &cmd,
						      sizeof(cmd), &resp.core,
						      sizeof(resp), 0), 0);
		assert_int_equal(k.ioctls, 1);
		assert_int_equal(k.writes, 1);
		/* The timestamp flag travels in the extended command. */
		check_cq_write(&resp, IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION);
		/* Only this method is remembered as refused. */
		assert_int_not_equal(kpriv.unsupported_ioctls[0], 0);
		assert_int_not_equal(kpriv.unsupported_ioctls[0], ~0ull);
	}
	/* A provider whose kernel ignores the flag (TS_IGNORED_EX). */
	assert_int_equal(ibv_cmd_create_cq_ex(ctx, &attr, &vcq, &cmd,
					      sizeof(cmd), &resp.core,
					      sizeof(resp), 1), 0);
	check_cq_write(&resp, 0);
	/* Any other ioctl failure is the answer: no write. */
	memset(kpriv.unsupported_ioctls, 0, sizeof(kpriv.unsupported_ioctls));
	k.ioctl_errno = EINVAL;
	k.writes = 0;
	assert_int_equal(ibv_cmd_create_cq_ex(ctx, &attr, &vcq, &cmd,
					      sizeof(cmd), &resp.core,
					      sizeof(resp), 0), EINVAL);
	assert_int_equal(k.writes, 0);
}

/* ---- resize/modify CQ ---- */

static void test_cmd_ex__resize_cq_request(void **state)
{
	struct ibv_cq cq = { .context = ctx, .handle = 0x31, .cqe = 64 };
	struct {
		uint8_t hdr[8], core[16];
		uint64_t driver;
	} cmd = { .driver = 0x99 };
	struct {
		struct ib_uverbs_resize_cq_resp core;
		uint64_t mi[2];
	} resp, canned = { .core.cqe = 1023, .mi = { 5, 6 } };

	k.resp = &canned;
	k.resp_len = sizeof(canned);
	assert_int_equal(ibv_cmd_resize_cq(&cq, 1000, &cmd, sizeof(cmd),
					   &resp.core, sizeof(resp)), 0);
	assert_int_equal(k.req_len, 32);
	assert_int_equal(u32_at(0), 19);		/* RESIZE_CQ */
	assert_int_equal(k.req[4], 32 / 4);
	assert_int_equal(k.req[6], 24 / 4);
	assert_int_equal(u64_at(8), (uintptr_t)&resp);
	assert_int_equal(u32_at(16), 0x31);		/* cq_handle */
	assert_int_equal(u32_at(20), 1000);		/* cqe */
	assert_int_equal(u64_at(24), 0x99);
	assert_int_equal(cq.cqe, 1023);
	assert_int_equal(resp.mi[1], 6);
	/* The kernel's refusal is the answer; cqe stays. */
	k.write_errno = EINVAL;
	assert_int_equal(ibv_cmd_resize_cq(&cq, 1 << 30, &cmd, sizeof(cmd),
					   &resp.core, sizeof(resp)), EINVAL);
	assert_int_equal(cq.cqe, 1023);
}

static void test_cmd_ex__modify_cq_request(void **state)
{
	struct ibv_cq cq = { .context = ctx, .handle = 0x32 };
	struct ibv_modify_cq_attr a = {
		.attr_mask = IBV_CQ_ATTR_MODERATE,
		.moderate = { .cq_count = 16, .cq_period = 100 },
	};

	assert_int_equal(ibv_cmd_modify_cq(&cq, &a, NULL, 0), 0);
	assert_int_equal(k.req_len, 24 + 16);
	assert_int_equal(u32_at(0), 0x80000000u | 57);	/* EX | MODIFY_CQ */
	assert_int_equal(k.req[4], 2);			/* 16 bytes */
	assert_int_equal(k.req[6], 0);
	assert_int_equal(u32_at(24), 0x32);
	assert_int_equal(u32_at(28), IBV_CQ_ATTR_MODERATE);
	assert_int_equal(u32_at(32), 16 | 100 << 16);
	a.attr_mask = IBV_CQ_ATTR_RESERVED;
	assert_int_equal(ibv_cmd_modify_cq(&cq, &a, NULL, 0), EINVAL);
	assert_int_equal(k.writes, 1);
}

/* ---- SRQ ---- */

static void test_cmd_ex__create_srq_ex_xrc(void **state)
{
	struct verbs_xrcd xrcd = { .handle = 0x41 };
	struct ibv_pd pd = { .context = ctx, .handle = 0x42 };
	struct ibv_cq cq = { .context = ctx, .handle = 0x43 };
	struct ibv_srq_init_attr_ex a = {
		.srq_context = &pd,
		.attr = { .max_wr = 100, .max_sge = 2, .srq_limit = 5 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC, .pd = &pd, .xrcd = &xrcd.xrcd,
		.cq = &cq,
	};
	struct ib_uverbs_create_srq_resp canned = {
		.srq_handle = 0x44, .max_wr = 128, .max_sge = 4, .srqn = 0x4567,
	}, resp;
	struct verbs_srq vsrq = { 0 };

	k.resp = &canned;
	k.resp_len = sizeof(canned);
	assert_int_equal(ibv_cmd_create_srq_ex(ctx, &vsrq, &a, NULL, 0, &resp,
					       sizeof(resp)), 0);
	assert_int_equal(k.req_len, 8 + 48);
	assert_int_equal(u32_at(0), 39);		/* CREATE_XSRQ */
	assert_int_equal(k.req[4], 56 / 4);
	assert_int_equal(k.req[6], 16 / 4);
	assert_int_equal(u64_at(8), (uintptr_t)&resp);
	assert_int_equal(u64_at(16), (uintptr_t)&vsrq.srq);	/* user_handle */
	assert_int_equal(u32_at(24), IBV_SRQT_XRC);
	assert_int_equal(u32_at(28), 0x42);		/* pd */
	assert_int_equal(u32_at(32), 100);
	assert_int_equal(u32_at(36), 2);
	assert_int_equal(u32_at(40), 5);
	assert_int_equal(u32_at(48), 0x41);		/* xrcd */
	assert_int_equal(u32_at(52), 0x43);		/* cq */
	assert_int_equal(vsrq.srq.handle, 0x44);
	assert_ptr_equal(vsrq.srq.context, ctx);
	assert_ptr_equal(vsrq.srq.pd, &pd);
	assert_ptr_equal(vsrq.srq.srq_context, &pd);
	assert_int_equal(vsrq.srq_type, IBV_SRQT_XRC);
	assert_int_equal(vsrq.srq_num, 0x4567);
	assert_ptr_equal(vsrq.xrcd, &xrcd);
	assert_ptr_equal(vsrq.cq, &cq);
	assert_int_equal(a.attr.max_wr, 128);
	assert_int_equal(a.attr.max_sge, 4);
	/* XRC without its domain, or no PD: refused before any I/O. */
	a.comp_mask &= ~(uint32_t)IBV_SRQ_INIT_ATTR_XRCD;
	assert_int_equal(ibv_cmd_create_srq_ex(ctx, &vsrq, &a, NULL, 0, NULL,
					       0), EINVAL);
	a.comp_mask = IBV_SRQ_INIT_ATTR_TYPE;
	assert_int_equal(ibv_cmd_create_srq_ex(ctx, &vsrq, &a, NULL, 0, NULL,
					       0), EINVAL);
	a.comp_mask = IBV_SRQ_INIT_ATTR_RESERVED;
	assert_int_equal(ibv_cmd_create_srq_ex(ctx, &vsrq, &a, NULL, 0, NULL,
					       0), EOPNOTSUPP);
	assert_int_equal(k.writes, 1);
}

static void test_cmd_ex__modify_query_srq(void **state)
{
	struct ibv_srq srq = { .context = ctx, .handle = 0x51 };
	struct ibv_srq_attr a = { .max_wr = 64, .srq_limit = 7 };
	struct {
		uint8_t hdr[8], core[16];
		uint64_t mmap_info;
	} cmd = { .mmap_info = 0xfeed };
	struct ib_uverbs_query_srq_resp canned = {
		.max_wr = 255, .max_sge = 3, .srq_limit = 7,
	};

	assert_int_equal(ibv_cmd_modify_srq(&srq, &a, IBV_SRQ_LIMIT, &cmd,
					    sizeof(cmd)), 0);
	assert_int_equal(k.req_len, 32);
	assert_int_equal(u32_at(0), 33);		/* MODIFY_SRQ */
	assert_int_equal(k.req[4], 8);
	assert_int_equal(k.req[6], 0);
	assert_int_equal(u32_at(8), 0x51);
	assert_int_equal(u32_at(12), IBV_SRQ_LIMIT);
	assert_int_equal(u32_at(16), 64);
	assert_int_equal(u32_at(20), 7);
	assert_int_equal(u64_at(24), 0xfeed);
	memset(&a, 0, sizeof(a));
	k.resp = &canned;
	k.resp_len = sizeof(canned);
	assert_int_equal(ibv_cmd_query_srq(&srq, &a, NULL, 0), 0);
	assert_int_equal(k.req_len, 24);
	assert_int_equal(u32_at(0), 34);		/* QUERY_SRQ */
	assert_int_equal(k.req[6], 16 / 4);
	assert_int_equal(u32_at(16), 0x51);
	assert_int_equal(a.max_wr, 255);
	assert_int_equal(a.max_sge, 3);
	assert_int_equal(a.srq_limit, 7);
}

/* ---- QP ---- */

static struct ibv_pd qp_pd = { .handle = 0x61 };
static struct ibv_cq qp_scq = { .handle = 0x62 }, qp_rcq = { .handle = 0x63 };
static struct ibv_srq qp_srq = { .handle = 0x64 };

static void test_cmd_ex__create_qp_ex_request(void **state)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_context = &qp_pd, .send_cq = &qp_scq, .recv_cq = &qp_rcq,
		.srq = &qp_srq, .qp_type = IBV_QPT_RC, .sq_sig_all = 1,
		.cap = { 16, 0, 2, 1, 64 },
		.comp_mask = IBV_QP_INIT_ATTR_PD, .pd = &qp_pd,
	};
	struct ib_uverbs_create_qp_resp canned = {
		.qp_handle = 0x65, .qpn = 0x123, .max_send_wr = 32,
		.max_recv_wr = 0, .max_send_sge = 2, .max_recv_sge = 1,
		.max_inline_data = 128,
	}, resp;
	struct verbs_qp vqp = { 0 };

	k.resp = &canned;
	k.resp_len = sizeof(canned);
	assert_int_equal(ibv_cmd_create_qp_ex(ctx, &vqp, &a, NULL, 0, &resp,
					      sizeof(resp)), 0);
	assert_int_equal(k.req_len, 8 + 56);
	assert_int_equal(u32_at(0), 24);		/* CREATE_QP */
	assert_int_equal(k.req[4], 64 / 4);
	assert_int_equal(k.req[6], 32 / 4);
	assert_int_equal(u64_at(8), (uintptr_t)&resp);
	assert_int_equal(u64_at(16), (uintptr_t)&vqp.qp);
	assert_int_equal(u32_at(24), 0x61);		/* pd */
	assert_int_equal(u32_at(28), 0x62);		/* send cq */
	assert_int_equal(u32_at(32), 0x63);		/* recv cq */
	assert_int_equal(u32_at(36), 0x64);		/* srq */
	assert_int_equal(u32_at(40), 16);		/* max_send_wr */
	assert_int_equal(u32_at(56), 64);		/* max_inline */
	assert_int_equal(k.req[60], 1);			/* sq_sig_all */
	assert_int_equal(k.req[61], IBV_QPT_RC);
	assert_int_equal(k.req[62], 1);			/* is_srq */
	assert_int_equal(vqp.qp.handle, 0x65);
	assert_int_equal(vqp.qp.qp_num, 0x123);
	assert_int_equal(vqp.qp.state, IBV_QPS_RESET);
	assert_ptr_equal(vqp.qp.context, ctx);
	assert_ptr_equal(vqp.qp.pd, &qp_pd);
	assert_ptr_equal(vqp.qp.srq, &qp_srq);
	assert_ptr_equal(vqp.qp.qp_context, &qp_pd);
	assert_int_equal(a.cap.max_send_wr, 32);
	assert_int_equal(a.cap.max_inline_data, 128);
	assert_int_equal(vqp.comp_mask, 0);
	/* XRC target: the domain's handle takes the PD's place, no CQs. */
	struct verbs_xrcd xrcd = { .handle = 0x66 };
	struct ibv_qp_init_attr_ex x = {
		.qp_type = IBV_QPT_XRC_RECV, .comp_mask = IBV_QP_INIT_ATTR_XRCD,
		.xrcd = &xrcd.xrcd,
	};

	assert_int_equal(ibv_cmd_create_qp_ex(ctx, &vqp, &x, NULL, 0, &resp,
					      sizeof(resp)), 0);
	assert_int_equal(u32_at(24), 0x66);
	assert_int_equal(u32_at(28), 0);
	assert_int_equal(k.req[61], IBV_QPT_XRC_RECV);
	assert_int_equal(vqp.comp_mask, LV_VQP_XRCD);
	assert_ptr_equal(vqp.xrcd, &xrcd);
	/* Create flags need the extended command; an RC QP needs its CQs. */
	a.comp_mask |= IBV_QP_INIT_ATTR_CREATE_FLAGS;
	assert_int_equal(ibv_cmd_create_qp_ex(ctx, &vqp, &a, NULL, 0, NULL, 0),
			 EINVAL);
	a.comp_mask = IBV_QP_INIT_ATTR_PD;
	a.recv_cq = NULL;
	assert_int_equal(ibv_cmd_create_qp_ex(ctx, &vqp, &a, NULL, 0, NULL, 0),
			 EINVAL);
	assert_int_equal(k.writes, 2);
}

static void test_cmd_ex__create_qp_ex2_request(void **state)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = &qp_scq, .recv_cq = &qp_rcq, .qp_type = IBV_QPT_UD,
		.cap = { 8, 8, 1, 1, 0 },
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS,
		.pd = &qp_pd, .create_flags = IBV_QP_CREATE_SOURCE_QPN,
		.source_qpn = 0x1001,
	};
	struct {			/* rxe: core response + 2 mmap infos */
		struct ib_uverbs_ex_create_qp_resp core;
		uint64_t mi[4];
	} canned = {
		.core.base = { .qp_handle = 0x67, .qpn = 0x456,
			       .max_send_wr = 8, .max_recv_wr = 16,
			       .max_send_sge = 1, .max_recv_sge = 1 },
		.mi = { 1, 2, 3, 4 },
	}, resp;
	struct verbs_qp vqp = { 0 };
	uint8_t cmd[24 + 64] = { 0 };	/* rdma-core's ibv_create_qp_ex */

	k.resp = &canned;
	k.resp_len = sizeof(canned);
	assert_int_equal(ibv_cmd_create_qp_ex2(ctx, &vqp, &a, cmd, sizeof(cmd),
					       &resp.core, sizeof(resp)), 0);
	assert_int_equal(k.req_len, 24 + 64);
	assert_int_equal(u32_at(0), 0x80000000u | 24);	/* EX | CREATE_QP */
	assert_int_equal(k.req[4], 64 / 8);
	assert_int_equal(k.req[6], 40 / 8);
	assert_int_equal(u64_at(8), (uintptr_t)&resp);
	assert_int_equal(k.req[16], 0);			/* no provider in */
	assert_int_equal(k.req[18], 32 / 8);		/* 2 mmap infos */
	assert_int_equal(u64_at(24), (uintptr_t)&vqp.qp);
	assert_int_equal(u32_at(32), 0x61);
	assert_int_equal(u32_at(36), 0x62);
	assert_int_equal(u32_at(40), 0x63);
	assert_int_equal(k.req[24 + 45], IBV_QPT_UD);
	assert_int_equal(u32_at(24 + 52), IBV_QP_CREATE_SOURCE_QPN);
	assert_int_equal(u32_at(24 + 60), 0x1001);
	assert_int_equal(vqp.qp.handle, 0x67);
	assert_int_equal(vqp.qp.qp_num, 0x456);
	assert_int_equal(a.cap.max_recv_wr, 16);
	assert_int_equal(resp.mi[3], 4);
	/* A create flag outside rdma-core 44's set. */
	a.create_flags = 1u << 30;
	assert_int_equal(ibv_cmd_create_qp_ex2(ctx, &vqp, &a, cmd, sizeof(cmd),
					       NULL, 0), EINVAL);
	assert_int_equal(k.writes, 1);
}

static void test_cmd_ex__modify_qp_ex_rate_limit(void **state)
{
	struct ibv_qp qp = { .context = ctx, .handle = 0x71 };
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTS, .rate_limit = 5000 };
	struct ib_uverbs_ex_modify_qp_resp resp;

	assert_int_equal(ibv_cmd_modify_qp_ex(&qp, &a, IBV_QP_STATE |
					      IBV_QP_RATE_LIMIT, NULL, 0,
					      &resp, sizeof(resp)), 0);
	assert_int_equal(k.req_len, 24 + 120);
	assert_int_equal(u32_at(0), 0x80000000u | 26);	/* EX | MODIFY_QP */
	assert_int_equal(k.req[4], 120 / 8);
	assert_int_equal(k.req[6], 8 / 8);
	assert_int_equal(u64_at(8), (uintptr_t)&resp);
	assert_int_equal(u32_at(24 + 64), 0x71);	/* qp_handle */
	assert_int_equal(u32_at(24 + 68), IBV_QP_STATE | IBV_QP_RATE_LIMIT);
	assert_int_equal(k.req[24 + 96], IBV_QPS_RTS);
	assert_int_equal(u32_at(24 + 112), 5000);	/* rate_limit */
	assert_int_equal(qp.state, IBV_QPS_RTS);
	assert_int_equal(ibv_cmd_modify_qp_ex(&qp, &a, IBV_QP_RATE_LIMIT << 1,
					      NULL, 0, NULL, 0), EOPNOTSUPP);
	/* A refused transition leaves the state. */
	a.qp_state = IBV_QPS_ERR;
	k.write_errno = EINVAL;
	assert_int_equal(ibv_cmd_modify_qp_ex(&qp, &a, IBV_QP_STATE, NULL, 0,
					      NULL, 0), EINVAL);
	assert_int_equal(qp.state, IBV_QPS_RTS);
}

static void test_cmd_ex__query_qp_fills_attrs(void **state)
{
	struct ibv_qp qp = {
		.context = ctx, .handle = 0x72, .qp_context = &qp_pd,
		.send_cq = &qp_scq, .recv_cq = &qp_rcq, .qp_type = IBV_QPT_RC,
	};
	struct ib_uverbs_query_qp_resp canned = {
		.dest = { .dlid = 9, .sgid_index = 1, .hop_limit = 64,
			  .is_global = 1, .port_num = 1 },
		.max_send_wr = 33, .max_recv_wr = 34, .max_inline_data = 60,
		.qkey = 0x11111111, .rq_psn = 0x222, .sq_psn = 0x333,
		.dest_qp_num = 0x444, .qp_access_flags = 7,
		.qp_state = IBV_QPS_RTS, .path_mtu = IBV_MTU_1024,
		.max_rd_atomic = 4, .port_num = 1, .timeout = 14,
		.retry_cnt = 7, .rnr_retry = 6, .sq_sig_all = 1,
	};
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr init;
	uint8_t cmd[8 + 16];

	canned.dest.dgid[15] = 0xaa;
	k.resp = &canned;
	k.resp_len = sizeof(canned);
	assert_int_equal(ibv_cmd_query_qp(&qp, &a, IBV_QP_STATE | IBV_QP_AV,
					  &init, cmd, sizeof(cmd)), 0);
	assert_int_equal(k.req_len, 24);
	assert_int_equal(u32_at(0), 25);		/* QUERY_QP */
	assert_int_equal(k.req[6], 128 / 4);
	assert_int_equal(u32_at(16), 0x72);
	assert_int_equal(u32_at(20), IBV_QP_STATE | IBV_QP_AV);
	assert_int_equal(a.qp_state, IBV_QPS_RTS);
	assert_int_equal(a.path_mtu, IBV_MTU_1024);
	assert_int_equal(a.dest_qp_num, 0x444);
	assert_int_equal(a.rq_psn, 0x222);
	assert_int_equal(a.sq_psn, 0x333);
	assert_int_equal(a.qkey, 0x11111111);
	assert_int_equal(a.qp_access_flags, 7);
	assert_int_equal(a.max_rd_atomic, 4);
	assert_int_equal(a.rnr_retry, 6);
	assert_int_equal(a.cap.max_send_wr, 33);
	assert_int_equal(a.ah_attr.dlid, 9);
	assert_int_equal(a.ah_attr.grh.hop_limit, 64);
	assert_int_equal(a.ah_attr.grh.dgid.raw[15], 0xaa);
	assert_int_equal(a.ah_attr.is_global, 1);
	assert_ptr_equal(init.send_cq, &qp_scq);
	assert_ptr_equal(init.qp_context, &qp_pd);
	assert_int_equal(init.qp_type, IBV_QPT_RC);
	assert_int_equal(init.cap.max_recv_wr, 34);
	assert_int_equal(init.sq_sig_all, 1);
	assert_int_equal(ibv_cmd_query_qp(&qp, &a, IBV_QP_RATE_LIMIT, &init,
					  cmd, sizeof(cmd)), EOPNOTSUPP);
	assert_int_equal(k.writes, 1);
}

static void test_cmd_ex__mcast_requests(void **state)
{
	struct ibv_qp qp = { .context = ctx, .handle = 0x73 };
	union ibv_gid gid = { .raw = { 0xff, 0x0e, [15] = 0x34 } };

	assert_int_equal(ibv_cmd_attach_mcast(&qp, &gid, 0xc001), 0);
	assert_int_equal(k.req_len, 32);
	assert_int_equal(u32_at(0), 30);		/* ATTACH_MCAST */
	assert_int_equal(k.req[4], 8);
	assert_int_equal(k.req[6], 0);
	assert_memory_equal(k.req + 8, gid.raw, 16);
	assert_int_equal(u32_at(24), 0x73);
	assert_int_equal(k.req[28] | k.req[29] << 8, 0xc001);
	assert_int_equal(ibv_cmd_detach_mcast(&qp, &gid, 0xc001), 0);
	assert_int_equal(u32_at(0), 31);		/* DETACH_MCAST */
	assert_int_equal(u32_at(24), 0x73);
	k.write_errno = EINVAL;
	assert_int_equal(ibv_cmd_detach_mcast(&qp, &gid, 0xc001), EINVAL);
}

/* ---- post and poll over the cmd fd ---- */

static void test_cmd_ex__post_send_layout_and_bad_wr(void **state)
{
	struct ibv_qp qp = { .context = ctx, .handle = 0x81,
			     .qp_type = IBV_QPT_RC };
	struct ibv_sge s1[2] = { { 0x1000, 100, 0xa }, { 0x2000, 200, 0xb } };
	struct ibv_sge s2 = { 0x3000, 300, 0xc };
	struct ibv_send_wr w2 = {
		.wr_id = 22, .sg_list = &s2, .num_sge = 1,
		.opcode = IBV_WR_SEND_WITH_IMM, .imm_data = 0x5a5a,
	};
	struct ibv_send_wr w1 = {
		.wr_id = 11, .next = &w2, .sg_list = s1, .num_sge = 2,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { 0xbeef0000, 0x77 },
	};
	struct ib_uverbs_post_send_resp bad = { .bad_wr = 2 };
	struct ibv_send_wr *bad_wr = NULL;
	size_t wrs = 32, sges = 32 + 2 * 56;

	assert_int_equal(ibv_cmd_post_send(&qp, &w1, &bad_wr), 0);
	assert_null(bad_wr);
	assert_int_equal(k.req_len, 32 + 2 * 56 + 3 * 16);
	assert_int_equal(u32_at(0), 28);		/* POST_SEND */
	assert_int_equal(u32_at(4) & 0xffff, (32 + 2 * 56 + 3 * 16) / 4);
	assert_int_equal(k.req[6], 4 / 4);
	assert_int_equal(u32_at(16), 0x81);		/* qp_handle */
	assert_int_equal(u32_at(20), 2);		/* wr_count */
	assert_int_equal(u32_at(24), 3);		/* sge_count */
	assert_int_equal(u32_at(28), 56);		/* wqe_size */
	assert_int_equal(u64_at(wrs), 11);
	assert_int_equal(u32_at(wrs + 8), 2);
	assert_int_equal(u32_at(wrs + 12), IBV_WR_RDMA_WRITE);
	assert_int_equal(u32_at(wrs + 16), IBV_SEND_SIGNALED);
	assert_int_equal(u64_at(wrs + 24), 0xbeef0000);
	assert_int_equal(u32_at(wrs + 32), 0x77);
	assert_int_equal(u64_at(wrs + 56), 22);
	assert_int_equal(u32_at(wrs + 56 + 12), IBV_WR_SEND_WITH_IMM);
	assert_int_equal(u32_at(wrs + 56 + 20), 0x5a5a);	/* imm */
	assert_int_equal(u64_at(sges), 0x1000);
	assert_int_equal(u32_at(sges + 8), 100);
	assert_int_equal(u32_at(sges + 12), 0xa);
	assert_int_equal(u64_at(sges + 16), 0x2000);
	assert_int_equal(u64_at(sges + 32), 0x3000);
	assert_int_equal(u32_at(sges + 44), 0xc);
	/* The kernel refuses the second WR: it names it, 1-based. */
	k.resp = &bad;
	k.resp_len = sizeof(bad);
	k.write_errno = EINVAL;
	assert_int_equal(ibv_cmd_post_send(&qp, &w1, &bad_wr), EINVAL);
	assert_ptr_equal(bad_wr, &w2);
	/* An index past the chain is not followed: the first WR. */
	bad.bad_wr = 9;
	assert_int_equal(ibv_cmd_post_send(&qp, &w1, &bad_wr), EINVAL);
	assert_ptr_equal(bad_wr, &w1);
	/* Negative num_sge: refused, nothing sent. */
	k.writes = 0;
	w2.num_sge = -1;
	assert_int_equal(ibv_cmd_post_send(&qp, &w1, &bad_wr), EINVAL);
	assert_ptr_equal(bad_wr, &w2);
	assert_int_equal(k.writes, 0);
}

static void test_cmd_ex__post_send_ud_and_too_big(void **state)
{
	struct ibv_qp qp = { .context = ctx, .handle = 0x82,
			     .qp_type = IBV_QPT_UD };
	struct ibv_ah ah = { .handle = 0x83 };
	struct ibv_sge s = { 0x1000, 64, 1 };
	struct ibv_send_wr w = {
		.wr_id = 1, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND,
		.wr.ud = { .ah = &ah, .remote_qpn = 0x99, .remote_qkey = 0x1111 },
	};
	struct ibv_send_wr *bad_wr = NULL;
	static struct ibv_sge many[20000];

	assert_int_equal(ibv_cmd_post_send(&qp, &w, &bad_wr), 0);
	assert_int_equal(u32_at(32 + 24), 0x83);	/* ud.ah */
	assert_int_equal(u32_at(32 + 28), 0x99);
	assert_int_equal(u32_at(32 + 32), 0x1111);
	w.wr.ud.ah = NULL;
	assert_int_equal(ibv_cmd_post_send(&qp, &w, &bad_wr), EINVAL);
	assert_ptr_equal(bad_wr, &w);
	/* More than the 16-bit word count can say: refused, not cut. */
	w.wr.ud.ah = &ah;
	w.sg_list = many;
	w.num_sge = 20000;
	bad_wr = NULL;
	assert_int_equal(ibv_cmd_post_send(&qp, &w, &bad_wr), EINVAL);
	assert_ptr_equal(bad_wr, &w);
	assert_int_equal(k.writes, 1);
}

static void test_cmd_ex__post_recv_and_srq_recv(void **state)
{
	struct ibv_qp qp = { .context = ctx, .handle = 0x84 };
	struct ibv_srq srq = { .context = ctx, .handle = 0x85 };
	struct ibv_sge s[3] = { { 0x10, 1, 2 }, { 0x20, 3, 4 }, { 0x30, 5, 6 } };
	struct ibv_recv_wr r2 = { .wr_id = 8, .sg_list = s + 2, .num_sge = 1 };
	struct ibv_recv_wr r1 = { .wr_id = 7, .next = &r2, .sg_list = s,
				  .num_sge = 2 };
	struct ibv_recv_wr *bad = NULL;
	struct ib_uverbs_post_recv_resp kbad = { .bad_wr = 1 };

	assert_int_equal(ibv_cmd_post_recv(&qp, &r1, &bad), 0);
	assert_int_equal(k.req_len, 32 + 2 * 16 + 3 * 16);
	assert_int_equal(u32_at(0), 29);		/* POST_RECV */
	assert_int_equal(u32_at(16), 0x84);
	assert_int_equal(u32_at(20), 2);
	assert_int_equal(u32_at(24), 3);
	assert_int_equal(u32_at(28), 16);		/* wqe_size */
	assert_int_equal(u64_at(32), 7);
	assert_int_equal(u32_at(40), 2);
	assert_int_equal(u64_at(48), 8);
	assert_int_equal(u64_at(64 + 32), 0x30);	/* third SGE */
	assert_int_equal(u32_at(64 + 44), 6);
	k.resp = &kbad;
	k.resp_len = sizeof(kbad);
	k.write_errno = ENOMEM;
	assert_int_equal(ibv_cmd_post_srq_recv(&srq, &r1, &bad), ENOMEM);
	assert_int_equal(u32_at(0), 36);		/* POST_SRQ_RECV */
	assert_int_equal(u32_at(16), 0x85);
	assert_ptr_equal(bad, &r1);
}

static void test_cmd_ex__poll_cq(void **state)
{
	struct ibv_cq cq = { .context = ctx, .handle = 0x91 };
	struct {
		struct ib_uverbs_poll_cq_resp h;
		struct ib_uverbs_wc wc[3];
	} canned = {
		.h.count = 2,
		.wc = {
			{ .wr_id = 5, .status = IBV_WC_SUCCESS,
			  .opcode = IBV_WC_RECV, .byte_len = 64,
			  .ex.imm_data = 0x1234, .qp_num = 0x10,
			  .src_qp = 0x20, .wc_flags = IBV_WC_WITH_IMM,
			  .pkey_index = 1, .slid = 2, .sl = 3,
			  .dlid_path_bits = 4 },
			{ .wr_id = 6, .status = IBV_WC_REM_ACCESS_ERR,
			  .opcode = IBV_WC_RDMA_WRITE, .vendor_err = 0x99 },
		},
	};
	struct ibv_wc wc[4];

	memset(wc, 0xff, sizeof(wc));
	k.resp = &canned;
	k.resp_len = sizeof(canned);
	assert_int_equal(ibv_cmd_poll_cq(&cq, 4, wc), 2);
	assert_int_equal(k.req_len, 24);
	assert_int_equal(u32_at(0), 21);		/* POLL_CQ */
	assert_int_equal(k.req[6], (8 + 4 * 48) / 4);
	assert_int_equal(u32_at(16), 0x91);
	assert_int_equal(u32_at(20), 4);		/* ne */
	assert_int_equal(wc[0].wr_id, 5);
	assert_int_equal(wc[0].opcode, IBV_WC_RECV);
	assert_int_equal(wc[0].byte_len, 64);
	assert_int_equal(wc[0].imm_data, 0x1234);
	assert_int_equal(wc[0].src_qp, 0x20);
	assert_int_equal(wc[0].wc_flags, IBV_WC_WITH_IMM);
	assert_int_equal(wc[0].dlid_path_bits, 4);
	assert_int_equal(wc[1].status, IBV_WC_REM_ACCESS_ERR);
	assert_int_equal(wc[1].vendor_err, 0x99);
	assert_int_equal(wc[2].wr_id, ~0ull);		/* untouched */
	/* A count above what was asked for is cut to ne. */
	canned.h.count = 9;
	assert_int_equal(ibv_cmd_poll_cq(&cq, 1, wc), 1);
	assert_int_equal(ibv_cmd_poll_cq(&cq, 0, wc), 0);
	assert_int_equal(ibv_cmd_poll_cq(&cq, -1, wc), -1);
	assert_int_equal(errno, EINVAL);
	k.write_errno = EIO;
	assert_int_equal(ibv_cmd_poll_cq(&cq, 1, wc), -1);
	assert_int_equal(errno, EIO);
}

/* ---- query_context over ioctl, with a provider's linked attribute ---- */

static void answer_ctx(struct ib_uverbs_ioctl_hdr *h)
{
	struct ib_uverbs_attr *v =
		live_attr(h, UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS);
	struct ib_uverbs_attr *s =
		live_attr(h, UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT);
	uint32_t n = 4;
	uint64_t bits = 0x3;

	memcpy((void *)(uintptr_t)v->data, &n, 4);
	memcpy((void *)(uintptr_t)s->data, &bits, 8);
}

static void test_cmd_ex__query_context_ioctl(void **state)
{
	struct {
		struct ibv_command_buffer b;
		struct ib_uverbs_attr a[1];
	} drv = { 0 };

	drv.b.hdr.object_id = UVERBS_OBJECT_DEVICE;
	drv.b.hdr.method_id = UVERBS_METHOD_QUERY_CONTEXT;
	drv.b.uhw_in_idx = drv.b.uhw_out_idx = LV_UHW_NO_INDEX;
	drv.b.next_attr = drv.b.hdr.attrs + 1;
	drv.b.last_attr = drv.b.hdr.attrs + 1;
	drv.b.hdr.attrs[0].attr_id = 0x1005;	/* a driver attribute */
	k.answer = answer_ctx;
	assert_int_equal(ibv_cmd_query_context(ctx, &drv.b), 0);
	assert_int_equal(k.hdr.object_id, 0);		/* DEVICE */
	assert_int_equal(k.hdr.method_id, 4);		/* QUERY_CONTEXT */
	assert_int_equal(k.hdr.num_attrs, 3);
	assert_int_equal(k.attrs[0].attr_id, 0);	/* NUM_COMP_VECTORS */
	assert_int_equal(k.attrs[0].len, 4);
	assert_int_equal(k.attrs[1].attr_id, 1);	/* CORE_SUPPORT */
	assert_int_equal(k.attrs[1].len, 8);
	assert_int_equal(k.attrs[2].attr_id, 0x1005);
	assert_int_equal(ctx->num_comp_vectors, 4);
	assert_int_equal(vdev.core_support, 0x3);
	/* Errors are the kernel's, and nothing is written back. */
	k.ioctl_errno = EPROTONOSUPPORT;
	ctx->num_comp_vectors = 1;
	assert_int_equal(ibv_cmd_query_context(ctx, &drv.b), EPROTONOSUPPORT);
	assert_int_equal(ctx->num_comp_vectors, 1);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_cmd_ex__create_cq_ex_ioctl),
		T(test_cmd_ex__create_cq_ex_enotty_falls_back),
		T(test_cmd_ex__create_cq_ex_eopnotsupp_falls_back),
		T(test_cmd_ex__resize_cq_request),
		T(test_cmd_ex__modify_cq_request),
		T(test_cmd_ex__create_srq_ex_xrc),
		T(test_cmd_ex__modify_query_srq),
		T(test_cmd_ex__create_qp_ex_request),
		T(test_cmd_ex__create_qp_ex2_request),
		T(test_cmd_ex__modify_qp_ex_rate_limit),
		T(test_cmd_ex__query_qp_fills_attrs),
		T(test_cmd_ex__mcast_requests),
		T(test_cmd_ex__post_send_layout_and_bad_wr),
		T(test_cmd_ex__post_send_ud_and_too_big),
		T(test_cmd_ex__post_recv_and_srq_recv),
		T(test_cmd_ex__poll_cq),
		T(test_cmd_ex__query_context_ioctl),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
