/* SPDX-License-Identifier: MIT */
/* RoCEv2 transport headers: byte-exact get/put (IBA 9.2-9.3), the packet
 * parser and the header builder.  Pure. */
#include "providers/soft/engine/eng_wire_hdr.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

#include "providers/soft/engine/eng_wire_opcode.h"

bool eng_aeth_syndrome_valid(uint8_t syndrome)
{
	if (syndrome & 0x80)
		return false;
	switch (eng_aeth_type(syndrome)) {
	case ENG_AETH_ACK:
	case ENG_AETH_RNR_NAK:
		return true;
	case ENG_AETH_NAK:
		return eng_aeth_value(syndrome) <= ENG_NAK_INVALID_RD_REQ;
	default:
		return false;
	}
}

/*
 * BTH (IBA 9.2, figure 23):
 *   byte 0      opcode
 *   byte 1      SE(7) M(6) PadCnt(5:4) TVer(3:0)
 *   bytes 2-3   P_Key
 *   byte 4      FECN(7) BECN(6) resv6 -- A17.3.3 masks all of it
 *   bytes 5-7   DestQP
 *   byte 8      AckReq(7) resv7
 *   bytes 9-11  PSN
 * Reserved bits are ignored on receive and sent as 0 (9.2).
 */
void eng_bth_get(const uint8_t *p, struct eng_bth *out)
{
	out->opcode = p[0];
	out->se = p[1] & 0x80;
	out->mig = p[1] & 0x40;
	out->pad = (p[1] >> 4) & 3;
	out->tver = p[1] & 0x0f;
	out->pkey = eng_get16(p + 2);
	out->fecn = p[4] & 0x80;
	out->becn = p[4] & 0x40;
	out->dqpn = eng_get24(p + 5);
	out->ackreq = p[8] & 0x80;
	out->psn = eng_get24(p + 9);
}

void eng_bth_put(uint8_t *p, const struct eng_bth *b)
{
	p[0] = b->opcode;
	p[1] = (uint8_t)((b->se ? 0x80 : 0) | (b->mig ? 0x40 : 0) |
			 (b->pad & 3) << 4 | (b->tver & 0x0f));
	eng_put16(p + 2, b->pkey);
	p[4] = (uint8_t)((b->fecn ? 0x80 : 0) | (b->becn ? 0x40 : 0));
	eng_put24(p + 5, b->dqpn & ENG_QPN_MASK);
	p[8] = b->ackreq ? 0x80 : 0;
	eng_put24(p + 9, b->psn & ENG_PSN_MASK);
}

void eng_reth_get(const uint8_t *p, struct eng_reth *out)
{
	out->va = eng_get64(p);
	out->rkey = eng_get32(p + 8);
	out->dmalen = eng_get32(p + 12);
}

void eng_reth_put(uint8_t *p, const struct eng_reth *r)
{
	eng_put64(p, r->va);
	eng_put32(p + 8, r->rkey);
	eng_put32(p + 12, r->dmalen);
}

void eng_atmeth_get(const uint8_t *p, struct eng_atmeth *out)
{
	out->va = eng_get64(p);
	out->rkey = eng_get32(p + 8);
	out->swap_add = eng_get64(p + 12);
	out->compare = eng_get64(p + 20);
}

void eng_atmeth_put(uint8_t *p, const struct eng_atmeth *a)
{
	eng_put64(p, a->va);
	eng_put32(p + 8, a->rkey);
	eng_put64(p + 12, a->swap_add);
	eng_put64(p + 20, a->compare);
}

void eng_aeth_get(const uint8_t *p, struct eng_aeth *out)
{
	out->syndrome = p[0];
	out->msn = eng_get24(p + 1);
}

void eng_aeth_put(uint8_t *p, const struct eng_aeth *a)
{
	p[0] = a->syndrome;
	eng_put24(p + 1, a->msn & 0xffffff);
}

/* DETH: Q_Key, then a reserved byte and the 24-bit source QP. */
void eng_deth_get(const uint8_t *p, struct eng_deth *out)
{
	out->qkey = eng_get32(p);
	out->sqpn = eng_get24(p + 5);
}

void eng_deth_put(uint8_t *p, const struct eng_deth *d)
{
	eng_put32(p, d->qkey);
	p[4] = 0;
	eng_put24(p + 5, d->sqpn & ENG_QPN_MASK);
}

/* XRCETH (XRC's extended transport header, IBA 19.2.5.2): a reserved
 * byte, then the 24-bit number of the XRC SRQ the request is for. */
static void eng_xrceth_get(const uint8_t *p, uint32_t *srq)
{
	*srq = eng_get24(p + 1);
}

static void eng_xrceth_put(uint8_t *p, uint32_t srq)
{
	p[0] = 0;
	eng_put24(p + 1, srq & ENG_QPN_MASK);
}

/* The extension headers after the BTH, in the order of IBA 9.2 (DETH,
 * XRCETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt, IETH); p is past
 * the BTH and the caller has checked the length from the opcode's
 * hdrlen. */
static void exts_get(const uint8_t *p, uint32_t mask, struct eng_pkt_hdrs *h)
{
	if (mask & ENG_HDR_DETH) {
		eng_deth_get(p, &h->deth);
		p += ENG_DETH_LEN;
	}
	if (mask & ENG_HDR_XRCETH) {
		eng_xrceth_get(p, &h->xrcsrq);
		p += ENG_XRCETH_LEN;
	}
	if (mask & ENG_HDR_RETH) {
		eng_reth_get(p, &h->reth);
		p += ENG_RETH_LEN;
	}
	if (mask & ENG_HDR_ATMETH) {
		eng_atmeth_get(p, &h->atmeth);
		p += ENG_ATMETH_LEN;
	}
	if (mask & ENG_HDR_AETH) {
		eng_aeth_get(p, &h->aeth);
		p += ENG_AETH_LEN;
	}
	if (mask & ENG_HDR_ATMACK) {
		h->atmack_orig = eng_get64(p);
		p += ENG_ATMACK_LEN;
	}
	if (mask & ENG_HDR_IMMDT) {
		h->imm = eng_get32(p);
		p += ENG_IMMDT_LEN;
	}
	if (mask & ENG_HDR_IETH)
		h->ieth_rkey = eng_get32(p);
}

