/* SPDX-License-Identifier: MIT */
/* Unit tests of the RDMA netlink lookup's pure part (lv_kern_nl.c) on
 * replies recorded from Debian 12's kernel (6.1) in the vm tier, with rxe0
 * on eth0 and a second rxe device renamed kbx0 (index 1, uverbs1): the
 * RDMA_NLDEV_CMD_GET dump (two devices, then NLMSG_DONE), the
 * GET_CHARDEV reply for index 1, and the kernel's error for index 2 that
 * echoes our request.  Then hostile variants of them. */
#include <errno.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "libverbs/lv_kern_abi.h"
#include "libverbs/lv_kern_nl.h"

static const char dump_rxe0[] =
	"6c0000000114020007000000c0000000080001000000000009000200727865300000"
	"000008000300010000000c000400763c2201000000000c000600020084feff005450"
	"0c000700020084feff00545005000e0001000000050054000000000009004300726f"
	"636500000000";
static const char dump_kbx0[] =
	"6c0000000114020007000000c00000000800010001000000090002006b6278300000"
	"000008000300010000000c000400763c2201000000000c0006009fdc6afefff6d988"
	"0c0007009fdc6afefff6d98805000e0001000000050054000000000009004300726f"
	"636500000000";
static const char dump_done[] = "140000000300020007000000c000000000000000";
static const char chardev_1[] =
	"3c0000000f14000065000000c0000000080049000e0000000c004800c1e700000000"
	"00000c00470002000000000000000c0046007576657262733100";
/* NLMSG_ERROR -EINVAL, then the request it answers (seq 0x66, index 2). */
static const char chardev_2_err[] =
	"380000000200000066000000c0000000eaffffff240000000f140100660000000000"
	"000008000100020000000b0045007576657262730000";

static size_t unhex(const char *hex, uint8_t *out, size_t cap)
{
	size_t n = strlen(hex) / 2;
	unsigned int b;

	assert_true(n <= cap);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(sscanf(hex + 2 * i, "%2x", &b), 1);
		out[i] = (uint8_t)b;
	}
	return n;
}

static void test_kern_nl__requests_as_the_kernel_saw_them(void **state)
{
	uint8_t got[64], want[64];
	size_t wlen = unhex(chardev_2_err, want, sizeof(want));
	int n;

	/* The echoed request follows the 16-byte header and the error. */
	n = lv_kern_nl_chardev_req(got, sizeof(got), 0x66, 2);
	assert_int_equal(n, 36);
	assert_int_equal(wlen, 20 + 36);
	assert_memory_equal(got, want + 20, 36);
	n = lv_kern_nl_dump_req(got, sizeof(got), 7);
	assert_int_equal(n, NLMSG_HDRLEN);
	assert_int_equal(((struct nlmsghdr *)got)->nlmsg_type,
			 RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET));
	assert_int_equal(((struct nlmsghdr *)got)->nlmsg_flags,
			 NLM_F_REQUEST | NLM_F_DUMP);
	assert_int_equal(((struct nlmsghdr *)got)->nlmsg_len, NLMSG_HDRLEN);
	/* Too small a buffer is refused, never overrun. */
	assert_int_equal(lv_kern_nl_chardev_req(got, 35, 1, 2), -ENOSPC);
	assert_int_equal(lv_kern_nl_dump_req(got, 15, 1), -ENOSPC);
}

static void test_kern_nl__dump_lists_both_devices(void **state)
{
	uint8_t buf[512];
	size_t len = 0, off = 0;
	struct lv_kern_nl_info m;

	/* One buffer of three messages, as one recv may bring them. */
	len += unhex(dump_rxe0, buf + len, sizeof(buf) - len);
	len += unhex(dump_kbx0, buf + len, sizeof(buf) - len);
	len += unhex(dump_done, buf + len, sizeof(buf) - len);
	assert_int_equal(lv_kern_nl_next(buf, len, &off, &m), 1);
	assert_true(lv_kern_nl_is(&m, RDMA_NLDEV_CMD_GET));
	assert_true(m.multi);
	assert_int_equal(m.seq, 7);
	assert_int_equal(m.have & (LV_NL_HAVE_INDEX | LV_NL_HAVE_NAME),
			 LV_NL_HAVE_INDEX | LV_NL_HAVE_NAME);
	assert_int_equal(m.dev_index, 0);
	assert_string_equal(m.dev_name, "rxe0");
	assert_int_equal(lv_kern_nl_next(buf, len, &off, &m), 1);
	assert_int_equal(m.dev_index, 1);
	assert_string_equal(m.dev_name, "kbx0");
	assert_int_equal(lv_kern_nl_next(buf, len, &off, &m), 1);
	assert_int_equal(m.type, NLMSG_DONE);
	assert_int_equal(lv_kern_nl_next(buf, len, &off, &m), 0);
	assert_int_equal(off, len);
}

