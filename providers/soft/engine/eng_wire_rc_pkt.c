/* SPDX-License-Identifier: MIT */
/*
 * The pure rules of RC/UC packets (eng_wire_rc.h): how many PSNs a
 * message takes (IBA 9.7.1, 9.7.4.1.4), which opcode each of its packets
 * carries (9.2.1 table 38, 9.8.3) and how long each may be (9.7.4.1.3).
 */
#include <errno.h>

#include <infiniband/verbs.h>

#include "providers/soft/engine/eng_port.h"
#include "providers/soft/engine/eng_wire_opcode.h"
#include "providers/soft/engine/eng_wire_rc.h"

uint32_t eng_rc_npsn(uint32_t wr_opcode, uint64_t len, uint32_t mtu)
{
	uint64_t n;

	if (wr_opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
	    wr_opcode == IBV_WR_ATOMIC_FETCH_AND_ADD || !mtu)
		return 1;
	n = (len + mtu - 1) / mtu;
	return n ? (uint32_t)n : 1;
}

/* RC opcodes of a SEND/WRITE kind by position: FIRST, MIDDLE, LAST,
 * ONLY; UC's are RC's + 0x20 (table 38). */
static int by_pos(uint8_t first, bool f, bool l, uint8_t last, uint8_t only)
{
	if (f && l)
		return only;
	if (f)
		return first;
	return l ? last : first + 1;
}

int eng_rc_req_opcode(bool uc, uint32_t wr_opcode, bool first, bool last)
{
	int op;

	switch (wr_opcode) {
	case IBV_WR_SEND:
		op = by_pos(ENG_OP_RC_SEND_FIRST, first, last,
			    ENG_OP_RC_SEND_LAST, ENG_OP_RC_SEND_ONLY);
		break;
	case IBV_WR_SEND_WITH_IMM:
		op = by_pos(ENG_OP_RC_SEND_FIRST, first, last,
			    ENG_OP_RC_SEND_LAST_IMM, ENG_OP_RC_SEND_ONLY_IMM);
		break;
	case IBV_WR_SEND_WITH_INV:
		if (uc)
			return -EINVAL;
		op = by_pos(ENG_OP_RC_SEND_FIRST, first, last,
			    ENG_OP_RC_SEND_LAST_INV, ENG_OP_RC_SEND_ONLY_INV);
		break;
	case IBV_WR_RDMA_WRITE:
		op = by_pos(ENG_OP_RC_WRITE_FIRST, first, last,
			    ENG_OP_RC_WRITE_LAST, ENG_OP_RC_WRITE_ONLY);
		break;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		op = by_pos(ENG_OP_RC_WRITE_FIRST, first, last,
			    ENG_OP_RC_WRITE_LAST_IMM, ENG_OP_RC_WRITE_ONLY_IMM);
		break;
	case IBV_WR_RDMA_READ:
		return uc ? -EINVAL : ENG_OP_RC_READ_REQ;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		return uc ? -EINVAL : ENG_OP_RC_CMP_SWAP;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return uc ? -EINVAL : ENG_OP_RC_FETCH_ADD;
	default:
		return -EINVAL;
	}
	return uc ? op + 0x20 : op;
}

