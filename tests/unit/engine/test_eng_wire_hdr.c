/* SPDX-License-Identifier: MIT */
/* Unit tests of the RoCEv2 header codec (eng_wire_hdr.h): byte layouts
 * against hand-written packets, build -> parse round trips over every
 * opcode and pad, and hostile lengths, pads, versions and syndromes. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "providers/soft/engine/eng_wire_hdr.h"
#include "providers/soft/engine/eng_wire_opcode.h"

/* An RC RDMA WRITE ONLY with immediate, 5 bytes of payload, written out
 * by hand from IBA figures 23, 28 and 33. */
static const uint8_t write_imm[] = {
	0x0b, 0xb0, 0x12, 0x34,		/* opcode, SE pad=3 TVer=0, P_Key */
	0x00, 0xab, 0xcd, 0xef,		/* resv8a, DestQP */
	0x80, 0x65, 0x43, 0x21,		/* AckReq, PSN */
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,	/* RETH VA */
	0xde, 0xad, 0xbe, 0xef,		/* R_Key */
	0x00, 0x00, 0x00, 0x05,		/* DMA length */
	0xca, 0xfe, 0xf0, 0x0d,		/* ImmDt */
	'h', 'e', 'l', 'l', 'o', 0, 0, 0,	/* payload + pad */
	0x11, 0x22, 0x33, 0x44,		/* ICRC (not checked here) */
};

/* Field by field: the structs have padding, which compilers (and the
 * sanitizers' allocators) leave undefined. */
static void assert_atmeth_equal(const struct eng_atmeth *a,
				const struct eng_atmeth *b)
{
	assert_true(a->va == b->va);
	assert_int_equal(a->rkey, b->rkey);
	assert_true(a->swap_add == b->swap_add);
	assert_true(a->compare == b->compare);
}

static void assert_aeth_equal(const struct eng_aeth *a,
			      const struct eng_aeth *b)
{
	assert_int_equal(a->syndrome, b->syndrome);
	assert_int_equal(a->msn, b->msn);
}

static void test_eng_wire_hdr__parses_a_handwritten_packet(void **state)
{
	struct eng_pkt p;

	(void)state;
	assert_int_equal(eng_wire_parse(write_imm, sizeof(write_imm), &p), 0);
	assert_int_equal(p.h.bth.opcode, ENG_OP_RC_WRITE_ONLY_IMM);
	assert_true(p.h.bth.se);
	assert_false(p.h.bth.mig);
	assert_int_equal(p.h.bth.pad, 3);
	assert_int_equal(p.h.bth.pkey, 0x1234);
	assert_int_equal(p.h.bth.dqpn, 0xabcdef);
	assert_true(p.h.bth.ackreq);
	assert_int_equal(p.h.bth.psn, 0x654321);
	assert_true(p.h.reth.va == 0x0102030405060708ull);
	assert_int_equal(p.h.reth.rkey, 0xdeadbeef);
	assert_int_equal(p.h.reth.dmalen, 5);
	assert_int_equal(p.h.imm, 0xcafef00d);
	assert_int_equal(p.hdrlen, 32);
	assert_int_equal(p.paylen, 5);
	assert_memory_equal(p.payload, "hello", 5);
	assert_int_equal(p.icrc, 0x44332211);

	/* And the builder writes the same bytes back. */
	uint8_t out[64];
	ssize_t n = eng_wire_build(&p.h, p.payload, p.paylen, out, sizeof(out));

	assert_int_equal(n, sizeof(write_imm));
	assert_memory_equal(out, write_imm, sizeof(write_imm) - 4);
	assert_memory_equal(out + n - 4, "\0\0\0\0", 4);
}