static void test_kern_nl__chardev_names_uverbs_and_driver(void **state)
{
	uint8_t buf[128];
	size_t len = unhex(chardev_1, buf, sizeof(buf)), off = 0;
	struct lv_kern_nl_info m;

	assert_int_equal(lv_kern_nl_next(buf, len, &off, &m), 1);
	assert_true(lv_kern_nl_is(&m, RDMA_NLDEV_CMD_GET_CHARDEV));
	assert_int_equal(m.seq, 0x65);
	assert_string_equal(m.chardev_name, "uverbs1");
	/* The kernel sends the driver id as u32 (the header says u64). */
	assert_true(m.have & LV_NL_HAVE_DRIVER_ID);
	assert_int_equal(m.driver_id, RDMA_DRIVER_RXE);
	assert_int_equal(m.chardev, 0xe7c1);
	assert_int_equal(m.abi, 2);

	len = unhex(chardev_2_err, buf, sizeof(buf));
	off = 0;
	assert_int_equal(lv_kern_nl_next(buf, len, &off, &m), 1);
	assert_int_equal(m.type, NLMSG_ERROR);
	assert_int_equal(m.error, -EINVAL);
	assert_int_equal(m.have, 0);
}

/* Every length the kernel gives is checked against what is there. */
static void test_kern_nl__hostile_lengths(void **state)
{
	uint8_t buf[128], bad[128];
	size_t len = unhex(chardev_1, buf, sizeof(buf)), off;
	struct lv_kern_nl_info m;

	/* Truncated datagram: nlmsg_len beyond the buffer. */
	off = 0;
	assert_int_equal(lv_kern_nl_next(buf, len - 1, &off, &m), -EBADMSG);
	assert_int_equal(off, 0);
	/* Less than a header left. */
	off = 0;
	assert_int_equal(lv_kern_nl_next(buf, 10, &off, &m), -EBADMSG);
	/* nlmsg_len below a header. */
	memcpy(bad, buf, len);
	bad[0] = 8;
	off = 0;
	assert_int_equal(lv_kern_nl_next(bad, len, &off, &m), -EBADMSG);
	/* The first attribute claims more than the message holds. */
	memcpy(bad, buf, len);
	bad[16] = 0xff;
	off = 0;
	assert_int_equal(lv_kern_nl_next(bad, len, &off, &m), -EBADMSG);
	/* An attribute shorter than its own header. */
	bad[16] = 2;
	off = 0;
	assert_int_equal(lv_kern_nl_next(bad, len, &off, &m), -EBADMSG);
	/* The driver id two bytes long. */
	memcpy(bad, buf, len);
	bad[16] = 6;
	off = 0;
	assert_int_equal(lv_kern_nl_next(bad, len, &off, &m), -EBADMSG);
	/* The uverbs name without its NUL (last attribute, last byte). */
	memcpy(bad, buf, len);
	bad[len - 1] = 'x';
	off = 0;
	assert_int_equal(lv_kern_nl_next(bad, len, &off, &m), -EBADMSG);
	/* A name longer than the field: still refused, not truncated. */
	{
		uint8_t big[NLMSG_HDRLEN + 4 + 80];
		struct nlmsghdr h = { .nlmsg_len = sizeof(big),
				      .nlmsg_type = RDMA_NL_GET_TYPE(
					      RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET) };
		struct nlattr a = { .nla_len = 4 + 80,
				    .nla_type = RDMA_NLDEV_ATTR_DEV_NAME };

		memset(big, 'a', sizeof(big));
		memcpy(big, &h, sizeof(h));
		memcpy(big + NLMSG_HDRLEN, &a, sizeof(a));
		big[sizeof(big) - 1] = '\0';
		off = 0;
		assert_int_equal(lv_kern_nl_next(big, sizeof(big), &off, &m),
				 -EBADMSG);
	}
	/* An error message too short for its nlmsgerr. */
	len = unhex(chardev_2_err, bad, sizeof(bad));
	bad[0] = 18;
	off = 0;
	assert_int_equal(lv_kern_nl_next(bad, len, &off, &m), -EBADMSG);
}

static void test_kern_nl__find_by_uverbs_and_name(void **state)
{
	const struct lv_kern_nl_dev devs[] = {
		{ .index = 0, .driver_id = RDMA_DRIVER_RXE, .name = "rxe0",
		  .uverbs = "uverbs0" },
		{ .index = 1, .driver_id = RDMA_DRIVER_RXE, .name = "kbx0",
		  .uverbs = "uverbs1" },
		{ .index = 5, .driver_id = RDMA_DRIVER_UNKNOWN, .name = "dev5",
		  .uverbs = "" },
	};

	assert_ptr_equal(lv_kern_nl_find(devs, 3, "uverbs1", "kbx0"), &devs[1]);
	/* Both must agree: sysfs and netlink read at different times. */
	assert_null(lv_kern_nl_find(devs, 3, "uverbs1", "rxe0"));
	assert_null(lv_kern_nl_find(devs, 3, "uverbs9", "dev5"));
	assert_null(lv_kern_nl_find(devs, 0, "uverbs0", "rxe0"));
	assert_null(lv_kern_nl_find(NULL, -ENOENT, "uverbs0", "rxe0"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kern_nl__requests_as_the_kernel_saw_them),
		cmocka_unit_test(test_kern_nl__dump_lists_both_devices),
		cmocka_unit_test(test_kern_nl__chardev_names_uverbs_and_driver),
		cmocka_unit_test(test_kern_nl__hostile_lengths),
		cmocka_unit_test(test_kern_nl__find_by_uverbs_and_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
