/* SPDX-License-Identifier: MIT */
/* Unit tests of the uverbs write-ABI encoders (lv_cmd_write.c) and the
 * ibv_cmd_* requests built on them (lv_cmd_verbs.c).  A context's cmd fd
 * is a pipe here: the exact bytes a command writes are read back and
 * compared with the request the kernel's ib_user_verbs.h layout defines
 * (recorded below byte by byte); responses are pre-filled as the kernel
 * would, since a pipe does not answer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "libverbs/lv_cmd.h"
#include "libverbs/lv_kern.h"

int ibv_cmd_alloc_pd(struct ibv_context *c, struct ibv_pd *pd, void *cmd,
		     size_t cmd_size, struct ib_uverbs_alloc_pd_resp *resp,
		     size_t resp_size);
int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		      int attr_mask, void *cmd, size_t cmd_size);
int ibv_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only);
int ibv_cmd_query_device_any(struct ibv_context *c,
			     const struct ibv_query_device_ex_input *input,
			     struct ibv_device_attr_ex *attr, size_t attr_size,
			     struct ib_uverbs_ex_query_device_resp *resp,
			     size_t *resp_size);

struct fixture {
	int p[2];
	struct ibv_context ctx;
};

static int setup(void **state)
{
	static struct fixture f;

	memset(&f, 0, sizeof(f));
	if (pipe(f.p))
		return -1;
	f.ctx.cmd_fd = f.p[1];
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	close(f->p[0]);
	close(f->p[1]);
	return 0;
}

static size_t drain(struct fixture *f, uint8_t *buf, size_t max)
{
	ssize_t n = read(f->p[0], buf, max);

	return n < 0 ? 0 : (size_t)n;
}

static void test_cmd__encode_header(void **state)
{
	uint8_t req[16] = { 0 };
	static const uint8_t want[8] = { 0x03, 0, 0, 0, 0x04, 0, 0x01, 0 };

	assert_int_equal(lv_cmd_encode(req, sizeof(req),
				       IB_USER_VERBS_CMD_ALLOC_PD, 4), 0);
	assert_memory_equal(req, want, sizeof(want));
	/* Sizes the header cannot express. */
	assert_int_equal(lv_cmd_encode(req, 6, 3, 4), -EINVAL);
	assert_int_equal(lv_cmd_encode(req, 16, 3, 6), -EINVAL);
	assert_int_equal(lv_cmd_encode(req, 4, 3, 0), -EINVAL);
	assert_int_equal(lv_cmd_encode(req, 4u * 70000, 3, 0), -EINVAL);
}

static void test_cmd__encode_ex_header(void **state)
{
	uint64_t req[6] = { 0 };
	uint8_t resp[32];
	struct lv_ex_hdr *h = (struct lv_ex_hdr *)req;

	/* 24 bytes of headers + 8 core + 16 provider; resp 24 core + 8. */
	assert_int_equal(lv_cmd_encode_ex(req, 32, 48,
					  IB_USER_VERBS_EX_CMD_QUERY_DEVICE,
					  resp, 24, 32), 0);
	assert_int_equal(h->hdr.command, IB_USER_VERBS_CMD_FLAG_EXTENDED |
			 IB_USER_VERBS_EX_CMD_QUERY_DEVICE);
	assert_int_equal(h->hdr.in_words, 1);
	assert_int_equal(h->hdr.out_words, 3);
	assert_int_equal(h->ex_hdr.provider_in_words, 2);
	assert_int_equal(h->ex_hdr.provider_out_words, 1);
	assert_int_equal(h->ex_hdr.response, (uintptr_t)resp);
	assert_int_equal(lv_cmd_encode_ex(req, 28, 48, 2, resp, 24, 32),
			 -EINVAL);
	assert_int_equal(lv_cmd_encode_ex(req, 32, 24, 2, resp, 24, 32),
			 -EINVAL);
}

/* alloc_pd with the provider's request buffer: header, response address,
 * then its 8 bytes of driver data untouched; resp carries pd_handle. */
