/* SPDX-License-Identifier: MIT */
/*
 * The responder's R_Key check with its accounting (eng_rguard.h): the
 * rkey table only (an lkey is no remote key, eng_mrkey.h), the source
 * device's budget, counters, warnings, and the affiliated event an RC
 * responder raises on an access violation; Q_Key violations.
 */
#include <inttypes.h>
#include <time.h>

#include <infiniband/verbs.h>

#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_dp_rguard.h"
#include "providers/soft/engine/eng_wr.h"
#include "providers/soft/engine/eng_limits.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_mw.h"
#include "providers/soft/engine/eng_stats.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct eng_dev *src_dev(const struct eng_dp_msg *m)
{
	return m->src && m->src->o.conn ? m->src->o.conn->dev : NULL;
}

/* One more wrong key (what: "rkey" or "Q_Key") from src at dst, against
 * src's budget. */
static void charge(struct eng_dev *src, const struct eng_dev *dst,
		   const char *what, uint32_t key)
{
	uint64_t now;

	if (!src)
		return;
	now = now_ns();
	if (eng_rguard_charge(&src->rguard, now) &&
	    now - src->rguard.warn_ns >= ENG_RGUARD_WARN_NS) {
		src->rguard.warn_ns = now;
		eng_warn("device %s (%u): %" PRIu64 " remote access or Q_Key "
			 "errors (last: %s 0x%08x at device %u); its RDMA "
			 "operations and datagrams are refused beyond %u a "
			 "second", src->name, src->id, src->rguard.caused,
			 what, key, dst->id, (unsigned)eng_lim.rguard_rate);
	}
}

/* Past its budget a source is refused until tokens come back. */
static bool admitted(struct eng_dev *src)
{
	if (!src || !src->rguard.limited ||
	    eng_rguard_admit(&src->rguard, now_ns()))
		return true;
	eng_stat_inc(dp_remote_refused);
	return false;
}

struct eng_mr *eng_dp_rguard_mr(struct eng_qp *dst, const struct eng_dp_msg *m,
				uint64_t *va, uint64_t len, uint32_t need)
{
	struct eng_dev *d = dst->o.conn->dev, *src = src_dev(m);
	struct eng_mr *mr;

	if (!admitted(src))
		return NULL;
	mr = eng_mrkeys_by_rkey(&d->mrs, m->rkey);
	if (mr && mr->pd == dst->pd && (mr->access & need) == need &&
	    eng_dp_range_ok(mr->iova, mr->length, *va, len))
		return mr;
	/* Not an MR's rkey: a memory window's (eng_mw.h)? */
	mr = mr ? NULL : eng_mw_remote(dst, m->rkey, va, len, need);
	if (mr)
		return mr;
	eng_stat_inc(dp_rkey_violations);
	d->rguard.rkey_errors++;
	charge(src, d, "rkey", m->rkey);
	return NULL;
}

/* IBV_EVENT_QP_ACCESS_ERR is IBA 11.6.3.1's local access violation work
 * queue error, the responder's affiliated asynchronous error. */
void eng_dp_rguard_access_err(struct eng_qp *dst)
{
	if (eng_qpt_reliable(dst->init.qp_type) && dst->state != IBV_QPS_ERR)
		eng_qp_event(dst, IBV_EVENT_QP_ACCESS_ERR);
}

bool eng_dp_rguard_qkey_ok(struct eng_qp *src, struct eng_qp *dst,
			  uint32_t qkey)
{
	struct eng_dev *d = dst->o.conn->dev, *from = src->o.conn->dev;
	uint64_t now;

	if (!admitted(from))
		return false;
	if (dst->attr.qkey == qkey)
		return true;
	eng_stat_inc(dp_drops_qkey);
	eng_hwc_qp_inc(dst, qkey_drops);
	if (!d)
		return false;
	d->rguard.qkey_errors++;
	charge(from, d, "Q_Key", qkey);
	now = now_ns();
	if (now - d->rguard.qkey_warn_ns < ENG_RGUARD_WARN_NS)
		return false;
	d->rguard.qkey_warn_ns = now;
	eng_warn("device %s (%u): %" PRIu64 " datagrams dropped for a wrong "
		 "Q_Key (last: to QP %u from device %u QP %u)", d->name, d->id,
		 d->rguard.qkey_errors, dst->qp_num, from ? from->id : 0,
		 src->qp_num);
	return false;
}
