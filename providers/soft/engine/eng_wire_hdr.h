/* SPDX-License-Identifier: MIT */
/*
 * RoCEv2 transport headers (IBTA Vol 1 ch. 9.2-9.3, Annex A17): the layouts
 * of BTH, RETH, AETH, AtomicETH, AtomicAckETH, ImmDt, IETH, DETH and
 * XRCETH, read
 * and written byte by byte in network order (no packed structs: what the
 * compiler does with them is not the wire).  A packet here starts at the
 * BTH, i.e. it is a UDP payload to port 4791, and ends with the 4-byte
 * ICRC (eng_wire_icrc.h computes it: it also covers the IP and UDP
 * headers, which this file never sees).
 *
 * Pure: no I/O.  Every byte of a received packet is hostile:
 * eng_wire_parse() never reads past the length it is given and checks the
 * length against the opcode's header set, the pad and the ICRC trailer.
 */
#ifndef ENG_WIRE_HDR_H
#define ENG_WIRE_HDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define ENG_WIRE_UDP_PORT 4791	/* Annex A17.2.4 */

/* Header lengths in bytes (IBA 9.2-9.3). */
#define ENG_BTH_LEN 12
#define ENG_DETH_LEN 8
#define ENG_RETH_LEN 16
#define ENG_ATMETH_LEN 28
#define ENG_AETH_LEN 4
#define ENG_ATMACK_LEN 8
#define ENG_IMMDT_LEN 4
#define ENG_IETH_LEN 4
#define ENG_XRCETH_LEN 4
#define ENG_ICRC_LEN 4
/* The longest header set of any opcode we know (BTH+XRCETH+AtomicETH;
 * the opcode table's unit test checks every opcode against it). */
#define ENG_WIRE_HDR_MAX (ENG_BTH_LEN + ENG_XRCETH_LEN + ENG_ATMETH_LEN)

#define ENG_PSN_MASK 0xffffffu
#define ENG_QPN_MASK 0xffffffu
#define ENG_DEFAULT_PKEY 0xffffu

/* Base Transport Header (IBA 9.2): the fields a packet carries. */
struct eng_bth {
	uint8_t opcode;
	bool se;		/* solicited event */
	bool mig;		/* M: migration state */
	uint8_t pad;		/* 0..3 bytes after the payload */
	uint8_t tver;		/* transport header version: 0 */
	uint16_t pkey;
	bool fecn, becn;	/* masked out of the ICRC (A17.3.3) */
	uint32_t dqpn;		/* 24 bits */
	bool ackreq;
	uint32_t psn;		/* 24 bits */
};

/* RDMA Extended Transport Header (IBA 9.3.3). */
struct eng_reth {
	uint64_t va;
	uint32_t rkey;
	uint32_t dmalen;
};

/* Atomic Extended Transport Header (IBA 9.3.4). */
struct eng_atmeth {
	uint64_t va;
	uint32_t rkey;
	uint64_t swap_add;
	uint64_t compare;
};

/* ACK Extended Transport Header (IBA 9.3.5): an 8-bit syndrome and the
 * 24-bit MSN.  Syndrome bits 6:5 say what it is (table 44). */
struct eng_aeth {
	uint8_t syndrome;
	uint32_t msn;
};

/* Datagram Extended Transport Header (IBA 9.3.2). */
struct eng_deth {
	uint32_t qkey;
	uint32_t sqpn;		/* 24 bits */
};

/*
 * Everything but the payload: the BTH and whichever extension headers the
 * opcode has (eng_wire_opcode.h's mask); the others are ignored.  ImmDt is
 * kept as the 32-bit value in the packet's byte order turned into a host
 * integer (verbs' imm_data is that value in network order: htonl it).
 */
struct eng_pkt_hdrs {
	struct eng_bth bth;
	struct eng_deth deth;
	struct eng_reth reth;
	struct eng_atmeth atmeth;
	struct eng_aeth aeth;
	uint64_t atmack_orig;	/* AtomicAckETH: the original remote value */
	uint32_t imm;		/* ImmDt */
	uint32_t ieth_rkey;	/* IETH: the R_Key to invalidate */
	uint32_t xrcsrq;	/* XRCETH: the XRC SRQ a request is for */
};

/* A parsed packet; the pointers point into the caller's buffer. */
struct eng_pkt {
	const uint8_t *hdr;	/* the BTH */
	size_t len;		/* BTH .. ICRC inclusive */
	uint32_t mask;		/* the opcode's ENG_HDR_* / ENG_OPF_* mask */
	uint32_t hdrlen;	/* BTH .. last extension header */
	struct eng_pkt_hdrs h;
	const uint8_t *payload;
	uint32_t paylen;	/* without the pad */
	uint32_t icrc;		/* as stored (little-endian on the wire) */
};

/* AETH syndromes (IBA 9.7.5.2.x, table 44). */
enum eng_aeth_type {
	ENG_AETH_ACK = 0,	/* low 5 bits: credit count (31: none/unlimited) */
	ENG_AETH_RNR_NAK = 1,	/* low 5 bits: the RNR timer code (9.7.5.2.8) */
	ENG_AETH_RESERVED = 2,
	ENG_AETH_NAK = 3,	/* low 5 bits: enum eng_nak_code */
};

enum eng_nak_code {
	ENG_NAK_PSN_SEQ = 0,
	ENG_NAK_INVALID_REQ = 1,
	ENG_NAK_REMOTE_ACCESS = 2,
	ENG_NAK_REMOTE_OP = 3,
	ENG_NAK_INVALID_RD_REQ = 4,
};

