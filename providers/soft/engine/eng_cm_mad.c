/* SPDX-License-Identifier: MIT */
/*
 * IB CM MAD codec (see eng_cm_mad.h).  Each message body is described by
 * a table of fields at the spec's Byte[Bit] positions (IBA vol 1 §12.6:
 * bit 0 is the most significant bit of the byte; a field runs towards
 * less significant bits and into the following bytes), so the tables
 * read like the spec's tables 106-118 and one pair of loops does every
 * message.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "providers/soft/engine/eng_cm_mad.h"

enum cm_kind {
	K_INT,		/* unsigned integer of width bits */
	K_BYTES,	/* width bytes copied as they are (GIDs) */
	K_VAR,		/* width bytes, valid length in the uint8_t at lenoff,
			 * itself a K_INT field of the table */
	K_PDATA,	/* private data: width bytes, length at lenoff is the
			 * sender's on encode and the full field on decode */
};

#define F_ALT	1u	/* REQ alternate path: encoded only if has_alternate */

struct cm_field {
	uint8_t  kind;
	uint8_t  byte;		/* offset in the MAD data (after the header) */
	uint8_t  bit;		/* first bit, 0 = MSB of byte */
	uint8_t  width;		/* bits (K_INT) or bytes */
	uint8_t  csize;		/* sizeof the struct member (K_INT) */
	uint8_t  flags;
	uint16_t coff;		/* offsetof the struct member */
	uint16_t lenoff;	/* K_VAR/K_PDATA: offsetof the uint8_t length */
};

#define MSZ(T, m)	sizeof(((struct T *)0)->m)
#define FI(T, m, by, bi, w) \
	{ K_INT, by, bi, w, MSZ(T, m), 0, offsetof(struct T, m), 0 }
#define FA(T, m, by, bi, w) \
	{ K_INT, by, bi, w, MSZ(T, m), F_ALT, offsetof(struct T, m), 0 }
#define FB(T, m, by, n, fl) \
	{ K_BYTES, by, 0, n, 0, fl, offsetof(struct T, m), 0 }
#define FV(T, m, by, n, l) \
	{ K_VAR, by, 0, n, 0, 0, offsetof(struct T, m), offsetof(struct T, l) }
#define FP(T, by, n) \
	{ K_PDATA, by, 0, n, 0, 0, offsetof(struct T, private_data), \
	  offsetof(struct T, private_data_len) }

/* A REQ path at base (52 primary, 96 alternate): IBA table 106. */
#define REQ_PATH(P, b, FX, fl) \
	FX(eng_cm_req, P.local_lid, b + 0, 0, 16), \
	FX(eng_cm_req, P.remote_lid, b + 2, 0, 16), \
	FB(eng_cm_req, P.local_gid, b + 4, 16, fl), \
	FB(eng_cm_req, P.remote_gid, b + 20, 16, fl), \
	FX(eng_cm_req, P.flow_label, b + 36, 0, 20), \
	FX(eng_cm_req, P.packet_rate, b + 39, 2, 6), \
	FX(eng_cm_req, P.traffic_class, b + 40, 0, 8), \
	FX(eng_cm_req, P.hop_limit, b + 41, 0, 8), \
	FX(eng_cm_req, P.sl, b + 42, 0, 4), \
	FX(eng_cm_req, P.subnet_local, b + 42, 4, 1), \
	FX(eng_cm_req, P.local_ack_timeout, b + 43, 0, 5)

