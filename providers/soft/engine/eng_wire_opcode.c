/* SPDX-License-Identifier: MIT */
/* The BTH opcode table (IBA 9.2.1 table 38, 9.3 for the header sets) and
 * the packet sequence rule (9.8.3). */
#include "providers/soft/engine/eng_wire_opcode.h"

#include "providers/soft/engine/eng_wire_hdr.h"

/* Header lengths summed from a mask at compile time. */
#define HL(m) (ENG_BTH_LEN + \
	(((m) & ENG_HDR_DETH) ? ENG_DETH_LEN : 0) + \
	(((m) & ENG_HDR_RETH) ? ENG_RETH_LEN : 0) + \
	(((m) & ENG_HDR_ATMETH) ? ENG_ATMETH_LEN : 0) + \
	(((m) & ENG_HDR_AETH) ? ENG_AETH_LEN : 0) + \
	(((m) & ENG_HDR_ATMACK) ? ENG_ATMACK_LEN : 0) + \
	(((m) & ENG_HDR_IMMDT) ? ENG_IMMDT_LEN : 0) + \
	(((m) & ENG_HDR_IETH) ? ENG_IETH_LEN : 0) + \
	(((m) & ENG_HDR_XRCETH) ? ENG_XRCETH_LEN : 0))

#define OP(code, nm, m, c) [code] = { .name = nm, .mask = (m), .hdrlen = HL(m), .cls = (c) }

/* Where a packet sits in its message. */
#define FIRST (ENG_OPF_START)
#define MIDDLE (ENG_OPF_MIDDLE)
#define LAST (ENG_OPF_END)
#define ONLY (ENG_OPF_START | ENG_OPF_END)

/* Requests: SEND and WRITE carry payload; the RC ones are acknowledged;
 * the receiver completes a WQE for a SEND's end and a WRITE with
 * immediate. */
#define RQ (ENG_OPF_REQ | ENG_OPF_PAYLOAD)
#define RC_RQ (RQ | ENG_OPF_ACKREQ)
#define COMP ENG_OPF_COMP
#define IMM ENG_HDR_IMMDT
#define INV ENG_HDR_IETH
#define RETH ENG_HDR_RETH
#define RSP ENG_OPF_RESP

/* The send/write opcodes RC and UC share (UC: base 0x20, not acked). */
#define SEND_WRITE(base, pfx, rq) \
	OP(base + 0x00, pfx "SEND_FIRST", rq | FIRST, ENG_CLS_SEND), \
	OP(base + 0x01, pfx "SEND_MIDDLE", rq | MIDDLE, ENG_CLS_SEND), \
	OP(base + 0x02, pfx "SEND_LAST", rq | LAST | COMP, ENG_CLS_SEND), \
	OP(base + 0x03, pfx "SEND_LAST_WITH_IMMEDIATE", rq | LAST | COMP | IMM, ENG_CLS_SEND), \
	OP(base + 0x04, pfx "SEND_ONLY", rq | ONLY | COMP, ENG_CLS_SEND), \
	OP(base + 0x05, pfx "SEND_ONLY_WITH_IMMEDIATE", rq | ONLY | COMP | IMM, ENG_CLS_SEND), \
	OP(base + 0x06, pfx "RDMA_WRITE_FIRST", rq | FIRST | RETH, ENG_CLS_WRITE), \
	OP(base + 0x07, pfx "RDMA_WRITE_MIDDLE", rq | MIDDLE, ENG_CLS_WRITE), \
	OP(base + 0x08, pfx "RDMA_WRITE_LAST", rq | LAST, ENG_CLS_WRITE), \
	OP(base + 0x09, pfx "RDMA_WRITE_LAST_WITH_IMMEDIATE", rq | LAST | COMP | IMM, ENG_CLS_WRITE), \
	OP(base + 0x0a, pfx "RDMA_WRITE_ONLY", rq | ONLY | RETH, ENG_CLS_WRITE), \
	OP(base + 0x0b, pfx "RDMA_WRITE_ONLY_WITH_IMMEDIATE", rq | ONLY | COMP | RETH | IMM, ENG_CLS_WRITE)

/* RC's opcodes past the send/write ones, at base (RC 0x00, XRC 0xa0,
 * whose requests carry the XRCETH: x). */
