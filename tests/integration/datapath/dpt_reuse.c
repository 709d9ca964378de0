/* SPDX-License-Identifier: MIT */
/*
 * QP numbers and memory keys must not come back soon nor in an order a
 * peer can predict (issue 8, finding 8): a stale QPN or rkey held by a
 * peer would otherwise reach the next QP or MR made.  Side A creates
 * and destroys a QP (and registers and deregisters an MR) ROUNDS times,
 * one at a time; no number may repeat within WINDOW of its last use, no
 * QPN may be 0, 1 or 0xffffff, and consecutive values must not follow
 * a pattern (a constant step, or an rkey whose upper 24 bits - an index
 * - recur).  Prints the first values and the counts.
 */
#include "dpt.h"

#include <stdio.h>
#include <stdlib.h>

#define ROUNDS		5000
#define QPN_WINDOW	4096	/* engine: ENG_QPN_QUARANTINE */
#define KEY_WINDOW	1024	/* engine: ENG_MRKEY_QUARANTINE */

static uint32_t qpn[ROUNDS], rkey[ROUNDS], lkey[ROUNDS];

/* Repeats of v[i] among the previous `window` values (brute force is
 * fine for 5000). */
static int repeats(const uint32_t *v, int n, int window, uint32_t mask,
		   int *first)
{
	int hits = 0;

	*first = -1;
	for (int i = 1; i < n; i++)
		for (int j = i > window ? i - window : 0; j < i; j++)
			if ((v[i] & mask) == (v[j] & mask)) {
				if (*first < 0)
					*first = i;
				hits++;
				break;
			}
	return hits;
}

static int steps(const uint32_t *v, int n)
{
	int same = 0;

	for (int i = 2; i < n; i++)
		same += v[i] - v[i - 1] == v[i - 1] - v[i - 2];
	return same;
}

static int side_a(struct dpt_side *s)
{
	struct ibv_cq *cq = dpt_cq(s, 16, NULL);
	char *buf = dpt_buf(4096);
	int first, q_rep, k_rep, l_rep, idx_rep, q_steps, k_steps;

	for (int i = 0; i < ROUNDS; i++) {
		struct ibv_qp *qp = dpt_qp(s, IBV_QPT_RC, cq, NULL, NULL, 1);
		struct ibv_mr *mr = dpt_mr(s, buf, 4096, DPT_ACCESS_ALL);

		qpn[i] = qp->qp_num;
		rkey[i] = mr->rkey;
		lkey[i] = mr->lkey;
		CHECK(qpn[i] > 1 && qpn[i] < 0xffffff, "QPN %u is reserved",
		      qpn[i]);
		CHECK(ibv_destroy_qp(qp) == 0, "ibv_destroy_qp");
		CHECK(ibv_dereg_mr(mr) == 0, "ibv_dereg_mr");
	}
	dpt_log(s, "QPNs %u %u %u %u %u ...; rkeys 0x%08x 0x%08x 0x%08x ...",
		qpn[0], qpn[1], qpn[2], qpn[3], qpn[4], rkey[0], rkey[1],
		rkey[2]);
	q_rep = repeats(qpn, ROUNDS, QPN_WINDOW, 0xffffffff, &first);
	dpt_log(s, "QPN reused within %d creations: %d times (first at "
		"creation %d)", QPN_WINDOW, q_rep, first);
	k_rep = repeats(rkey, ROUNDS, KEY_WINDOW, 0xffffffff, &first);
	l_rep = repeats(lkey, ROUNDS, KEY_WINDOW, 0xffffffff, &first);
	idx_rep = repeats(rkey, ROUNDS, KEY_WINDOW, 0xffffff00, &first);
	dpt_log(s, "rkey reused within %d: %d, lkey: %d; rkey upper 24 bits "
		"recurring: %d (first at %d)", KEY_WINDOW, k_rep, l_rep,
		idx_rep, first);
	q_steps = steps(qpn, ROUNDS);
	k_steps = steps(rkey, ROUNDS);
	dpt_log(s, "constant steps: QPN %d, rkey %d of %d", q_steps, k_steps,
		ROUNDS - 2);
	CHECK(q_rep == 0, "QPNs reused within %d creations", QPN_WINDOW);
	CHECK(k_rep == 0 && l_rep == 0, "keys reused within %d", KEY_WINDOW);
	/* Random keys: ~0.3 upper-24-bit matches expected in 5000 x 1024. */
	CHECK(idx_rep < 5, "rkeys carry a recurring index");
	CHECK(q_steps < ROUNDS / 100 && k_steps < ROUNDS / 100,
	      "predictable QPN or key sequence");
	dpt_sync(s);
	return 0;
}

static int side_b(struct dpt_side *s)
{
	dpt_sync(s);
	return 0;
}

int main(int argc, char **argv)
{
	return dpt_main(argc, argv, side_a, side_b);
}