static const struct cm_field req_fields[] = {
	FI(eng_cm_req, local_comm_id, 0, 0, 32),
	FI(eng_cm_req, service_id, 8, 0, 64),
	FI(eng_cm_req, local_ca_guid, 16, 0, 64),
	FI(eng_cm_req, local_qkey, 28, 0, 32),
	FI(eng_cm_req, local_qpn, 32, 0, 24),
	FI(eng_cm_req, responder_resources, 35, 0, 8),
	FI(eng_cm_req, local_eecn, 36, 0, 24),
	FI(eng_cm_req, initiator_depth, 39, 0, 8),
	FI(eng_cm_req, remote_eecn, 40, 0, 24),
	FI(eng_cm_req, remote_cm_response_timeout, 43, 0, 5),
	FI(eng_cm_req, transport_type, 43, 5, 2),
	FI(eng_cm_req, e2e_flow_control, 43, 7, 1),
	FI(eng_cm_req, starting_psn, 44, 0, 24),
	FI(eng_cm_req, local_cm_response_timeout, 47, 0, 5),
	FI(eng_cm_req, retry_count, 47, 5, 3),
	FI(eng_cm_req, pkey, 48, 0, 16),
	FI(eng_cm_req, path_mtu, 50, 0, 4),
	FI(eng_cm_req, rdc_exists, 50, 4, 1),
	FI(eng_cm_req, rnr_retry_count, 50, 5, 3),
	FI(eng_cm_req, max_cm_retries, 51, 0, 4),
	FI(eng_cm_req, srq, 51, 4, 1),
	FI(eng_cm_req, ext_transport_type, 51, 5, 3),
	REQ_PATH(primary, 52, FI, 0),
	REQ_PATH(alternate, 96, FA, F_ALT),
	FP(eng_cm_req, 140, ENG_CM_REQ_PDATA_SIZE),
};

/* IBA table 107. */
static const struct cm_field mra_fields[] = {
	FI(eng_cm_mra, local_comm_id, 0, 0, 32),
	FI(eng_cm_mra, remote_comm_id, 4, 0, 32),
	FI(eng_cm_mra, msg_mraed, 8, 0, 2),
	FI(eng_cm_mra, service_timeout, 9, 0, 5),
	FP(eng_cm_mra, 10, ENG_CM_MRA_PDATA_SIZE),
};

/* IBA table 108. */
static const struct cm_field rej_fields[] = {
	FI(eng_cm_rej, local_comm_id, 0, 0, 32),
	FI(eng_cm_rej, remote_comm_id, 4, 0, 32),
	FI(eng_cm_rej, msg_rejected, 8, 0, 2),
	FI(eng_cm_rej, ari_len, 9, 0, 7),
	FI(eng_cm_rej, reason, 10, 0, 16),
	FV(eng_cm_rej, ari, 12, ENG_CM_REJ_ARI_SIZE, ari_len),
	FP(eng_cm_rej, 84, ENG_CM_REJ_PDATA_SIZE),
};

/* IBA table 110. */
static const struct cm_field rep_fields[] = {
	FI(eng_cm_rep, local_comm_id, 0, 0, 32),
	FI(eng_cm_rep, remote_comm_id, 4, 0, 32),
	FI(eng_cm_rep, local_qkey, 8, 0, 32),
	FI(eng_cm_rep, local_qpn, 12, 0, 24),
	FI(eng_cm_rep, local_eecn, 16, 0, 24),
	FI(eng_cm_rep, starting_psn, 20, 0, 24),
	FI(eng_cm_rep, responder_resources, 24, 0, 8),
	FI(eng_cm_rep, initiator_depth, 25, 0, 8),
	FI(eng_cm_rep, target_ack_delay, 26, 0, 5),
	FI(eng_cm_rep, failover_accepted, 26, 5, 2),
	FI(eng_cm_rep, e2e_flow_control, 26, 7, 1),
	FI(eng_cm_rep, rnr_retry_count, 27, 0, 3),
	FI(eng_cm_rep, srq, 27, 3, 1),
	FI(eng_cm_rep, local_ca_guid, 28, 0, 64),
	FP(eng_cm_rep, 36, ENG_CM_REP_PDATA_SIZE),
};

