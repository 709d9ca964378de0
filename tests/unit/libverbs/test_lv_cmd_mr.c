/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the memory and XRC commands providers call
 * (lv_cmd_mr.c, lv_cmd_xrc.c) and of ibv_rereg_mr/ibv_reg_dmabuf_mr on a
 * kernel context (lv_kern_mr.c), against the fake cmd fd of kcmd_fake.c:
 * the exact request (write bytes at the offsets ib_user_verbs.h defines;
 * ioctl object, method, driver id and attributes of
 * ib_user_ioctl_cmds.h), canned kernel answers landing in the caller's
 * structs, kernel errors returned (and in errno where rdma-core sets it),
 * and the ioctl-to-write fallback on ENOTTY / EPROTONOSUPPORT.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "libverbs/lv_cmd.h"
#include "libverbs/lv_cmd_attr.h"
#include "tests/unit/libverbs/kcmd_fake.h"

int ibv_cmd_rereg_mr(struct verbs_mr *vmr, uint32_t flags, void *addr,
		     size_t length, uint64_t hca_va, int access,
		     struct ibv_pd *pd, void *cmd, size_t cmd_size,
		     struct ib_uverbs_rereg_mr_resp *resp, size_t resp_size);
int ibv_cmd_query_mr(struct ibv_pd *pd, struct verbs_mr *vmr,
		     uint32_t mr_handle);
int ibv_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
			  uint64_t iova, int fd, int access,
			  struct verbs_mr *vmr);
int ibv_cmd_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		      uint32_t flags, struct ibv_sge *sg_list,
		      uint32_t num_sge);
int ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
		     struct ibv_mw *mw, void *cmd, size_t cmd_size,
		     struct ib_uverbs_alloc_mw_resp *resp, size_t resp_size);
int ibv_cmd_dealloc_mw(struct ibv_mw *mw);
int ibv_cmd_alloc_dm(struct ibv_context *ctx,
		     const struct ibv_alloc_dm_attr *dm_attr,
		     struct verbs_dm *dm, struct ibv_command_buffer *link);
int ibv_cmd_free_dm(struct verbs_dm *dm);
int ibv_cmd_reg_dm_mr(struct ibv_pd *pd, struct verbs_dm *dm,
		      uint64_t offset, size_t length, unsigned int access,
		      struct verbs_mr *vmr, struct ibv_command_buffer *link);
int ibv_cmd_open_xrcd(struct ibv_context *context, struct verbs_xrcd *xrcd,
		      int vxrcd_size, struct ibv_xrcd_init_attr *attr,
		      void *cmd, size_t cmd_size,
		      struct ib_uverbs_open_xrcd_resp *resp, size_t resp_size);
int ibv_cmd_close_xrcd(struct verbs_xrcd *xrcd);
int ibv_cmd_open_qp(struct ibv_context *context, struct verbs_qp *qp,
		    int vqp_sz, struct ibv_qp_open_attr *attr, void *cmd,
		    size_t cmd_size, struct ib_uverbs_create_qp_resp *resp,
		    size_t resp_size);
int execute_ioctl(struct ibv_context *context, struct ibv_command_buffer *cmd);
extern bool verbs_allow_disassociate_destroy;

static int setup(void **state)
{
	kf_reset();
	verbs_allow_disassociate_destroy = false;
	return 0;
}

static void assert_ioctl(uint16_t object, uint16_t method, uint16_t nattrs)
{
	assert_int_equal(kf.ihdr.object_id, object);
	assert_int_equal(kf.ihdr.method_id, method);
	assert_int_equal(kf.ihdr.num_attrs, nattrs);
	assert_int_equal(kf.ihdr.length, 24 + 16 * nattrs);
	assert_int_equal(kf.ihdr.driver_id, RDMA_DRIVER_RXE);
	assert_int_equal(kf.ihdr.reserved1, 0);
}

/* An attribute as sent: mandatory, its length and its data. */
static void assert_attr(uint16_t id, uint16_t len, uint64_t data)
{
	const struct ib_uverbs_attr *a = kf_attr(id);

	assert_non_null(a);
	assert_int_equal(a->flags, UVERBS_ATTR_F_MANDATORY);
	assert_int_equal(a->len, len);
	assert_int_equal(a->data, data);
}

