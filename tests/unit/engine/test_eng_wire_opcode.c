/* SPDX-License-Identifier: MIT */
/* Unit tests of the BTH opcode table and the packet sequence rule
 * (eng_wire_opcode.h; IBA 9.2.1 table 38, 9.3, 9.8.3).  The expected
 * values come from the spec's opcode names, not from the table's flags,
 * so a wrong flag in the table shows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "providers/soft/engine/eng_wire_hdr.h"
#include "providers/soft/engine/eng_wire_opcode.h"

/* IBA table 38 as (code, name): every opcode RC, UC and UD define. */
static const struct { uint8_t code; const char *name; } spec_ops[] = {
	{ 0x00, "RC_SEND_FIRST" }, { 0x01, "RC_SEND_MIDDLE" },
	{ 0x02, "RC_SEND_LAST" }, { 0x03, "RC_SEND_LAST_WITH_IMMEDIATE" },
	{ 0x04, "RC_SEND_ONLY" }, { 0x05, "RC_SEND_ONLY_WITH_IMMEDIATE" },
	{ 0x06, "RC_RDMA_WRITE_FIRST" }, { 0x07, "RC_RDMA_WRITE_MIDDLE" },
	{ 0x08, "RC_RDMA_WRITE_LAST" },
	{ 0x09, "RC_RDMA_WRITE_LAST_WITH_IMMEDIATE" },
	{ 0x0a, "RC_RDMA_WRITE_ONLY" },
	{ 0x0b, "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE" },
	{ 0x0c, "RC_RDMA_READ_REQUEST" },
	{ 0x0d, "RC_RDMA_READ_RESPONSE_FIRST" },
	{ 0x0e, "RC_RDMA_READ_RESPONSE_MIDDLE" },
	{ 0x0f, "RC_RDMA_READ_RESPONSE_LAST" },
	{ 0x10, "RC_RDMA_READ_RESPONSE_ONLY" }, { 0x11, "RC_ACKNOWLEDGE" },
	{ 0x12, "RC_ATOMIC_ACKNOWLEDGE" }, { 0x13, "RC_COMPARE_SWAP" },
	{ 0x14, "RC_FETCH_ADD" }, { 0x16, "RC_SEND_LAST_WITH_INVALIDATE" },
	{ 0x17, "RC_SEND_ONLY_WITH_INVALIDATE" },
	{ 0x20, "UC_SEND_FIRST" }, { 0x21, "UC_SEND_MIDDLE" },
	{ 0x22, "UC_SEND_LAST" }, { 0x23, "UC_SEND_LAST_WITH_IMMEDIATE" },
	{ 0x24, "UC_SEND_ONLY" }, { 0x25, "UC_SEND_ONLY_WITH_IMMEDIATE" },
	{ 0x26, "UC_RDMA_WRITE_FIRST" }, { 0x27, "UC_RDMA_WRITE_MIDDLE" },
	{ 0x28, "UC_RDMA_WRITE_LAST" },
	{ 0x29, "UC_RDMA_WRITE_LAST_WITH_IMMEDIATE" },
	{ 0x2a, "UC_RDMA_WRITE_ONLY" },
	{ 0x2b, "UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE" },
	{ 0x64, "UD_SEND_ONLY" }, { 0x65, "UD_SEND_ONLY_WITH_IMMEDIATE" },
	{ 0xa0, "XRC_SEND_FIRST" }, { 0xa1, "XRC_SEND_MIDDLE" },
	{ 0xa2, "XRC_SEND_LAST" }, { 0xa3, "XRC_SEND_LAST_WITH_IMMEDIATE" },
	{ 0xa4, "XRC_SEND_ONLY" }, { 0xa5, "XRC_SEND_ONLY_WITH_IMMEDIATE" },
	{ 0xa6, "XRC_RDMA_WRITE_FIRST" }, { 0xa7, "XRC_RDMA_WRITE_MIDDLE" },
	{ 0xa8, "XRC_RDMA_WRITE_LAST" },
	{ 0xa9, "XRC_RDMA_WRITE_LAST_WITH_IMMEDIATE" },
	{ 0xaa, "XRC_RDMA_WRITE_ONLY" },
	{ 0xab, "XRC_RDMA_WRITE_ONLY_WITH_IMMEDIATE" },
	{ 0xac, "XRC_RDMA_READ_REQUEST" },
	{ 0xad, "XRC_RDMA_READ_RESPONSE_FIRST" },
	{ 0xae, "XRC_RDMA_READ_RESPONSE_MIDDLE" },
	{ 0xaf, "XRC_RDMA_READ_RESPONSE_LAST" },
	{ 0xb0, "XRC_RDMA_READ_RESPONSE_ONLY" }, { 0xb1, "XRC_ACKNOWLEDGE" },
	{ 0xb2, "XRC_ATOMIC_ACKNOWLEDGE" }, { 0xb3, "XRC_COMPARE_SWAP" },
	{ 0xb4, "XRC_FETCH_ADD" }, { 0xb6, "XRC_SEND_LAST_WITH_INVALIDATE" },
	{ 0xb7, "XRC_SEND_ONLY_WITH_INVALIDATE" },
};
#define N_SPEC (sizeof(spec_ops) / sizeof(spec_ops[0]))