static void test_eng_wire_hdr__field_layouts(void **state)
{
	uint8_t b[32];
	struct eng_bth bth = { .opcode = 0x12, .mig = true, .pad = 2,
			       .pkey = 0xffff, .fecn = true, .becn = true,
			       .dqpn = 0xff123456, .psn = 0xff000001 };
	struct eng_atmeth a = { .va = 0x1122334455667788ull, .rkey = 0x99aabbcc,
				.swap_add = 0x0102030405060708ull,
				.compare = 0xf1f2f3f4f5f6f7f8ull }, a2;
	struct eng_deth d = { .qkey = 0x80010000, .sqpn = 0xabcdef01 }, d2;
	struct eng_aeth ae = { .syndrome = eng_aeth_syn_rnr(14), .msn = 0x1000001 }, ae2;
	struct eng_bth b2;

	(void)state;
	eng_bth_put(b, &bth);
	assert_memory_equal(b, "\x12\x60\xff\xff\xc0\x12\x34\x56\x00\x00\x00\x01", 12);
	eng_bth_get(b, &b2);
	assert_true(b2.fecn && b2.becn && b2.mig && !b2.se && !b2.ackreq);
	assert_int_equal(b2.dqpn, 0x123456);
	eng_bth_set_psn(b, 0xabcdef, true);
	eng_bth_get(b, &b2);
	assert_int_equal(b2.psn, 0xabcdef);
	assert_true(b2.ackreq);

	eng_atmeth_put(b, &a);
	assert_memory_equal(b, "\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa\xbb\xcc"
			    "\x01\x02\x03\x04\x05\x06\x07\x08"
			    "\xf1\xf2\xf3\xf4\xf5\xf6\xf7\xf8", 28);
	eng_atmeth_get(b, &a2);
	assert_atmeth_equal(&a, &a2);

	eng_deth_put(b, &d);
	assert_memory_equal(b, "\x80\x01\x00\x00\x00\xcd\xef\x01", 8);
	b[4] = 0x77;	/* reserved: ignored on receive */
	eng_deth_get(b, &d2);
	assert_int_equal(d2.sqpn, 0xcdef01);
	assert_int_equal(d2.qkey, 0x80010000);

	eng_aeth_put(b, &ae);
	assert_memory_equal(b, "\x2e\x00\x00\x01", 4);
	eng_aeth_get(b, &ae2);
	assert_int_equal(eng_aeth_type(ae2.syndrome), ENG_AETH_RNR_NAK);
	assert_int_equal(eng_aeth_value(ae2.syndrome), 14);
}

/* XRCETH (IBA 19.2.5.2): right after the BTH, a reserved byte and the
 * 24-bit SRQ number; before the RETH, AtomicETH, ImmDt or IETH. */
static void test_eng_wire_hdr__xrceth(void **state)
{
	uint8_t buf[96], pay[8] = "payload";
	struct eng_pkt_hdrs h = { 0 };
	struct eng_pkt p;
	ssize_t n;

	(void)state;
	h.bth = (struct eng_bth){ .opcode = ENG_OP_XRC_BASE + 0x0b,
				  .pkey = 0xffff, .dqpn = 0x000102,
				  .psn = 7 };
	h.xrcsrq = 0xfe123456;		/* only 24 bits go */
	h.reth = (struct eng_reth){ 0x1122334455667788ull, 0xaabbccdd, 8 };
	h.imm = 0x01020304;
	n = eng_wire_build(&h, pay, sizeof(pay), buf, sizeof(buf));
	assert_int_equal(n, 12 + 4 + 16 + 4 + 8 + 4);
	assert_memory_equal(buf + 12, "\x00\x12\x34\x56", 4);
	assert_memory_equal(buf + 16, "\x11\x22\x33\x44\x55\x66\x77\x88", 8);
	assert_memory_equal(buf + 32, "\x01\x02\x03\x04", 4);
	buf[12] = 0x9c;			/* reserved: ignored on receive */
	assert_int_equal(eng_wire_parse(buf, (size_t)n, &p), 0);
	assert_int_equal(p.h.xrcsrq, 0x123456);
	assert_true(p.h.reth.va == 0x1122334455667788ull);
	assert_int_equal(p.h.imm, 0x01020304);
	assert_int_equal(p.paylen, sizeof(pay));
	/* Cut inside the XRCETH: refused. */
	h.bth.opcode = ENG_OP_XRC_BASE + 0x11;	/* an XRC ACK: no XRCETH */
	h.aeth = (struct eng_aeth){ eng_aeth_syn_ack(31), 5 };
	n = eng_wire_build(&h, NULL, 0, buf, sizeof(buf));
	assert_int_equal(n, 12 + 4 + 4);
	h.bth.opcode = ENG_OP_XRC_BASE + 0x04;	/* SEND_ONLY: XRCETH */
	n = eng_wire_build(&h, NULL, 0, buf, sizeof(buf));
	assert_int_equal(n, 12 + 4 + 4);
	for (size_t len = 0; len < (size_t)n; len++)
		assert_true(eng_wire_parse(buf, len, &p) < 0);
	assert_int_equal(eng_wire_parse(buf, (size_t)n, &p), 0);
	assert_int_equal(p.h.xrcsrq, 0x123456);
}