static void exts_put(uint8_t *p, uint32_t mask, const struct eng_pkt_hdrs *h)
{
	if (mask & ENG_HDR_DETH) {
		eng_deth_put(p, &h->deth);
		p += ENG_DETH_LEN;
	}
	if (mask & ENG_HDR_XRCETH) {
		eng_xrceth_put(p, h->xrcsrq);
		p += ENG_XRCETH_LEN;
	}
	if (mask & ENG_HDR_RETH) {
		eng_reth_put(p, &h->reth);
		p += ENG_RETH_LEN;
	}
	if (mask & ENG_HDR_ATMETH) {
		eng_atmeth_put(p, &h->atmeth);
		p += ENG_ATMETH_LEN;
	}
	if (mask & ENG_HDR_AETH) {
		eng_aeth_put(p, &h->aeth);
		p += ENG_AETH_LEN;
	}
	if (mask & ENG_HDR_ATMACK) {
		eng_put64(p, h->atmack_orig);
		p += ENG_ATMACK_LEN;
	}
	if (mask & ENG_HDR_IMMDT) {
		eng_put32(p, h->imm);
		p += ENG_IMMDT_LEN;
	}
	if (mask & ENG_HDR_IETH)
		eng_put32(p, h->ieth_rkey);
}

int eng_wire_parse(const uint8_t *bth, size_t len, struct eng_pkt *out)
{
	const struct eng_wire_op_info *op;
	size_t rest;

	memset(out, 0, sizeof(*out));
	if (len < ENG_BTH_LEN + ENG_ICRC_LEN)
		return -EMSGSIZE;
	eng_bth_get(bth, &out->h.bth);
	if (out->h.bth.tver != 0)
		return -EPROTO;
	op = eng_wire_op(out->h.bth.opcode);
	if (!op->name)
		return -EPROTO;
	if (len < (size_t)op->hdrlen + out->h.bth.pad + ENG_ICRC_LEN)
		return -EMSGSIZE;
	exts_get(bth + ENG_BTH_LEN, op->mask, &out->h);
	if ((op->mask & ENG_HDR_AETH) &&
	    !eng_aeth_syndrome_valid(out->h.aeth.syndrome))
		return -EPROTO;
	rest = len - op->hdrlen - ENG_ICRC_LEN;	/* payload + pad */
	if (!(op->mask & ENG_OPF_PAYLOAD) && rest != 0)
		return -EINVAL;
	/* 9.2: payload + pad is whole words, and only a message's last
	 * packet is padded (FIRST and MIDDLE carry exactly the PMTU). */
	if (rest % 4 != 0 ||
	    (out->h.bth.pad && !(op->mask & ENG_OPF_END)))
		return -EINVAL;
	if (rest > UINT32_MAX)
		return -EMSGSIZE;
	out->hdr = bth;
	out->len = len;
	out->mask = op->mask;
	out->hdrlen = op->hdrlen;
	out->payload = bth + op->hdrlen;
	out->paylen = (uint32_t)(rest - out->h.bth.pad);
	out->icrc = (uint32_t)bth[len - 4] | (uint32_t)bth[len - 3] << 8 |
		    (uint32_t)bth[len - 2] << 16 | (uint32_t)bth[len - 1] << 24;
	return 0;
}

ssize_t eng_wire_put_hdrs(const struct eng_pkt_hdrs *h, uint32_t paylen,
			  uint8_t *out, size_t cap)
{
	const struct eng_wire_op_info *op = eng_wire_op(h->bth.opcode);
	struct eng_bth b = h->bth;

	if (!op->name)
		return -EPROTO;
	if (paylen && !(op->mask & ENG_OPF_PAYLOAD))
		return -EINVAL;
	if (cap < op->hdrlen)
		return -ENOSPC;
	b.pad = eng_wire_pad(paylen);
	b.tver = 0;
	eng_bth_put(out, &b);
	exts_put(out + ENG_BTH_LEN, op->mask, h);
	return op->hdrlen;
}

size_t eng_wire_trailer(uint32_t paylen, uint32_t icrc, uint8_t *out)
{
	size_t pad = eng_wire_pad(paylen);

	memset(out, 0, pad);
	out[pad] = (uint8_t)icrc;
	out[pad + 1] = (uint8_t)(icrc >> 8);
	out[pad + 2] = (uint8_t)(icrc >> 16);
	out[pad + 3] = (uint8_t)(icrc >> 24);
	return pad + ENG_ICRC_LEN;
}

ssize_t eng_wire_build(const struct eng_pkt_hdrs *h, const void *payload,
		       uint32_t paylen, uint8_t *out, size_t cap)
{
	ssize_t hl = eng_wire_put_hdrs(h, paylen, out, cap);
	size_t total;

	if (hl < 0)
		return hl;
	total = (size_t)hl + paylen + eng_wire_pad(paylen) + ENG_ICRC_LEN;
	if (total > cap || total > SSIZE_MAX)
		return -ENOSPC;
	if (paylen)
		memcpy(out + hl, payload, paylen);
	eng_wire_trailer(paylen, 0, out + hl + paylen);
	return (ssize_t)total;
}
