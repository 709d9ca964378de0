/* SPDX-License-Identifier: MIT */
/*
 * The RC requester's decisions about its outstanding window (pure: they
 * read struct eng_wire_rc and say what to do; eng_wire_rc_comp.c and
 * eng_wire_rc_req.c complete WQEs and send packets):
 *
 *   eng_rc_ack_scan   what an ACK of PSN p acknowledges (IBA 9.7.5.1.3:
 *                     every SEND/WRITE whose last PSN is at or before p;
 *                     a READ or atomic passed without its response lost
 *                     that response, 9.7.5.1.2, so the requester goes
 *                     back to it)
 *   eng_rc_probe_at   which packet the tail-loss probe resends
 */
#include <infiniband/verbs.h>

#include "providers/soft/engine/eng_wire_psn.h"
#include "providers/soft/engine/eng_wire_rc.h"
#include "providers/soft/engine/eng_wr.h"

static const struct eng_rc_went *ent(const struct eng_wire_rc *w, uint32_t i)
{
	return &w->win[(w->head + i) % w->cap];
}

static uint32_t last_psn(const struct eng_rc_went *x)
{
	return eng_psn_add(x->psn, x->npsn ? x->npsn - 1 : 0);
}

static void una_to(struct eng_rc_acked *a, uint32_t psn)
{
	if (eng_psn_after(psn, a->una))
		a->una = psn;
}

void eng_rc_ack_scan(const struct eng_wire_rc *w, uint32_t p,
		     struct eng_rc_acked *a)
{
	*a = (struct eng_rc_acked){ .una = w->una };
	for (uint32_t i = 0; i < w->n; i++) {
		const struct eng_rc_went *x = ent(w, i);
		uint32_t op = x->sw.w.opcode;

		/* A WQE whose local side failed was never sent: it
		 * completes with its error once it is the oldest. */
		if (x->status && w->sent <= i) {
			a->local_err = true;
			return;
		}
		if (eng_psn_before(p, x->psn))
			return;
		if (eng_psn_before(p, last_psn(x))) {
			/* Part of a message: a READ's PSNs are its
			 * responses', acknowledged only by them. */
			if (!eng_wr_is_read(op))
				una_to(a, eng_psn_add(p, 1));
			return;
		}
		if (eng_wr_is_read(op) || eng_wr_is_atomic(op)) {
			a->go_back = true;
			return;
		}
		una_to(a, eng_psn_add(last_psn(x), 1));
		a->ncomplete++;
	}
}

bool eng_rc_probe_at(const struct eng_wire_rc *w, uint32_t *idx,
		     uint64_t *off)
{
	uint32_t p = eng_psn_sub(w->tx_psn, 1);

	if (eng_psn_diff(w->tx_psn, w->una) <= 0)
		return false;		/* nothing unacknowledged */
	for (uint32_t i = 0; i < w->n && i <= w->sent; i++) {
		const struct eng_rc_went *x = ent(w, i);

		if (x->status || !eng_psn_in_window(p, x->psn, x->npsn))
			continue;
		/* A READ is asked again from what it placed; a SEND or
		 * WRITE packet is the MTU its PSN stands for. */
		*off = eng_wr_is_read(x->sw.w.opcode) ? x->rd_done :
		       (uint64_t)(uint32_t)eng_psn_diff(p, x->psn) * w->mtu;
		if (*off && *off >= x->total)
			return false;
		*idx = i;
		return true;
	}
	return false;
}

/* Requests of READ x (chunk PSNs each) from the one holding packet a to
 * the one holding packet b, a <= b < npsn. */
static uint32_t chunks_between(const struct eng_rc_went *x, uint32_t a,
			       uint32_t b)
{
	uint32_t c = x->rd_chunk && x->rd_chunk < x->npsn ? x->rd_chunk :
		     x->npsn;

	return c ? b / c - a / c + 1 : 1;
}

uint32_t eng_rc_rd_reqs_out(const struct eng_wire_rc *w)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < w->n; i++) {
		const struct eng_rc_went *x = ent(w, i);
		uint32_t op = x->sw.w.opcode, npsn = x->npsn ? x->npsn : 1;
		int64_t lo = eng_psn_diff(w->una, x->psn);
		int64_t hi = eng_psn_diff(w->tx_hi, x->psn);

		if (hi <= 0)
			break;			/* nothing of it sent yet */
		if (x->status || !(eng_wr_is_read(op) || eng_wr_is_atomic(op)))
			continue;
		if (lo >= (int64_t)npsn)
			continue;		/* all its responses are in */
		if (lo < 0)
			lo = 0;
		if (hi > (int64_t)npsn)
			hi = npsn;
		n += eng_wr_is_atomic(op) ? 1 :
		     chunks_between(x, (uint32_t)lo, (uint32_t)hi - 1);
	}
	return n;
}