static void test_eng_wire_hdr__aeth_syndromes(void **state)
{
	(void)state;
	assert_int_equal(eng_aeth_syn_ack(ENG_AETH_CREDITS_INVALID), 0x1f);
	assert_int_equal(eng_aeth_syn_nak(ENG_NAK_PSN_SEQ), 0x60);
	assert_int_equal(eng_aeth_syn_nak(ENG_NAK_INVALID_REQ), 0x61);
	assert_int_equal(eng_aeth_syn_nak(ENG_NAK_REMOTE_ACCESS), 0x62);
	assert_int_equal(eng_aeth_syn_nak(ENG_NAK_REMOTE_OP), 0x63);
	assert_int_equal(eng_aeth_syn_nak(ENG_NAK_INVALID_RD_REQ), 0x64);
	for (unsigned s = 0; s < 256; s++) {
		bool want = s < 0x40 || (s >= 0x60 && s <= 0x64);

		assert_int_equal(eng_aeth_syndrome_valid((uint8_t)s), want);
	}
	assert_int_equal(eng_aeth_type(0x1f), ENG_AETH_ACK);
	assert_int_equal(eng_aeth_type(0x3f), ENG_AETH_RNR_NAK);
	assert_int_equal(eng_aeth_type(0x63), ENG_AETH_NAK);
}

/* Fills every header with a pattern that differs per field. */
static void fill_hdrs(struct eng_pkt_hdrs *h, uint8_t op, uint32_t seed)
{
	memset(h, 0, sizeof(*h));
	h->bth = (struct eng_bth){ .opcode = op, .se = seed & 1,
				   .mig = seed & 2, .pkey = (uint16_t)(0x8000 | seed),
				   .dqpn = seed * 7919 & ENG_QPN_MASK,
				   .ackreq = seed & 4,
				   .psn = seed * 104729 & ENG_PSN_MASK };
	h->deth = (struct eng_deth){ 0x11110000 + seed, seed * 31 & ENG_QPN_MASK };
	h->reth = (struct eng_reth){ 0x7f0000000000ull + seed, 0x1234 + seed, seed * 3 };
	h->atmeth = (struct eng_atmeth){ 0xfeed000000ull + seed * 8, 0x55 + seed,
					 seed * 0x10001ull, ~(uint64_t)seed };
	h->aeth = (struct eng_aeth){ eng_aeth_syn_nak(ENG_NAK_REMOTE_OP), seed & 0xffffff };
	h->atmack_orig = 0xabcdef0123456789ull ^ seed;
	h->imm = 0x01020304u * seed;
	h->ieth_rkey = 0xa5a50000u | seed;
	h->xrcsrq = seed * 65537 & ENG_QPN_MASK;
}

/* The fields of h that op carries, equal in a and b. */
static void assert_hdrs_equal(const struct eng_pkt_hdrs *a,
			      const struct eng_pkt_hdrs *b, uint32_t mask)
{
	assert_int_equal(a->bth.opcode, b->bth.opcode);
	assert_int_equal(a->bth.se, b->bth.se);
	assert_int_equal(a->bth.mig, b->bth.mig);
	assert_int_equal(a->bth.pkey, b->bth.pkey);
	assert_int_equal(a->bth.dqpn, b->bth.dqpn);
	assert_int_equal(a->bth.ackreq, b->bth.ackreq);
	assert_int_equal(a->bth.psn, b->bth.psn);
	if (mask & ENG_HDR_DETH)
		assert_memory_equal(&a->deth, &b->deth, sizeof(a->deth));
	if (mask & ENG_HDR_RETH)
		assert_memory_equal(&a->reth, &b->reth, sizeof(a->reth));
	if (mask & ENG_HDR_ATMETH)
		assert_atmeth_equal(&a->atmeth, &b->atmeth);
	if (mask & ENG_HDR_AETH)
		assert_aeth_equal(&a->aeth, &b->aeth);
	if (mask & ENG_HDR_ATMACK)
		assert_true(a->atmack_orig == b->atmack_orig);
	if (mask & ENG_HDR_IMMDT)
		assert_int_equal(a->imm, b->imm);
	if (mask & ENG_HDR_XRCETH)
		assert_int_equal(a->xrcsrq, b->xrcsrq);
	if (mask & ENG_HDR_IETH)
		assert_int_equal(a->ieth_rkey, b->ieth_rkey);
}