/* rereg_mr: header (command 11, 16 words in, 2 out), then the core of
 * ib_uverbs_rereg_mr (response @8, mr_handle @16, flags @20, start @24,
 * length @32, hca_va @40, pd_handle @48, access @52) and the provider's
 * 8 bytes; the new keys land in the verbs_mr. */
static void test_cmd_mr__rereg_request(void **state)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_rereg_mr core;
		uint64_t driver;
	} cmd = { .driver = 0x1122334455667788ull };
	struct ib_uverbs_rereg_mr_resp canned = { .lkey = 0x77, .rkey = 0x88 };
	struct ib_uverbs_rereg_mr_resp resp = { 0 };
	struct ibv_pd pd = { .context = kf_ctx(), .handle = 9 };
	struct verbs_mr vmr = { .ibv_mr = { .context = kf_ctx(), .handle = 5 } };
	char buf[64];

	kf.wresp = &canned;
	kf.wresp_len = sizeof(canned);
	assert_int_equal(ibv_cmd_rereg_mr(&vmr, IBV_REREG_MR_CHANGE_PD |
					  IBV_REREG_MR_CHANGE_TRANSLATION, buf,
					  sizeof(buf), 0x4000,
					  IBV_ACCESS_LOCAL_WRITE, &pd, &cmd,
					  sizeof(cmd), &resp, sizeof(resp)), 0);
	assert_int_equal(kf.wlen, 64);
	assert_int_equal(kf_w32(0), IB_USER_VERBS_CMD_REREG_MR);
	assert_int_equal(kf_w32(0), 11);
	assert_int_equal(kf_w16(4), 64 / 4);
	assert_int_equal(kf_w16(6), 8 / 4);
	assert_int_equal(kf_w64(8), (uintptr_t)&resp);
	assert_int_equal(kf_w32(16), 5);
	assert_int_equal(kf_w32(20), IBV_REREG_MR_CHANGE_PD |
			 IBV_REREG_MR_CHANGE_TRANSLATION);
	assert_int_equal(kf_w64(24), (uintptr_t)buf);
	assert_int_equal(kf_w64(32), sizeof(buf));
	assert_int_equal(kf_w64(40), 0x4000);
	assert_int_equal(kf_w32(48), 9);
	assert_int_equal(kf_w32(52), IBV_ACCESS_LOCAL_WRITE);
	assert_int_equal(kf_w64(56), 0x1122334455667788ull);
	assert_int_equal(vmr.ibv_mr.lkey, 0x77);
	assert_int_equal(vmr.ibv_mr.rkey, 0x88);
	/* Without CHANGE_PD no PD handle is sent; the kernel's errno is
	 * the result and the MR keeps its keys. */
	kf.werr = EACCES;
	assert_int_equal(ibv_cmd_rereg_mr(&vmr, IBV_REREG_MR_CHANGE_ACCESS, NULL,
					  0, 0, 0, &pd, NULL, 0, NULL, 0),
			 EACCES);
	assert_int_equal(kf.wlen, 8 + sizeof(struct ib_uverbs_rereg_mr));
	assert_int_equal(kf_w32(48), 0);
	assert_int_equal(vmr.ibv_mr.lkey, 0x77);
}

/* alloc_mw over write (command 14: pd_handle @16, mw_type @20), the
 * handle and rkey from the response; dealloc_mw by ioctl (MW/DESTROY,
 * the handle as an object attribute), then on a kernel without the
 * ioctl framework (ENOTTY) by write (command 16), and from then on by
 * write only. */
