/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the work queue, RSS table, flow, flow action and counter
 * commands providers call (lv_cmd_wq.c, lv_cmd_flow.c) against the fake
 * cmd fd of kcmd_fake.c: the extended write commands' exact bytes (the
 * two headers of ib_user_verbs.h: command | 0x80000000 @0, core words
 * @4, response words @6, response @8, provider words @16/@18; core @24),
 * the ioctl methods' attributes, the kernel's answers landing in the
 * caller's structs, errors, and the fallbacks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "libverbs/lv_cmd.h"
#include "libverbs/lv_cmd_attr.h"
#include "tests/unit/libverbs/kcmd_fake.h"

int ibv_cmd_create_wq(struct ibv_context *context,
		      struct ibv_wq_init_attr *wq_init_attr, struct ibv_wq *wq,
		      void *cmd, size_t cmd_size,
		      struct ib_uverbs_ex_create_wq_resp *resp,
		      size_t resp_size);
int ibv_cmd_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *attr, void *cmd,
		      size_t cmd_size);
int ibv_cmd_destroy_wq(struct ibv_wq *wq);
int ibv_cmd_create_rwq_ind_table(struct ibv_context *context,
		struct ibv_rwq_ind_table_init_attr *init_attr,
		struct ibv_rwq_ind_table *rwq_ind_table,
		struct ib_uverbs_ex_create_rwq_ind_table_resp *resp,
		size_t resp_size);
int ibv_cmd_destroy_rwq_ind_table(struct ibv_rwq_ind_table *t);
int ibv_cmd_create_flow(struct ibv_qp *qp, struct ibv_flow *flow_id,
			struct ibv_flow_attr *flow_attr, void *ucmd,
			size_t ucmd_size);
int ibv_cmd_destroy_flow(struct ibv_flow *flow_id);
int ibv_cmd_create_flow_action_esp(struct ibv_context *ctx,
				   struct ibv_flow_action_esp_attr *attr,
				   struct verbs_flow_action *flow_action,
				   struct ibv_command_buffer *driver);
int ibv_cmd_modify_flow_action_esp(struct verbs_flow_action *flow_action,
				   struct ibv_flow_action_esp_attr *attr,
				   struct ibv_command_buffer *driver);
int ibv_cmd_destroy_flow_action(struct verbs_flow_action *action);
int ibv_cmd_create_counters(struct ibv_context *context,
			    struct ibv_counters_init_attr *init_attr,
			    struct verbs_counters *vcounters,
			    struct ibv_command_buffer *link);
int ibv_cmd_destroy_counters(struct verbs_counters *vcounters);
int ibv_cmd_read_counters(struct verbs_counters *vcounters,
			  uint64_t *counters_value, uint32_t ncounters,
			  uint32_t flags, struct ibv_command_buffer *link);
int lv_flow_spec_to_kern(const void *spec, size_t ib_size, void *kern,
			 size_t *ksize);

#define EX(n) (0x80000000u | (n))

static int setup(void **state)
{
	kf_reset();
	return 0;
}

static void assert_ioctl(uint16_t object, uint16_t method, uint16_t nattrs)
{
	assert_int_equal(kf.ihdr.object_id, object);
	assert_int_equal(kf.ihdr.method_id, method);
	assert_int_equal(kf.ihdr.num_attrs, nattrs);
	assert_int_equal(kf.ihdr.length, 24 + 16 * nattrs);
	assert_int_equal(kf.ihdr.driver_id, RDMA_DRIVER_RXE);
}

static void assert_attr(uint16_t id, uint16_t len, uint64_t data)
{
	const struct ib_uverbs_attr *a = kf_attr(id);

	assert_non_null(a);
	assert_int_equal(a->flags, UVERBS_ATTR_F_MANDATORY);
	assert_int_equal(a->len, len);
	assert_int_equal(a->data, data);
}

struct wq_fixture {
	struct ibv_pd pd;
	struct ibv_cq cq;
	struct ibv_wq wq;
	struct ibv_wq_init_attr attr;
	struct {
		struct lv_ex_hdr h;
		struct ib_uverbs_ex_create_wq core;
		uint64_t driver[2];
	} cmd;
	struct {
		struct ib_uverbs_ex_create_wq_resp core;
		uint64_t driver;
	} resp;
};

static void wq_fixture(struct wq_fixture *f)
{
	memset(f, 0, sizeof(*f));
	f->pd.handle = 3;
	f->cq.handle = 4;
	f->attr = (struct ibv_wq_init_attr){
		.wq_type = IBV_WQT_RQ, .max_wr = 64, .max_sge = 2,
		.pd = &f->pd, .cq = &f->cq,
	};
	f->cmd.driver[0] = 0xd1d2d3d4d5d6d7d8ull;
	f->cmd.driver[1] = 0x0102030405060708ull;
}