static void test_eng_wire_hdr__round_trip_every_opcode_and_pad(void **state)
{
	uint8_t payload[70], buf[160];
	unsigned trips = 0;

	(void)state;
	for (unsigned i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 37 + 1);
	for (int c = 0; c < 256; c++) {
		const struct eng_wire_op_info *op = eng_wire_op((uint8_t)c);
		struct eng_pkt_hdrs h;
		struct eng_pkt p;

		if (!op->name)
			continue;
		for (uint32_t len = 0; len < 9; len++) {
			bool pl = op->mask & ENG_OPF_PAYLOAD;
			bool padded_ok = len % 4 == 0 || (op->mask & ENG_OPF_END);
			ssize_t n;

			fill_hdrs(&h, (uint8_t)c, (uint32_t)c * 9 + len);
			n = eng_wire_build(&h, payload, len, buf, sizeof(buf));
			if (len && !pl) {
				assert_int_equal(n, -EINVAL);
				continue;
			}
			assert_int_equal(n, op->hdrlen + len + eng_wire_pad(len) + 4);
			assert_int_equal((buf[1] >> 4) & 3, eng_wire_pad(len));
			assert_int_equal(buf[1] & 0x0f, 0);
			/* The builder pads any length; the parser refuses a
			 * pad on a FIRST or MIDDLE (IBA 9.2). */
			if (!padded_ok) {
				assert_int_equal(eng_wire_parse(buf, (size_t)n, &p), -EINVAL);
				continue;
			}
			assert_int_equal(eng_wire_parse(buf, (size_t)n, &p), 0);
			assert_hdrs_equal(&h, &p.h, op->mask);
			assert_int_equal(p.mask, op->mask);
			assert_int_equal(p.hdrlen, op->hdrlen);
			assert_int_equal(p.paylen, len);
			assert_ptr_equal(p.payload, buf + op->hdrlen);
			assert_memory_equal(p.payload, payload, len);
			trips++;
		}
	}
	assert_true(trips > 37 * 3);
}

static void test_eng_wire_hdr__hostile_lengths(void **state)
{
	uint8_t buf[200], big[200];
	struct eng_pkt_hdrs h;
	struct eng_pkt p;

	(void)state;
	for (int c = 0; c < 256; c++) {
		const struct eng_wire_op_info *op = eng_wire_op((uint8_t)c);
		ssize_t n;

		if (!op->name)
			continue;
		fill_hdrs(&h, (uint8_t)c, 1);
		n = eng_wire_build(&h, "abcdefgh", op->mask & ENG_OPF_PAYLOAD ? 8 : 0,
				   buf, sizeof(buf));
		assert_true(n > 0);
		/* Every truncation is refused, and the parser reads nothing
		 * past the length: a copy at the end of a buffer whose tail
		 * would change the verdict. */
		for (ssize_t l = 0; l < n; l++) {
			int r;

			memset(big, 0, sizeof(big));
			memcpy(big + sizeof(big) - l, buf, (size_t)l);
			r = eng_wire_parse(big + sizeof(big) - l, (size_t)l, &p);
			if (l < op->hdrlen + 4)
				assert_int_equal(r, -EMSGSIZE);
			else
				assert_true(r == -EINVAL || (r == 0 && (op->mask & ENG_OPF_PAYLOAD)));
		}
		/* No payload allowed: 4 extra bytes are refused. */
		if (!(op->mask & ENG_OPF_PAYLOAD)) {
			memset(buf + n, 0, 4);
			assert_int_equal(eng_wire_parse(buf, (size_t)n + 4, &p), -EINVAL);
		}
		/* Not a whole number of words. */
		if (op->mask & ENG_OPF_PAYLOAD) {
			assert_int_equal(eng_wire_parse(buf, (size_t)n + 1, &p), -EINVAL);
			assert_int_equal(eng_wire_parse(buf, (size_t)n - 1, &p), -EINVAL);
		}
		/* A pad bigger than what follows the headers. */
		buf[1] |= 0x30;
		assert_int_equal(eng_wire_parse(buf, op->hdrlen + 4u, &p), -EMSGSIZE);
	}
}

