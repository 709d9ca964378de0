/* SPDX-License-Identifier: MIT */
/* The responder's saved resources and PSN classifier (eng_resp_res.h). */
#include <errno.h>
#include <string.h>

#include "providers/soft/engine/eng_wire_psn.h"
#include "providers/soft/engine/eng_resp_res.h"

void eng_resp_res_init(struct eng_resp_res *t, uint32_t max_dest_rd_atomic)
{
	memset(t, 0, sizeof(*t));
	/* 0 outstanding READs/atomics still leaves room for one, so the
	 * bookkeeping never divides by zero; the QP refuses the request. */
	t->cap = max_dest_rd_atomic ? max_dest_rd_atomic : 1;
	if (t->cap > ENG_RESP_RES_MAX)
		t->cap = ENG_RESP_RES_MAX;
}

void eng_resp_res_clear(struct eng_resp_res *t)
{
	eng_resp_res_init(t, t->cap);
}

static struct eng_resp_res_ent *slot(struct eng_resp_res *t)
{
	struct eng_resp_res_ent *e;

	if (!t->cap || t->cap > ENG_RESP_RES_MAX)
		eng_resp_res_init(t, t->cap);	/* never trust a stale cap */
	e = &t->ent[t->next % t->cap];
	t->next = (t->next + 1) % t->cap;
	memset(e, 0, sizeof(*e));
	return e;
}

void eng_resp_res_save_read(struct eng_resp_res *t, uint32_t psn,
			    uint32_t npsn, uint32_t rkey, uint64_t va,
			    uint32_t len)
{
	struct eng_resp_res_ent *e = slot(t);

	e->kind = ENG_RESP_RES_READ;
	e->first_psn = psn & (ENG_PSN_SPACE - 1);
	e->npsn = npsn ? npsn : 1;
	e->rkey = rkey;
	e->va = va;
	e->len = len;
}

void eng_resp_res_save_atomic(struct eng_resp_res *t, uint32_t psn,
			      uint64_t orig)
{
	struct eng_resp_res_ent *e = slot(t);

	e->kind = ENG_RESP_RES_ATOMIC;
	e->first_psn = psn & (ENG_PSN_SPACE - 1);
	e->npsn = 1;
	e->orig = orig;
}

static bool holds(const struct eng_resp_res_ent *e, uint32_t psn)
{
	int32_t d = eng_psn_diff(psn & (ENG_PSN_SPACE - 1), e->first_psn);

	return e->kind != ENG_RESP_RES_FREE && d >= 0 && (uint32_t)d < e->npsn;
}

const struct eng_resp_res_ent *eng_resp_res_find(const struct eng_resp_res *t,
						 uint32_t psn)
{
	uint32_t cap = t->cap <= ENG_RESP_RES_MAX ? t->cap : ENG_RESP_RES_MAX;

	for (uint32_t i = 0; i < cap; i++)
		if (holds(&t->ent[i], psn))
			return &t->ent[i];
	return NULL;
}

int eng_resp_res_read_from(const struct eng_resp_res_ent *ent, uint32_t psn,
			   uint32_t mtu, uint64_t *va, uint32_t *len)
{
	uint64_t skip;

	if (!mtu || ent->kind != ENG_RESP_RES_READ || !holds(ent, psn))
		return -EINVAL;
	skip = (uint64_t)(uint32_t)eng_psn_diff(psn & (ENG_PSN_SPACE - 1),
						   ent->first_psn) * mtu;
	if (skip > ent->len)
		return -EINVAL;
	*va = ent->va + skip;
	*len = ent->len - (uint32_t)skip;
	return 0;
}

void eng_psn_rx_init(struct eng_psn_rx *rx, uint32_t rq_psn)
{
	rx->epsn = rq_psn & (ENG_PSN_SPACE - 1);
	rx->nak_sent = false;
}

enum eng_psn_class eng_psn_classify_req(struct eng_psn_rx *rx, uint32_t psn,
					bool ackreq, bool *nak)
{
	uint32_t p = psn & (ENG_PSN_SPACE - 1);
	int32_t d = eng_psn_diff(p, rx->epsn);

	*nak = false;
	if (d == 0)
		return ENG_PSN_EXPECTED;
	/* IBA 9.7.5.1.1: the 2^23 PSNs before epsn are duplicates, the
	 * rest (after it) out of sequence. */
	if (d < 0)
		return ENG_PSN_DUPLICATE;
	if (!rx->nak_sent) {
		rx->nak_sent = true;
		rx->oos_max = p;
		*nak = true;
	} else if (eng_psn_after(p, rx->oos_max)) {
		rx->oos_max = p;	/* the gap's flight goes on */
	} else if (ackreq && p == rx->oos_max) {
		/* The gap's top packet again, asking for an answer: the
		 * requester probed its tail, or went back and lost epsn
		 * again, so the NAK it acted on (or never got) did not
		 * close the gap.  Older ones of a flight never match. */
		*nak = true;
	}
	return ENG_PSN_OUT_OF_SEQ;
}

enum eng_psn_class eng_psn_classify(struct eng_psn_rx *rx, uint32_t psn,
				    bool *nak)
{
	return eng_psn_classify_req(rx, psn, false, nak);
}

void eng_psn_rx_advance(struct eng_psn_rx *rx, uint32_t npsn)
{
	rx->epsn = eng_psn_add(rx->epsn, npsn ? npsn : 1);
	/* The gap is closed: a later one gets its own NAK. */
	rx->nak_sent = false;
}
