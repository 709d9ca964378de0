/* SPDX-License-Identifier: MIT */
/* Unit tests of RDMA netlink message building and parsing. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/msg.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/rdma_netlink.h>

#include "cni-plugin/cni_rdmanl.h"

/* Facts of the uapi this code relies on (NLDEV client 5, 10-bit ops). */
static void test_cni_rdmanl__type(void **state)
{
	assert_int_equal(RDMA_NL_NLDEV, 5);
	assert_int_equal(cni_rdmanl_type(RDMA_NLDEV_CMD_SYS_GET),
			 (5 << 10) + RDMA_NLDEV_CMD_SYS_GET);
	assert_int_equal(cni_rdmanl_type(RDMA_NLDEV_CMD_SET), (5 << 10) + 2);
}

static void test_cni_rdmanl__sys_get_request(void **state)
{
	struct nl_msg *m = cni_rdmanl_sys_get();
	struct nlmsghdr *h = nlmsg_hdr(m);

	assert_int_equal(h->nlmsg_type, (5 << 10) + RDMA_NLDEV_CMD_SYS_GET);
	assert_true(h->nlmsg_flags & NLM_F_REQUEST);
	assert_false(h->nlmsg_flags & NLM_F_DUMP);
	assert_int_equal(nlmsg_datalen(h), 0);
	nlmsg_free(m);
	m = cni_rdmanl_dev_dump();
	h = nlmsg_hdr(m);
	assert_int_equal(h->nlmsg_type, (5 << 10) + RDMA_NLDEV_CMD_GET);
	assert_int_equal(h->nlmsg_flags & NLM_F_DUMP, NLM_F_DUMP);
	nlmsg_free(m);
}

static void test_cni_rdmanl__set_netns_request(void **state)
{
	struct nl_msg *m = cni_rdmanl_dev_set_netns(3, 17);
	struct nlmsghdr *h = nlmsg_hdr(m);
	const uint8_t *p = nlmsg_data(h);
	uint16_t len, type;
	uint32_t v;

	assert_int_equal(h->nlmsg_type, (5 << 10) + RDMA_NLDEV_CMD_SET);
	assert_true(h->nlmsg_flags & NLM_F_ACK);
	/* Two u32 attributes, 8 bytes each, in this order. */
	assert_int_equal(nlmsg_datalen(h), 16);
	memcpy(&len, p, 2);
	memcpy(&type, p + 2, 2);
	memcpy(&v, p + 4, 4);
	assert_int_equal(len, 8);
	assert_int_equal(type, RDMA_NLDEV_ATTR_DEV_INDEX);
	assert_int_equal(v, 3);
	memcpy(&len, p + 8, 2);
	memcpy(&type, p + 10, 2);
	memcpy(&v, p + 12, 4);
	assert_int_equal(len, 8);
	assert_int_equal(type, RDMA_NLDEV_NET_NS_FD);
	assert_int_equal(v, 17);
	nlmsg_free(m);
}

static void test_cni_rdmanl__parse_sys(void **state)
{
	struct nl_msg *m;
	int mode = -1;

	m = nlmsg_alloc_simple(cni_rdmanl_type(RDMA_NLDEV_CMD_SYS_GET), 0);
	nla_put_u8(m, RDMA_NLDEV_SYS_ATTR_NETNS_MODE, 1);
	nla_put_u8(m, RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK, 0);
	assert_int_equal(cni_rdmanl_parse_sys(nlmsg_hdr(m), &mode), 0);
	assert_int_equal(mode, CNI_RDMA_NETNS_SHARED);
	nlmsg_free(m);

	m = nlmsg_alloc_simple(cni_rdmanl_type(RDMA_NLDEV_CMD_SYS_GET), 0);
	nla_put_u8(m, RDMA_NLDEV_SYS_ATTR_NETNS_MODE, 0);
	assert_int_equal(cni_rdmanl_parse_sys(nlmsg_hdr(m), &mode), 0);
	assert_int_equal(mode, CNI_RDMA_NETNS_EXCLUSIVE);
	nlmsg_free(m);

	/* Missing attribute, wrong type of message. */
	m = nlmsg_alloc_simple(cni_rdmanl_type(RDMA_NLDEV_CMD_SYS_GET), 0);
	assert_int_equal(cni_rdmanl_parse_sys(nlmsg_hdr(m), &mode), -EBADMSG);
	nlmsg_free(m);
	m = nlmsg_alloc_simple(cni_rdmanl_type(RDMA_NLDEV_CMD_GET), 0);
	nla_put_u8(m, RDMA_NLDEV_SYS_ATTR_NETNS_MODE, 0);
	assert_int_equal(cni_rdmanl_parse_sys(nlmsg_hdr(m), &mode), -EBADMSG);
	nlmsg_free(m);
}

