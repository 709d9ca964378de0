/* SPDX-License-Identifier: MIT */
/*
 * RDMA CM service IDs, private-data limits and the IP header at the start
 * of a REQ's private data, against the values the kernel's cma.c and
 * librdmacm use (RDMA_PS_*, cma_hdr, the 56-byte connect limit).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <rdma/rdma_cma.h>

#include "providers/soft/engine/eng_cm_pdata.h"

/* Our mirrors of librdmacm's values (Debian's header, or ours once it
 * is in include/: both must agree). */
_Static_assert((int)ENG_CM_PS_TCP == (int)RDMA_PS_TCP, "RDMA_PS_TCP");
_Static_assert((int)ENG_CM_PS_UDP == (int)RDMA_PS_UDP, "RDMA_PS_UDP");
_Static_assert((int)ENG_CM_PS_IB == (int)RDMA_PS_IB, "RDMA_PS_IB");
_Static_assert((int)ENG_CM_PS_IPOIB == (int)RDMA_PS_IPOIB, "RDMA_PS_IPOIB");
_Static_assert(ENG_CM_UDP_QKEY == RDMA_UDP_QKEY, "RDMA_UDP_QKEY");

static void test_eng_cm_pdata__service_ids(void **state)
{
	uint16_t ps, port;

	(void)state;
	assert_int_equal(eng_cm_service_id(ENG_CM_PS_TCP, 20001), 0x0000000001064e21ull);
	assert_int_equal(eng_cm_service_id(ENG_CM_PS_UDP, 7174), 0x0000000001111c06ull);
	assert_int_equal(eng_cm_service_id(ENG_CM_PS_IB, 1), 0x00000000013f0001ull);
	assert_int_equal(eng_cm_service_id(ENG_CM_PS_IPOIB, 0xffff), 0x000000000002ffffull);
	assert_int_equal(eng_cm_service_id_parse(0x0000000001064e21ull, &ps, &port), 0);
	assert_int_equal(ps, ENG_CM_PS_TCP);
	assert_int_equal(port, 20001);
	assert_int_equal(eng_cm_service_id_parse(0x0000000101064e21ull, &ps, &port), -EINVAL);
	assert_int_equal(eng_cm_service_id_parse(0x0000000001074e21ull, &ps, &port), -EINVAL);
	assert_int_equal(eng_cm_service_id_parse(0x1000000000000000ull, &ps, &port), -EINVAL);
}

static void test_eng_cm_pdata__limits(void **state)
{
	(void)state;
	assert_int_equal(eng_cm_pdata_max(ENG_CM_ATTR_REQ, 1), 56);
	assert_int_equal(eng_cm_pdata_max(ENG_CM_ATTR_REQ, 0), 92);
	assert_int_equal(eng_cm_pdata_max(ENG_CM_ATTR_REP, 1), 196);
	assert_int_equal(eng_cm_pdata_max(ENG_CM_ATTR_REJ, 1), 148);
	assert_int_equal(eng_cm_pdata_max(ENG_CM_ATTR_RTU, 1), 224);
	assert_int_equal(eng_cm_pdata_max(ENG_CM_ATTR_MRA, 1), 222);
	assert_int_equal(eng_cm_pdata_max(ENG_CM_ATTR_DREQ, 1), 220);
	assert_int_equal(eng_cm_pdata_max(ENG_CM_ATTR_DREP, 1), 224);
	assert_int_equal(eng_cm_pdata_max(ENG_CM_ATTR_SIDR_REQ, 1), 180);
	assert_int_equal(eng_cm_pdata_max(ENG_CM_ATTR_SIDR_REQ, 0), 216);
	assert_int_equal(eng_cm_pdata_max(ENG_CM_ATTR_SIDR_REP, 1), 136);
	assert_int_equal(eng_cm_pdata_max(ENG_CM_ATTR_CLASS_PORT_INFO, 1), 0);
}

