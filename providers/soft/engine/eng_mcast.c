/* SPDX-License-Identifier: MIT */
/* Multicast groups on one engine (eng_mcast.h). */
#include "providers/soft/engine/eng_mcast.h"

#include <errno.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_dp_reply.h"
#include "providers/soft/engine/eng_dp_rguard.h"
#include "providers/soft/engine/eng_net.h"
#include "providers/soft/engine/eng_obj.h"
#include "providers/soft/engine/eng_port.h"
#include "providers/soft/engine/eng_stats.h"
#include "providers/soft/engine/eng_wire_xport.h"
#include "providers/soft/engine/eng_wr.h"

struct att {
	struct eng_qp *qp;
	uint8_t gid[16];
};

/* The engine has one loop thread; the table is that thread's. */
static struct att table[ENG_MCAST_MAX];
static uint32_t nused;

bool eng_mcast_gid_is_group(const uint8_t gid[16])
{
	static const uint8_t v4map[12] = { [10] = 0xff, [11] = 0xff };

	if (gid[0] == 0xff)
		return true;
	return !memcmp(gid, v4map, 12) && (gid[12] & 0xf0) == 0xe0;
}

static uint32_t count(const struct eng_qp *qp, const struct eng_dev *dev,
		      const uint8_t *gid, int32_t *found)
{
	uint32_t n = 0;

	*found = -1;
	for (uint32_t i = 0; i < nused; i++) {
		const struct att *a = &table[i];

		if ((qp && a->qp != qp) ||
		    (dev && a->qp->o.conn->dev != dev) ||
		    (gid && memcmp(a->gid, gid, 16)))
			continue;
		if (qp && gid)
			*found = (int32_t)i;
		n++;
	}
	return n;
}

int eng_mcast_attach(struct eng *e, struct eng_qp *qp, const uint8_t gid[16],
		     const char **why)
{
	uint32_t dev_in_group;

	struct eng_dev *dev = qp->o.conn->dev;
	int32_t at;

	count(qp, NULL, gid, &at);
	if (at >= 0)
		return 0;		/* attached already: as rxe, no error */
	*why = "engine's table full";
	if (nused >= ENG_MCAST_MAX)
		return -ENOMEM;
	*why = "device's share of the group full";
	dev_in_group = count(NULL, dev, gid, &at);
	if (dev_in_group >= ENG_MCAST_PER_GROUP)
		return -ENOMEM;
	*why = "QP's groups full";
	if (count(qp, NULL, NULL, &at) >= ENG_MCAST_PER_QP)
		return -ENOMEM;
	*why = "device's attachments full";
	if (count(NULL, dev, NULL, &at) >= ENG_MCAST_PER_DEV)
		return -ENOMEM;
	/* The device's first member: the group on the wire too.  Only its
	 * rate limit fails the attach; any other failure there leaves this
	 * node's delivery working (eng_net_mcast.c). */
	*why = "device's wire joins over mcast_join_rate";
	if (dev_in_group == 0 && dev &&
	    eng_net_mcast_join(e, dev, gid) == -EAGAIN)
		return -EAGAIN;
	table[nused].qp = qp;
	memcpy(table[nused].gid, gid, 16);
	nused++;
	eng_stat_inc(mcast_attaches);
	return 0;
}

/* After an attachment of dev to gid went: the last one leaves. */
static void left(struct eng *e, struct eng_dev *dev, const uint8_t gid[16])
{
	int32_t at;

	if (dev && count(NULL, dev, gid, &at) == 0)
		eng_net_mcast_leave(e, dev, gid);
}

static void drop_at(uint32_t i)
{
	table[i] = table[--nused];
	memset(&table[nused], 0, sizeof(table[nused]));
}

int eng_mcast_detach(struct eng *e, struct eng_qp *qp, const uint8_t gid[16])
{
	uint8_t g[16];
	int32_t at;

	count(qp, NULL, gid, &at);
	if (at < 0)
		return -EINVAL;
	memcpy(g, gid, 16);
	drop_at((uint32_t)at);
	eng_stat_inc(mcast_detaches);
	left(e, qp->o.conn->dev, g);
	return 0;
}

void eng_mcast_qp_gone(struct eng *e, struct eng_qp *qp)
{
	for (uint32_t i = 0; i < nused;) {
		if (table[i].qp == qp) {
			uint8_t g[16];

			memcpy(g, table[i].gid, 16);
			drop_at(i);
			eng_stat_inc(mcast_detaches);
			left(e, qp->o.conn->dev, g);
		} else {
			i++;
		}
	}
}

/* IBA 10.9.3, as eng_dp_req.c's unicast check. */
static bool pkeys_match(uint16_t a, uint16_t b)
{
	return (a & ENG_PKEY_BASE_MASK) == (b & ENG_PKEY_BASE_MASK) &&
	       ((a | b) & ENG_PKEY_FULL_MEMBER);
}

static bool reaches(struct eng_qp *src, struct eng_qp *dst)
{
	const struct eng_dev *from = src->o.conn->dev, *to = dst->o.conn->dev;

	return from && to && to->port_state == PV_PORT_ACTIVE &&
	       pkeys_match(from->pkey, to->pkey) &&
	       eng_qps_receives(dst->state);
}

uint32_t eng_mcast_deliver(struct eng *e, struct eng_qp *src,
			   const struct eng_dp_msg *m, uint32_t qkey)
{
	uint32_t got = 0;

	eng_stat_inc(mcast_sends);
	/* Delivering only fills receive queues and CQs: the table does not
	 * change under the walk. */
	for (uint32_t i = 0; i < nused; i++) {
		struct eng_dp_reply r = { .kind = ENG_DP_REPLY_NONE };
		struct eng_qp *to = table[i].qp;

		if (memcmp(table[i].gid, m->dgid, 16))
			continue;
		if (!reaches(src, to) || !eng_dp_rguard_qkey_ok(src, to, qkey)) {
			eng_stat_inc(mcast_drops);
			continue;
		}
		/* UD: nothing comes back; a member with no receive posted
		 * drops it there, counted as any UD datagram. */
		eng_dp_resp_deliver(e, to, m, &r);
		got++;
		eng_stat_inc(mcast_delivered);
	}
	return got;
}

void eng_mcast_wire_rx(struct eng *e, struct eng_dev *d,
		       const struct eng_pkt *pkt, const struct eng_wire_ip *ip,
		       const uint8_t gid[16])
{
	/* Delivering only fills receive queues and CQs: the table does not
	 * change under the walk. */
	for (uint32_t i = 0; i < nused; i++) {
		struct eng_qp *to = table[i].qp;

		if (to->o.conn->dev != d || memcmp(table[i].gid, gid, 16))
			continue;
		if (!eng_qps_receives(to->state) ||
		    pkt->h.deth.qkey != to->attr.qkey) {
			eng_stat_inc(mcast_drops);
			continue;
		}
		eng_wire_ud_rx(e, d, to, pkt, ip);
		eng_stat_inc(mcast_delivered);
	}
}
