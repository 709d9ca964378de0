/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: what an rsockets peer can send us (librdmacm's
 * rc_rs_proto.c, rc_rs_rx.c, rc_rs_grant.c, rc_rs_peermap.c).  The input is a connect private data
 * (40 bytes: decoded and, when valid, it sets the credits), a queue depth
 * and buffer size, then 5-byte steps: an immediate from the peer, a read
 * of k bytes, a grant of the next free half, a message of ours, or an
 * iomap lookup over a table the input fills.  An SGL message also
 * completes a write of some length into our target SGL (rc_rs_grant.c),
 * whose entries the input fills, and a message of ours takes from the
 * grants; the peer writes iomap entries (index, size and window from
 * the input) whose messages complete, and riowrite looks offsets up in
 * the copies (rc_rs_peermap.c).  After every step the receiver's invariants must hold whatever
 * the peer sent: unread bytes within the granted span, ring indices in
 * range, our credit window within the peer's queue, never more grants
 * outstanding than target SGL entries, never a byte past a grant, no
 * iomap copy that wraps or overlaps another; a
 * violation (-EPROTO) ends the connection as it does in the library.
 */
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "librdmacm/rc_rs_grant.h"
#include "librdmacm/rc_rs_peermap.h"
#include "librdmacm/rc_rs_proto.h"
#include "librdmacm/rc_rs_rx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void invariants(const struct rc_rs_rx *rx)
{
	uint32_t n = (rx->tail + rx->ring - rx->head) % rx->ring;
	uint16_t win = (uint16_t)(rx->sseq_comp - rx->sseq_no);

	assert(rx->head < rx->ring && rx->tail < rx->ring);
	assert(n < rx->ring);
	assert(rx->rbuf_avail <= rx->rbuf_size);
	assert((uint64_t)rx->queued <= rx->rbuf_size - rx->rbuf_avail);
	assert(win <= rx->peer_credits);
}

static void grant_invariants(const struct rc_rs_grants *g)
{
	assert(g->ready <= RC_RS_SGL_SIZE);
	assert(g->next < RC_RS_SGL_SIZE);
}

static void lookup(const uint8_t *p, size_t left)
{
	struct rc_rs_iomap tab[4];
	uint64_t addr, room, off;
	uint32_t key;

	if (left < sizeof(tab) + 8)
		return;
	memcpy(tab, p, sizeof(tab));
	memcpy(&off, p + sizeof(tab), 8);
	if (rc_rs_iomap_find(tab, 4, p[0] & 1, off, &addr, &key, &room) == 0)
		assert(room >= 1);
}

/* riowrite's copies of the peer's windows: none wraps, none overlaps
 * another. */
static void peermap_invariants(const struct rc_rs_peermaps *p)
{
	for (uint32_t i = 0; i < p->n; i++) {
		const struct rc_rs_iomap *a = &p->copy[i];

		if (!a->sge.length)
			continue;
		assert(a->offset + (a->sge.length - 1) >= a->offset);
		assert(a->sge.addr + (a->sge.length - 1) >= a->sge.addr);
		for (uint32_t j = i + 1; j < p->n; j++) {
			const struct rc_rs_iomap *b = &p->copy[j];

			assert(!b->sge.length ||
			       a->offset + (a->sge.length - 1) < b->offset ||
			       b->offset + (b->sge.length - 1) < a->offset);
		}
	}
}

/* The peer writes an entry of the iomap area (the index sometimes past
 * it, the write's length sometimes wrong) and its message completes, or
 * riowrite looks an offset up in the copies. */
static int peermap_step(struct rc_rs_peermaps *p, struct rc_rs_iomap *area,
			const uint8_t *b, size_t left, const char **why)
{
	uint32_t index = b[1] % 6, len;
	uint64_t addr, room, off;
	uint32_t key;

	if (left < 5 + sizeof(*area))
		return 0;
	if (b[0] & 8) {
		memcpy(&off, b + 1, 8);
		if (rc_rs_peermaps_find(p, off, &addr, &key, &room) == 0) {
			assert(room >= 1 && room <= UINT32_MAX);
			assert(addr + (room - 1) >= addr);
		}
		return 0;
	}
	memcpy(&area[index % 4], b + 5, sizeof(*area));
	len = b[0] & 16 ? (uint32_t)sizeof(*area) : b[2] % 32;
	return rc_rs_peermaps_arrived(p, index, len, b[0] & 32, why);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rc_rs_sge tsgl[RC_RS_SGL_SIZE];
	struct rc_rs_iomap area[4];
	struct rc_rs_peermaps pm;
	struct rc_rs_grants g;
	struct rc_rs_conn c;
	struct rc_rs_rx rx;
	uint32_t *ring, rbuf, depth;
	const char *why;
	size_t i;

	if (size < sizeof(struct rc_rs_conn_wire) + 6)
		return 0;
	if (rc_rs_conn_decode(data, size, &c) < 0)
		c.credits = 16;
	depth = 1 + data[40] % 64;
	memcpy(&rbuf, data + 41, 4);
	rbuf = 2 + (rbuf % (1u << 24)) * 2;
	ring = calloc(depth + 1, sizeof(*ring));
	memset(area, 0, sizeof(area));
	if (!ring || rc_rs_peermaps_init(&pm, area, 4) < 0) {
		free(ring);
		return 0;
	}
	memset(&rx, 0, sizeof(rx));
	rc_rs_rx_init(&rx, ring, depth + 1, rbuf);
	rx.sseq_comp = c.credits;
	rx.peer_credits = c.credits;
	rc_rs_grants_init(&g, c.data_buf);
	memset(tsgl, 0, sizeof(tsgl));
	if (size >= 45 + sizeof(tsgl))
		memcpy(tsgl, data + size - sizeof(tsgl), sizeof(tsgl));
	for (i = 45; i + 5 <= size; i += 5) {
		uint32_t v;
		int ret = 0;

		memcpy(&v, data + i + 1, 4);
		switch (data[i] % 5) {
		case 0:
			ret = rc_rs_rx_msg(&rx, v, &why);
			/* The write's length: what the completion says. */
			if (ret >= 0 && rc_rs_msg_op(v) == RC_RS_OP_SGL &&
			    rc_rs_grants_arrived(&g, data[i] >> 3) < 0) {
				ret = -EPROTO;
				why = "grant";
			}
			break;
		case 1:
			rc_rs_rx_consume(&rx, v);
			break;
		case 2:
			if (rx.rbuf_avail >= rbuf / 2)
				rx.rbuf_avail -= rbuf / 2;
			break;
		case 3:
			if (rx.sseq_no != rx.sseq_comp) {
				uint32_t left = rc_rs_grants_left(&g, tsgl,
								  data[i] & 8);
				uint64_t addr;
				uint32_t key, n = left ? 1 + v % left : 0;

				assert(left <= RC_RS_MSG_DATA_MASK);
				rc_rs_grants_use(&g, n, &addr, &key);
				assert(g.cur.length == left - n);
				rx.sseq_no++;
			}
			break;
		default:
			if (data[i] & 4)
				lookup(data + i, size - i);
			else
				ret = peermap_step(&pm, area, data + i,
						   size - i, &why);
		}
		if (ret < 0) {
			assert(ret == -EPROTO && why);
			break;
		}
		invariants(&rx);
		grant_invariants(&g);
		peermap_invariants(&pm);
	}
	rc_rs_peermaps_free(&pm);
	free(ring);
	return 0;
}