static void test_cmd__alloc_pd_request(void **state)
{
	struct fixture *f = *state;
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_alloc_pd core;
		uint64_t driver;
	} cmd = { .driver = 0x0102030405060708ull };
	struct {
		struct ib_uverbs_alloc_pd_resp core;
		uint32_t driver;
	} resp = { .core.pd_handle = 0x2a };
	struct ibv_pd pd = { 0 };
	uint8_t got[64], want[24] = {
		0x03, 0, 0, 0, 24 / 4, 0, 8 / 4, 0,
	};
	uint64_t ra = (uintptr_t)&resp;

	memcpy(want + 8, &ra, 8);
	memcpy(want + 16, &cmd.driver, 8);
	assert_int_equal(ibv_cmd_alloc_pd(&f->ctx, &pd, &cmd, sizeof(cmd),
					  &resp.core, sizeof(resp)), 0);
	assert_int_equal(drain(f, got, sizeof(got)), sizeof(want));
	assert_memory_equal(got, want, sizeof(want));
	assert_int_equal(pd.handle, 0x2a);
	assert_ptr_equal(pd.context, &f->ctx);
}

/* modify_qp to RTR: the offsets of ib_user_verbs.h's ib_uverbs_modify_qp
 * (dest at 0, qp_handle 64, attr_mask 68, dest_qp_num 84, qp_state 96,
 * path_mtu 98), after the 8-byte header; no provider buffer (NULL). */
static void test_cmd__modify_qp_request(void **state)
{
	struct fixture *f = *state;
	struct ibv_qp qp = { .context = &f->ctx, .handle = 0x11 };
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024,
		.dest_qp_num = 0x123456, .ah_attr = { .dlid = 7, .port_num = 1 },
	};
	int mask = IBV_QP_STATE | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_AV;
	uint8_t got[256];
	uint32_t u32;

	assert_int_equal(sizeof(struct ib_uverbs_modify_qp), 112);
	assert_int_equal(ibv_cmd_modify_qp(&qp, &a, mask, NULL, 0), 0);
	assert_int_equal(drain(f, got, sizeof(got)), 120);
	assert_int_equal(got[0], IB_USER_VERBS_CMD_MODIFY_QP);
	assert_int_equal(got[4], 30);	/* in_words */
	assert_int_equal(got[6], 0);	/* no response */
	memcpy(&u32, got + 8 + 64, 4);
	assert_int_equal(u32, 0x11);
	memcpy(&u32, got + 8 + 68, 4);
	assert_int_equal(u32, (uint32_t)mask);
	memcpy(&u32, got + 8 + 84, 4);
	assert_int_equal(u32, 0x123456);
	assert_int_equal(got[8 + 96], IBV_QPS_RTR);
	assert_int_equal(got[8 + 98], IBV_MTU_1024);
	assert_int_equal(got[8 + 20], 7);	/* dest.dlid */
	assert_int_equal(got[8 + 31], 1);	/* dest.port_num */
	/* Mask bits beyond the legacy command's: refused, nothing sent. */
	assert_int_equal(ibv_cmd_modify_qp(&qp, &a, 1 << 21, NULL, 0),
			 EOPNOTSUPP);
}

static void test_cmd__req_notify_and_errors(void **state)
{
	struct fixture *f = *state;
	struct ibv_cq cq = { .context = &f->ctx, .handle = 5 };
	static const uint8_t want[16] = {
		IB_USER_VERBS_CMD_REQ_NOTIFY_CQ, 0, 0, 0, 4, 0, 0, 0,
		5, 0, 0, 0, 1, 0, 0, 0,
	};
	uint8_t got[32];

	assert_int_equal(ibv_cmd_req_notify_cq(&cq, 7), 0);
	assert_int_equal(drain(f, got, sizeof(got)), sizeof(want));
	assert_memory_equal(got, want, sizeof(want));
	/* A failed write is its errno, positive (rdma-core's convention). */
	f->ctx.cmd_fd = -1;
	assert_int_equal(ibv_cmd_req_notify_cq(&cq, 0), EBADF);
	f->ctx.cmd_fd = f->p[1];
}

/* query_device_any with a full ex attr sends the extended command with
 * its response zeroed first; an attr of orig size sends the legacy one. */