/* create_wq by ioctl: 12 core attributes plus the provider's data after
 * the legacy core as UHW_IN/UHW_OUT (16 and 8 bytes, by address); the
 * kernel's handle, WQ number and sizes land in the WQ and the attr.
 * The async fd attribute is left out while the context has none. */
static void test_cmd_flow__create_wq_ioctl(void **state)
{
	struct wq_fixture f;

	wq_fixture(&f);
	kf_out(UVERBS_ATTR_CREATE_WQ_HANDLE, 0, 0x91);
	kf_out(UVERBS_ATTR_CREATE_WQ_RESP_MAX_WR, 4, 128);
	kf_out(UVERBS_ATTR_CREATE_WQ_RESP_MAX_SGE, 4, 3);
	kf_out(UVERBS_ATTR_CREATE_WQ_RESP_WQ_NUM, 4, 0x4455);
	assert_int_equal(ibv_cmd_create_wq(kf_ctx(), &f.attr, &f.wq, &f.cmd,
					   sizeof(f.cmd), &f.resp.core,
					   sizeof(f.resp)), 0);
	assert_int_equal(kf.writes, 0);
	assert_ioctl(UVERBS_OBJECT_WQ, UVERBS_METHOD_WQ_CREATE, 13);
	assert_attr(UVERBS_ATTR_UHW_IN, 16, (uintptr_t)f.cmd.driver);
	assert_attr(UVERBS_ATTR_UHW_OUT, 8, (uintptr_t)&f.resp.driver);
	assert_attr(UVERBS_ATTR_CREATE_WQ_USER_HANDLE, 8, (uintptr_t)&f.wq);
	assert_attr(UVERBS_ATTR_CREATE_WQ_PD_HANDLE, 0, 3);
	assert_attr(UVERBS_ATTR_CREATE_WQ_CQ_HANDLE, 0, 4);
	assert_attr(UVERBS_ATTR_CREATE_WQ_TYPE, 8, IBV_WQT_RQ);
	assert_attr(UVERBS_ATTR_CREATE_WQ_MAX_WR, 4, 64);
	assert_attr(UVERBS_ATTR_CREATE_WQ_MAX_SGE, 4, 2);
	assert_attr(UVERBS_ATTR_CREATE_WQ_FLAGS, 4, 0);
	assert_null(kf_attr(UVERBS_ATTR_CREATE_WQ_EVENT_FD));
	assert_int_equal(f.wq.handle, 0x91);
	assert_int_equal(f.wq.wq_num, 0x4455);
	assert_int_equal(f.attr.max_wr, 128);
	assert_int_equal(f.attr.max_sge, 3);
	assert_ptr_equal(f.wq.context, kf_ctx());
	assert_ptr_equal(f.wq.cq, &f.cq);
	/* Flags the ABI does not know, or unknown comp_mask bits, fail
	 * before anything is sent. */
	kf.ioctls = 0;
	f.attr.comp_mask = IBV_WQ_INIT_ATTR_FLAGS;
	f.attr.create_flags = IBV_WQ_FLAGS_RESERVED;
	assert_int_equal(ibv_cmd_create_wq(kf_ctx(), &f.attr, &f.wq, &f.cmd,
					   sizeof(f.cmd), &f.resp.core,
					   sizeof(f.resp)), EOPNOTSUPP);
	f.attr.comp_mask = IBV_WQ_INIT_ATTR_RESERVED;
	assert_int_equal(ibv_cmd_create_wq(kf_ctx(), &f.attr, &f.wq, &f.cmd,
					   sizeof(f.cmd), &f.resp.core,
					   sizeof(f.resp)), EINVAL);
	assert_int_equal(kf.ioctls, 0);
}

/* A provider's udata of up to 8 bytes travels inline in UHW_IN's .data
 * (the kernel's rule), longer ones by address. */
static void test_cmd_flow__create_wq_uhw_inline(void **state)
{
	struct wq_fixture f;

	wq_fixture(&f);
	assert_int_equal(ibv_cmd_create_wq(kf_ctx(), &f.attr, &f.wq, &f.cmd,
					   sizeof(f.cmd) - 8, &f.resp.core,
					   sizeof(f.resp.core)), 0);
	assert_ioctl(UVERBS_OBJECT_WQ, UVERBS_METHOD_WQ_CREATE, 12);
	assert_attr(UVERBS_ATTR_UHW_IN, 8, 0xd1d2d3d4d5d6d7d8ull);
	assert_null(kf_attr(UVERBS_ATTR_UHW_OUT));
}