static void test_cmd_mr__mw_alloc_dealloc_fallback(void **state)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_alloc_mw core;
	} cmd;
	struct ib_uverbs_alloc_mw_resp canned = { .mw_handle = 3, .rkey = 0xabc };
	struct ib_uverbs_alloc_mw_resp resp;
	struct ibv_pd pd = { .context = kf_ctx(), .handle = 4 };
	struct ibv_mw mw = { 0 };

	kf.wresp = &canned;
	kf.wresp_len = sizeof(canned);
	assert_int_equal(ibv_cmd_alloc_mw(&pd, IBV_MW_TYPE_2, &mw, &cmd,
					  sizeof(cmd), &resp, sizeof(resp)), 0);
	assert_int_equal(kf_w32(0), 14);
	assert_int_equal(kf_w16(4), 24 / 4);
	assert_int_equal(kf_w16(6), 8 / 4);
	assert_int_equal(kf_w32(16), 4);
	assert_int_equal(kf.wbuf[20], IBV_MW_TYPE_2);
	assert_int_equal(mw.handle, 3);
	assert_int_equal(mw.rkey, 0xabc);
	assert_int_equal(mw.type, IBV_MW_TYPE_2);
	assert_ptr_equal(mw.pd, &pd);
	assert_ptr_equal(mw.context, kf_ctx());

	kf.wresp = NULL;
	kf.writes = 0;
	assert_int_equal(ibv_cmd_dealloc_mw(&mw), 0);
	assert_int_equal(kf.ioctls, 1);
	assert_int_equal(kf.writes, 0);
	assert_ioctl(UVERBS_OBJECT_MW, UVERBS_METHOD_MW_DESTROY, 1);
	assert_attr(UVERBS_ATTR_DESTROY_MW_HANDLE, 0, 3);

	kf.ierr = ENOTTY;
	assert_int_equal(ibv_cmd_dealloc_mw(&mw), 0);
	assert_int_equal(kf.ioctls, 2);
	assert_int_equal(kf.writes, 1);
	assert_int_equal(kf.wlen, 12);
	assert_int_equal(kf_w32(0), 16);
	assert_int_equal(kf_w16(4), 3);
	assert_int_equal(kf_w32(8), 3);
	assert_int_equal(ibv_cmd_dealloc_mw(&mw), 0);
	assert_int_equal(kf.ioctls, 2);
	assert_int_equal(kf.writes, 2);
	/* The write's error comes back; EIO counts as done once destroys on
	 * a disassociated device are allowed. */
	kf.werr = EIO;
	assert_int_equal(ibv_cmd_dealloc_mw(&mw), EIO);
	verbs_allow_disassociate_destroy = true;
	assert_int_equal(ibv_cmd_dealloc_mw(&mw), 0);
	kf.werr = EINVAL;
	assert_int_equal(ibv_cmd_dealloc_mw(&mw), EINVAL);
}

/* EPROTONOSUPPORT refuses this one method: close_xrcd falls back to the
 * write (command 38, the handle @8) and keeps doing so, while dealloc_mw
 * still tries its ioctl; an ioctl error other than those two is the
 * result, with no write. */
static void test_cmd_mr__xrcd_close_eprotonosupport(void **state)
{
	struct verbs_xrcd x = { .xrcd = { .context = kf_ctx() }, .handle = 8 };
	struct ibv_mw mw = { .context = kf_ctx(), .handle = 1 };

	assert_int_equal(ibv_cmd_close_xrcd(&x), 0);
	assert_ioctl(UVERBS_OBJECT_XRCD, UVERBS_METHOD_XRCD_DESTROY, 1);
	assert_attr(UVERBS_ATTR_DESTROY_XRCD_HANDLE, 0, 8);
	assert_int_equal(kf.writes, 0);
	kf.ierr = EPROTONOSUPPORT;
	assert_int_equal(ibv_cmd_close_xrcd(&x), 0);
	assert_int_equal(kf.writes, 1);
	assert_int_equal(kf_w32(0), 38);
	assert_int_equal(kf_w32(8), 8);
	kf.ierr = 0;
	assert_int_equal(ibv_cmd_close_xrcd(&x), 0);
	assert_int_equal(kf.ioctls, 2);
	assert_int_equal(kf.writes, 2);
	assert_int_equal(ibv_cmd_dealloc_mw(&mw), 0);
	assert_int_equal(kf.ioctls, 3);
	kf.ierr = EBUSY;
	assert_int_equal(ibv_cmd_dealloc_mw(&mw), EBUSY);
	assert_int_equal(kf.writes, 2);
}

/* query_mr: ioctl MR/QUERY_MR with the handle and three outputs whose
 * pointers are the MR's own fields; the answers land there. */