static const char *spec_name(int code)
{
	for (size_t i = 0; i < N_SPEC; i++)
		if (spec_ops[i].code == code)
			return spec_ops[i].name;
	return NULL;
}

static bool has(const char *name, const char *part)
{
	return strstr(name, part) != NULL;
}

/* The kind of message a name belongs to, for the sequence oracle. */
static int kind(const char *n)
{
	if (has(n, "READ_RESPONSE"))
		return 3;
	if (has(n, "RDMA_WRITE"))
		return 2;
	if (has(n, "SEND"))
		return 1;
	return 0;
}

static bool opens(const char *n)
{
	return has(n, "_FIRST");
}

static bool continues(const char *n)
{
	return has(n, "_MIDDLE") || has(n, "_LAST");
}

/* The header set IBA 9.3 gives each opcode, from its name. */
static unsigned spec_hdrlen(const char *n)
{
	unsigned l = 12;

	if (n[0] == 'U' && n[1] == 'D')
		l += 8;
	if (has(n, "WRITE_FIRST") || has(n, "WRITE_ONLY") ||
	    has(n, "READ_REQUEST"))
		l += 16;
	if (has(n, "COMPARE") || has(n, "FETCH"))
		l += 28;
	if (has(n, "RESPONSE_FIRST") || has(n, "RESPONSE_LAST") ||
	    has(n, "RESPONSE_ONLY") || has(n, "ACKNOWLEDGE"))
		l += 4;
	if (has(n, "ATOMIC_ACK"))
		l += 8;
	if (has(n, "IMMEDIATE") || has(n, "INVALIDATE"))
		l += 4;
	/* XRC requests: the XRCETH (IBA 19.2.5.2); responses have none. */
	if (n[0] == 'X' && !has(n, "RESPONSE") && !has(n, "ACKNOWLEDGE"))
		l += 4;
	return l;
}

static void test_eng_wire_opcode__table_matches_the_spec(void **state)
{
	unsigned known = 0;

	(void)state;
	for (int c = 0; c < 256; c++) {
		const struct eng_wire_op_info *op = eng_wire_op((uint8_t)c);
		const char *n = spec_name(c);

		if (!n) {
			assert_null(op->name);
			assert_false(eng_wire_op_known((uint8_t)c));
			continue;
		}
		known++;
		assert_string_equal(op->name, n);
		assert_int_equal(op->hdrlen, spec_hdrlen(n));
		assert_true(op->hdrlen <= ENG_WIRE_HDR_MAX);
		assert_int_equal(!!(op->mask & ENG_HDR_IMMDT), has(n, "IMMEDIATE"));
		assert_int_equal(!!(op->mask & ENG_HDR_IETH), has(n, "INVALIDATE"));
		assert_int_equal(!!(op->mask & ENG_OPF_START),
				 has(n, "_FIRST") || !continues(n));
		assert_int_equal(!!(op->mask & ENG_OPF_END), !has(n, "_FIRST") &&
				 !has(n, "_MIDDLE"));
		assert_int_equal(!!(op->mask & ENG_OPF_MIDDLE), has(n, "_MIDDLE"));
		assert_int_equal(!!(op->mask & ENG_OPF_RESP),
				 has(n, "RESPONSE") || has(n, "ACKNOWLEDGE"));
		assert_int_equal(!!(op->mask & ENG_OPF_REQ),
				 !(op->mask & ENG_OPF_RESP));
		assert_int_equal(!!(op->mask & ENG_OPF_PAYLOAD),
				 has(n, "SEND") || has(n, "WRITE") ||
				 has(n, "RESPONSE"));
		assert_int_equal(!!(op->mask & ENG_OPF_ACKREQ),
				 (n[0] == 'R' || n[0] == 'X') &&
				 (has(n, "SEND") || has(n, "WRITE")));
		assert_int_equal(!!(op->mask & ENG_HDR_XRCETH), n[0] == 'X' &&
				 !(op->mask & ENG_OPF_RESP));
		/* The receiver completes a SEND's end and a WRITE with
		 * immediate (IBA 9.8.4, 9.4.3). */
		assert_int_equal(!!(op->mask & ENG_OPF_COMP),
				 (has(n, "SEND") && !has(n, "_FIRST") &&
				  !has(n, "_MIDDLE")) ||
				 (has(n, "WRITE") && has(n, "IMMEDIATE")));
		assert_int_equal(eng_wire_op_tp((uint8_t)c),
				 n[0] == 'R' ? ENG_TP_RC : n[0] == 'X' ? ENG_TP_XRC :
				 n[1] == 'C' ? ENG_TP_UC : ENG_TP_UD);
	}
	assert_int_equal(known, N_SPEC);
}