/* IBA table 111. */
static const struct cm_field rtu_fields[] = {
	FI(eng_cm_rtu, local_comm_id, 0, 0, 32),
	FI(eng_cm_rtu, remote_comm_id, 4, 0, 32),
	FP(eng_cm_rtu, 8, ENG_CM_RTU_PDATA_SIZE),
};

/* IBA table 112 (DREQ) and 113 (DREP). */
static const struct cm_field dreq_fields[] = {
	FI(eng_cm_dreq, local_comm_id, 0, 0, 32),
	FI(eng_cm_dreq, remote_comm_id, 4, 0, 32),
	FI(eng_cm_dreq, remote_qpn, 8, 0, 24),
	FP(eng_cm_dreq, 12, ENG_CM_DREQ_PDATA_SIZE),
};

static const struct cm_field drep_fields[] = {
	FI(eng_cm_drep, local_comm_id, 0, 0, 32),
	FI(eng_cm_drep, remote_comm_id, 4, 0, 32),
	FP(eng_cm_drep, 8, ENG_CM_DREP_PDATA_SIZE),
};

/* IBA table 118 (SIDR_REQ) and 119 (SIDR_REP). */
static const struct cm_field sidr_req_fields[] = {
	FI(eng_cm_sidr_req, request_id, 0, 0, 32),
	FI(eng_cm_sidr_req, pkey, 4, 0, 16),
	FI(eng_cm_sidr_req, service_id, 8, 0, 64),
	FP(eng_cm_sidr_req, 16, ENG_CM_SIDR_REQ_PDATA_SIZE),
};

static const struct cm_field sidr_rep_fields[] = {
	FI(eng_cm_sidr_rep, request_id, 0, 0, 32),
	FI(eng_cm_sidr_rep, status, 4, 0, 8),
	FI(eng_cm_sidr_rep, info_len, 5, 0, 8),
	FI(eng_cm_sidr_rep, qpn, 8, 0, 24),
	FI(eng_cm_sidr_rep, service_id, 12, 0, 64),
	FI(eng_cm_sidr_rep, qkey, 20, 0, 32),
	FV(eng_cm_sidr_rep, info, 24, ENG_CM_SIDR_REP_INFO_SIZE, info_len),
	FP(eng_cm_sidr_rep, 96, ENG_CM_SIDR_REP_PDATA_SIZE),
};

/* LAP (IBA vol 1 ch. 12's Load Alternate Path; the kernel's
 * cm_lap_msg is the same layout): the alternate path's fields are laid out
 * unlike a REQ's (traffic class before the hop limit, packet rate after
 * it). */
static const struct cm_field lap_fields[] = {
	FI(eng_cm_lap, local_comm_id, 0, 0, 32),
	FI(eng_cm_lap, remote_comm_id, 4, 0, 32),
	FI(eng_cm_lap, remote_qpn, 12, 0, 24),
	FI(eng_cm_lap, remote_cm_response_timeout, 15, 0, 5),
	FI(eng_cm_lap, alt_local_lid, 20, 0, 16),
	FI(eng_cm_lap, alt_remote_lid, 22, 0, 16),
	FB(eng_cm_lap, alt_local_gid, 24, 16, 0),
	FB(eng_cm_lap, alt_remote_gid, 40, 16, 0),
	FI(eng_cm_lap, alt_flow_label, 56, 0, 20),
	FI(eng_cm_lap, alt_traffic_class, 59, 0, 8),
	FI(eng_cm_lap, alt_hop_limit, 60, 0, 8),
	FI(eng_cm_lap, alt_packet_rate, 61, 2, 6),
	FI(eng_cm_lap, alt_sl, 62, 0, 4),
	FI(eng_cm_lap, alt_subnet_local, 62, 4, 1),
	FI(eng_cm_lap, alt_local_ack_timeout, 63, 0, 5),
	FP(eng_cm_lap, 64, ENG_CM_LAP_PDATA_SIZE),
};