/* Without the ioctl framework create_wq is extended command 52: core of
 * 40 bytes (5 words: user_handle @32, pd @40, cq @44, max_wr @48,
 * max_sge @52), the provider's 16 bytes (2 words) after it untouched,
 * response 24 + 8 bytes. */
static void test_cmd_flow__create_wq_write_fallback(void **state)
{
	struct ib_uverbs_ex_create_wq_resp canned = {
		.wq_handle = 0x92, .max_wr = 256, .max_sge = 4, .wqn = 0x77,
	};
	struct wq_fixture f;

	wq_fixture(&f);
	kf.ierr = ENOTTY;
	kf.wresp = &canned;
	kf.wresp_len = sizeof(canned);
	assert_int_equal(ibv_cmd_create_wq(kf_ctx(), &f.attr, &f.wq, &f.cmd,
					   sizeof(f.cmd), &f.resp.core,
					   sizeof(f.resp)), 0);
	assert_int_equal(kf.ioctls, 1);
	assert_int_equal(kf.writes, 1);
	assert_int_equal(kf.wlen, 24 + 40 + 16);
	assert_int_equal(kf_w32(0), EX(52));
	assert_int_equal(kf_w16(4), 5);
	assert_int_equal(kf_w16(6), 3);
	assert_int_equal(kf_w64(8), (uintptr_t)&f.resp);
	assert_int_equal(kf_w16(16), 2);
	assert_int_equal(kf_w16(18), 1);
	assert_int_equal(kf_w32(28), IBV_WQT_RQ);
	assert_int_equal(kf_w64(32), (uintptr_t)&f.wq);
	assert_int_equal(kf_w32(40), 3);
	assert_int_equal(kf_w32(44), 4);
	assert_int_equal(kf_w32(48), 64);
	assert_int_equal(kf_w32(52), 2);
	assert_int_equal(kf_w64(64), 0xd1d2d3d4d5d6d7d8ull);
	assert_int_equal(f.wq.handle, 0x92);
	assert_int_equal(f.wq.wq_num, 0x77);
	assert_int_equal(f.attr.max_wr, 256);
	/* The kernel's error comes back as the result. */
	kf.werr = ENOMEM;
	assert_int_equal(ibv_cmd_create_wq(kf_ctx(), &f.attr, &f.wq, &f.cmd,
					   sizeof(f.cmd), &f.resp.core,
					   sizeof(f.resp)), ENOMEM);
	assert_int_equal(kf.ioctls, 1);
}

/* modify_wq: extended command 53 sent whole as core (3 words of 24
 * bytes: attr_mask @24, wq_handle @28, wq_state @32, curr @36, flags
 * @40, flags_mask @44); the WQ's state follows a state change. */
static void test_cmd_flow__modify_wq(void **state)
{
	struct ibv_wq wq = { .context = kf_ctx(), .handle = 0x93 };
	struct ibv_wq_attr a = {
		.attr_mask = IBV_WQ_ATTR_STATE | IBV_WQ_ATTR_FLAGS,
		.wq_state = IBV_WQS_RDY, .curr_wq_state = IBV_WQS_RESET,
		.flags = IBV_WQ_FLAGS_CVLAN_STRIPPING,
		.flags_mask = IBV_WQ_FLAGS_CVLAN_STRIPPING,
	};

	assert_int_equal(ibv_cmd_modify_wq(&wq, &a, NULL, 0), 0);
	assert_int_equal(kf.wlen, 48);
	assert_int_equal(kf_w32(0), EX(53));
	assert_int_equal(kf_w16(4), 3);
	assert_int_equal(kf_w16(6), 0);
	assert_int_equal(kf_w64(8), 0);
	assert_int_equal(kf_w16(16), 0);
	assert_int_equal(kf_w32(24), IBV_WQ_ATTR_STATE | IBV_WQ_ATTR_FLAGS);
	assert_int_equal(kf_w32(28), 0x93);
	assert_int_equal(kf_w32(32), IBV_WQS_RDY);
	assert_int_equal(kf_w32(36), IBV_WQS_RESET);
	assert_int_equal(kf_w32(40), IBV_WQ_FLAGS_CVLAN_STRIPPING);
	assert_int_equal(kf_w32(44), IBV_WQ_FLAGS_CVLAN_STRIPPING);
	assert_int_equal(wq.state, IBV_WQS_RDY);
	a.attr_mask = IBV_WQ_ATTR_RESERVED;
	assert_int_equal(ibv_cmd_modify_wq(&wq, &a, NULL, 0), EINVAL);
	a.attr_mask = IBV_WQ_ATTR_FLAGS;
	a.flags_mask = IBV_WQ_FLAGS_RESERVED;
	assert_int_equal(ibv_cmd_modify_wq(&wq, &a, NULL, 0), EOPNOTSUPP);
	a.attr_mask = IBV_WQ_ATTR_STATE;
	a.wq_state = IBV_WQS_ERR;
	kf.werr = EINVAL;
	assert_int_equal(ibv_cmd_modify_wq(&wq, &a, NULL, 0), EINVAL);
	assert_int_equal(wq.state, IBV_WQS_RDY);
}