int eng_rc_wr_of(uint8_t opcode)
{
	/* UC's table is RC's + 0x20 minus READ, atomics and invalidate:
	 * only opcodes the table knows map back. */
	if (!eng_wire_op_known(opcode) || !(eng_wire_op(opcode)->mask &
					    ENG_OPF_REQ))
		return -EINVAL;
	if (eng_wire_op_tp(opcode) == ENG_TP_UC)
		opcode = (uint8_t)(opcode - 0x20);
	else if (eng_wire_op_tp(opcode) != ENG_TP_RC)
		return -EINVAL;
	switch (opcode) {
	case ENG_OP_RC_SEND_FIRST: case ENG_OP_RC_SEND_MIDDLE:
	case ENG_OP_RC_SEND_LAST: case ENG_OP_RC_SEND_ONLY:
		return IBV_WR_SEND;
	case ENG_OP_RC_SEND_LAST_IMM: case ENG_OP_RC_SEND_ONLY_IMM:
		return IBV_WR_SEND_WITH_IMM;
	case ENG_OP_RC_SEND_LAST_INV: case ENG_OP_RC_SEND_ONLY_INV:
		return IBV_WR_SEND_WITH_INV;
	case ENG_OP_RC_WRITE_FIRST: case ENG_OP_RC_WRITE_MIDDLE:
	case ENG_OP_RC_WRITE_LAST: case ENG_OP_RC_WRITE_ONLY:
		return IBV_WR_RDMA_WRITE;
	case ENG_OP_RC_WRITE_LAST_IMM: case ENG_OP_RC_WRITE_ONLY_IMM:
		return IBV_WR_RDMA_WRITE_WITH_IMM;
	case ENG_OP_RC_READ_REQ:
		return IBV_WR_RDMA_READ;
	case ENG_OP_RC_CMP_SWAP:
		return IBV_WR_ATOMIC_CMP_AND_SWP;
	case ENG_OP_RC_FETCH_ADD:
		return IBV_WR_ATOMIC_FETCH_AND_ADD;
	}
	return -EINVAL;
}

uint8_t eng_rc_read_resp_opcode(uint32_t k, uint32_t npsn)
{
	if (npsn <= 1)
		return ENG_OP_RC_READ_RESP_ONLY;
	if (k == 0)
		return ENG_OP_RC_READ_RESP_FIRST;
	return k + 1 >= npsn ? ENG_OP_RC_READ_RESP_LAST :
			       ENG_OP_RC_READ_RESP_MIDDLE;
}

bool eng_rc_req_len_ok(uint8_t opcode, uint32_t paylen, uint32_t mtu)
{
	uint32_t m = eng_wire_op(opcode)->mask;

	if (!(m & ENG_OPF_PAYLOAD))
		return paylen == 0;
	if (!(m & ENG_OPF_END))
		return paylen == mtu;		/* FIRST, MIDDLE */
	if (!(m & ENG_OPF_START))
		return paylen >= 1 && paylen <= mtu;	/* LAST */
	return paylen <= mtu;			/* ONLY */
}

uint32_t eng_rc_mtu(uint32_t path_mtu_enum, uint32_t dev_mtu_bytes)
{
	uint32_t a = eng_port_mtu_bytes(path_mtu_enum);

	if (a < 256)
		a = 256;
	if (dev_mtu_bytes >= 256 && dev_mtu_bytes < a)
		a = dev_mtu_bytes;
	return a;
}

uint32_t eng_rc_read_chunk(uint32_t npsn, uint32_t chunk, uint32_t k,
			   uint32_t *first)
{
	if (!chunk || chunk > npsn)
		chunk = npsn ? npsn : 1;
	*first = k - k % chunk;
	if (*first >= npsn) {
		*first = npsn ? npsn - 1 : 0;
		return 1;
	}
	return npsn - *first < chunk ? npsn - *first : chunk;
}

uint8_t eng_rc_read_resp_opcode_at(uint32_t k, uint32_t npsn, uint32_t chunk)
{
	uint32_t first, n = eng_rc_read_chunk(npsn, chunk, k, &first);

	return eng_rc_read_resp_opcode(k - first, n);
}

uint32_t eng_rc_read_credit(uint64_t rcvbuf, uint32_t mtu, uint64_t cap)
{
	/* The kernel charges a datagram's truesize, about twice an MTU
	 * payload's (page-sized buffers and the skb); half the buffer is
	 * left to the rest of the device's traffic (ACKs, requests). */
	uint64_t per = 2ull * mtu + 512, c = rcvbuf ? rcvbuf / 2 / per : cap;

	if (c > cap)
		c = cap;
	return c ? (uint32_t)c : 1;
}