/* APR (Alternate Path Response; the kernel's cm_apr_msg). */
static const struct cm_field apr_fields[] = {
	FI(eng_cm_apr, local_comm_id, 0, 0, 32),
	FI(eng_cm_apr, remote_comm_id, 4, 0, 32),
	FI(eng_cm_apr, info_len, 8, 0, 8),
	FI(eng_cm_apr, ap_status, 9, 0, 8),
	FV(eng_cm_apr, info, 12, ENG_CM_APR_INFO_SIZE, info_len),
	FP(eng_cm_apr, 84, ENG_CM_APR_PDATA_SIZE),
};

/* IBA table 132 (ClassPortInfo). */
static const struct cm_field cpi_fields[] = {
	FI(eng_cm_class_port_info, base_version, 0, 0, 8),
	FI(eng_cm_class_port_info, class_version, 1, 0, 8),
	FI(eng_cm_class_port_info, capability_mask, 2, 0, 16),
	FI(eng_cm_class_port_info, capability_mask2, 4, 0, 27),
	FI(eng_cm_class_port_info, resp_time_value, 7, 3, 5),
	FB(eng_cm_class_port_info, redirect_gid, 8, 16, 0),
	FI(eng_cm_class_port_info, redirect_tc, 24, 0, 8),
	FI(eng_cm_class_port_info, redirect_sl, 25, 0, 4),
	FI(eng_cm_class_port_info, redirect_fl, 25, 4, 20),
	FI(eng_cm_class_port_info, redirect_lid, 28, 0, 16),
	FI(eng_cm_class_port_info, redirect_pkey, 30, 0, 16),
	FI(eng_cm_class_port_info, redirect_qp, 33, 0, 24),
	FI(eng_cm_class_port_info, redirect_qkey, 36, 0, 32),
	FB(eng_cm_class_port_info, trap_gid, 40, 16, 0),
	FI(eng_cm_class_port_info, trap_tc, 56, 0, 8),
	FI(eng_cm_class_port_info, trap_sl, 57, 0, 4),
	FI(eng_cm_class_port_info, trap_fl, 57, 4, 20),
	FI(eng_cm_class_port_info, trap_lid, 60, 0, 16),
	FI(eng_cm_class_port_info, trap_pkey, 62, 0, 16),
	FI(eng_cm_class_port_info, trap_hl, 64, 0, 8),
	FI(eng_cm_class_port_info, trap_qp, 65, 0, 24),
	FI(eng_cm_class_port_info, trap_qkey, 68, 0, 32),
};

struct cm_desc {
	uint16_t attr_id;
	uint8_t  method;	/* the only method a request may carry */
	uint8_t  n;
	const struct cm_field *f;
	const char *name;
};

#define D(a, m, t, nm) { a, m, sizeof(t) / sizeof(t[0]), t, nm }
static const struct cm_desc descs[] = {
	D(ENG_CM_ATTR_REQ, ENG_CM_METHOD_SEND, req_fields, "REQ"),
	D(ENG_CM_ATTR_MRA, ENG_CM_METHOD_SEND, mra_fields, "MRA"),
	D(ENG_CM_ATTR_REJ, ENG_CM_METHOD_SEND, rej_fields, "REJ"),
	D(ENG_CM_ATTR_REP, ENG_CM_METHOD_SEND, rep_fields, "REP"),
	D(ENG_CM_ATTR_RTU, ENG_CM_METHOD_SEND, rtu_fields, "RTU"),
	D(ENG_CM_ATTR_DREQ, ENG_CM_METHOD_SEND, dreq_fields, "DREQ"),
	D(ENG_CM_ATTR_DREP, ENG_CM_METHOD_SEND, drep_fields, "DREP"),
	D(ENG_CM_ATTR_SIDR_REQ, ENG_CM_METHOD_SEND, sidr_req_fields, "SIDR_REQ"),
	D(ENG_CM_ATTR_SIDR_REP, ENG_CM_METHOD_SEND, sidr_rep_fields, "SIDR_REP"),
	D(ENG_CM_ATTR_LAP, ENG_CM_METHOD_SEND, lap_fields, "LAP"),
	D(ENG_CM_ATTR_APR, ENG_CM_METHOD_SEND, apr_fields, "APR"),
	D(ENG_CM_ATTR_CLASS_PORT_INFO, ENG_CM_METHOD_GET_RESP, cpi_fields,
	  "ClassPortInfo"),
};