/* destroy_wq by ioctl (events_reported as an output) and by extended
 * command 54 after ENOTTY; it returns once the app acked every event
 * the kernel reported (here: none outstanding). */
static void test_cmd_flow__destroy_wq(void **state)
{
	struct ib_uverbs_ex_destroy_wq_resp canned = { .events_reported = 2 };
	struct ibv_wq wq = { .context = kf_ctx(), .handle = 0x94,
			     .events_completed = 2 };

	pthread_mutex_init(&wq.mutex, NULL);
	pthread_cond_init(&wq.cond, NULL);
	kf_out(UVERBS_ATTR_DESTROY_WQ_RESP, 4, 2);
	assert_int_equal(ibv_cmd_destroy_wq(&wq), 0);
	assert_ioctl(UVERBS_OBJECT_WQ, UVERBS_METHOD_WQ_DESTROY, 2);
	assert_attr(UVERBS_ATTR_DESTROY_WQ_HANDLE, 0, 0x94);
	assert_int_equal(kf_attr(UVERBS_ATTR_DESTROY_WQ_RESP)->len, 4);
	kf.ierr = ENOTTY;
	kf.wresp = &canned;
	kf.wresp_len = sizeof(canned);
	assert_int_equal(ibv_cmd_destroy_wq(&wq), 0);
	assert_int_equal(kf.wlen, 32);
	assert_int_equal(kf_w32(0), EX(54));
	assert_int_equal(kf_w16(4), 1);
	assert_int_equal(kf_w16(6), 2);
	assert_int_equal(kf_w32(28), 0x94);
	kf.werr = EBUSY;
	assert_int_equal(ibv_cmd_destroy_wq(&wq), EBUSY);
}

/* An indirection table of 2^2 WQs: extended command 55, all of it core
 * (comp_mask, log size 2, four handles: 24 bytes, 3 words); the
 * response's handle and number land in the table; a size past the
 * kernel's limit fails unsent. */
static void test_cmd_flow__rwq_ind_table(void **state)
{
	struct ib_uverbs_ex_create_rwq_ind_table_resp canned = {
		.response_length = sizeof(canned), .ind_tbl_handle = 0x61,
		.ind_tbl_num = 0x62,
	};
	struct ib_uverbs_ex_create_rwq_ind_table_resp resp;
	struct ibv_wq w[4] = { { .handle = 10 }, { .handle = 11 },
			       { .handle = 12 }, { .handle = 13 } };
	struct ibv_wq *tbl[4] = { &w[0], &w[1], &w[2], &w[3] };
	struct ibv_rwq_ind_table_init_attr attr = {
		.log_ind_tbl_size = 2, .ind_tbl = tbl,
	};
	struct ibv_rwq_ind_table t = { 0 };

	kf.wresp = &canned;
	kf.wresp_len = sizeof(canned);
	assert_int_equal(ibv_cmd_create_rwq_ind_table(kf_ctx(), &attr, &t,
						      &resp, sizeof(resp)), 0);
	assert_int_equal(kf.wlen, 48);
	assert_int_equal(kf_w32(0), EX(55));
	assert_int_equal(kf_w16(4), 3);
	assert_int_equal(kf_w16(6), 2);
	assert_int_equal(kf_w32(28), 2);
	for (int i = 0; i < 4; i++)
		assert_int_equal(kf_w32(32 + 4 * i), 10 + i);
	assert_int_equal(t.ind_tbl_handle, 0x61);
	assert_int_equal(t.ind_tbl_num, 0x62);
	assert_ptr_equal(t.context, kf_ctx());
	kf.writes = 0;
	attr.log_ind_tbl_size = 31;
	assert_int_equal(ibv_cmd_create_rwq_ind_table(kf_ctx(), &attr, &t,
						      &resp, sizeof(resp)),
			 EINVAL);
	assert_int_equal(kf.writes, 0);
	/* A response shorter than the kernel's struct is refused. */
	attr.log_ind_tbl_size = 0;
	canned.response_length = 8;
	assert_int_equal(ibv_cmd_create_rwq_ind_table(kf_ctx(), &attr, &t,
						      &resp, sizeof(resp)),
			 EINVAL);
	kf_reset();
	assert_int_equal(ibv_cmd_destroy_rwq_ind_table(&t), 0);
	assert_ioctl(UVERBS_OBJECT_RWQ_IND_TBL,
		     UVERBS_METHOD_RWQ_IND_TBL_DESTROY, 1);
	assert_attr(UVERBS_ATTR_DESTROY_RWQ_IND_TBL_HANDLE, 0, 0x61);
	kf.ierr = ENOTTY;
	assert_int_equal(ibv_cmd_destroy_rwq_ind_table(&t), 0);
	assert_int_equal(kf_w32(0), EX(56));
	assert_int_equal(kf_w32(28), 0x61);
}

