/* SPDX-License-Identifier: MIT */
/* Unit tests of RC/UC packet rules (eng_wire_rc_pkt.c): PSNs per message,
 * request and READ response opcodes by position (IBA 9.2.1 table 38),
 * the opcode a request belongs to, length rules (9.7.4.1.3) and the path
 * MTU; each request opcode chosen must pass the opcode table's sequence
 * rule (eng_wire_op_seq_ok) when a message is walked packet by packet. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <infiniband/verbs.h>

#include "providers/soft/engine/eng_wire_opcode.h"
#include "providers/soft/engine/eng_wire_rc.h"

static void test_eng_wire_rc__npsn(void **state)
{
	(void)state;
	assert_int_equal(eng_rc_npsn(IBV_WR_SEND, 0, 1024), 1);
	assert_int_equal(eng_rc_npsn(IBV_WR_SEND, 1, 1024), 1);
	assert_int_equal(eng_rc_npsn(IBV_WR_SEND, 1024, 1024), 1);
	assert_int_equal(eng_rc_npsn(IBV_WR_SEND, 1025, 1024), 2);
	assert_int_equal(eng_rc_npsn(IBV_WR_RDMA_WRITE, 65536, 4096), 16);
	assert_int_equal(eng_rc_npsn(IBV_WR_RDMA_READ, 65537, 4096), 17);
	assert_int_equal(eng_rc_npsn(IBV_WR_RDMA_READ, 0, 4096), 1);
	assert_int_equal(eng_rc_npsn(IBV_WR_ATOMIC_FETCH_AND_ADD, 8, 256), 1);
	assert_int_equal(eng_rc_npsn(IBV_WR_ATOMIC_CMP_AND_SWP, 4096, 256), 1);
	/* 2^31 bytes at 256 is 2^23 PSNs: the largest a message may use. */
	assert_int_equal(eng_rc_npsn(IBV_WR_SEND, 1ull << 31, 256), 1u << 23);
}

static void test_eng_wire_rc__req_opcodes(void **state)
{
	(void)state;
	assert_int_equal(eng_rc_req_opcode(false, IBV_WR_SEND, true, true),
			 ENG_OP_RC_SEND_ONLY);
	assert_int_equal(eng_rc_req_opcode(false, IBV_WR_SEND, true, false),
			 ENG_OP_RC_SEND_FIRST);
	assert_int_equal(eng_rc_req_opcode(false, IBV_WR_SEND, false, false),
			 ENG_OP_RC_SEND_MIDDLE);
	assert_int_equal(eng_rc_req_opcode(false, IBV_WR_SEND_WITH_IMM, false,
					   true), ENG_OP_RC_SEND_LAST_IMM);
	assert_int_equal(eng_rc_req_opcode(false, IBV_WR_SEND_WITH_INV, true,
					   true), ENG_OP_RC_SEND_ONLY_INV);
	assert_int_equal(eng_rc_req_opcode(false, IBV_WR_RDMA_WRITE_WITH_IMM,
					   true, true),
			 ENG_OP_RC_WRITE_ONLY_IMM);
	assert_int_equal(eng_rc_req_opcode(false, IBV_WR_RDMA_WRITE, false,
					   true), ENG_OP_RC_WRITE_LAST);
	assert_int_equal(eng_rc_req_opcode(false, IBV_WR_RDMA_READ, true, true),
			 ENG_OP_RC_READ_REQ);
	assert_int_equal(eng_rc_req_opcode(false, IBV_WR_ATOMIC_CMP_AND_SWP,
					   true, true), ENG_OP_RC_CMP_SWAP);
	/* UC: the same positions in its own transport; no READ, atomics or
	 * SEND with invalidate (table 38). */
	assert_int_equal(eng_rc_req_opcode(true, IBV_WR_SEND, true, false),
			 ENG_OP_UC_SEND_FIRST);
	assert_int_equal(eng_rc_req_opcode(true, IBV_WR_RDMA_WRITE_WITH_IMM,
					   false, true),
			 ENG_OP_UC_WRITE_LAST_IMM);
	assert_true(eng_rc_req_opcode(true, IBV_WR_RDMA_READ, true, true) < 0);
	assert_true(eng_rc_req_opcode(true, IBV_WR_ATOMIC_FETCH_AND_ADD, true,
				      true) < 0);
	assert_true(eng_rc_req_opcode(true, IBV_WR_SEND_WITH_INV, true,
				      true) < 0);
	assert_true(eng_rc_req_opcode(false, 99, true, true) < 0);
}