static const struct cm_desc *desc_find(uint16_t attr_id)
{
	for (size_t i = 0; i < sizeof(descs) / sizeof(descs[0]); i++)
		if (descs[i].attr_id == attr_id)
			return &descs[i];
	return NULL;
}

const char *eng_cm_attr_name(uint16_t attr_id)
{
	const struct cm_desc *d = desc_find(attr_id);

	return d ? d->name : "?";
}

/* Big-endian bit stream access: bit 0 is the MSB of p[0].  Callers'
 * positions come from the constant tables above, all inside the 232
 * data bytes (the unit test checks every table). */
static uint64_t bits_get(const uint8_t *p, unsigned pos, unsigned width)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < width; i++, pos++)
		v = (v << 1) | ((p[pos >> 3] >> (7 - (pos & 7))) & 1u);
	return v;
}

static void bits_put(uint8_t *p, unsigned pos, unsigned width, uint64_t v)
{
	for (unsigned i = width; i-- > 0; pos++) {
		uint8_t m = (uint8_t)(1u << (7 - (pos & 7)));

		if ((v >> i) & 1u)
			p[pos >> 3] |= m;
		else
			p[pos >> 3] &= (uint8_t)~m;
	}
}

static uint64_t member_get(const void *s, const struct cm_field *f)
{
	const uint8_t *m = (const uint8_t *)s + f->coff;
	uint8_t v8;
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	switch (f->csize) {
	case 1: memcpy(&v8, m, 1); return v8;
	case 2: memcpy(&v16, m, 2); return v16;
	case 4: memcpy(&v32, m, 4); return v32;
	default: memcpy(&v64, m, 8); return v64;
	}
}

static void member_put(void *s, const struct cm_field *f, uint64_t v)
{
	uint8_t *m = (uint8_t *)s + f->coff;
	uint8_t v8 = (uint8_t)v;
	uint16_t v16 = (uint16_t)v;
	uint32_t v32 = (uint32_t)v;

	switch (f->csize) {
	case 1: memcpy(m, &v8, 1); break;
	case 2: memcpy(m, &v16, 2); break;
	case 4: memcpy(m, &v32, 4); break;
	default: memcpy(m, &v, 8); break;
	}
}

static int body_encode(const struct cm_desc *d, const void *s, int alt,
		       uint8_t *data)
{
	for (unsigned i = 0; i < d->n; i++) {
		const struct cm_field *f = &d->f[i];
		uint8_t len;

		if ((f->flags & F_ALT) && !alt)
			continue;
		switch (f->kind) {
		case K_INT: {
			uint64_t v = member_get(s, f);

			if (f->width < 64 && (v >> f->width))
				return -EINVAL;
			bits_put(data, f->byte * 8u + f->bit, f->width, v);
			break;
		}
		case K_BYTES:
			memcpy(data + f->byte, (const uint8_t *)s + f->coff, f->width);
			break;
		default:
			memcpy(&len, (const uint8_t *)s + f->lenoff, 1);
			if (len > f->width)
				return -EINVAL;
			memcpy(data + f->byte, (const uint8_t *)s + f->coff, len);
			break;
		}
	}
	return 0;
}