/* A flow of eth + ipv4 + tcp + drop: extended command 50, the
 * ib_uverbs_create_flow core (qp_handle @28; flow_attr @32: type, size
 * = the kernel specs' total, priority, num_of_specs, port, flags), then
 * the kernel specs (eth 40 bytes: dst mac @8, mask @24; the legacy ipv4
 * spec 24 bytes; tcp 16; drop 8) and the provider's 8 bytes. */
static void test_cmd_flow__create_flow_specs(void **state)
{
	struct {
		struct ibv_flow_attr attr;
		struct ibv_flow_spec_eth eth;
		struct ibv_flow_spec_ipv4 ipv4;
		struct ibv_flow_spec_tcp_udp tcp;
		struct ibv_flow_spec_action_drop drop;
	} f = {
		.attr = { .type = IBV_FLOW_ATTR_NORMAL, .priority = 2,
			  .num_of_specs = 4, .port = 1 },
		.eth = { .type = IBV_FLOW_SPEC_ETH, .size = sizeof(f.eth),
			 .val = { .dst_mac = { 1, 2, 3, 4, 5, 6 } },
			 .mask = { .dst_mac = { 0xff, 0xff, 0xff, 0xff, 0xff,
						0xff } } },
		.ipv4 = { .type = IBV_FLOW_SPEC_IPV4, .size = sizeof(f.ipv4),
			  .val = { .dst_ip = 0x0a000001 },
			  .mask = { .dst_ip = 0xffffffff } },
		.tcp = { .type = IBV_FLOW_SPEC_TCP, .size = sizeof(f.tcp),
			 .val = { .dst_port = 0x1234 },
			 .mask = { .dst_port = 0xffff } },
		.drop = { .type = IBV_FLOW_SPEC_ACTION_DROP,
			  .size = sizeof(f.drop) },
	};
	struct ib_uverbs_create_flow_resp canned = { .flow_handle = 0x81 };
	struct ibv_qp qp = { .context = kf_ctx(), .handle = 0x12 };
	struct ibv_flow flow = { 0 };
	uint64_t ucmd = 0xfeedfacecafef00dull;
	size_t specs = 40 + 24 + 16 + 8;

	/* The app's specs follow each other with no gap. */
	assert_int_equal(sizeof(f), 20 + 40 + 24 + 16 + 8);

	kf.wresp = &canned;
	kf.wresp_len = sizeof(canned);
	assert_int_equal(ibv_cmd_create_flow(&qp, &flow, &f.attr, &ucmd,
					     sizeof(ucmd)), 0);
	assert_int_equal(kf.wlen, 24 + 24 + specs + 8);
	assert_int_equal(kf_w32(0), EX(50));
	assert_int_equal(kf_w16(4), (24 + specs) / 8);
	assert_int_equal(kf_w16(6), 1);
	assert_int_equal(kf_w16(16), 1);
	assert_int_equal(kf_w32(28), 0x12);
	assert_int_equal(kf_w32(32), IBV_FLOW_ATTR_NORMAL);
	assert_int_equal(kf_w16(36), specs);
	assert_int_equal(kf_w16(38), 2);
	assert_int_equal(kf.wbuf[40], 4);
	assert_int_equal(kf.wbuf[43], 1);
	/* eth */
	assert_int_equal(kf_w32(48), IBV_FLOW_SPEC_ETH);
	assert_int_equal(kf_w16(52), 40);
	assert_int_equal(kf.wbuf[48 + 8], 1);
	assert_int_equal(kf.wbuf[48 + 13], 6);
	assert_int_equal(kf.wbuf[48 + 24], 0xff);
	/* ipv4: dst @12, its mask @20 */
	assert_int_equal(kf_w32(88), IBV_FLOW_SPEC_IPV4);
	assert_int_equal(kf_w16(92), 24);
	assert_int_equal(kf_w32(88 + 12), 0x0a000001);
	assert_int_equal(kf_w32(88 + 20), 0xffffffff);
	/* tcp: dst port @8, mask @12 */
	assert_int_equal(kf_w32(112), IBV_FLOW_SPEC_TCP);
	assert_int_equal(kf_w16(116), 16);
	assert_int_equal(kf_w16(112 + 8), 0x1234);
	assert_int_equal(kf_w16(112 + 12), 0xffff);
	/* drop, then the provider's data */
	assert_int_equal(kf_w32(128), IBV_FLOW_SPEC_ACTION_DROP);
	assert_int_equal(kf_w16(132), 8);
	assert_int_equal(kf_w64(136), 0xfeedfacecafef00dull);
	assert_int_equal(flow.handle, 0x81);
	assert_ptr_equal(flow.context, kf_ctx());
	/* An unknown spec type fails unsent, with errno. */
	kf.writes = 0;
	f.tcp.type = 0x77;
	errno = 0;
	assert_int_equal(ibv_cmd_create_flow(&qp, &flow, &f.attr, NULL, 0),
			 EINVAL);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(kf.writes, 0);
	f.tcp.type = IBV_FLOW_SPEC_TCP;
	kf.werr = EPERM;
	assert_int_equal(ibv_cmd_create_flow(&qp, &flow, &f.attr, NULL, 0),
			 EPERM);
}