static void test_cmd_mr__query_mr(void **state)
{
	struct ibv_pd pd = { .context = kf_ctx(), .handle = 2 };
	struct verbs_mr vmr = { 0 };

	kf_out(UVERBS_ATTR_QUERY_MR_RESP_LKEY, 4, 0x1234);
	kf_out(UVERBS_ATTR_QUERY_MR_RESP_RKEY, 4, 0x5678);
	kf_out(UVERBS_ATTR_QUERY_MR_RESP_LENGTH, 8, 1 << 20);
	assert_int_equal(ibv_cmd_query_mr(&pd, &vmr, 0x42), 0);
	assert_ioctl(UVERBS_OBJECT_MR, UVERBS_METHOD_QUERY_MR, 4);
	assert_attr(UVERBS_ATTR_QUERY_MR_HANDLE, 0, 0x42);
	assert_attr(UVERBS_ATTR_QUERY_MR_RESP_LKEY, 4,
		    (uintptr_t)&vmr.ibv_mr.lkey);
	assert_attr(UVERBS_ATTR_QUERY_MR_RESP_LENGTH, 8,
		    (uintptr_t)&vmr.ibv_mr.length);
	assert_int_equal(vmr.ibv_mr.lkey, 0x1234);
	assert_int_equal(vmr.ibv_mr.rkey, 0x5678);
	assert_int_equal(vmr.ibv_mr.length, 1 << 20);
	assert_int_equal(vmr.ibv_mr.handle, 0x42);
	assert_ptr_equal(vmr.ibv_mr.pd, &pd);
	assert_null(vmr.ibv_mr.addr);
	assert_int_equal(vmr.mr_type, LV_MR_TYPE_IMPORTED_MR);
	/* ioctl only: ENOTTY is the result, there is no write. */
	kf.ierr = ENOTTY;
	assert_int_equal(ibv_cmd_query_mr(&pd, &vmr, 0x42), ENOTTY);
	assert_int_equal(kf.writes, 0);
}

/* reg_dmabuf_mr: nine attributes, inputs inline (u64 offset, length,
 * iova; u32 fd, access), the handle and keys back; a failure is the
 * errno. */
static void test_cmd_mr__reg_dmabuf_mr(void **state)
{
	struct ibv_pd pd = { .context = kf_ctx(), .handle = 6 };
	struct verbs_mr vmr = { 0 };

	kf_out(UVERBS_ATTR_REG_DMABUF_MR_HANDLE, 0, 0x31);
	kf_out(UVERBS_ATTR_REG_DMABUF_MR_RESP_LKEY, 4, 0x100);
	kf_out(UVERBS_ATTR_REG_DMABUF_MR_RESP_RKEY, 4, 0x200);
	assert_int_equal(ibv_cmd_reg_dmabuf_mr(&pd, 0x1000, 0x2000, 0x3000, 12,
					       IBV_ACCESS_REMOTE_READ, &vmr), 0);
	assert_ioctl(UVERBS_OBJECT_MR, UVERBS_METHOD_REG_DMABUF_MR, 9);
	assert_attr(UVERBS_ATTR_REG_DMABUF_MR_PD_HANDLE, 0, 6);
	assert_attr(UVERBS_ATTR_REG_DMABUF_MR_OFFSET, 8, 0x1000);
	assert_attr(UVERBS_ATTR_REG_DMABUF_MR_LENGTH, 8, 0x2000);
	assert_attr(UVERBS_ATTR_REG_DMABUF_MR_IOVA, 8, 0x3000);
	assert_attr(UVERBS_ATTR_REG_DMABUF_MR_FD, 4, 12);
	assert_attr(UVERBS_ATTR_REG_DMABUF_MR_ACCESS_FLAGS, 4,
		    IBV_ACCESS_REMOTE_READ);
	assert_int_equal(vmr.ibv_mr.handle, 0x31);
	assert_int_equal(vmr.ibv_mr.lkey, 0x100);
	assert_int_equal(vmr.ibv_mr.rkey, 0x200);
	assert_int_equal((uintptr_t)vmr.ibv_mr.addr, 0x1000);
	assert_int_equal(vmr.ibv_mr.length, 0x2000);
	assert_int_equal(vmr.mr_type, LV_MR_TYPE_DMABUF_MR);
	kf.ierr = EBADF;
	errno = 0;
	assert_int_equal(ibv_cmd_reg_dmabuf_mr(&pd, 0, 1, 0, 99, 0, &vmr),
			 EBADF);
	assert_int_equal(errno, EBADF);
}

/* advise_mr: the advice as a u64 constant, the SGE list by address with
 * its whole length. */