/* Walks a message of n packets of each WR through the sequence rule. */
static void test_eng_wire_rc__walks_pass_the_sequence_rule(void **state)
{
	static const uint32_t wrs[] = {
		IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_SEND_WITH_INV,
		IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE_WITH_IMM,
	};

	(void)state;
	for (int uc = 0; uc < 2; uc++)
		for (size_t i = 0; i < sizeof(wrs) / sizeof(wrs[0]); i++)
			for (uint32_t n = 1; n <= 4; n++) {
				int prev = ENG_OP_NONE, op;

				if (uc && wrs[i] == IBV_WR_SEND_WITH_INV)
					continue;
				for (uint32_t k = 0; k < n; k++) {
					op = eng_rc_req_opcode(uc, wrs[i], k == 0,
							       k + 1 == n);
					assert_true(op >= 0);
					assert_true(eng_wire_op_seq_ok(prev,
								       (uint8_t)op));
					assert_int_equal(eng_rc_wr_of((uint8_t)op),
							 wrs[i] == IBV_WR_SEND_WITH_IMM ||
							 wrs[i] == IBV_WR_SEND_WITH_INV ||
							 wrs[i] == IBV_WR_RDMA_WRITE_WITH_IMM ?
							 (k + 1 == n ? (int)wrs[i] :
							  (int)(wrs[i] == IBV_WR_RDMA_WRITE_WITH_IMM ?
								IBV_WR_RDMA_WRITE : IBV_WR_SEND)) :
							 (int)wrs[i]);
					prev = op;
				}
				/* A new message may follow the last one. */
				assert_true(eng_wire_op_seq_ok(prev,
							       ENG_OP_RC_SEND_ONLY + (uc ? 0x20 : 0)));
			}
}

static void test_eng_wire_rc__wr_of_rejects(void **state)
{
	(void)state;
	assert_true(eng_rc_wr_of(ENG_OP_RC_ACK) < 0);
	assert_true(eng_rc_wr_of(ENG_OP_RC_READ_RESP_ONLY) < 0);
	assert_true(eng_rc_wr_of(ENG_OP_UD_SEND_ONLY) < 0);
	assert_true(eng_rc_wr_of(0x2c) < 0);	/* UC has no READ */
	assert_true(eng_rc_wr_of(0xff) < 0);
	assert_int_equal(eng_rc_wr_of(ENG_OP_RC_FETCH_ADD),
			 IBV_WR_ATOMIC_FETCH_AND_ADD);
}

static void test_eng_wire_rc__read_resp_opcodes(void **state)
{
	(void)state;
	assert_int_equal(eng_rc_read_resp_opcode(0, 1), ENG_OP_RC_READ_RESP_ONLY);
	assert_int_equal(eng_rc_read_resp_opcode(0, 3), ENG_OP_RC_READ_RESP_FIRST);
	assert_int_equal(eng_rc_read_resp_opcode(1, 3), ENG_OP_RC_READ_RESP_MIDDLE);
	assert_int_equal(eng_rc_read_resp_opcode(2, 3), ENG_OP_RC_READ_RESP_LAST);
	assert_int_equal(eng_rc_read_resp_opcode(1, 2), ENG_OP_RC_READ_RESP_LAST);
	/* Walks of responses pass the requester's sequence rule (9.9). */
	for (uint32_t n = 1; n < 6; n++) {
		int prev = ENG_OP_NONE;

		for (uint32_t k = 0; k < n; k++) {
			uint8_t op = eng_rc_read_resp_opcode(k, n);

			assert_true(eng_wire_op_seq_ok(prev, op));
			prev = op;
		}
	}
}

static void test_eng_wire_rc__lengths(void **state)
{
	(void)state;
	assert_true(eng_rc_req_len_ok(ENG_OP_RC_SEND_FIRST, 1024, 1024));
	assert_false(eng_rc_req_len_ok(ENG_OP_RC_SEND_FIRST, 1020, 1024));
	assert_false(eng_rc_req_len_ok(ENG_OP_RC_WRITE_MIDDLE, 1028, 1024));
	assert_true(eng_rc_req_len_ok(ENG_OP_RC_SEND_LAST, 1, 1024));
	assert_false(eng_rc_req_len_ok(ENG_OP_RC_SEND_LAST, 0, 1024));
	assert_false(eng_rc_req_len_ok(ENG_OP_RC_SEND_LAST, 1025, 1024));
	assert_true(eng_rc_req_len_ok(ENG_OP_RC_SEND_ONLY, 0, 1024));
	assert_true(eng_rc_req_len_ok(ENG_OP_RC_WRITE_ONLY, 1024, 1024));
	assert_false(eng_rc_req_len_ok(ENG_OP_RC_WRITE_ONLY_IMM, 1025, 1024));
	assert_true(eng_rc_req_len_ok(ENG_OP_RC_READ_REQ, 0, 1024));
	assert_false(eng_rc_req_len_ok(ENG_OP_RC_READ_REQ, 4, 1024));
	assert_false(eng_rc_req_len_ok(ENG_OP_RC_CMP_SWAP, 8, 1024));
	assert_true(eng_rc_req_len_ok(ENG_OP_UC_SEND_MIDDLE, 256, 256));
}

