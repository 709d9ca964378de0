/* SPDX-License-Identifier: MIT */
/* RDMA CM service IDs and private-data header (see eng_cm_pdata.h). */
#include <errno.h>
#include <string.h>

#include "providers/soft/engine/eng_cm_pdata.h"

uint64_t eng_cm_service_id(uint16_t ps, uint16_t port)
{
	return ((uint64_t)ps << 16) | port;
}

int eng_cm_service_id_parse(uint64_t service_id, uint16_t *ret_ps,
			    uint16_t *ret_port)
{
	uint16_t ps = (uint16_t)(service_id >> 16);

	if (service_id >> 32)
		return -EINVAL;
	switch (ps) {
	case ENG_CM_PS_IPOIB:
	case ENG_CM_PS_IB:
	case ENG_CM_PS_TCP:
	case ENG_CM_PS_UDP:
		break;
	default:
		return -EINVAL;
	}
	*ret_ps = ps;
	*ret_port = (uint16_t)service_id;
	return 0;
}

static size_t field_size(uint16_t attr_id)
{
	switch (attr_id) {
	case ENG_CM_ATTR_REQ: return ENG_CM_REQ_PDATA_SIZE;
	case ENG_CM_ATTR_MRA: return ENG_CM_MRA_PDATA_SIZE;
	case ENG_CM_ATTR_REJ: return ENG_CM_REJ_PDATA_SIZE;
	case ENG_CM_ATTR_REP: return ENG_CM_REP_PDATA_SIZE;
	case ENG_CM_ATTR_RTU: return ENG_CM_RTU_PDATA_SIZE;
	case ENG_CM_ATTR_DREQ: return ENG_CM_DREQ_PDATA_SIZE;
	case ENG_CM_ATTR_DREP: return ENG_CM_DREP_PDATA_SIZE;
	case ENG_CM_ATTR_SIDR_REQ: return ENG_CM_SIDR_REQ_PDATA_SIZE;
	case ENG_CM_ATTR_SIDR_REP: return ENG_CM_SIDR_REP_PDATA_SIZE;
	default: return 0;
	}
}

size_t eng_cm_pdata_max(uint16_t attr_id, int ip_hdr)
{
	size_t n = field_size(attr_id);

	/* Only the messages that open a connection carry the header. */
	if (ip_hdr && (attr_id == ENG_CM_ATTR_REQ || attr_id == ENG_CM_ATTR_SIDR_REQ))
		n -= ENG_CM_IP_HDR_SIZE;
	return n;
}

static void put_addr(uint8_t *dst, const uint8_t *addr, uint8_t ip_version)
{
	memset(dst, 0, 16);
	if (ip_version == 4)
		memcpy(dst + 12, addr + 12, 4);
	else
		memcpy(dst, addr, 16);
}

int eng_cm_pdata_encode(uint16_t attr_id, const struct eng_cm_ip_hdr *hdr,
			const void *user, size_t user_len, uint8_t *out,
			size_t out_size, uint8_t *ret_len)
{
	size_t field = field_size(attr_id);

	if (attr_id != ENG_CM_ATTR_REQ && attr_id != ENG_CM_ATTR_SIDR_REQ)
		return -EINVAL;
	if (hdr->ip_version != 4 && hdr->ip_version != 6)
		return -EINVAL;
	if (user_len > eng_cm_pdata_max(attr_id, 1) || out_size < field)
		return -EINVAL;
	memset(out, 0, field);
	out[0] = ENG_CM_IP_HDR_VERSION;
	out[1] = (uint8_t)(hdr->ip_version << 4);
	out[2] = (uint8_t)(hdr->src_port >> 8);
	out[3] = (uint8_t)hdr->src_port;
	put_addr(out + 4, hdr->src_addr, hdr->ip_version);
	put_addr(out + 20, hdr->dst_addr, hdr->ip_version);
	if (user_len)
		memcpy(out + ENG_CM_IP_HDR_SIZE, user, user_len);
	*ret_len = (uint8_t)(ENG_CM_IP_HDR_SIZE + user_len);
	return 0;
}

int eng_cm_pdata_decode(const uint8_t *pd, size_t len, struct eng_cm_ip_hdr *out)
{
	memset(out, 0, sizeof(*out));
	if (len < ENG_CM_IP_HDR_SIZE)
		return -EMSGSIZE;
	if (pd[0] != ENG_CM_IP_HDR_VERSION)
		return -EPROTO;
	/* The low nibble is reserved (A11.6): ignored. */
	out->ip_version = pd[1] >> 4;
	if (out->ip_version != 4 && out->ip_version != 6)
		return -EPROTO;
	out->src_port = (uint16_t)(pd[2] << 8 | pd[3]);
	put_addr(out->src_addr, pd + 4, out->ip_version);
	put_addr(out->dst_addr, pd + 20, out->ip_version);
	return 0;
}