static void test_cmd__query_device_paths(void **state)
{
	struct fixture *f = *state;
	struct ibv_device_attr_ex attr;
	struct ib_uverbs_ex_query_device_resp resp;
	size_t rs = sizeof(resp);
	uint8_t got[64];

	memset(&resp, 0xff, sizeof(resp));
	assert_int_equal(ibv_cmd_query_device_any(&f->ctx, NULL, &attr,
						  sizeof(attr), &resp, &rs), 0);
	assert_int_equal(drain(f, got, sizeof(got)), 32);
	assert_int_equal(got[0], IB_USER_VERBS_EX_CMD_QUERY_DEVICE);
	assert_int_equal(got[3], IB_USER_VERBS_CMD_FLAG_EXTENDED >> 24);
	assert_int_equal(got[4], 1);		/* in_words: 8 bytes core */
	assert_int_equal(got[6], sizeof(resp) / 8);
	assert_int_equal(resp.response_length, 0);	/* zeroed */
	assert_int_equal(rs, 0);	/* what the "kernel" wrote */
	rs = sizeof(resp);
	assert_int_equal(ibv_cmd_query_device_any(&f->ctx, NULL, &attr,
						  sizeof(attr.orig_attr), &resp,
						  &rs), 0);
	assert_int_equal(drain(f, got, sizeof(got)), 16);
	assert_int_equal(got[0], IB_USER_VERBS_CMD_QUERY_DEVICE);
	assert_int_equal(got[6], sizeof(resp.base) / 4);
	assert_int_equal(rs, sizeof(resp.base));
	assert_int_equal(ibv_cmd_query_device_any(&f->ctx, NULL, &attr, 8,
						  &resp, &rs), EINVAL);
}

unsigned int __ioctl_final_num_attrs(unsigned int num_attrs,
				     struct ibv_command_buffer *link);

/* A core buffer of 2 attributes (room for 4) with a driver link of 2:
 * the link's attributes land after the core's, the header counts 4 and
 * 24 + 4 * 16 bytes, and a udata-in of 4 bytes is inlined. */
static void test_cmd__ioctl_finalize_links(void **state)
{
	struct {
		struct ibv_command_buffer b;
		struct ib_uverbs_attr a[4];
	} core = { 0 };
	struct {
		struct ibv_command_buffer b;
		struct ib_uverbs_attr a[2];
	} drv = { 0 };
	uint32_t uhw = 0xa1b2c3d4;

	core.b.hdr.object_id = drv.b.hdr.object_id = UVERBS_OBJECT_CQ;
	core.b.hdr.method_id = drv.b.hdr.method_id = UVERBS_METHOD_CQ_CREATE;
	core.b.uhw_in_idx = core.b.uhw_out_idx = LV_UHW_NO_INDEX;
	drv.b.uhw_out_idx = LV_UHW_NO_INDEX;
	core.b.next = &drv.b;
	core.b.next_attr = core.b.hdr.attrs + 2;
	core.b.last_attr = core.b.hdr.attrs + 4;
	core.b.hdr.attrs[0].attr_id = 1;
	core.b.hdr.attrs[1].attr_id = 2;
	drv.b.next_attr = drv.b.hdr.attrs + 2;
	drv.b.last_attr = drv.b.hdr.attrs + 2;
	drv.b.hdr.attrs[0].attr_id = UVERBS_ATTR_UHW_IN;
	drv.b.hdr.attrs[0].len = 4;
	drv.b.hdr.attrs[0].data = (uintptr_t)&uhw;
	drv.b.hdr.attrs[1].attr_id = 0x1000;
	drv.b.uhw_in_idx = 0;
	assert_int_equal(__ioctl_final_num_attrs(2, &drv.b), 4);
	assert_int_equal(lv_ioctl_finalize(&core.b, RDMA_DRIVER_RXE), 0);
	assert_int_equal(core.b.hdr.num_attrs, 4);
	assert_int_equal(core.b.hdr.length, 24 + 4 * 16);
	assert_int_equal(core.b.hdr.driver_id, RDMA_DRIVER_RXE);
	assert_int_equal(core.b.hdr.attrs[2].attr_id, UVERBS_ATTR_UHW_IN);
	assert_int_equal(core.b.hdr.attrs[3].attr_id, 0x1000);
	assert_int_equal(core.b.uhw_in_idx, 2);
	assert_int_equal((uint32_t)core.b.hdr.attrs[2].data, 0xa1b2c3d4);
	/* No room for the link's attributes, or a mismatched method: refused. */
	core.b.next_attr = core.b.hdr.attrs + 3;
	core.b.uhw_in_idx = LV_UHW_NO_INDEX;
	assert_int_equal(lv_ioctl_finalize(&core.b, 0), -EINVAL);
	core.b.next_attr = core.b.hdr.attrs + 2;
	drv.b.hdr.method_id = UVERBS_METHOD_CQ_DESTROY;
	assert_int_equal(lv_ioctl_finalize(&core.b, 0), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cmd__encode_header),
		cmocka_unit_test(test_cmd__encode_ex_header),
		cmocka_unit_test(test_cmd__ioctl_finalize_links),
		cmocka_unit_test_setup_teardown(test_cmd__alloc_pd_request,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_cmd__modify_qp_request,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_cmd__req_notify_and_errors,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_cmd__query_device_paths,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
