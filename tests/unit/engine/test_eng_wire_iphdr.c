/* SPDX-License-Identifier: MIT */
/* Unit tests of eng_wire_iphdr.h: the IP/UDP headers rebuilt for the
 * ICRC, and the IPv4 Identification recovered from it.  The first
 * vectors are python3-scapy's (test_eng_wire_icrc.c has them too: IP
 * header .. ICRC, IDs 0x1234 and 0x0001); the rest are sealed here with
 * eng_icrc_seal over a header with a known ID, then checked with ID 0.
 * Prints the checks per second, never asserted. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "providers/soft/engine/eng_wire_hdr.h"
#include "providers/soft/engine/eng_wire_icrc.h"
#include "providers/soft/engine/eng_wire_iphdr.h"

static const uint8_t v4_send_only_pad1[] = {
	0x45, 0x02, 0x00, 0x30, 0x12, 0x34, 0x00, 0x00, 0x40, 0x11, 0x4d, 0x7a,
	0x0a, 0x01, 0x02, 0x03, 0x0a, 0x04, 0x05, 0x06, 0xc0, 0x00, 0x12, 0xb7,
	0x00, 0x1c, 0xb2, 0xa1, 0x04, 0x10, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11,
	0x80, 0x00, 0x00, 0x07, 0x61, 0x62, 0x63, 0x00, 0x6e, 0x5b, 0xa8, 0x68,
};
static const uint8_t v4_ack[] = {
	0x45, 0x00, 0x00, 0x30, 0x00, 0x01, 0x00, 0x00, 0xff, 0x11, 0xa0, 0xae,
	0x0a, 0x01, 0x02, 0x03, 0x0a, 0x04, 0x05, 0x06, 0xc0, 0x00, 0x12, 0xb7,
	0x00, 0x1c, 0xbc, 0x1d, 0x11, 0x00, 0x80, 0x01, 0x00, 0x00, 0x00, 0x22,
	0x00, 0x00, 0x01, 0x00, 0x1f, 0x00, 0x00, 0x42, 0x3f, 0x20, 0x65, 0x4d,
};

/* A scapy packet's headers with the ID zeroed, as receive sees them. */
static void hdrs_of(const uint8_t *pkt, struct eng_wire_ip *h)
{
	memset(h, 0, sizeof(*h));
	h->iplen = 20;
	memcpy(h->ip, pkt, 20);
	memcpy(h->udp, pkt + 20, 8);
	h->ip[4] = h->ip[5] = 0;
}

static void test_iphdr__scapy_ids_recovered(void **state)
{
	struct eng_wire_ip h;
	uint16_t id;

	(void)state;
	hdrs_of(v4_send_only_pad1, &h);
	assert_int_equal(eng_wire_icrc_check_rx(&h, v4_send_only_pad1 + 28,
						sizeof(v4_send_only_pad1) - 28,
						&id), 0);
	assert_int_equal(id, 0x1234);
	/* The header is the one sent, checksum included. */
	assert_memory_equal(h.ip, v4_send_only_pad1, 20);
	/* Receive assumes DF (RoCE senders set it); scapy's has none. */
	hdrs_of(v4_send_only_pad1, &h);
	h.ip[6] = 0x40;
	assert_int_equal(eng_wire_icrc_check_rx(&h, v4_send_only_pad1 + 28,
						sizeof(v4_send_only_pad1) - 28,
						&id), 0);
	assert_int_equal(id, 0x1234);
	assert_memory_equal(h.ip, v4_send_only_pad1, 20);
	hdrs_of(v4_ack, &h);
	assert_int_equal(eng_wire_icrc_check_rx(&h, v4_ack + 28,
						sizeof(v4_ack) - 28, &id), 0);
	assert_int_equal(id, 1);
	assert_memory_equal(h.ip, v4_ack, 20);
}