static void test_eng_cm_pdata__ipv4_bytes(void **state)
{
	struct eng_cm_ip_hdr h = { .ip_version = 4, .src_port = 0xc001 }, d;
	uint8_t pd[ENG_CM_REQ_PDATA_SIZE], len = 0;
	static const uint8_t user[3] = { 'a', 'b', 'c' };
	static const uint8_t want[40] = { 0x00, 0x40, 0xc0, 0x01,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 0, 0, 1,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 0, 0, 2, 'a', 'b', 'c', 0 };

	(void)state;
	h.src_addr[12] = 10; h.src_addr[15] = 1;
	h.dst_addr[12] = 10; h.dst_addr[15] = 2;
	h.src_addr[10] = 0xff;	/* ignored for IPv4 */
	assert_int_equal(eng_cm_pdata_encode(ENG_CM_ATTR_REQ, &h, user, 3, pd,
					     sizeof(pd), &len), 0);
	assert_int_equal(len, 39);
	assert_memory_equal(pd, want, sizeof(want));
	assert_int_equal(eng_cm_pdata_decode(pd, sizeof(pd), &d), 0);
	assert_int_equal(d.ip_version, 4);
	assert_int_equal(d.src_port, 0xc001);
	assert_memory_equal(d.src_addr, want + 4, 16);
	assert_memory_equal(d.dst_addr, want + 20, 16);
	/* A peer's garbage in the IPv4 pad does not reach the address. */
	pd[4] = 0xee;
	assert_int_equal(eng_cm_pdata_decode(pd, sizeof(pd), &d), 0);
	assert_int_equal(d.src_addr[0], 0);
}

static void test_eng_cm_pdata__ipv6_and_refusals(void **state)
{
	struct eng_cm_ip_hdr h = { .ip_version = 6, .src_port = 1 }, d;
	uint8_t pd[ENG_CM_SIDR_REQ_PDATA_SIZE], len = 0, big[200] = { 0 };

	(void)state;
	memset(h.src_addr, 0x20, 16);
	memset(h.dst_addr, 0xfe, 16);
	assert_int_equal(eng_cm_pdata_encode(ENG_CM_ATTR_SIDR_REQ, &h, big, 180,
					     pd, sizeof(pd), &len), 0);
	assert_int_equal(len, 216);
	assert_int_equal(pd[1], 0x60);
	assert_int_equal(eng_cm_pdata_decode(pd, sizeof(pd), &d), 0);
	assert_memory_equal(d.src_addr, h.src_addr, 16);
	assert_memory_equal(d.dst_addr, h.dst_addr, 16);
	/* Limits: 181 bytes after the header do not fit a SIDR_REQ, 57 a REQ. */
	assert_int_equal(eng_cm_pdata_encode(ENG_CM_ATTR_SIDR_REQ, &h, big, 181,
					     pd, sizeof(pd), &len), -EINVAL);
	assert_int_equal(eng_cm_pdata_encode(ENG_CM_ATTR_REQ, &h, big, 57,
					     pd, sizeof(pd), &len), -EINVAL);
	assert_int_equal(eng_cm_pdata_encode(ENG_CM_ATTR_REP, &h, big, 1,
					     pd, sizeof(pd), &len), -EINVAL);
	assert_int_equal(eng_cm_pdata_encode(ENG_CM_ATTR_REQ, &h, big, 0,
					     pd, 91, &len), -EINVAL);
	h.ip_version = 5;
	assert_int_equal(eng_cm_pdata_encode(ENG_CM_ATTR_REQ, &h, big, 0,
					     pd, sizeof(pd), &len), -EINVAL);
	/* Decode refusals. */
	pd[1] = 0x60;
	assert_int_equal(eng_cm_pdata_decode(pd, 35, &d), -EMSGSIZE);
	pd[0] = 1;
	assert_int_equal(eng_cm_pdata_decode(pd, sizeof(pd), &d), -EPROTO);
	pd[0] = 0; pd[1] = 0x50;
	assert_int_equal(eng_cm_pdata_decode(pd, sizeof(pd), &d), -EPROTO);
	pd[1] = 0x4f;	/* reserved low nibble ignored */
	assert_int_equal(eng_cm_pdata_decode(pd, sizeof(pd), &d), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eng_cm_pdata__service_ids),
		cmocka_unit_test(test_eng_cm_pdata__limits),
		cmocka_unit_test(test_eng_cm_pdata__ipv4_bytes),
		cmocka_unit_test(test_eng_cm_pdata__ipv6_and_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
