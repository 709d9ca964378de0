/* SPDX-License-Identifier: MIT */
/* Unit tests of the libverbs core's pure parts: enum strings, rate
 * conversions, GRH parsing for ibv_init_ah_from_wc, the handle table. */
#include <arpa/inet.h>
#include <endian.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "libverbs/lv_core.h"

static void test_lv_strings__known_and_unknown(void **state)
{
	assert_string_equal(ibv_wc_status_str(IBV_WC_SUCCESS), "success");
	assert_string_equal(ibv_wc_status_str(IBV_WC_WR_FLUSH_ERR),
			    "Work Request Flushed Error");
	assert_string_equal(ibv_wc_status_str(IBV_WC_RETRY_EXC_ERR),
			    "transport retry counter exceeded");
	assert_string_equal(ibv_wc_status_str((enum ibv_wc_status)999),
			    "unknown");
	assert_string_equal(ibv_node_type_str(IBV_NODE_CA),
			    "InfiniBand channel adapter");
	assert_string_equal(ibv_node_type_str(IBV_NODE_UNKNOWN), "unknown");
	assert_string_equal(ibv_port_state_str(IBV_PORT_ACTIVE), "active");
	assert_string_equal(ibv_port_state_str((enum ibv_port_state)-3),
			    "unknown");
	assert_string_equal(ibv_event_type_str(IBV_EVENT_PORT_ACTIVE),
			    "port active");
	assert_string_equal(ibv_event_type_str(IBV_EVENT_GID_CHANGE),
			    "GID table change");
	assert_string_equal(ibv_event_type_str((enum ibv_event_type)77),
			    "unknown");
}

static void test_lv_rate__conversions(void **state)
{
	assert_int_equal(ibv_rate_to_mult(IBV_RATE_2_5_GBPS), 1);
	assert_int_equal(ibv_rate_to_mult(IBV_RATE_120_GBPS), 48);
	assert_int_equal(ibv_rate_to_mult(IBV_RATE_100_GBPS), -1);
	assert_int_equal(ibv_rate_to_mult(IBV_RATE_MAX), -1);
	assert_int_equal(mult_to_ibv_rate(4), IBV_RATE_10_GBPS);
	assert_int_equal(mult_to_ibv_rate(3), IBV_RATE_MAX);
	assert_int_equal(mult_to_ibv_rate(-1), IBV_RATE_MAX);
	assert_int_equal(ibv_rate_to_mbps(IBV_RATE_25_GBPS), 25781);
	assert_int_equal(ibv_rate_to_mbps(IBV_RATE_100_GBPS), 103125);
	assert_int_equal(ibv_rate_to_mbps(IBV_RATE_MAX), -1);
	assert_int_equal(mbps_to_ibv_rate(56250), IBV_RATE_56_GBPS);
	assert_int_equal(mbps_to_ibv_rate(12345), IBV_RATE_MAX);
	/* Every rate with a multiplier maps back to itself. */
	for (int r = IBV_RATE_2_5_GBPS; r <= IBV_RATE_600_GBPS; r++) {
		int m = ibv_rate_to_mult((enum ibv_rate)r);

		if (m > 0)
			assert_int_equal(mult_to_ibv_rate(m), r);
		assert_int_equal(mbps_to_ibv_rate(ibv_rate_to_mbps(r)), r);
	}
}

/* Builds the 40 bytes RoCEv2 puts before a UD receive over IPv4: 20
 * undefined bytes, then an IPv4 header with a valid checksum. */
static void make_ipv4_grh(uint8_t *b, uint8_t tos, const char *src,
			  const char *dst, uint8_t garbage)
{
	uint8_t *ip = b + 20;
	uint32_t sum = 0;

	memset(b, garbage, 20);
	memset(ip, 0, 20);
	ip[0] = 0x45;
	ip[1] = tos;
	ip[3] = 60;
	ip[8] = 64;
	ip[9] = 17;
	inet_pton(AF_INET, src, ip + 12);
	inet_pton(AF_INET, dst, ip + 16);
	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)ip[i] << 8 | ip[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	ip[10] = (uint8_t)(~sum >> 8);
	ip[11] = (uint8_t)~sum;
}

static void assert_gid_str(const union ibv_gid *g, const char *want)
{
	char s[INET6_ADDRSTRLEN];

	inet_ntop(AF_INET6, g->raw, s, sizeof(s));
	assert_string_equal(s, want);
}

static void test_lv_grh__ipv4_roce_v2(void **state)
{
	struct lv_grh_info g;
	uint8_t b[40];

	make_ipv4_grh(b, 0x28, "10.1.2.3", "10.1.2.9", 0);
	assert_int_equal(lv_grh_parse((struct ibv_grh *)b, &g), 0);
	assert_int_equal(g.ip_version, 4);
	assert_int_equal(g.traffic_class, 0x28);
	assert_int_equal(g.flow_label, 0);
	assert_gid_str(&g.sgid, "::ffff:10.1.2.3");
	assert_gid_str(&g.dgid, "::ffff:10.1.2.9");
}