/* Sized specs: an IPv6 filter longer than the kernel's is accepted when
 * the extra mask bytes are zero (EOPNOTSUPP otherwise) and too short is
 * EINVAL; ipv4_ext goes to the kernel as an IPv4 spec with its protocol
 * fields; INNER is kept; handle and count actions carry the object's
 * handle. */
static void test_cmd_flow__spec_conversion(void **state)
{
	struct {
		enum ibv_flow_spec_type type;
		uint16_t size;
		struct ibv_flow_ipv6_filter val;
		uint8_t val_extra[8];
		struct ibv_flow_ipv6_filter mask;
		uint8_t mask_extra[8];
	} v6 = { .type = IBV_FLOW_SPEC_IPV6 | IBV_FLOW_SPEC_INNER,
		 .size = sizeof(v6) };
	struct ibv_flow_spec_ipv4_ext v4 = {
		.type = IBV_FLOW_SPEC_IPV4_EXT, .size = sizeof(v4),
		.val = { .src_ip = 7, .proto = 6, .flags = 2 },
		.mask = { .proto = 0xff },
	};
	struct verbs_flow_action act = { .handle = 0x44 };
	struct verbs_counters cnt = { .handle = 0x45 };
	struct ibv_flow_spec_action_handle h = {
		.type = IBV_FLOW_SPEC_ACTION_HANDLE, .size = sizeof(h),
		.action = &act.action,
	};
	struct ibv_flow_spec_counter_action c = {
		.type = IBV_FLOW_SPEC_ACTION_COUNT, .size = sizeof(c),
		.counters = &cnt.counters,
	};
	uint8_t k[96];
	size_t ks;

	/* The gaps between the filters and their extra bytes are zeroed. */
	memset(&v6, 0, sizeof(v6));
	v6.type = IBV_FLOW_SPEC_IPV6 | IBV_FLOW_SPEC_INNER;
	v6.size = sizeof(v6);
	v6.val.hop_limit = 9;
	v6.mask.hop_limit = 0xff;
	memset(k, 0, sizeof(k));
	assert_int_equal(lv_flow_spec_to_kern(&v6, v6.size, k, &ks), 0);
	assert_int_equal(ks, 88);
	assert_int_equal(k[0] | k[1] << 8, IBV_FLOW_SPEC_IPV6 |
			 IBV_FLOW_SPEC_INNER);
	assert_int_equal(k[8 + 38], 9);
	assert_int_equal(k[48 + 38], 0xff);
	v6.mask_extra[1] = 1;
	assert_int_equal(lv_flow_spec_to_kern(&v6, v6.size, k, &ks),
			 EOPNOTSUPP);
	assert_int_equal(lv_flow_spec_to_kern(&v6, 8 + 2 * 20, k, &ks), EINVAL);

	memset(k, 0, sizeof(k));
	assert_int_equal(lv_flow_spec_to_kern(&v4, v4.size, k, &ks), 0);
	assert_int_equal(ks, 32);
	assert_int_equal(k[0], IBV_FLOW_SPEC_IPV4);
	assert_int_equal(k[8], 7);
	assert_int_equal(k[8 + 8], 6);
	assert_int_equal(k[8 + 11], 2);
	assert_int_equal(k[20 + 8], 0xff);

	memset(k, 0, sizeof(k));
	assert_int_equal(lv_flow_spec_to_kern(&h, h.size, k, &ks), 0);
	assert_int_equal(ks, 16);
	assert_int_equal(k[8], 0x44);
	assert_int_equal(lv_flow_spec_to_kern(&c, c.size, k, &ks), 0);
	assert_int_equal(ks, 16);
	assert_int_equal(k[8], 0x45);
	/* GRE has no inner form; a spec shorter than its kind is refused. */
	h.type = IBV_FLOW_SPEC_GRE | IBV_FLOW_SPEC_INNER;
	assert_int_equal(lv_flow_spec_to_kern(&h, h.size, k, &ks), EINVAL);
	v4.type = IBV_FLOW_SPEC_ETH;
	assert_int_equal(lv_flow_spec_to_kern(&v4, 10, k, &ks), EINVAL);
}