static void test_cni_rdmanl__parse_dev(void **state)
{
	struct cni_rdma_dev d;
	struct nl_msg *m;

	m = nlmsg_alloc_simple(cni_rdmanl_type(RDMA_NLDEV_CMD_GET), NLM_F_MULTI);
	nla_put_u32(m, RDMA_NLDEV_ATTR_DEV_INDEX, 4);
	nla_put_string(m, RDMA_NLDEV_ATTR_DEV_NAME, "rxe0");
	nla_put_u64(m, RDMA_NLDEV_ATTR_NODE_GUID, 0x1122334455667788ull);
	assert_int_equal(cni_rdmanl_parse_dev(nlmsg_hdr(m), &d), 0);
	assert_int_equal(d.index, 4);
	assert_string_equal(d.name, "rxe0");
	nlmsg_free(m);

	m = nlmsg_alloc_simple(cni_rdmanl_type(RDMA_NLDEV_CMD_GET), 0);
	nla_put_string(m, RDMA_NLDEV_ATTR_DEV_NAME, "rxe0");
	assert_int_equal(cni_rdmanl_parse_dev(nlmsg_hdr(m), &d), -EBADMSG);
	nlmsg_free(m);

	/* A u32 attribute too short for its type is rejected by the policy. */
	m = nlmsg_alloc_simple(cni_rdmanl_type(RDMA_NLDEV_CMD_GET), 0);
	nla_put_u8(m, RDMA_NLDEV_ATTR_DEV_INDEX, 4);
	nla_put_string(m, RDMA_NLDEV_ATTR_DEV_NAME, "rxe0");
	assert_int_equal(cni_rdmanl_parse_dev(nlmsg_hdr(m), &d), -EBADMSG);
	nlmsg_free(m);
}

/* GET_CHARDEV for "uverbs": u32 index, then the NUL-terminated client
 * name padded to 4 bytes (attribute length 4 + 7). */
static void test_cni_rdmanl__uverbs_get_request(void **state)
{
	struct nl_msg *m = cni_rdmanl_uverbs_get(2);
	struct nlmsghdr *h = nlmsg_hdr(m);
	const uint8_t *p = nlmsg_data(h);
	uint16_t len, type;
	uint32_t v;

	assert_int_equal(h->nlmsg_type,
			 (5 << 10) + RDMA_NLDEV_CMD_GET_CHARDEV);
	assert_true(h->nlmsg_flags & NLM_F_REQUEST);
	assert_false(h->nlmsg_flags & NLM_F_DUMP);
	assert_int_equal(nlmsg_datalen(h), 8 + 12);
	memcpy(&len, p, 2);
	memcpy(&type, p + 2, 2);
	memcpy(&v, p + 4, 4);
	assert_int_equal(type, RDMA_NLDEV_ATTR_DEV_INDEX);
	assert_int_equal(v, 2);
	memcpy(&len, p + 8, 2);
	memcpy(&type, p + 10, 2);
	assert_int_equal(len, 4 + 7);
	assert_int_equal(type, RDMA_NLDEV_ATTR_CHARDEV_TYPE);
	assert_memory_equal(p + 12, "uverbs", 7);
	nlmsg_free(m);
}

