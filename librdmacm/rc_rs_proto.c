/* SPDX-License-Identifier: MIT */
/* The rsockets wire encodings and credit arithmetic (rc_rs_proto.h). */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "librdmacm/rc_rs_proto.h"

bool rc_rs_host_is_net(void)
{
	return __BYTE_ORDER == __BIG_ENDIAN;
}

uint8_t rc_rs_scale(uint32_t value)
{
	if (value <= 128)
		return (uint8_t)value;
	if (value >= (0x7Fu << 8))
		return 0xFF;
	return (uint8_t)(0x80 | (value >> 8));
}

uint32_t rc_rs_unscale(uint8_t scaled)
{
	if (scaled <= 128)
		return scaled;
	return (uint32_t)(scaled & 0x7F) << 8;
}

static struct rc_rs_sge sge_to_be(struct rc_rs_sge s)
{
	return (struct rc_rs_sge){ .addr = htobe64(s.addr),
				   .key = htobe32(s.key),
				   .length = htobe32(s.length) };
}

static struct rc_rs_sge sge_from_be(struct rc_rs_sge s)
{
	return (struct rc_rs_sge){ .addr = be64toh(s.addr),
				   .key = be32toh(s.key),
				   .length = be32toh(s.length) };
}

void rc_rs_conn_encode(const struct rc_rs_conn *c,
		       struct rc_rs_conn_wire *out)
{
	memset(out, 0, sizeof(*out));
	out->version = RC_RS_VERSION;
	out->flags = c->flags;
	out->credits = htobe16(c->credits);
	out->iomap_scaled = rc_rs_scale(c->iomap_size);
	out->target_sgl = sge_to_be(c->target_sgl);
	out->data_buf = sge_to_be(c->data_buf);
}

void rc_rs_ctrl_encode(enum rc_rs_ctrl ctrl, uint64_t sgl_addr,
		       uint32_t sgl_rkey, struct rc_rs_ctrl_wr *out)
{
	if (ctrl == RC_RS_CTRL_KEEPALIVE) {
		*out = (struct rc_rs_ctrl_wr){ .with_imm = false };
		return;
	}
	*out = (struct rc_rs_ctrl_wr){ .with_imm = true,
				       .imm = rc_rs_msg(RC_RS_OP_CTRL, ctrl),
				       .addr = sgl_addr, .rkey = sgl_rkey };
}

int rc_rs_conn_decode(const void *pdata, size_t len, struct rc_rs_conn *out)
{
	struct rc_rs_conn_wire w;

	if (!pdata || len < sizeof(w))
		return -EINVAL;
	memcpy(&w, pdata, sizeof(w));	/* one copy; only it is looked at */
	if (w.version != RC_RS_VERSION)
		return -EPROTO;
	out->flags = w.flags;
	out->credits = be16toh(w.credits);
	out->iomap_size = (uint16_t)rc_rs_unscale(w.iomap_scaled);
	out->target_sgl = sge_from_be(w.target_sgl);
	out->data_buf = sge_from_be(w.data_buf);
	if (!out->credits)
		return -EPROTO;
	if (!out->target_sgl.length || out->target_sgl.length > RC_RS_SGL_MAX)
		return -EPROTO;
	if (!out->data_buf.length ||
	    out->data_buf.length > RC_RS_MSG_DATA_MASK)
		return -EPROTO;
	return 0;
}

static struct rc_rs_sge sge_swap(struct rc_rs_sge s)
{
	return (struct rc_rs_sge){ .addr = __builtin_bswap64(s.addr),
				   .key = __builtin_bswap32(s.key),
				   .length = __builtin_bswap32(s.length) };
}

struct rc_rs_sge rc_rs_sge_from_peer(struct rc_rs_sge raw, bool swap)
{
	return swap ? sge_swap(raw) : raw;
}

struct rc_rs_sge rc_rs_sge_to_peer(struct rc_rs_sge sge, bool swap)
{
	return swap ? sge_swap(sge) : sge;
}

int rc_rs_check_credit(uint16_t limit, uint16_t sent, uint16_t peer_credits)
{
	/* Unsigned: a queue may be up to 0xFFFE deep, past int16_t. */
	uint16_t ahead = (uint16_t)(limit - sent);

	if (ahead > peer_credits)
		return -EPROTO;
	return 0;
}

int rc_rs_check_data(uint32_t len, uint32_t queued, uint32_t rbuf_size,
		     uint32_t avail)
{
	uint64_t granted;

	if (avail > rbuf_size)
		return -EPROTO;
	granted = (uint64_t)rbuf_size - avail;
	if ((uint64_t)queued + len > granted)
		return -EPROTO;
	return 0;
}

uint32_t rc_rs_xfer_size(size_t left, uint32_t *olen, uint32_t sbuf_avail,
			 uint32_t grant_left)
{
	uint32_t n;

	if (*olen < left) {
		n = *olen;
		if (*olen < RC_RS_MAX_TRANSFER)
			*olen <<= 1;
	} else {
		n = (uint32_t)left;
	}
	if (n > sbuf_avail)
		n = sbuf_avail;
	if (n > grant_left)
		n = grant_left;
	return n;
}

struct rc_rs_iomap rc_rs_iomap_swap(struct rc_rs_iomap m, bool swap)
{
	if (swap) {
		m.offset = __builtin_bswap64(m.offset);
		m.sge = sge_swap(m.sge);
	}
	return m;
}

int rc_rs_iomap_find(const struct rc_rs_iomap *tab, uint32_t n, bool swap,
		     uint64_t offset, uint64_t *addr, uint32_t *rkey,
		     uint64_t *room)
{
	for (uint32_t i = 0; i < n; i++) {
		struct rc_rs_iomap m = rc_rs_iomap_swap(tab[i], swap);

		if (!m.sge.length || offset < m.offset ||
		    offset - m.offset >= m.sge.length)
			continue;
		*addr = m.sge.addr + (offset - m.offset);
		*rkey = m.sge.key;
		*room = m.sge.length - (offset - m.offset);
		return 0;
	}
	return -EINVAL;
}