/* destroy_flow: ioctl FLOW/DESTROY, then extended command 51 after
 * ENOTTY (comp_mask @24, handle @28). */
static void test_cmd_flow__destroy_flow(void **state)
{
	struct ibv_flow flow = { .context = kf_ctx(), .handle = 0x81 };

	assert_int_equal(ibv_cmd_destroy_flow(&flow), 0);
	assert_ioctl(UVERBS_OBJECT_FLOW, UVERBS_METHOD_FLOW_DESTROY, 1);
	assert_attr(UVERBS_ATTR_DESTROY_FLOW_HANDLE, 0, 0x81);
	kf.ierr = ENOTTY;
	assert_int_equal(ibv_cmd_destroy_flow(&flow), 0);
	assert_int_equal(kf.wlen, 32);
	assert_int_equal(kf_w32(0), EX(51));
	assert_int_equal(kf_w16(4), 1);
	assert_int_equal(kf_w32(28), 0x81);
}

/* ESP flow actions (ioctl only): ESN inline, keymat and replay with
 * their protocol as the enum element, encap and attrs by address, the
 * driver's link appended; the handle lands in the action. */
static void test_cmd_flow__flow_action_esp(void **state)
{
	struct ib_uverbs_flow_action_esp esp = { .spi = 1 };
	uint8_t key[56] = { 0 };
	struct ibv_flow_action_esp_replay_bmp replay = { .size = 64 };
	struct ibv_flow_action_esp_attr attr = {
		.esp_attr = (void *)&esp,
		.keymat_proto = IBV_FLOW_ACTION_ESP_KEYMAT_AES_GCM,
		.keymat_len = sizeof(key), .keymat_ptr = key,
		.replay_proto = IBV_FLOW_ACTION_ESP_REPLAY_BMP,
		.replay_len = sizeof(replay), .replay_ptr = &replay,
		.comp_mask = IBV_FLOW_ACTION_ESP_MASK_ESN, .esn = 0xabcd,
	};
	struct {
		struct ibv_command_buffer b;
		struct ib_uverbs_attr a[1];
	} drv = { 0 };
	struct verbs_flow_action fa = { 0 };
	const struct ib_uverbs_attr *a;

	drv.b.hdr.object_id = UVERBS_OBJECT_FLOW_ACTION;
	drv.b.hdr.method_id = UVERBS_METHOD_FLOW_ACTION_ESP_CREATE;
	drv.b.uhw_in_idx = drv.b.uhw_out_idx = LV_UHW_NO_INDEX;
	drv.b.next_attr = drv.b.last_attr = drv.b.hdr.attrs + 1;
	drv.a[0].attr_id = 0x1000;
	kf_out(UVERBS_ATTR_CREATE_FLOW_ACTION_ESP_HANDLE, 0, 0x33);
	assert_int_equal(ibv_cmd_create_flow_action_esp(kf_ctx(), &attr, &fa,
							&drv.b), 0);
	assert_ioctl(UVERBS_OBJECT_FLOW_ACTION,
		     UVERBS_METHOD_FLOW_ACTION_ESP_CREATE, 6);
	assert_attr(UVERBS_ATTR_FLOW_ACTION_ESP_ESN, 4, 0xabcd);
	a = kf_attr(UVERBS_ATTR_FLOW_ACTION_ESP_KEYMAT);
	assert_non_null(a);
	assert_int_equal(a->len, sizeof(key));
	assert_int_equal(a->data, (uintptr_t)key);
	assert_int_equal(a->attr_data.enum_data.elem_id,
			 IBV_FLOW_ACTION_ESP_KEYMAT_AES_GCM);
	a = kf_attr(UVERBS_ATTR_FLOW_ACTION_ESP_REPLAY);
	assert_int_equal(a->attr_data.enum_data.elem_id,
			 IBV_FLOW_ACTION_ESP_REPLAY_BMP);
	assert_attr(UVERBS_ATTR_FLOW_ACTION_ESP_ATTRS, sizeof(esp),
		    (uintptr_t)&esp);
	assert_int_equal(kf.iattrs[5].attr_id, 0x1000);
	assert_int_equal(fa.handle, 0x33);
	assert_int_equal(fa.type, LV_FLOW_ACTION_ESP);
	assert_ptr_equal(fa.action.context, kf_ctx());

	kf_reset();
	attr.comp_mask = 0;
	attr.replay_ptr = NULL;
	assert_int_equal(ibv_cmd_modify_flow_action_esp(&fa, &attr, NULL), 0);
	assert_ioctl(UVERBS_OBJECT_FLOW_ACTION,
		     UVERBS_METHOD_FLOW_ACTION_ESP_MODIFY, 3);
	assert_attr(UVERBS_ATTR_MODIFY_FLOW_ACTION_ESP_HANDLE, 0, 0x33);
	assert_int_equal(ibv_cmd_destroy_flow_action(&fa), 0);
	assert_ioctl(UVERBS_OBJECT_FLOW_ACTION,
		     UVERBS_METHOD_FLOW_ACTION_DESTROY, 1);
	assert_attr(UVERBS_ATTR_DESTROY_FLOW_ACTION_HANDLE, 0, 0x33);
	/* ioctl only: ENOTTY is the result, no write. */
	kf.ierr = ENOTTY;
	errno = 0;
	assert_int_equal(ibv_cmd_create_flow_action_esp(kf_ctx(), &attr, &fa,
							NULL), ENOTTY);
	assert_int_equal(errno, ENOTTY);
	assert_int_equal(kf.writes, 0);
}

