/* SPDX-License-Identifier: MIT */
/*
 * The BTH opcodes (IBA 9.2.1 table 38) of RC, UC, UD and XRC: per opcode its
 * name, transport, header set, direction, place in a message and what it
 * carries; and the packet sequence rule of IBA 9.8.3 (a message in
 * progress continues with MIDDLE or ends with LAST, nothing else between).
 * Table-driven and pure.  RD (0x40..) and the CNP (0x81) are not here:
 * the engine neither sends nor accepts them.
 */
#ifndef ENG_WIRE_OPCODE_H
#define ENG_WIRE_OPCODE_H

#include <stdbool.h>
#include <stdint.h>

enum eng_wire_opcode {
	/* RC (transport 000) */
	ENG_OP_RC_SEND_FIRST = 0x00,
	ENG_OP_RC_SEND_MIDDLE = 0x01,
	ENG_OP_RC_SEND_LAST = 0x02,
	ENG_OP_RC_SEND_LAST_IMM = 0x03,
	ENG_OP_RC_SEND_ONLY = 0x04,
	ENG_OP_RC_SEND_ONLY_IMM = 0x05,
	ENG_OP_RC_WRITE_FIRST = 0x06,
	ENG_OP_RC_WRITE_MIDDLE = 0x07,
	ENG_OP_RC_WRITE_LAST = 0x08,
	ENG_OP_RC_WRITE_LAST_IMM = 0x09,
	ENG_OP_RC_WRITE_ONLY = 0x0a,
	ENG_OP_RC_WRITE_ONLY_IMM = 0x0b,
	ENG_OP_RC_READ_REQ = 0x0c,
	ENG_OP_RC_READ_RESP_FIRST = 0x0d,
	ENG_OP_RC_READ_RESP_MIDDLE = 0x0e,
	ENG_OP_RC_READ_RESP_LAST = 0x0f,
	ENG_OP_RC_READ_RESP_ONLY = 0x10,
	ENG_OP_RC_ACK = 0x11,
	ENG_OP_RC_ATOMIC_ACK = 0x12,
	ENG_OP_RC_CMP_SWAP = 0x13,
	ENG_OP_RC_FETCH_ADD = 0x14,
	ENG_OP_RC_SEND_LAST_INV = 0x16,
	ENG_OP_RC_SEND_ONLY_INV = 0x17,
	/* UC (transport 001) */
	ENG_OP_UC_SEND_FIRST = 0x20,
	ENG_OP_UC_SEND_MIDDLE = 0x21,
	ENG_OP_UC_SEND_LAST = 0x22,
	ENG_OP_UC_SEND_LAST_IMM = 0x23,
	ENG_OP_UC_SEND_ONLY = 0x24,
	ENG_OP_UC_SEND_ONLY_IMM = 0x25,
	ENG_OP_UC_WRITE_FIRST = 0x26,
	ENG_OP_UC_WRITE_MIDDLE = 0x27,
	ENG_OP_UC_WRITE_LAST = 0x28,
	ENG_OP_UC_WRITE_LAST_IMM = 0x29,
	ENG_OP_UC_WRITE_ONLY = 0x2a,
	ENG_OP_UC_WRITE_ONLY_IMM = 0x2b,
	/* UD (transport 011) */
	ENG_OP_UD_SEND_ONLY = 0x64,
	ENG_OP_UD_SEND_ONLY_IMM = 0x65,
	/* XRC (transport 101): RC's opcodes + 0xa0; its requests carry
	 * the XRCETH after the BTH (IBA 9.2, 19.2.5.2). */
	ENG_OP_XRC_BASE = 0xa0,
};

/* "No message in progress" for eng_wire_op_seq_ok(). */
#define ENG_OP_NONE (-1)

/* Header set: which extension headers follow the BTH, in this order. */
#define ENG_HDR_DETH (1u << 0)
#define ENG_HDR_RETH (1u << 1)
#define ENG_HDR_ATMETH (1u << 2)
#define ENG_HDR_AETH (1u << 3)
#define ENG_HDR_ATMACK (1u << 4)
#define ENG_HDR_IMMDT (1u << 5)
#define ENG_HDR_IETH (1u << 6)
#define ENG_HDR_XRCETH (1u << 7)
/* Properties. */
#define ENG_OPF_PAYLOAD (1u << 8)	/* may carry a payload */
#define ENG_OPF_REQ (1u << 9)		/* requester -> responder */
#define ENG_OPF_RESP (1u << 10)		/* responder -> requester */
#define ENG_OPF_START (1u << 11)	/* FIRST or ONLY */
#define ENG_OPF_MIDDLE (1u << 12)
#define ENG_OPF_END (1u << 13)		/* LAST or ONLY */
#define ENG_OPF_COMP (1u << 14)		/* the receiver completes a WQE */
/* RC requests the responder acknowledges (9.7.5.1: the requester may set
 * AckReq on any of them to ask for an ACK now). */
#define ENG_OPF_ACKREQ (1u << 15)

enum eng_wire_tp { ENG_TP_RC = 0, ENG_TP_UC = 1, ENG_TP_UD = 3,
		   ENG_TP_XRC = 5 };

enum eng_wire_class {
	ENG_CLS_SEND, ENG_CLS_WRITE, ENG_CLS_READ_REQ, ENG_CLS_READ_RESP,
	ENG_CLS_ACK, ENG_CLS_ATOMIC, ENG_CLS_ATOMIC_ACK,
};

struct eng_wire_op_info {
	const char *name;	/* NULL: not an opcode we know */
	uint32_t mask;		/* ENG_HDR_* | ENG_OPF_* */
	uint8_t hdrlen;		/* BTH + the extension headers */
	uint8_t cls;		/* enum eng_wire_class */
};

/* The table entry of an opcode (any byte): never NULL; name NULL when the
 * opcode is not one we know. */
const struct eng_wire_op_info *eng_wire_op(uint8_t opcode);

static inline bool eng_wire_op_known(uint8_t opcode)
{
	return eng_wire_op(opcode)->name != 0;
}

/* The transport of an opcode: its top 3 bits (9.2.1). */
static inline enum eng_wire_tp eng_wire_op_tp(uint8_t opcode)
{
	return (enum eng_wire_tp)(opcode >> 5);
}

/*
 * IBA 9.8.3 (responder, requests) and 9.9 (requester, read responses):
 * prev is the opcode of the last packet accepted in this direction of a
 * QP, or ENG_OP_NONE.  While a message is in progress (prev a FIRST or
 * MIDDLE) only a MIDDLE or LAST of the same transport and kind may follow;
 * otherwise only a FIRST, an ONLY or a single-packet operation may.
 * Unknown opcodes are never valid.
 */
bool eng_wire_op_seq_ok(int prev, uint8_t next);

#endif /* ENG_WIRE_OPCODE_H */