static void test_lv_grh__ipv4_with_v6_looking_garbage(void **state)
{
	struct lv_grh_info g;
	uint8_t b[40];

	/* The undefined first bytes start with 0x6_: the valid IPv4 header
	 * checksum still decides. */
	make_ipv4_grh(b, 0, "192.168.0.1", "192.168.0.2", 0x60);
	assert_int_equal(lv_grh_parse((struct ibv_grh *)b, &g), 0);
	assert_int_equal(g.ip_version, 4);
	assert_gid_str(&g.sgid, "::ffff:192.168.0.1");
}

static void test_lv_grh__ipv6(void **state)
{
	struct ibv_grh grh;
	struct lv_grh_info g;

	memset(&grh, 0, sizeof(grh));
	grh.version_tclass_flow = htobe32(6u << 28 | 0xabu << 20 | 0x12345);
	grh.hop_limit = 7;
	inet_pton(AF_INET6, "fe80::1", grh.sgid.raw);
	inet_pton(AF_INET6, "fe80::2", grh.dgid.raw);
	assert_int_equal(lv_grh_parse(&grh, &g), 0);
	assert_int_equal(g.ip_version, 6);
	assert_int_equal(g.traffic_class, 0xab);
	assert_int_equal(g.flow_label, 0x12345);
	assert_gid_str(&g.sgid, "fe80::1");
	assert_gid_str(&g.dgid, "fe80::2");
}

static void test_lv_grh__neither_version_rejected(void **state)
{
	struct lv_grh_info g;
	uint8_t b[40];

	memset(b, 0, sizeof(b));
	assert_int_equal(lv_grh_parse((struct ibv_grh *)b, &g),
			 -EPROTONOSUPPORT);
}

static void test_lv_grh__ah_attr_answers_sender(void **state)
{
	struct ibv_wc wc = { .slid = 5, .sl = 2, .dlid_path_bits = 1,
			     .wc_flags = IBV_WC_GRH };
	struct ibv_ah_attr ah;
	struct lv_grh_info g;
	uint8_t b[40];

	make_ipv4_grh(b, 0x10, "10.0.0.7", "10.0.0.8", 0);
	assert_int_equal(lv_grh_parse((struct ibv_grh *)b, &g), 0);
	lv_ah_attr_from_wc(&wc, 1, &g, &ah);
	assert_int_equal(ah.is_global, 1);
	assert_int_equal(ah.port_num, 1);
	assert_int_equal(ah.dlid, 5);
	assert_int_equal(ah.sl, 2);
	assert_int_equal(ah.src_path_bits, 1);
	assert_int_equal(ah.grh.traffic_class, 0x10);
	assert_int_equal(ah.grh.hop_limit, 0xff);
	assert_gid_str(&ah.grh.dgid, "::ffff:10.0.0.7");

	lv_ah_attr_from_wc(&wc, 1, NULL, &ah);
	assert_int_equal(ah.is_global, 0);
}

static void test_lv_handle__insert_lookup_remove(void **state)
{
	struct lv_htable t;
	int objs[600];

	memset(&t, 0, sizeof(t));
	for (int i = 0; i < 600; i++)
		assert_int_equal(lv_htable_insert(&t, PV_KIND_QP, i + 1,
						  &objs[i]), 0);
	assert_int_equal(lv_htable_insert(&t, PV_KIND_QP, 1, &objs[0]),
			 -EEXIST);
	/* Same handle, other kind: a different object. */
	assert_int_equal(lv_htable_insert(&t, PV_KIND_CQ, 1, &objs[5]), 0);
	assert_ptr_equal(lv_htable_lookup(&t, PV_KIND_CQ, 1), &objs[5]);
	for (int i = 0; i < 600; i++)
		assert_ptr_equal(lv_htable_lookup(&t, PV_KIND_QP, i + 1),
				 &objs[i]);
	assert_null(lv_htable_lookup(&t, PV_KIND_QP, 601));
	assert_ptr_equal(lv_htable_remove(&t, PV_KIND_QP, 300), &objs[299]);
	assert_null(lv_htable_lookup(&t, PV_KIND_QP, 300));
	assert_null(lv_htable_remove(&t, PV_KIND_QP, 300));
	lv_htable_clear(&t);
	assert_null(lv_htable_lookup(&t, PV_KIND_QP, 1));
}

static void test_lv_sysfs__missing_file_fails(void **state)
{
	char buf[64];

	assert_int_equal(ibv_read_sysfs_file("/sys/class/infiniband/nope",
					     "board_id", buf, sizeof(buf)), -1);
	assert_int_equal(ibv_read_sysfs_file("/proc/self", "comm", buf,
					     sizeof(buf)) > 0, 1);
	assert_null(strchr(buf, '\n'));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lv_strings__known_and_unknown),
		cmocka_unit_test(test_lv_rate__conversions),
		cmocka_unit_test(test_lv_grh__ipv4_roce_v2),
		cmocka_unit_test(test_lv_grh__ipv4_with_v6_looking_garbage),
		cmocka_unit_test(test_lv_grh__ipv6),
		cmocka_unit_test(test_lv_grh__neither_version_rejected),
		cmocka_unit_test(test_lv_grh__ah_attr_answers_sender),
		cmocka_unit_test(test_lv_handle__insert_lookup_remove),
		cmocka_unit_test(test_lv_sysfs__missing_file_fails),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