static const uint8_t sgid4[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 1 };
static const uint8_t dgid4[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 2 };
static const uint8_t sgid6[16] = { 0xfd, 0, [15] = 1 };
static const uint8_t dgid6[16] = { 0xfd, 0, [15] = 2 };

/* A UD SEND_ONLY of paylen bytes sealed over headers with ID id. */
static size_t make_pkt(uint8_t *pkt, uint32_t paylen, uint16_t id, bool v6,
		       struct eng_wire_ip *sent)
{
	struct eng_pkt_hdrs h = { .bth = { .opcode = 0x64, .pkey = 0xffff,
					   .dqpn = 0x11, .psn = 7 },
				  .deth = { .qkey = 0x1111, .sqpn = 0x22 } };
	uint8_t pay[4096];
	ssize_t n;

	for (uint32_t i = 0; i < paylen; i++)
		pay[i] = (uint8_t)(i * 7 + 3);
	n = eng_wire_build(&h, pay, paylen, pkt, 8192);
	assert_true(n > 0);
	assert_int_equal(eng_wire_ip_build(sent, v6 ? sgid6 : sgid4,
					   v6 ? dgid6 : dgid4, 49152, 4791,
					   (uint32_t)n, 0x68, 64, id), 0);
	assert_int_equal(eng_icrc_seal(sent->ip, sent->iplen, sent->udp, pkt,
				       (size_t)n), 0);
	return (size_t)n;
}

static void test_iphdr__every_length_and_id(void **state)
{
	static const uint16_t ids[] = { 0, 1, 0x8000, 0xffff, 0x1234, 0xbeef };
	static const uint32_t lens[] = { 0, 1, 3, 64, 1000, 1024, 4096 };
	uint8_t pkt[8192];
	struct eng_wire_ip sent, h;
	uint16_t id;

	(void)state;
	for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
		for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
			size_t n = make_pkt(pkt, lens[l], ids[i], false, &sent);

			/* Receive: TOS and TTL differ (masked), ID unknown. */
			assert_int_equal(eng_wire_ip_build(&h, sgid4, dgid4,
							   49152, 4791,
							   (uint32_t)n, 0, 3,
							   0), 0);
			assert_int_equal(eng_wire_icrc_check_rx(&h, pkt, n,
								&id), 0);
			assert_int_equal(id, ids[i]);
			assert_memory_equal(h.ip + 4, sent.ip + 4, 2);
			/* One flipped bit anywhere in the packet: caught. */
			pkt[n / 2] ^= 0x10;
			assert_int_equal(eng_wire_ip_build(&h, sgid4, dgid4,
							   49152, 4791,
							   (uint32_t)n, 0, 3,
							   0), 0);
			assert_int_equal(eng_wire_icrc_check_rx(&h, pkt, n,
								&id),
					 -EBADMSG);
		}
	}
}

/* A GSO send's segment k has ID k: sealing with ID 0 and applying the
 * delta gives the bytes sealing with ID k gives, for every k of a send
 * and every packet size. */
static void test_iphdr__gso_id_delta(void **state)
{
	static const uint32_t lens[] = { 0, 1, 3, 64, 1024, 4096 };
	uint8_t zero[8192], want[8192];
	struct eng_wire_ip sent;

	(void)state;
	for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
		for (uint32_t k = 0; k < 300; k += k < 70 ? 1 : 97) {
			size_t n = make_pkt(zero, lens[l], 0, false, &sent);
			uint32_t d;

			make_pkt(want, lens[l], (uint16_t)k, false, &sent);
			d = eng_wire_icrc_id_delta((uint16_t)k, (uint32_t)n);
			zero[n - 4] ^= (uint8_t)d;
			zero[n - 3] ^= (uint8_t)(d >> 8);
			zero[n - 2] ^= (uint8_t)(d >> 16);
			zero[n - 1] ^= (uint8_t)(d >> 24);
			assert_memory_equal(zero, want, n);
			assert_true(k == 0 ? d == 0 : d != 0);
		}
	}
	assert_int_equal(eng_wire_icrc_id_delta(0xffff, 1u << 18), 0);
}