static void test_cmd_mr__advise_mr(void **state)
{
	struct ibv_pd pd = { .context = kf_ctx(), .handle = 7 };
	struct ibv_sge sg[3] = { { .addr = 1, .length = 2, .lkey = 3 } };

	assert_int_equal(ibv_cmd_advise_mr(&pd,
					   IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
					   IBV_ADVISE_MR_FLAG_FLUSH, sg, 3), 0);
	assert_ioctl(UVERBS_OBJECT_MR, UVERBS_METHOD_ADVISE_MR, 4);
	assert_attr(UVERBS_ATTR_ADVISE_MR_PD_HANDLE, 0, 7);
	assert_attr(UVERBS_ATTR_ADVISE_MR_ADVICE, 8,
		    IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE);
	assert_attr(UVERBS_ATTR_ADVISE_MR_FLAGS, 4, IBV_ADVISE_MR_FLAG_FLUSH);
	assert_attr(UVERBS_ATTR_ADVISE_MR_SGE_LIST, 3 * 16, (uintptr_t)sg);
	kf.ierr = EOPNOTSUPP;
	assert_int_equal(ibv_cmd_advise_mr(&pd, 0, 0, sg, 1), EOPNOTSUPP);
}

/* Device memory: alloc (length u64, alignment u32, handle back), the
 * driver's linked attribute appended; reg_dm_mr wants a zero-based MR;
 * free_dm by handle. */
static void test_cmd_mr__dm(void **state)
{
	struct {
		struct ibv_command_buffer b;
		struct ib_uverbs_attr a[1];
	} drv = { 0 };
	struct ibv_alloc_dm_attr attr = { .length = 4096, .log_align_req = 6 };
	struct ibv_pd pd = { .context = kf_ctx(), .handle = 1 };
	struct verbs_dm dm = { 0 };
	struct verbs_mr vmr = { 0 };

	drv.b.hdr.object_id = UVERBS_OBJECT_DM;
	drv.b.hdr.method_id = UVERBS_METHOD_DM_ALLOC;
	drv.b.uhw_in_idx = drv.b.uhw_out_idx = LV_UHW_NO_INDEX;
	drv.b.next_attr = drv.b.hdr.attrs + 1;
	drv.b.last_attr = drv.b.hdr.attrs + 1;
	drv.a[0].attr_id = 0x1001;
	drv.a[0].len = 4;
	kf_out(UVERBS_ATTR_ALLOC_DM_HANDLE, 0, 0x55);
	assert_int_equal(ibv_cmd_alloc_dm(kf_ctx(), &attr, &dm, &drv.b), 0);
	assert_ioctl(UVERBS_OBJECT_DM, UVERBS_METHOD_DM_ALLOC, 4);
	assert_attr(UVERBS_ATTR_ALLOC_DM_LENGTH, 8, 4096);
	assert_attr(UVERBS_ATTR_ALLOC_DM_ALIGNMENT, 4, 6);
	assert_int_equal(kf.iattrs[3].attr_id, 0x1001);
	assert_int_equal(dm.handle, 0x55);
	assert_int_equal(dm.dm.handle, 0x55);
	assert_int_equal(dm.dm.comp_mask, IBV_DM_MASK_HANDLE);
	assert_ptr_equal(dm.dm.context, kf_ctx());

	kf.ioctls = 0;
	errno = 0;
	assert_int_equal(ibv_cmd_reg_dm_mr(&pd, &dm, 0, 64, 0, &vmr, NULL),
			 EINVAL);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(kf.ioctls, 0);
	kf_reset();
	kf_out(UVERBS_ATTR_REG_DM_MR_HANDLE, 0, 0x66);
	kf_out(UVERBS_ATTR_REG_DM_MR_RESP_LKEY, 4, 0x10);
	kf_out(UVERBS_ATTR_REG_DM_MR_RESP_RKEY, 4, 0x20);
	assert_int_equal(ibv_cmd_reg_dm_mr(&pd, &dm, 128, 64,
					   IBV_ACCESS_ZERO_BASED, &vmr, NULL), 0);
	assert_ioctl(UVERBS_OBJECT_MR, UVERBS_METHOD_DM_MR_REG, 8);
	assert_attr(UVERBS_ATTR_REG_DM_MR_DM_HANDLE, 0, 0x55);
	assert_attr(UVERBS_ATTR_REG_DM_MR_OFFSET, 8, 128);
	assert_attr(UVERBS_ATTR_REG_DM_MR_ACCESS_FLAGS, 4,
		    IBV_ACCESS_ZERO_BASED);
	assert_int_equal(vmr.ibv_mr.handle, 0x66);
	assert_int_equal(vmr.ibv_mr.lkey, 0x10);
	assert_int_equal(vmr.ibv_mr.length, 64);
	assert_null(vmr.ibv_mr.addr);
	assert_int_equal(ibv_cmd_free_dm(&dm), 0);
	assert_ioctl(UVERBS_OBJECT_DM, UVERBS_METHOD_DM_FREE, 1);
	assert_attr(UVERBS_ATTR_FREE_DM_HANDLE, 0, 0x55);
	/* A link too long for the command's room fails, nothing sent. */
	kf.ioctls = 0;
	drv.b.next_attr = drv.b.hdr.attrs + 1;
	drv.b.last_attr = drv.b.hdr.attrs + 1;
	{
		struct {
			struct ibv_command_buffer b;
			struct ib_uverbs_attr a[LV_CMDB_MAX];
		} big = { 0 };

		big.b = drv.b;
		big.b.next_attr = big.b.hdr.attrs + LV_CMDB_MAX;
		big.b.last_attr = big.b.next_attr;
		assert_int_equal(ibv_cmd_alloc_dm(kf_ctx(), &attr, &dm,
						  &big.b), EINVAL);
		assert_int_equal(kf.ioctls, 0);
	}
}

