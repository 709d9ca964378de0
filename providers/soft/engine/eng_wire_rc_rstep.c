/* SPDX-License-Identifier: MIT */
/*
 * The RC responder's first decision about a request packet (pure; the
 * I/O that carries it out is eng_wire_rc_resp.c's): by its PSN against
 * what the responder expects (eng_resp_res.h's classifier), what it
 * saved, and whether a request is held waiting for a receive WQE.
 * IBA 9.7.5.1.1 (duplicates: SEND/WRITE re-ACKed, READ re-served from
 * the saved request, atomics answered with the saved original, never
 * executed twice), 9.7.5.2.1 (PSN sequence error NAK, once per gap).
 */
#include "providers/soft/engine/eng_wire_opcode.h"
#include "providers/soft/engine/eng_wire_psn.h"
#include "providers/soft/engine/eng_wire_rc.h"

static enum eng_rc_ract on_dup(const struct eng_resp_res *res, uint8_t opcode,
			       uint32_t psn, bool ackreq,
			       struct eng_rc_rdec *out)
{
	const struct eng_resp_res_ent *r = eng_resp_res_find(res, psn);

	if (opcode == ENG_OP_RC_READ_REQ) {
		/* Re-read from memory from the packet it names on; one the
		 * table no longer holds is past the requester's window
		 * (max_rd_atomic), so it cannot be waiting for it. */
		if (!r || r->kind != ENG_RESP_RES_READ)
			return ENG_RC_R_DUP_DROP;
		out->res = r;
		out->k = (uint32_t)eng_psn_diff(psn, r->first_psn);
		return ENG_RC_R_DUP_READ;
	}
	if (opcode == ENG_OP_RC_CMP_SWAP || opcode == ENG_OP_RC_FETCH_ADD) {
		if (!r || r->kind != ENG_RESP_RES_ATOMIC)
			return ENG_RC_R_DUP_DROP;
		out->res = r;
		return ENG_RC_R_DUP_ATOMIC;
	}
	return ackreq ? ENG_RC_R_DUP_ACK : ENG_RC_R_DUP_DROP;
}

enum eng_rc_ract eng_rc_resp_classify(struct eng_psn_rx *rx,
				      const struct eng_resp_res *res,
				      bool holding, uint8_t opcode,
				      uint32_t psn, bool ackreq,
				      struct eng_rc_rdec *out)
{
	uint32_t p = psn & ENG_PSN_MASK;
	bool nak;

	*out = (struct eng_rc_rdec){ .act = ENG_RC_R_EXECUTE };
	/* While a request waits for a receive WQE, epsn is its PSN: it
	 * again (the requester's probe or timer) and everything after it
	 * wait too, unclassified, so no NAK goes out for them now. */
	if (holding && eng_psn_diff(p, rx->epsn) >= 0)
		out->act = p == rx->epsn ? ENG_RC_R_HELD_AGAIN :
					   ENG_RC_R_HELD_DROP;
	else
		switch (eng_psn_classify_req(rx, p, ackreq, &nak)) {
		case ENG_PSN_OUT_OF_SEQ:
			out->act = nak ? ENG_RC_R_NAK_SEQ : ENG_RC_R_OOS_DROP;
			break;
		case ENG_PSN_DUPLICATE:
			out->act = on_dup(res, opcode, p, ackreq, out);
			break;
		default:
			break;
		}
	return out->act;
}

uint64_t eng_rc_hold_ns(uint64_t rnr_ns, uint64_t hold_max_ns)
{
	/* Never longer than the RNR timer it stands in for: a requester
	 * told "not ready" would have waited that long anyway. */
	return rnr_ns < hold_max_ns ? rnr_ns : hold_max_ns;
}
