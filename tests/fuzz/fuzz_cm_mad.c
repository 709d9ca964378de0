/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the IB CM MAD decoder (eng_cm_mad.c) fed arbitrary
 * bytes from an exact-length copy (ASan catches any read past it), then
 * what it accepts driven through comm-ID matching and the state machine
 * steps (eng_cm_sm*.c) of a small table (a listener and connections in
 * the states that wait for a peer: REP_SENT, ESTABLISHED, REQ_SENT,
 * MRA_REQ_SENT, DREQ_SENT, TIMEWAIT, SIDR_REQ_SENT), as a QP1 receive
 * path would.
 * Invariants (abort = a report with the input):
 *  - decode -> encode -> decode gives the same message (what we accept
 *    we can send back unchanged);
 *  - a step on a matched message never fails and leaves a valid state,
 *    and what it asks to send builds (eng_cm_build) and encodes;
 *  - a reply built for an unmatched message encodes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "providers/soft/engine/eng_cm_build.h"
#include "providers/soft/engine/eng_cm_mad.h"
#include "providers/soft/engine/eng_cm_pdata.h"
#include "providers/soft/engine/eng_cm_sm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct eng_cm_msg first, second, reply;

static void broken(void)
{
	abort();
}

static const uint8_t states[] = {
	ENG_CM_LISTEN, ENG_CM_REP_SENT, ENG_CM_ESTABLISHED, ENG_CM_REQ_SENT,
	ENG_CM_MRA_REQ_SENT, ENG_CM_DREQ_SENT, ENG_CM_TIMEWAIT,
	ENG_CM_SIDR_REQ_SENT,
};
#define NCONN (sizeof(states) / sizeof(states[0]))

static void table(struct eng_cm_conn *c)
{
	memset(c, 0, NCONN * sizeof(*c));
	for (int i = 0; i < (int)NCONN; i++) {
		c[i].state = states[i];
		c[i].local_id = 0x100u + (uint32_t)i;
		c[i].remote_id = i ? 0x200u + (uint32_t)i : 0;
		c[i].local_qpn = 0x10u + (uint32_t)i;
		c[i].remote_qpn = 0x20u + (uint32_t)i;
		c[i].max_retries = 2;
		c[i].resp_ms = 10;
		c[i].timewait_ms = 10;
		c[i].peer = 1;
		c[i].active = i == 3 || i == 7;
	}
	c[3].remote_id = 0;
	c[7].remote_id = 0;
}

/* Whatever a step asks to send can be built and encoded. */
static void answer(const struct eng_cm_conn *c, const struct eng_cm_act *act)
{
	static const struct eng_cm_params p = { .path_mtu = 5,
						.path = { .hop_limit = 64 } };
	uint8_t b[ENG_CM_MAD_SIZE];

	if (!act->send)
		return;
	if (eng_cm_build(c, act, &p, &reply) != 0 ||
	    eng_cm_mad_encode(&reply, b, sizeof(b)) != 0)
		broken();
}

static void drive(const struct eng_cm_msg *m, uint64_t peer)
{
	struct eng_cm_conn conns[NCONN];
	struct eng_cm_tab tab = { conns, NCONN };
	struct eng_cm_conn *c = NULL;
	struct eng_cm_event ev = { .type = ENG_CM_EV_RX, .msg = m };
	struct eng_cm_act act;
	uint8_t b[ENG_CM_MAD_SIZE];
	int disp;

	table(conns);
	disp = eng_cm_dispatch(&tab, m, peer, &c, &reply);
	if (disp == ENG_CM_DISP_LISTEN) {
		c = &conns[0];
	} else if (disp == ENG_CM_DISP_REPLY) {
		if (eng_cm_mad_encode(&reply, b, sizeof(b)) != 0)
			broken();
		return;
	}
	if (!c)
		return;
	if (eng_cm_step(c, &ev, &act) != 0 || c->state >= ENG_CM_STATE_MAX)
		broken();
	answer(c, &act);
	/* Then the connection's timer, as the loop would fire it. */
	ev.type = ENG_CM_EV_TIMEOUT;
	if (eng_cm_step(c, &ev, &act) != 0 || c->state >= ENG_CM_STATE_MAX)
		broken();
	answer(c, &act);
}

static void one(const uint8_t *data, size_t size)
{
	uint8_t *exact = malloc(size ? size : 1);
	uint8_t b[ENG_CM_MAD_SIZE];
	struct eng_cm_ip_hdr ip;
	int ret;

	if (!exact)
		abort();
	memcpy(exact, data, size);
	ret = eng_cm_mad_decode(exact, size, &first);
	free(exact);
	if (ret != 0)
		return;
	if (eng_cm_mad_encode(&first, b, sizeof(b)) != 0)
		broken();
	if (eng_cm_mad_decode(b, sizeof(b), &second) != 0 ||
	    memcmp(&first, &second, sizeof(first)) != 0)
		broken();
	if (first.hdr.attr_id == ENG_CM_ATTR_REQ) {
		(void)eng_cm_req_check(&first.u.req);
		(void)eng_cm_pdata_decode(first.u.req.private_data,
					  first.u.req.private_data_len, &ip);
	}
	drive(&first, 1);
	drive(&first, 2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t mad[ENG_CM_MAD_SIZE] = { 0 };

	one(data, size);
	/* Most mutations change the length, which the decoder refuses
	 * first: also try the input cut or zero-padded to a MAD. */
	if (size != ENG_CM_MAD_SIZE) {
		memcpy(mad, data, size < sizeof(mad) ? size : sizeof(mad));
		one(mad, sizeof(mad));
	}
	return 0;
}