static void test_eng_wire_hdr__version_opcode_syndrome(void **state)
{
	uint8_t buf[64];
	struct eng_pkt_hdrs h;
	struct eng_pkt p;
	ssize_t n;

	(void)state;
	fill_hdrs(&h, ENG_OP_RC_ACK, 3);
	h.aeth.syndrome = eng_aeth_syn_ack(5);
	n = eng_wire_build(&h, NULL, 0, buf, sizeof(buf));
	assert_int_equal(n, 20);
	assert_int_equal(eng_wire_parse(buf, 20, &p), 0);
	buf[1] |= 0x01;					/* TVer 1 */
	assert_int_equal(eng_wire_parse(buf, 20, &p), -EPROTO);
	buf[1] &= 0xf0;
	buf[12] = 0x40;					/* reserved type */
	assert_int_equal(eng_wire_parse(buf, 20, &p), -EPROTO);
	buf[12] = 0x65;					/* reserved NAK code */
	assert_int_equal(eng_wire_parse(buf, 20, &p), -EPROTO);
	buf[12] = 0x80;					/* bit 7 */
	assert_int_equal(eng_wire_parse(buf, 20, &p), -EPROTO);
	buf[12] = 0x62;
	assert_int_equal(eng_wire_parse(buf, 20, &p), 0);
	assert_int_equal(eng_aeth_value(p.h.aeth.syndrome), ENG_NAK_REMOTE_ACCESS);
	/* Reserved BTH bits are ignored (9.2). */
	buf[4] |= 0x3f;
	buf[8] |= 0x7f;
	assert_int_equal(eng_wire_parse(buf, 20, &p), 0);
	assert_false(p.h.bth.ackreq);
	for (unsigned c = 0; c < 256; c++) {
		buf[0] = (uint8_t)c;
		if (!eng_wire_op_known((uint8_t)c))
			assert_int_equal(eng_wire_parse(buf, 20, &p), -EPROTO);
	}
	/* Unknown opcodes and payload where none goes: the builder refuses. */
	h.bth.opcode = 0x15;
	assert_int_equal(eng_wire_build(&h, NULL, 0, buf, sizeof(buf)), -EPROTO);
	h.bth.opcode = ENG_OP_RC_READ_REQ;
	assert_int_equal(eng_wire_build(&h, "x", 1, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(eng_wire_build(&h, NULL, 0, buf, 31), -ENOSPC);
	assert_int_equal(eng_wire_build(&h, NULL, 0, buf, 32), 32);
	h.bth.opcode = ENG_OP_RC_SEND_ONLY;
	assert_int_equal(eng_wire_build(&h, "abcde", 5, buf, 23), -ENOSPC);
	assert_int_equal(eng_wire_build(&h, "abcde", 5, buf, 24), 24);
	assert_int_equal(eng_wire_put_hdrs(&h, 5, buf, 11), -ENOSPC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eng_wire_hdr__parses_a_handwritten_packet),
		cmocka_unit_test(test_eng_wire_hdr__field_layouts),
		cmocka_unit_test(test_eng_wire_hdr__aeth_syndromes),
		cmocka_unit_test(test_eng_wire_hdr__xrceth),
		cmocka_unit_test(test_eng_wire_hdr__round_trip_every_opcode_and_pad),
		cmocka_unit_test(test_eng_wire_hdr__hostile_lengths),
		cmocka_unit_test(test_eng_wire_hdr__version_opcode_syndrome),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