static void test_eng_wire_rc__mtu(void **state)
{
	(void)state;
	assert_int_equal(eng_rc_mtu(IBV_MTU_4096, 1024), 1024);
	assert_int_equal(eng_rc_mtu(IBV_MTU_1024, 4096), 1024);
	assert_int_equal(eng_rc_mtu(IBV_MTU_2048, 0), 2048);
	/* An unset or bogus path_mtu is never 0 (PSN to offset divides). */
	assert_int_equal(eng_rc_mtu(0, 4096), 256);
	assert_int_equal(eng_rc_mtu(77, 0), 256);
}

/* A split READ: requests of chunk PSNs, the last the rest; each answered
 * FIRST..LAST on its own. */
static void test_eng_wire_rc__read_split(void **state)
{
	uint32_t first = 99;

	(void)state;
	/* 256 response packets (1 MiB at 4096) in requests of 32 */
	assert_int_equal(eng_rc_read_chunk(256, 32, 0, &first), 32);
	assert_int_equal(first, 0);
	assert_int_equal(eng_rc_read_chunk(256, 32, 33, &first), 32);
	assert_int_equal(first, 32);
	assert_int_equal(eng_rc_read_chunk(256, 32, 255, &first), 32);
	assert_int_equal(first, 224);
	/* 70 in 32s: 32, 32, 6 */
	assert_int_equal(eng_rc_read_chunk(70, 32, 64, &first), 6);
	assert_int_equal(first, 64);
	assert_int_equal(eng_rc_read_chunk(70, 32, 69, &first), 6);
	/* no split (chunk 0 or larger than the READ); a 0-byte READ */
	assert_int_equal(eng_rc_read_chunk(70, 0, 40, &first), 70);
	assert_int_equal(first, 0);
	assert_int_equal(eng_rc_read_chunk(5, 32, 4, &first), 5);
	assert_int_equal(eng_rc_read_chunk(1, 32, 0, &first), 1);
	assert_int_equal(first, 0);
	/* a k beyond the READ is clamped to its last packet */
	assert_int_equal(eng_rc_read_chunk(4, 2, 9, &first), 1);
	assert_int_equal(first, 3);
	/* opcodes restart per request */
	assert_int_equal(eng_rc_read_resp_opcode_at(0, 70, 32),
			 ENG_OP_RC_READ_RESP_FIRST);
	assert_int_equal(eng_rc_read_resp_opcode_at(31, 70, 32),
			 ENG_OP_RC_READ_RESP_LAST);
	assert_int_equal(eng_rc_read_resp_opcode_at(32, 70, 32),
			 ENG_OP_RC_READ_RESP_FIRST);
	assert_int_equal(eng_rc_read_resp_opcode_at(40, 70, 32),
			 ENG_OP_RC_READ_RESP_MIDDLE);
	assert_int_equal(eng_rc_read_resp_opcode_at(69, 70, 32),
			 ENG_OP_RC_READ_RESP_LAST);
	/* a last request of one packet is ONLY */
	assert_int_equal(eng_rc_read_resp_opcode_at(64, 65, 32),
			 ENG_OP_RC_READ_RESP_ONLY);
	/* unsplit: as eng_rc_read_resp_opcode */
	assert_int_equal(eng_rc_read_resp_opcode_at(40, 70, 0),
			 ENG_OP_RC_READ_RESP_MIDDLE);
	assert_int_equal(eng_rc_read_resp_opcode_at(32, 70, 0),
			 ENG_OP_RC_READ_RESP_MIDDLE);
}

/* The device's READ credit: half the receive buffer at about twice an
 * MTU a packet, within the cap, never 0. */
static void test_eng_wire_rc__read_credit(void **state)
{
	(void)state;
	/* 8 MiB read back (rmem_max 4 MiB): 4 MiB / 8704 at 4096 */
	assert_int_equal(eng_rc_read_credit(8u << 20, 4096, 1024), 481);
	assert_int_equal(eng_rc_read_credit(8u << 20, 1024, 1024), 1024);
	/* Debian's default rmem_max (212992, read back doubled) */
	assert_int_equal(eng_rc_read_credit(425984, 4096, 1024), 24);
	assert_int_equal(eng_rc_read_credit(425984, 1024, 1024), 83);
	/* unknown: the cap; tiny: one */
	assert_int_equal(eng_rc_read_credit(0, 4096, 300), 300);
	assert_int_equal(eng_rc_read_credit(1000, 4096, 300), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eng_wire_rc__npsn),
		cmocka_unit_test(test_eng_wire_rc__req_opcodes),
		cmocka_unit_test(test_eng_wire_rc__walks_pass_the_sequence_rule),
		cmocka_unit_test(test_eng_wire_rc__wr_of_rejects),
		cmocka_unit_test(test_eng_wire_rc__read_resp_opcodes),
		cmocka_unit_test(test_eng_wire_rc__lengths),
		cmocka_unit_test(test_eng_wire_rc__mtu),
		cmocka_unit_test(test_eng_wire_rc__read_split),
		cmocka_unit_test(test_eng_wire_rc__read_credit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