static int body_decode(const struct cm_desc *d, const uint8_t *data, void *s)
{
	for (unsigned i = 0; i < d->n; i++) {
		const struct cm_field *f = &d->f[i];
		uint8_t len;

		switch (f->kind) {
		case K_INT:
			member_put(s, f, bits_get(data, f->byte * 8u + f->bit, f->width));
			break;
		case K_BYTES:
			memcpy((uint8_t *)s + f->coff, data + f->byte, f->width);
			break;
		case K_VAR:
			/* The length field precedes its array in every table. */
			memcpy(&len, (const uint8_t *)s + f->lenoff, 1);
			if (len > f->width)
				return -EINVAL;
			/* Only the valid bytes: what we decode we encode again. */
			memcpy((uint8_t *)s + f->coff, data + f->byte, len);
			break;
		default:
			len = f->width;
			memcpy((uint8_t *)s + f->lenoff, &len, 1);
			memcpy((uint8_t *)s + f->coff, data + f->byte, f->width);
			break;
		}
	}
	return 0;
}

static void hdr_encode(const struct eng_cm_mad_hdr *h, uint8_t *p)
{
	p[0] = ENG_CM_BASE_VERSION;
	p[1] = ENG_CM_MGMT_CLASS;
	p[2] = ENG_CM_CLASS_VERSION;
	p[3] = h->method;
	bits_put(p, 4 * 8, 16, h->status);
	bits_put(p, 6 * 8, 16, h->class_specific);
	bits_put(p, 8 * 8, 64, h->tid);
	bits_put(p, 16 * 8, 16, h->attr_id);
	bits_put(p, 20 * 8, 32, h->attr_mod);
}

static void hdr_decode(const uint8_t *p, struct eng_cm_mad_hdr *h)
{
	h->base_version = p[0];
	h->mgmt_class = p[1];
	h->class_version = p[2];
	h->method = p[3];
	h->status = (uint16_t)bits_get(p, 4 * 8, 16);
	h->class_specific = (uint16_t)bits_get(p, 6 * 8, 16);
	h->tid = bits_get(p, 8 * 8, 64);
	h->attr_id = (uint16_t)bits_get(p, 16 * 8, 16);
	h->attr_mod = (uint32_t)bits_get(p, 20 * 8, 32);
}

int eng_cm_mad_encode(const struct eng_cm_msg *msg, uint8_t *out, size_t out_len)
{
	const struct cm_desc *d = desc_find(msg->hdr.attr_id);
	int alt = 0;

	if (out_len < ENG_CM_MAD_SIZE)
		return -ENOSPC;
	if (!d)
		return -EOPNOTSUPP;
	memset(out, 0, ENG_CM_MAD_SIZE);
	hdr_encode(&msg->hdr, out);
	if (d->attr_id == ENG_CM_ATTR_REQ)
		alt = msg->u.req.has_alternate != 0;
	/* A Get and an error GetResp of ClassPortInfo carry no body. */
	if (d->attr_id == ENG_CM_ATTR_CLASS_PORT_INFO &&
	    (msg->hdr.method != ENG_CM_METHOD_GET_RESP || msg->hdr.status))
		return 0;
	return body_encode(d, &msg->u, alt, out + ENG_CM_MAD_HDR_SIZE);
}

static int nonzero(const uint8_t *p, size_t n)
{
	uint8_t acc = 0;

	for (size_t i = 0; i < n; i++)
		acc |= p[i];
	return acc != 0;
}