/* open_xrcd: command 37 with fd @16 and oflags @20; both comp_mask bits
 * required (EINVAL), unknown bits EOPNOTSUPP, nothing written then; a
 * provider struct too short for the handle gets none. */
static void test_cmd_mr__open_xrcd(void **state)
{
	struct ib_uverbs_open_xrcd_resp canned = { .xrcd_handle = 0x21 };
	struct ib_uverbs_open_xrcd_resp resp;
	struct ibv_xrcd_init_attr attr = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = 5, .oflags = O_CREAT,
	};
	struct verbs_xrcd x = { 0 };

	kf.wresp = &canned;
	kf.wresp_len = sizeof(canned);
	assert_int_equal(ibv_cmd_open_xrcd(kf_ctx(), &x, sizeof(x), &attr, NULL,
					   0, &resp, sizeof(resp)), 0);
	assert_int_equal(kf_w32(0), 37);
	assert_int_equal(kf_w16(4), 24 / 4);
	assert_int_equal(kf_w16(6), 4 / 4);
	assert_int_equal(kf_w64(8), (uintptr_t)&resp);
	assert_int_equal(kf_w32(16), 5);
	assert_int_equal(kf_w32(20), O_CREAT);
	assert_int_equal(x.handle, 0x21);
	assert_int_equal(x.comp_mask, 1);
	assert_ptr_equal(x.xrcd.context, kf_ctx());
	memset(&x, 0, sizeof(x));
	assert_int_equal(ibv_cmd_open_xrcd(kf_ctx(), &x,
					   offsetof(struct verbs_xrcd, handle),
					   &attr, NULL, 0, &resp,
					   sizeof(resp)), 0);
	assert_int_equal(x.comp_mask, 0);
	assert_int_equal(x.handle, 0);
	kf.writes = 0;
	attr.comp_mask = IBV_XRCD_INIT_ATTR_FD;
	assert_int_equal(ibv_cmd_open_xrcd(kf_ctx(), &x, sizeof(x), &attr, NULL,
					   0, &resp, sizeof(resp)), EINVAL);
	attr.comp_mask = IBV_XRCD_INIT_ATTR_RESERVED;
	assert_int_equal(ibv_cmd_open_xrcd(kf_ctx(), &x, sizeof(x), &attr, NULL,
					   0, &resp, sizeof(resp)), EOPNOTSUPP);
	assert_int_equal(kf.writes, 0);
}

/* open_qp: command 40 (user_handle @16, the XRC domain's handle as
 * pd_handle @24, qpn @28, qp_type @32); the QP is filled as an opened
 * one: no PD or CQs, state unknown, its XRCD recorded. */
