/* SPDX-License-Identifier: MIT */
/* Unit tests of the datagram rsocket headers (rc_rs_dgram_proto.h): the
 * UDP header and the UD datagram header byte for byte as rdma-core's
 * struct ds_udp_header and struct ds_header lay them out, and the
 * refusal of what a hostile peer may send instead (short, wrong tag,
 * unknown version or op, a length that is not the version's). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <cmocka.h>

#include "librdmacm/rc_rs_dgram_proto.h"

static void test_rc_ds__udp_v4_bytes(void **state)
{
	struct rc_ds_udp h = { .version = 4, .op = RC_DS_OP_DATA,
			       .qpn = 0xAB123456, .addr = { 10, 1, 2, 3 } };
	static const uint8_t want[RC_DS_UDP_V4_LEN] = {
		0x55, 0x55, 0x55, 0x55, 4, 0, 16, 0,
		0x00, 0x12, 0x34, 0x56, 10, 1, 2, 3 };
	uint8_t out[RC_DS_UDP_V6_LEN];
	struct rc_ds_udp d;
	size_t hlen = 0;

	(void)state;
	assert_int_equal(rc_ds_udp_encode(&h, out), RC_DS_UDP_V4_LEN);
	assert_memory_equal(out, want, sizeof(want));
	assert_int_equal(rc_ds_udp_decode(out, sizeof(want), AF_INET, &d, &hlen),
			 RC_DS_OK);
	assert_int_equal(hlen, RC_DS_UDP_V4_LEN);
	assert_int_equal(d.version, 4);
	assert_int_equal(d.op, RC_DS_OP_DATA);
	assert_int_equal(d.qpn, 0x123456);	/* the top byte is reserved */
	assert_memory_equal(d.addr, h.addr, 4);
}

static void test_rc_ds__udp_v6_bytes(void **state)
{
	struct rc_ds_udp h = { .version = 6, .op = RC_DS_OP_CTRL, .qpn = 0x11 };
	uint8_t out[RC_DS_UDP_V6_LEN + 4];
	struct rc_ds_udp d;
	size_t hlen = 0;

	(void)state;
	for (int i = 0; i < 16; i++)
		h.addr[i] = (uint8_t)(0xF0 + i);
	assert_int_equal(rc_ds_udp_encode(&h, out), RC_DS_UDP_V6_LEN);
	assert_int_equal(out[4], 6);
	assert_int_equal(out[5], 7);
	assert_int_equal(out[6], 28);
	assert_int_equal(out[11], 0x11);
	assert_memory_equal(out + 12, h.addr, 16);
	/* Payload after the header: hlen says where it starts. */
	assert_int_equal(rc_ds_udp_decode(out, sizeof(out), AF_INET6, &d, &hlen),
			 RC_DS_OK);
	assert_int_equal(hlen, 28);
	assert_int_equal(d.op, RC_DS_OP_CTRL);
	assert_memory_equal(d.addr, h.addr, 16);
}

static void test_rc_ds__udp_hostile(void **state)
{
	struct rc_ds_udp h = { .version = 4, .op = RC_DS_OP_DATA, .qpn = 5 };
	uint8_t b[RC_DS_UDP_V6_LEN];
	struct rc_ds_udp d;
	size_t hlen;

	(void)state;
	rc_ds_udp_encode(&h, b);
	assert_int_equal(rc_ds_udp_decode(b, 15, AF_INET, &d, &hlen),
			 RC_DS_BAD_SHORT);
	/* An IPv4 header from an IPv6 sender, and the other way. */
	assert_int_equal(rc_ds_udp_decode(b, 16, AF_INET6, &d, &hlen),
			 RC_DS_BAD_VERSION);
	b[0] ^= 1;
	assert_int_equal(rc_ds_udp_decode(b, 16, AF_INET, &d, &hlen),
			 RC_DS_BAD_TAG);
	b[0] ^= 1;
	b[4] = 5;
	assert_int_equal(rc_ds_udp_decode(b, 16, AF_INET, &d, &hlen),
			 RC_DS_BAD_VERSION);
	b[4] = 4;
	b[6] = 28;	/* a v6 length on a v4 header */
	assert_int_equal(rc_ds_udp_decode(b, 16, AF_INET, &d, &hlen),
			 RC_DS_BAD_LENGTH);
	b[6] = 16;
	for (int op = 1; op < 256; op++) {
		if (op == RC_DS_OP_CTRL)
			continue;
		b[5] = (uint8_t)op;
		assert_int_equal(rc_ds_udp_decode(b, 16, AF_INET, &d, &hlen),
				 RC_DS_BAD_OP);
	}
	/* A v6 header claiming 28 bytes in a 20-byte datagram. */
	h.version = 6;
	rc_ds_udp_encode(&h, b);
	assert_int_equal(rc_ds_udp_decode(b, 20, AF_INET6, &d, &hlen),
			 RC_DS_BAD_SHORT);
}

