/* SPDX-License-Identifier: MIT */
/*
 * The wire's transmit helper (eng_wire_xport.h): one packet's headers,
 * pad and ICRC around payload segments that stay where they are
 * (registered memory, mapped in the engine), queued on the device's
 * socket (eng_net_send), and the decision "wire or local".
 *
 * The ICRC covers the IP and UDP headers the kernel writes; they are
 * rebuilt here exactly (eng_wire_iphdr.h: DF, ID 0, the socket's bound
 * source address, source port 4791), so a receiver that sees the real
 * header (Linux rxe, a NIC) finds the ICRC right; a packet that leaves
 * as segment k of a UDP GSO send gets its ICRC adjusted for ID k there
 * (eng_net_tx.c).
 */
#include <errno.h>
#include <string.h>

#include "providers/soft/engine/eng.h"
#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_gid_own.h"
#include "providers/soft/engine/eng_stats.h"
#include "providers/soft/engine/eng_wire_icrc.h"
#include "providers/soft/engine/eng_wire_iphdr.h"
#include "providers/soft/engine/eng_wire_xport.h"

bool eng_wire_up(const struct eng_dev *d, const uint8_t dgid[16])
{
	uint8_t src[16];

	return eng_net_bound_addr(d, !eng_wire_gid_is_v4(dgid), src);
}

bool eng_wire_route(struct eng *e, const struct eng_dev *d,
		    const uint8_t dgid[16])
{
	if (!d || !eng_wire_up(d, dgid))
		return false;
	/* A device of this engine holds it: local (eng_gidmap.h, O(1)). */
	return eng_gidmap_get(&e->gids, dgid) == 0;
}

/* The IP and UDP headers of a packet of udp_payload bytes from d to dst;
 * 0 or -EHOSTUNREACH (no socket of that family). */
static int tx_headers(const struct eng_dev *d, const struct eng_wire_dst *dst,
		      uint32_t udp_payload, struct eng_wire_ip *ip)
{
	bool v6 = !eng_wire_gid_is_v4(dst->dgid);
	uint8_t src[16];

	if (!eng_net_bound_addr(d, v6, src))
		return -EHOSTUNREACH;
	return eng_wire_ip_build(ip, src, dst->dgid, ENG_NET_ROCE_PORT,
				 ENG_NET_ROCE_PORT, udp_payload, dst->tos,
				 dst->ttl, 0);
}

static int tx_fail(int err)
{
	eng_stat_inc(wire_tx_errors);
	return err;
}

int eng_wire_tx(struct eng *e, struct eng_dev *d,
		const struct eng_wire_dst *dst, const struct eng_pkt_hdrs *h,
		const struct eng_seg *pay, uint32_t npay, uint32_t paylen)
{
	static const uint8_t zeros[4];
	struct iovec iov[ENG_NET_IOV_MAX + 2];
	uint8_t hdr[ENG_NET_HDR_MAX], trl[ENG_NET_TRL_MAX];
	uint8_t pad = eng_wire_pad(paylen);
	struct eng_wire_ip ip;
	struct eng_net_tx t;
	uint64_t sum = 0;
	uint32_t icrc;
	ssize_t hl;
	int ret;

	if (npay > ENG_NET_IOV_MAX || paylen > eng_net_path_mtu(d))
		return tx_fail(-EMSGSIZE);
	hl = eng_wire_put_hdrs(h, paylen, hdr, sizeof(hdr));
	if (hl < 0)
		return tx_fail((int)hl);
	iov[0] = (struct iovec){ hdr, (size_t)hl };
	for (uint32_t i = 0; i < npay; i++) {
		iov[i + 1] = (struct iovec){ pay[i].ptr, pay[i].len };
		sum += pay[i].len;
	}
	if (sum != paylen)
		return tx_fail(-EINVAL);
	iov[npay + 1] = (struct iovec){ (void *)zeros, pad };
	ret = tx_headers(d, dst, (uint32_t)hl + paylen + pad + ENG_ICRC_LEN,
			 &ip);
	if (ret == 0)
		ret = eng_icrc_compute(ip.ip, ip.iplen, ip.udp, iov, npay + 2,
				       &icrc);
	if (ret < 0)
		return tx_fail(ret);
	t = (struct eng_net_tx){
		.ipv6 = ip.iplen == 40, .tos = dst->tos, .ttl = dst->ttl,
		.hdr = hdr, .hdr_len = (uint32_t)hl, .payload = iov + 1,
		.npayload = npay, .trl = trl,
		.trl_len = (uint32_t)eng_wire_trailer(paylen, icrc, trl),
		.icrc = true,
	};
	memcpy(t.dst.gid, dst->dgid, 16);
	ret = eng_net_send(e, d, &t);
	if (ret < 0)
		return tx_fail(ret);
	eng_stat_inc(wire_tx_pkts);
	return 0;
}

/* Until the RC/UC transport is linked (eng_wire_rc*.c): the WQEs of a
 * QP connected across the wire wait, and its packets are dropped. */
__attribute__((weak)) bool eng_wire_rc_req_run(struct eng *e,
					       struct eng_dp_qp *dq,
					       struct eng_dp_budget *b)
{
	eng_stat_inc(wire_tx_rc_unclaimed);
	return false;
}

__attribute__((weak)) void eng_wire_rc_timers(struct eng *e,
					      struct eng_dp_qp *dq)
{
}