int eng_cm_mad_decode(const uint8_t *buf, size_t len, struct eng_cm_msg *out)
{
	const struct cm_desc *d;
	const uint8_t *data = buf + ENG_CM_MAD_HDR_SIZE;
	int ret;

	memset(out, 0, sizeof(*out));
	if (len != ENG_CM_MAD_SIZE)
		return -EMSGSIZE;
	hdr_decode(buf, &out->hdr);
	if (out->hdr.base_version != ENG_CM_BASE_VERSION ||
	    out->hdr.mgmt_class != ENG_CM_MGMT_CLASS)
		return -EPROTO;
	if (out->hdr.class_version != ENG_CM_CLASS_VERSION)
		return -EPROTONOSUPPORT;
	d = desc_find(out->hdr.attr_id);
	if (!d)
		return -EOPNOTSUPP;
	if (d->attr_id == ENG_CM_ATTR_CLASS_PORT_INFO) {
		/* A Get has no body to read; a GetResp answers ours. */
		if (out->hdr.method == ENG_CM_METHOD_GET)
			return 0;
		if (out->hdr.method != ENG_CM_METHOD_GET_RESP)
			return -EOPNOTSUPP;
		if (out->hdr.status)
			return 0;
	} else if (out->hdr.method != d->method) {
		return -EOPNOTSUPP;
	}
	ret = body_decode(d, data, &out->u);
	/* From the decoded fields, not the bytes: reserved bits set by the
	 * peer do not make a path (what we decode we encode again). */
	if (ret == 0 && d->attr_id == ENG_CM_ATTR_REQ)
		out->u.req.has_alternate = nonzero((const uint8_t *)&out->u.req.alternate,
						   sizeof(out->u.req.alternate));
	return ret;
}

void eng_cm_mad_class_port_info(uint8_t resp_time_value,
				struct eng_cm_class_port_info *cpi)
{
	memset(cpi, 0, sizeof(*cpi));
	cpi->base_version = ENG_CM_BASE_VERSION;
	cpi->class_version = ENG_CM_CLASS_VERSION;
	cpi->resp_time_value = resp_time_value & 0x1fu;
}

void eng_cm_mad_get_resp(const struct eng_cm_mad_hdr *get,
			 const struct eng_cm_class_port_info *cpi,
			 int bad_version, struct eng_cm_msg *resp)
{
	memset(resp, 0, sizeof(*resp));
	resp->hdr = *get;
	resp->hdr.base_version = ENG_CM_BASE_VERSION;
	resp->hdr.mgmt_class = ENG_CM_MGMT_CLASS;
	resp->hdr.class_version = ENG_CM_CLASS_VERSION;
	resp->hdr.method = ENG_CM_METHOD_GET_RESP;
	resp->hdr.status = ENG_CM_MAD_STATUS_OK;
	if (bad_version)
		resp->hdr.status = ENG_CM_MAD_STATUS_BAD_VERSION;
	else if (get->method != ENG_CM_METHOD_GET)
		resp->hdr.status = ENG_CM_MAD_STATUS_UNSUP_METHOD;
	else if (get->attr_id != ENG_CM_ATTR_CLASS_PORT_INFO)
		resp->hdr.status = ENG_CM_MAD_STATUS_UNSUP_METHOD_ATTR;
	else
		resp->u.cpi = *cpi;
}

int eng_cm_req_check(const struct eng_cm_req *req)
{
	/* We serve RC, UC and XRC connections (UD goes through SIDR). */
	bool xrc = req->transport_type == ENG_CM_TRANSPORT_EXT;

	if (req->transport_type != ENG_CM_TRANSPORT_RC &&
	    req->transport_type != ENG_CM_TRANSPORT_UC && !xrc)
		return ENG_CM_REJ_INVALID_TRANSPORT_TYPE;
	if (xrc && req->ext_transport_type != ENG_CM_EXT_TRANSPORT_XRC)
		return ENG_CM_REJ_INVALID_TRANSPORT_TYPE;
	if (req->path_mtu < 1 || req->path_mtu > 5)
		return ENG_CM_REJ_INVALID_MTU;
	/* RoCEv2 is routed: the path must carry a GRH hop limit. */
	if (req->primary.hop_limit == 0)
		return ENG_CM_REJ_INVALID_HOP_LIMIT;
	/* QPN 0 and 1 are the SMI/GSI QPs, never a connection's. */
	if (req->local_qpn <= 1 || req->rdc_exists ||
	    (!xrc && req->ext_transport_type))
		return ENG_CM_REJ_UNSUPPORTED;
	return 0;
}