static void test_rc_ds__hdr_v4_bytes(void **state)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(7174) };
	static const uint8_t want[RC_DS_V4_LEN] = { 4, 8, 0x1C, 0x06,
						    192, 168, 7, 9 };
	uint8_t out[RC_DS_V6_LEN];
	struct sockaddr_storage src;
	socklen_t sl = 0;
	size_t hlen = 0;

	(void)state;
	inet_pton(AF_INET, "192.168.7.9", &a.sin_addr);
	assert_int_equal(rc_ds_hdr_encode((struct sockaddr *)&a, out), 8);
	assert_memory_equal(out, want, sizeof(want));
	assert_int_equal(rc_ds_hdr_decode(out, 8, &src, &sl, &hlen), RC_DS_OK);
	assert_int_equal(hlen, 8);
	assert_int_equal(sl, sizeof(struct sockaddr_in));
	assert_int_equal(src.ss_family, AF_INET);
	assert_int_equal(((struct sockaddr_in *)&src)->sin_port, htons(7174));
	assert_int_equal(((struct sockaddr_in *)&src)->sin_addr.s_addr,
			 a.sin_addr.s_addr);
}

static void test_rc_ds__hdr_v6_bytes(void **state)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6,
				  .sin6_port = htons(9),
				  .sin6_flowinfo = htonl(0x12345) };
	uint8_t out[RC_DS_V6_LEN];
	struct sockaddr_storage src;
	socklen_t sl = 0;
	size_t hlen = 0;

	(void)state;
	inet_pton(AF_INET6, "fd00::1:2", &a.sin6_addr);
	assert_int_equal(rc_ds_hdr_encode((struct sockaddr *)&a, out), 24);
	assert_int_equal(out[0], 6);
	assert_int_equal(out[1], 24);
	assert_int_equal(out[3], 9);
	assert_int_equal(out[6], 0x23);
	assert_memory_equal(out + 8, &a.sin6_addr, 16);
	assert_int_equal(rc_ds_hdr_decode(out, 24, &src, &sl, &hlen), RC_DS_OK);
	assert_int_equal(sl, sizeof(struct sockaddr_in6));
	assert_memory_equal(&((struct sockaddr_in6 *)&src)->sin6_addr,
			    &a.sin6_addr, 16);
	assert_int_equal(((struct sockaddr_in6 *)&src)->sin6_flowinfo,
			 a.sin6_flowinfo);
	assert_int_equal(rc_ds_hdr_encode(&(struct sockaddr){ .sa_family =
							      AF_UNIX }, out), 0);
}

static void test_rc_ds__hdr_hostile(void **state)
{
	uint8_t b[RC_DS_V6_LEN] = { 4, 8 };
	struct sockaddr_storage src;
	socklen_t sl;
	size_t hlen;

	(void)state;
	assert_int_equal(rc_ds_hdr_decode(b, 7, &src, &sl, &hlen),
			 RC_DS_BAD_SHORT);
	assert_int_equal(rc_ds_hdr_decode(b, 0, &src, &sl, &hlen),
			 RC_DS_BAD_SHORT);
	b[1] = 24;	/* v4 with the v6 length */
	assert_int_equal(rc_ds_hdr_decode(b, 24, &src, &sl, &hlen),
			 RC_DS_BAD_LENGTH);
	b[0] = 6;	/* v6, but only 8 bytes came */
	assert_int_equal(rc_ds_hdr_decode(b, 8, &src, &sl, &hlen),
			 RC_DS_BAD_SHORT);
	b[1] = 255;
	assert_int_equal(rc_ds_hdr_decode(b, 24, &src, &sl, &hlen),
			 RC_DS_BAD_LENGTH);
	for (int v = 0; v < 256; v++) {
		if (v == 4 || v == 6)
			continue;
		b[0] = (uint8_t)v;
		assert_int_equal(rc_ds_hdr_decode(b, 24, &src, &sl, &hlen),
				 RC_DS_BAD_VERSION);
	}
	/* The payload room: a UD slot less the header. */
	assert_int_equal(rc_ds_max_payload(AF_INET), 2040);
	assert_int_equal(rc_ds_max_payload(AF_INET6), 2024);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rc_ds__udp_v4_bytes),
		cmocka_unit_test(test_rc_ds__udp_v6_bytes),
		cmocka_unit_test(test_rc_ds__udp_hostile),
		cmocka_unit_test(test_rc_ds__hdr_v4_bytes),
		cmocka_unit_test(test_rc_ds__hdr_v6_bytes),
		cmocka_unit_test(test_rc_ds__hdr_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