#define RC_REST(base, pfx, x) \
	OP(base + 0x0c, pfx "RDMA_READ_REQUEST", \
	   ENG_OPF_REQ | ONLY | RETH | (x), ENG_CLS_READ_REQ), \
	OP(base + 0x0d, pfx "RDMA_READ_RESPONSE_FIRST", \
	   RSP | ENG_OPF_PAYLOAD | FIRST | ENG_HDR_AETH, ENG_CLS_READ_RESP), \
	OP(base + 0x0e, pfx "RDMA_READ_RESPONSE_MIDDLE", \
	   RSP | ENG_OPF_PAYLOAD | MIDDLE, ENG_CLS_READ_RESP), \
	OP(base + 0x0f, pfx "RDMA_READ_RESPONSE_LAST", \
	   RSP | ENG_OPF_PAYLOAD | LAST | ENG_HDR_AETH, ENG_CLS_READ_RESP), \
	OP(base + 0x10, pfx "RDMA_READ_RESPONSE_ONLY", \
	   RSP | ENG_OPF_PAYLOAD | ONLY | ENG_HDR_AETH, ENG_CLS_READ_RESP), \
	OP(base + 0x11, pfx "ACKNOWLEDGE", \
	   RSP | ONLY | ENG_HDR_AETH, ENG_CLS_ACK), \
	OP(base + 0x12, pfx "ATOMIC_ACKNOWLEDGE", \
	   RSP | ONLY | ENG_HDR_AETH | ENG_HDR_ATMACK, ENG_CLS_ATOMIC_ACK), \
	OP(base + 0x13, pfx "COMPARE_SWAP", \
	   ENG_OPF_REQ | ONLY | ENG_HDR_ATMETH | (x), ENG_CLS_ATOMIC), \
	OP(base + 0x14, pfx "FETCH_ADD", \
	   ENG_OPF_REQ | ONLY | ENG_HDR_ATMETH | (x), ENG_CLS_ATOMIC), \
	OP(base + 0x16, pfx "SEND_LAST_WITH_INVALIDATE", \
	   RC_RQ | LAST | COMP | INV | (x), ENG_CLS_SEND), \
	OP(base + 0x17, pfx "SEND_ONLY_WITH_INVALIDATE", \
	   RC_RQ | ONLY | COMP | INV | (x), ENG_CLS_SEND)

static const struct eng_wire_op_info op_table[256] = {
	SEND_WRITE(0x00, "RC_", RC_RQ),
	RC_REST(0x00, "RC_", 0),
	SEND_WRITE(0x20, "UC_", RQ),
	OP(ENG_OP_UD_SEND_ONLY, "UD_SEND_ONLY",
	   RQ | ONLY | COMP | ENG_HDR_DETH, ENG_CLS_SEND),
	OP(ENG_OP_UD_SEND_ONLY_IMM, "UD_SEND_ONLY_WITH_IMMEDIATE",
	   RQ | ONLY | COMP | ENG_HDR_DETH | IMM, ENG_CLS_SEND),
	SEND_WRITE(ENG_OP_XRC_BASE, "XRC_", RC_RQ | ENG_HDR_XRCETH),
	RC_REST(ENG_OP_XRC_BASE, "XRC_", ENG_HDR_XRCETH),
};

const struct eng_wire_op_info *eng_wire_op(uint8_t opcode)
{
	return &op_table[opcode];
}

bool eng_wire_op_seq_ok(int prev, uint8_t next)
{
	const struct eng_wire_op_info *n = eng_wire_op(next), *p;
	bool in_progress;

	if (!n->name)
		return false;
	if (prev < 0 || prev > 0xff)
		return (n->mask & ENG_OPF_START) != 0;
	p = eng_wire_op((uint8_t)prev);
	/* A previous packet that is no opcode of ours never opened a
	 * message: nothing is in progress. */
	in_progress = p->name && !(p->mask & ENG_OPF_END);
	if (!in_progress)
		return (n->mask & ENG_OPF_START) != 0;
	return !(n->mask & ENG_OPF_START) && n->cls == p->cls &&
	       eng_wire_op_tp(next) == eng_wire_op_tp((uint8_t)prev);
}