static void test_cmd_mr__open_qp(void **state)
{
	struct ib_uverbs_create_qp_resp canned = { .qp_handle = 0x70 };
	struct ib_uverbs_create_qp_resp resp;
	struct verbs_xrcd x = { .xrcd = { .context = kf_ctx() }, .handle = 0x21 };
	struct ibv_qp_open_attr attr = {
		.comp_mask = IBV_QP_OPEN_ATTR_XRCD | IBV_QP_OPEN_ATTR_NUM |
			     IBV_QP_OPEN_ATTR_TYPE | IBV_QP_OPEN_ATTR_CONTEXT,
		.qp_num = 0x1234, .xrcd = &x.xrcd, .qp_context = &x,
		.qp_type = IBV_QPT_XRC_RECV,
	};
	struct verbs_qp qp = { 0 };

	kf.wresp = &canned;
	kf.wresp_len = sizeof(canned);
	assert_int_equal(ibv_cmd_open_qp(kf_ctx(), &qp, sizeof(qp), &attr, NULL,
					 0, &resp, sizeof(resp)), 0);
	assert_int_equal(kf_w32(0), 40);
	assert_int_equal(kf_w16(4), 40 / 4);
	assert_int_equal(kf_w64(16), (uintptr_t)&qp);
	assert_int_equal(kf_w32(24), 0x21);
	assert_int_equal(kf_w32(28), 0x1234);
	assert_int_equal(kf.wbuf[32], IBV_QPT_XRC_RECV);
	assert_int_equal(qp.qp.handle, 0x70);
	assert_int_equal(qp.qp.qp_num, 0x1234);
	assert_int_equal(qp.qp.state, IBV_QPS_UNKNOWN);
	assert_null(qp.qp.pd);
	assert_ptr_equal(qp.qp.qp_context, &x);
	assert_int_equal(qp.comp_mask, LV_VQP_XRCD);
	assert_ptr_equal(qp.xrcd, &x);
	attr.comp_mask = IBV_QP_OPEN_ATTR_XRCD;
	assert_int_equal(ibv_cmd_open_qp(kf_ctx(), &qp, sizeof(qp), &attr, NULL,
					 0, &resp, sizeof(resp)), EINVAL);
	attr.comp_mask = IBV_QP_OPEN_ATTR_RESERVED;
	assert_int_equal(ibv_cmd_open_qp(kf_ctx(), &qp, sizeof(qp), &attr, NULL,
					 0, &resp, sizeof(resp)), EOPNOTSUPP);
}

/* The builders never write past the command's room: one attribute too
 * many, or a value longer than the ABI's 16-bit length, marks the buffer
 * and execute_ioctl refuses it (EINVAL, errno too) without an ioctl. */
static void test_cmd_mr__attr_room(void **state)
{
	struct lv_cmdb c;
	uint8_t big[8];

	lv_cmdb_init(&c, UVERBS_OBJECT_MR, UVERBS_METHOD_QUERY_MR, 4, NULL);
	for (int i = 0; i < LV_CMDB_MAX; i++)
		lv_attr_in_u32(&c, (uint16_t)i, (uint32_t)i);
	assert_int_equal(c.b.buffer_error, 0);
	assert_ptr_equal(c.b.next_attr, c.attrs + LV_CMDB_MAX);
	lv_attr_in_u32(&c, 99, 1);
	assert_int_equal(c.b.buffer_error, 1);
	assert_ptr_equal(c.b.next_attr, c.attrs + LV_CMDB_MAX);
	errno = 0;
	assert_int_equal(execute_ioctl(kf_ctx(), &c.b), EINVAL);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(kf.ioctls, 0);

	lv_cmdb_init(&c, UVERBS_OBJECT_MR, UVERBS_METHOD_QUERY_MR, 1, NULL);
	lv_attr_in(&c, 1, big, (size_t)UINT16_MAX + 1);
	assert_int_equal(c.b.buffer_error, 1);
	assert_int_equal(execute_ioctl(kf_ctx(), &c.b), EINVAL);
	assert_int_equal(kf.ioctls, 0);
	/* Up to 8 bytes go inline, longer by address. */
	lv_cmdb_init(&c, UVERBS_OBJECT_MR, UVERBS_METHOD_QUERY_MR, 2, NULL);
	memcpy(big, "abcdefgh", 8);
	assert_memory_equal(&lv_attr_in(&c, 1, big, 8)->data, "abcdefgh", 8);
	assert_int_equal(lv_attr_in(&c, 2, big, 9)->data, (uintptr_t)big);
}

/* The public verbs on a kernel context go to the provider's ops. */
static int rereg_calls;
static int fake_rereg(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		      void *addr, size_t length, int access)
{
	rereg_calls++;
	return flags & IBV_REREG_MR_CHANGE_ACCESS ? 0 : EINVAL;
}