/* Every pair of bytes (prev may be none), against the rule written from
 * the names: in a message, only MIDDLE/LAST of the same transport and
 * kind; outside one, anything but MIDDLE/LAST. */
static void test_eng_wire_opcode__sequence_over_every_pair(void **state)
{
	unsigned ok = 0, bad = 0;

	(void)state;
	for (int p = -1; p < 256; p++) {
		const char *pn = p < 0 ? NULL : spec_name(p);
		bool in_msg = pn && (opens(pn) || has(pn, "_MIDDLE"));

		for (int c = 0; c < 256; c++) {
			const char *cn = spec_name(c);
			bool want;

			if (!cn)
				want = false;
			else if (in_msg)
				want = continues(cn) && kind(cn) == kind(pn) &&
				       pn[0] == cn[0] && pn[1] == cn[1];
			else
				want = !continues(cn);
			if (eng_wire_op_seq_ok(p, (uint8_t)c) != want)
				fail_msg("prev 0x%x next 0x%x: want %d", p, c, want);
			want ? ok++ : bad++;
		}
	}
	/* Enough of both answers that the rule was exercised. */
	assert_true(ok > 2000 && bad > 55000);
}

static void test_eng_wire_opcode__sequence_examples(void **state)
{
	(void)state;
	assert_true(eng_wire_op_seq_ok(ENG_OP_NONE, ENG_OP_RC_SEND_FIRST));
	assert_true(eng_wire_op_seq_ok(ENG_OP_RC_SEND_FIRST, ENG_OP_RC_SEND_MIDDLE));
	assert_true(eng_wire_op_seq_ok(ENG_OP_RC_SEND_MIDDLE, ENG_OP_RC_SEND_LAST_INV));
	assert_true(eng_wire_op_seq_ok(ENG_OP_RC_SEND_LAST, ENG_OP_RC_WRITE_ONLY));
	assert_true(eng_wire_op_seq_ok(ENG_OP_RC_WRITE_ONLY, ENG_OP_RC_READ_REQ));
	assert_true(eng_wire_op_seq_ok(ENG_OP_RC_READ_RESP_FIRST, ENG_OP_RC_READ_RESP_LAST));
	/* No ONLY, FIRST, other kind or other transport inside a message. */
	assert_false(eng_wire_op_seq_ok(ENG_OP_RC_SEND_FIRST, ENG_OP_RC_SEND_ONLY));
	assert_false(eng_wire_op_seq_ok(ENG_OP_RC_SEND_FIRST, ENG_OP_RC_SEND_FIRST));
	assert_false(eng_wire_op_seq_ok(ENG_OP_RC_SEND_MIDDLE, ENG_OP_RC_WRITE_LAST));
	assert_false(eng_wire_op_seq_ok(ENG_OP_RC_WRITE_FIRST, ENG_OP_RC_READ_REQ));
	assert_false(eng_wire_op_seq_ok(ENG_OP_RC_WRITE_FIRST, ENG_OP_UC_WRITE_LAST));
	assert_false(eng_wire_op_seq_ok(ENG_OP_RC_READ_RESP_MIDDLE, ENG_OP_RC_ACK));
	/* No MIDDLE or LAST without a FIRST. */
	assert_false(eng_wire_op_seq_ok(ENG_OP_NONE, ENG_OP_UC_SEND_MIDDLE));
	assert_false(eng_wire_op_seq_ok(ENG_OP_RC_SEND_LAST, ENG_OP_RC_SEND_LAST));
	assert_false(eng_wire_op_seq_ok(ENG_OP_NONE, 0x15));
	assert_false(eng_wire_op_seq_ok(300, ENG_OP_RC_SEND_MIDDLE));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eng_wire_opcode__table_matches_the_spec),
		cmocka_unit_test(test_eng_wire_opcode__sequence_over_every_pair),
		cmocka_unit_test(test_eng_wire_opcode__sequence_examples),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