/* The reply as the kernel's nldev_get_chardev() builds it for rxe0. */
static void test_cni_rdmanl__parse_uverbs(void **state)
{
	uint32_t id = 0;
	struct nl_msg *m;

	m = nlmsg_alloc_simple(cni_rdmanl_type(RDMA_NLDEV_CMD_GET_CHARDEV), 0);
	nla_put_u64(m, RDMA_NLDEV_ATTR_CHARDEV, (231ull << 20) | 192);
	nla_put_u64(m, RDMA_NLDEV_ATTR_CHARDEV_ABI, 6);
	nla_put_string(m, RDMA_NLDEV_ATTR_CHARDEV_NAME, "uverbs0");
	nla_put_u32(m, RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID, RDMA_DRIVER_RXE);
	assert_int_equal(cni_rdmanl_parse_uverbs(nlmsg_hdr(m), &id), 0);
	assert_int_equal(id, RDMA_DRIVER_RXE);
	assert_string_equal(cni_rdmanl_driver_name(id), "rxe");
	nlmsg_free(m);

	/* No driver id (a umad reply), or another command's message. */
	m = nlmsg_alloc_simple(cni_rdmanl_type(RDMA_NLDEV_CMD_GET_CHARDEV), 0);
	nla_put_string(m, RDMA_NLDEV_ATTR_CHARDEV_NAME, "umad0");
	assert_int_equal(cni_rdmanl_parse_uverbs(nlmsg_hdr(m), &id), -EBADMSG);
	nlmsg_free(m);
	m = nlmsg_alloc_simple(cni_rdmanl_type(RDMA_NLDEV_CMD_GET), 0);
	nla_put_u32(m, RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID, RDMA_DRIVER_RXE);
	assert_int_equal(cni_rdmanl_parse_uverbs(nlmsg_hdr(m), &id), -EBADMSG);
	nlmsg_free(m);
}

static void test_cni_rdmanl__driver_name(void **state)
{
	assert_string_equal(cni_rdmanl_driver_name(RDMA_DRIVER_MLX5), "mlx5");
	assert_string_equal(cni_rdmanl_driver_name(RDMA_DRIVER_SIW), "siw");
	assert_string_equal(cni_rdmanl_driver_name(RDMA_DRIVER_EFA), "efa");
	assert_null(cni_rdmanl_driver_name(RDMA_DRIVER_UNKNOWN));
	assert_null(cni_rdmanl_driver_name(1000));
}

/* Debian 12's kernel answers EOPNOTSUPP to moving rxe0; libnl's round
 * then fails with -NLE_OPNOTSUPP, which used to become EIO in ADD's
 * message (seen in tests/vm/t_cni_kernel.sh). */
static void test_cni_rdmanl__recv_status(void **state)
{
	assert_int_equal(cni_rdmanl_recv_status(0, 0), 0);
	assert_int_equal(cni_rdmanl_recv_status(3, 0), 0);
	assert_int_equal(cni_rdmanl_recv_status(-NLE_OPNOTSUPP, -EOPNOTSUPP),
			 -EOPNOTSUPP);
	assert_int_equal(cni_rdmanl_recv_status(-NLE_PERM, -EPERM), -EPERM);
	/* A socket failure with no answer from the kernel. */
	assert_int_equal(cni_rdmanl_recv_status(-NLE_BAD_SOCK, 0), -EIO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cni_rdmanl__type),
		cmocka_unit_test(test_cni_rdmanl__sys_get_request),
		cmocka_unit_test(test_cni_rdmanl__set_netns_request),
		cmocka_unit_test(test_cni_rdmanl__parse_sys),
		cmocka_unit_test(test_cni_rdmanl__parse_dev),
		cmocka_unit_test(test_cni_rdmanl__uverbs_get_request),
		cmocka_unit_test(test_cni_rdmanl__parse_uverbs),
		cmocka_unit_test(test_cni_rdmanl__driver_name),
		cmocka_unit_test(test_cni_rdmanl__recv_status),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