static void test_iphdr__ipv6_exact(void **state)
{
	uint8_t pkt[8192];
	struct eng_wire_ip sent, h;
	uint16_t id;
	size_t n;

	(void)state;
	n = make_pkt(pkt, 100, 0, true, &sent);
	assert_int_equal(sent.iplen, 40);
	assert_int_equal(eng_wire_ip_build(&h, sgid6, dgid6, 49152, 4791,
					   (uint32_t)n, 0xff, 1, 0), 0);
	assert_int_equal(eng_wire_icrc_check_rx(&h, pkt, n, &id), 0);
	/* The wrong source address: no recovery for IPv6. */
	h.ip[23] ^= 1;
	assert_int_equal(eng_wire_icrc_check_rx(&h, pkt, n, &id), -EBADMSG);
}

static void test_iphdr__wrong_address_not_explained_by_an_id(void **state)
{
	uint8_t pkt[8192], other[16];
	struct eng_wire_ip sent, h;
	uint32_t accepted = 0;
	uint16_t id;
	size_t n;

	(void)state;
	n = make_pkt(pkt, 256, 0x4242, false, &sent);
	/* A spoofed source (the ICRC computed for another address): over
	 * 256 addresses, an ID explains the difference about 2^-16 of the
	 * time: none of these. */
	memcpy(other, sgid4, 16);
	for (int a = 0; a < 256; a++) {
		other[15] = (uint8_t)a;
		if (a == sgid4[15])
			continue;
		assert_int_equal(eng_wire_ip_build(&h, other, dgid4, 49152,
						   4791, (uint32_t)n, 0, 64,
						   0), 0);
		if (eng_wire_icrc_check_rx(&h, pkt, n, &id) == 0)
			accepted++;
	}
	assert_int_equal(accepted, 0);
}

static void test_iphdr__bad_input(void **state)
{
	struct eng_wire_ip h;
	uint8_t pkt[16] = { 0 };
	uint16_t id;

	(void)state;
	assert_int_equal(eng_wire_ip_build(&h, sgid4, dgid6, 1, 2, 10, 0, 0,
					   0), -EINVAL);
	assert_int_equal(eng_wire_ip_build(&h, sgid4, dgid4, 1, 2, 70000, 0,
					   0, 0), -EINVAL);
	assert_int_equal(eng_wire_ip_build(&h, sgid4, dgid4, 1, 2, 16, 0, 0,
					   0), 0);
	assert_int_equal(eng_wire_icrc_check_rx(&h, pkt, 15, &id), -EINVAL);
	/* A zero difference solves to ID 0 only. */
	assert_int_equal(eng_wire_crc_solve16(0, 100, &id), 0);
	assert_int_equal(id, 0);
}

static void test_iphdr__throughput(void **state)
{
	uint8_t pkt[8192];
	struct eng_wire_ip sent, h;
	struct timespec a, b;
	uint16_t id;
	size_t n;
	double s;
	int iters = 20000;

	(void)state;
	n = make_pkt(pkt, 1024, 0x7777, false, &sent);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < iters; i++) {
		eng_wire_ip_build(&h, sgid4, dgid4, 49152, 4791, (uint32_t)n,
				  0, 64, 0);
		assert_int_equal(eng_wire_icrc_check_rx(&h, pkt, n, &id), 0);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	s = (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	printf("# ICRC check with ID recovery, 1 KiB packets: %.0f /s\n",
	       iters / s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_iphdr__scapy_ids_recovered),
		cmocka_unit_test(test_iphdr__every_length_and_id),
		cmocka_unit_test(test_iphdr__gso_id_delta),
		cmocka_unit_test(test_iphdr__ipv6_exact),
		cmocka_unit_test(test_iphdr__wrong_address_not_explained_by_an_id),
		cmocka_unit_test(test_iphdr__bad_input),
		cmocka_unit_test(test_iphdr__throughput),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