#define ENG_AETH_CREDITS_INVALID 31	/* "no credit count" (9.7.7.2.1) */

static inline uint8_t eng_aeth_syn_ack(uint8_t credits)
{
	return (uint8_t)(credits & 0x1f);
}

static inline uint8_t eng_aeth_syn_rnr(uint8_t timer)
{
	return (uint8_t)(0x20 | (timer & 0x1f));
}

static inline uint8_t eng_aeth_syn_nak(enum eng_nak_code code)
{
	return (uint8_t)(0x60 | ((unsigned)code & 0x1f));
}

static inline enum eng_aeth_type eng_aeth_type(uint8_t syndrome)
{
	return (enum eng_aeth_type)((syndrome >> 5) & 3);
}

static inline uint8_t eng_aeth_value(uint8_t syndrome)
{
	return (uint8_t)(syndrome & 0x1f);
}

/* Whether a syndrome is one the spec defines: bit 7 is reserved (0), type
 * 2 is reserved, and NAK codes above 4 are reserved. */
bool eng_aeth_syndrome_valid(uint8_t syndrome);

/* Big-endian byte accessors: the only way this layer touches the wire. */
static inline uint16_t eng_get16(const uint8_t *p)
{
	return (uint16_t)((unsigned)p[0] << 8 | p[1]);
}

static inline uint32_t eng_get24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static inline uint32_t eng_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t eng_get64(const uint8_t *p)
{
	return (uint64_t)eng_get32(p) << 32 | eng_get32(p + 4);
}

static inline void eng_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void eng_put24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

static inline void eng_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void eng_put64(uint8_t *p, uint64_t v)
{
	eng_put32(p, (uint32_t)(v >> 32));
	eng_put32(p + 4, (uint32_t)v);
}

/* One header each way; p must hold the header's length. */
void eng_bth_get(const uint8_t *p, struct eng_bth *out);
void eng_bth_put(uint8_t *p, const struct eng_bth *b);
void eng_reth_get(const uint8_t *p, struct eng_reth *out);
void eng_reth_put(uint8_t *p, const struct eng_reth *r);
void eng_atmeth_get(const uint8_t *p, struct eng_atmeth *out);
void eng_atmeth_put(uint8_t *p, const struct eng_atmeth *a);
void eng_aeth_get(const uint8_t *p, struct eng_aeth *out);
void eng_aeth_put(uint8_t *p, const struct eng_aeth *a);
void eng_deth_get(const uint8_t *p, struct eng_deth *out);
void eng_deth_put(uint8_t *p, const struct eng_deth *d);

/* In-place edits of a built packet's BTH (a retransmission gets a new
 * PSN or AckReq without rebuilding; the ICRC must then be recomputed). */
static inline void eng_bth_set_psn(uint8_t *bth, uint32_t psn, bool ackreq)
{
	bth[8] = ackreq ? 0x80 : 0;
	eng_put24(bth + 9, psn);
}

/* The pad a payload of paylen bytes needs (IBA 9.2: to 4 bytes). */
static inline uint8_t eng_wire_pad(uint32_t paylen)
{
	return (uint8_t)(-paylen & 3);
}

/*
 * Parses the packet at bth (len bytes: BTH .. ICRC).  Returns 0, or
 * -EMSGSIZE (shorter than the opcode's headers + pad + ICRC), -EPROTO
 * (TVer not 0, an opcode we do not know, a reserved AETH syndrome) or
 * -EINVAL (a pad on an opcode without payload or on a FIRST/MIDDLE, or
 * payload + pad not a multiple of 4).  The ICRC is not checked here
 * (eng_icrc_verify() needs the IP and UDP headers), nor anything that
 * needs the QP: that a FIRST or MIDDLE carries exactly the path MTU and
 * a LAST or ONLY at most that, the PSN, the P_Key, the sequence
 * (eng_wire_op_seq_ok()).
 */
int eng_wire_parse(const uint8_t *bth, size_t len, struct eng_pkt *out);

/*
 * Writes the BTH and the opcode's extension headers for a payload of
 * paylen bytes (the pad in the BTH is computed from it, h->bth.pad is
 * ignored) into out.  Returns the header length, or -EPROTO (unknown
 * opcode), -EINVAL (payload on an opcode without one) or -ENOSPC.  With
 * eng_wire_trailer(), lets the caller send the payload from its own
 * buffer (an iovec: header, payload, trailer).
 */
ssize_t eng_wire_put_hdrs(const struct eng_pkt_hdrs *h, uint32_t paylen,
			  uint8_t *out, size_t cap);

/* Writes the pad (zeros) and the ICRC (little-endian, A17.3.3) for a
 * payload of paylen bytes into out (at least 7 bytes); returns its length
 * (pad + 4). */
size_t eng_wire_trailer(uint32_t paylen, uint32_t icrc, uint8_t *out);

/*
 * Headers, payload, pad and a zero ICRC into out, contiguous.  Returns the
 * length (BTH .. ICRC) or -errno as eng_wire_put_hdrs().  The caller
 * stores the ICRC (eng_wire_icrc.h) once it has the IP/UDP headers.
 */
ssize_t eng_wire_build(const struct eng_pkt_hdrs *h, const void *payload,
		       uint32_t paylen, uint8_t *out, size_t cap);

#endif /* ENG_WIRE_HDR_H */