static void test_cmd_mr__public_rereg_dispatch(void **state)
{
	struct lv_kern_priv *priv = lv_kern_priv(kf_ctx());
	static char page[8192] __attribute__((aligned(4096)));
	struct ibv_pd pd = { .context = kf_ctx() }, pd2 = { .context = kf_ctx() };
	struct verbs_mr vmr = {
		.ibv_mr = { .context = kf_ctx(), .pd = &pd, .addr = page,
			    .length = 4096 },
	};
	struct ibv_mr *mr = &vmr.ibv_mr;

	/* No op: rdma-core's dummy result, errno EOPNOTSUPP. */
	errno = 0;
	assert_int_equal(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL,
				      NULL, 0, IBV_ACCESS_LOCAL_WRITE),
			 IBV_REREG_MR_ERR_CMD);
	assert_int_equal(errno, EOPNOTSUPP);
	errno = 0;
	assert_null(ibv_reg_dmabuf_mr(&pd, 0, 4096, 0, 3, 0));
	assert_int_equal(errno, EOPNOTSUPP);
	priv->ops.rereg_mr = fake_rereg;
	/* Bad input never reaches the provider. */
	assert_int_equal(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL,
				      NULL, 0, 0), IBV_REREG_MR_ERR_INPUT);
	assert_int_equal(ibv_rereg_mr(mr, 0, NULL, NULL, 0,
				      IBV_ACCESS_LOCAL_WRITE),
			 IBV_REREG_MR_ERR_INPUT);
	vmr.mr_type = LV_MR_TYPE_DMABUF_MR;
	assert_int_equal(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL,
				      NULL, 0, 0), IBV_REREG_MR_ERR_INPUT);
	assert_int_equal(errno, EINVAL);
	vmr.mr_type = LV_MR_TYPE_MR;
	assert_int_equal(rereg_calls, 0);
	assert_int_equal(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS |
				      IBV_REREG_MR_CHANGE_PD |
				      IBV_REREG_MR_CHANGE_TRANSLATION, &pd2,
				      page + 4096, 4096, 0), 0);
	assert_int_equal(rereg_calls, 1);
	assert_ptr_equal(mr->pd, &pd2);
	assert_ptr_equal(mr->addr, page + 4096);
	/* The provider refused: the MR stays as it was. */
	assert_int_equal(ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, &pd, NULL, 0,
				      0), IBV_REREG_MR_ERR_CMD);
	assert_ptr_equal(mr->pd, &pd2);
	priv->ops.rereg_mr = NULL;
}

static struct ibv_mr imported;
static int unimports;
static struct ibv_mr *fake_import_mr(struct ibv_pd *pd, uint32_t handle)
{
	imported.handle = handle;
	imported.pd = pd;
	imported.context = pd->context;
	return &imported;
}

static void fake_unimport_mr(struct ibv_mr *mr)
{
	unimports++;
}

/* ibv_import_mr/pd/dm on a kernel context: the provider's op, or NULL
 * with EOPNOTSUPP (an unimport: nothing) without one. */
static void test_cmd_mr__public_import_dispatch(void **state)
{
	struct lv_kern_priv *priv = lv_kern_priv(kf_ctx());
	struct ibv_pd pd = { .context = kf_ctx() };

	errno = 0;
	assert_null(ibv_import_mr(&pd, 5));
	assert_int_equal(errno, EOPNOTSUPP);
	errno = 0;
	assert_null(ibv_import_pd(kf_ctx(), 5));
	assert_int_equal(errno, EOPNOTSUPP);
	errno = 0;
	assert_null(ibv_import_dm(kf_ctx(), 5));
	assert_int_equal(errno, EOPNOTSUPP);
	imported.context = kf_ctx();
	ibv_unimport_mr(&imported);
	ibv_unimport_pd(&pd);
	assert_int_equal(unimports, 0);
	priv->ops.import_mr = fake_import_mr;
	priv->ops.unimport_mr = fake_unimport_mr;
	assert_ptr_equal(ibv_import_mr(&pd, 0x2b), &imported);
	assert_int_equal(imported.handle, 0x2b);
	assert_ptr_equal(imported.pd, &pd);
	ibv_unimport_mr(&imported);
	assert_int_equal(unimports, 1);
	priv->ops.import_mr = NULL;
	priv->ops.unimport_mr = NULL;
}

int main(void)
{
#define T(name) cmocka_unit_test_setup(test_cmd_mr__##name, setup)
	const struct CMUnitTest tests[] = {
		T(rereg_request),
		T(mw_alloc_dealloc_fallback),
		T(xrcd_close_eprotonosupport),
		T(query_mr),
		T(reg_dmabuf_mr),
		T(advise_mr),
		T(dm),
		T(open_xrcd),
		T(open_qp),
		T(attr_room),
		T(public_rereg_dispatch),
		T(public_import_dispatch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