/* Counters: create (the handle back; comp_mask bits unknown to the ABI
 * are EOPNOTSUPP unsent), read into the caller's array (an output of
 * n * 8 bytes) with its flags, destroy by handle. */
static void test_cmd_flow__counters(void **state)
{
	struct ibv_counters_init_attr init = { 0 };
	struct verbs_counters vc = { 0 };
	uint64_t vals[4] = { 0 };

	kf_out(UVERBS_ATTR_CREATE_COUNTERS_HANDLE, 0, 0x71);
	assert_int_equal(ibv_cmd_create_counters(kf_ctx(), &init, &vc, NULL), 0);
	assert_ioctl(UVERBS_OBJECT_COUNTERS, UVERBS_METHOD_COUNTERS_CREATE, 1);
	assert_int_equal(vc.handle, 0x71);
	assert_ptr_equal(vc.counters.context, kf_ctx());
	kf.ioctls = 0;
	init.comp_mask = 1;
	assert_int_equal(ibv_cmd_create_counters(kf_ctx(), &init, &vc, NULL),
			 EOPNOTSUPP);
	assert_int_equal(kf.ioctls, 0);

	kf_reset();
	kf_out(UVERBS_ATTR_READ_COUNTERS_BUFF, 8, 0x1122);
	assert_int_equal(ibv_cmd_read_counters(&vc, vals, 4,
					       IBV_READ_COUNTERS_ATTR_PREFER_CACHED,
					       NULL), 0);
	assert_ioctl(UVERBS_OBJECT_COUNTERS, UVERBS_METHOD_COUNTERS_READ, 3);
	assert_attr(UVERBS_ATTR_READ_COUNTERS_HANDLE, 0, 0x71);
	assert_attr(UVERBS_ATTR_READ_COUNTERS_BUFF, 32, (uintptr_t)vals);
	assert_attr(UVERBS_ATTR_READ_COUNTERS_FLAGS, 4,
		    IBV_READ_COUNTERS_ATTR_PREFER_CACHED);
	assert_int_equal(vals[0], 0x1122);
	assert_int_equal(ibv_cmd_destroy_counters(&vc), 0);
	assert_ioctl(UVERBS_OBJECT_COUNTERS, UVERBS_METHOD_COUNTERS_DESTROY, 1);
	assert_attr(UVERBS_ATTR_DESTROY_COUNTERS_HANDLE, 0, 0x71);
	kf.ierr = EINVAL;
	assert_int_equal(ibv_cmd_read_counters(&vc, vals, 4, 0, NULL), EINVAL);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup(test_cmd_flow__##name, setup)
	const struct CMUnitTest tests[] = {
		T(create_wq_ioctl),
		T(create_wq_uhw_inline),
		T(create_wq_write_fallback),
		T(modify_wq),
		T(destroy_wq),
		T(rwq_ind_table),
		T(create_flow_specs),
		T(spec_conversion),
		T(destroy_flow),
		T(flow_action_esp),
		T(counters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
