/* SPDX-License-Identifier: MIT */
/*
 * rdma_join_multicast on one node.  The RDMA CM's join gives the group's
 * UD addressing: for RoCEv2 the MGID is the IP group address itself
 * (IPv4 as ::ffff:a.b.c.d, which is how pv_cm_addr holds it), the QPN
 * 0xFFFFFF, the Q_Key the port space's (RDMA_UDP_QKEY for RDMA_PS_UDP),
 * as the kernel's cma_iboe_join_multicast does.  Membership itself is
 * the QP's attachment (ibv_attach_mcast, eng_mcast.c), which librdmacm
 * makes on the event, as rdma-core's does; so the join keeps no state
 * here and a leave needs no request.  Cross-node (an IGMP membership in
 * the pod's namespace, IP multicast on the wire) is for the wire.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "providers/soft/engine/eng_cm.h"
#include "providers/soft/engine/eng_mcast.h"
#include "providers/soft/engine/eng_obj.h"
#include "providers/soft/engine/eng_stats.h"

#define CM_UDP_QKEY	0x01234567u	/* rdma_cma.h's RDMA_UDP_QKEY */

int eng_op_cm_join(struct eng_req *r)
{
	const struct pv_ipc_cm_addr *in = r->in;
	struct eng_cm_id *id = eng_cm_id_get(r, in->id);
	struct eng_cmid_msg m;
	struct pv_cm_addr dst;
	uint8_t dgid[16];

	if (!id)
		return -EINVAL;
	if (id->ps != PV_CM_PS_UDP)
		return eng_cm_bad(r, -EINVAL, "join: not an RDMA_PS_UDP id");
	if (!id->dev_id)
		return eng_cm_bad(r, -ENODEV, "join: no device (resolve or "
				  "bind an address first)");
	if ((in->dst.family != AF_INET && in->dst.family != AF_INET6) ||
	    !eng_mcast_gid_is_group(in->dst.addr))
		return eng_cm_bad(r, -EINVAL, "join: not a multicast address");
	memset(&m, 0, sizeof(m));
	m.p.qp_num = ENG_MCAST_QPN;
	m.p.qkey = CM_UDP_QKEY;
	/* The event names the group where it names the peer elsewhere. */
	dst = id->dst;
	memcpy(dgid, id->dgid, 16);
	id->dst = in->dst;
	memcpy(id->dgid, in->dst.addr, 16);
	eng_cm_event(id, PV_CM_EV_MULTICAST_JOIN, 0, &m);
	id->dst = dst;
	memcpy(id->dgid, dgid, 16);
	eng_stat_inc(cm_mcast_joins);
	return 0;
}
