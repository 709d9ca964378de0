/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the sender's grant taking (librdmacm/rc_rs_grant.h)
 * against the receiver's bookkeeping (rc_rs_rx.h), with the target SGL
 * written the way the engine places an RDMA WRITE: the 16-byte entry is
 * stored twice (glibc's memmove of 16 bytes is two overlapping 16-byte
 * stores), and only then does the SGL message complete.  A sender that
 * takes an entry between the two stores, or before the completion, must
 * not see that grant again: the receiver would refuse the data it sends
 * into it as "more data than granted" and the connection resets itself
 * (librdmacm/README.md's former known bug, rseq 20 000+ into a stream).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "librdmacm/rc_rs_grant.h"
#include "librdmacm/rc_rs_proto.h"
#include "librdmacm/rc_rs_rx.h"

#define HALF	4096u
#define RBUF	(2 * HALF)
#define RKEY	0x1234u
#define BASE	0x10000ull

/* Both ends of one direction of a connection, no I/O. */
struct pair {
	/* Receiver: its bookkeeping and the grants it writes (as
	 * rc_rs_xfer.c's send_credits). */
	struct rc_rs_rx rx;
	uint32_t ring[32];
	uint32_t rbuf_free;		/* offset of the next half to grant */
	uint32_t remote_sge;		/* entry of the sender's SGL next */
	uint64_t granted;		/* bytes it granted */
	/* Sender: its target SGL (the receiver writes it) and grants. */
	struct rc_rs_sge tsgl[RC_RS_SGL_SIZE];
	struct rc_rs_grants g;
	uint64_t sent;			/* bytes it sent */
	int refused;			/* DATA messages the receiver refused */
};

static void pair_init(struct pair *p)
{
	memset(p, 0, sizeof(*p));
	rc_rs_rx_init(&p->rx, p->ring, 32, RBUF);
	p->rx.sseq_comp = p->rx.peer_credits = 31;
	p->rbuf_free = HALF;
	p->remote_sge = 1;
	p->granted = HALF;		/* the first half, in the private data */
	rc_rs_grants_init(&p->g, (struct rc_rs_sge){ .addr = BASE,
						      .key = RKEY,
						      .length = HALF });
}

/* The receiver grants its next free half (false when none is free):
 * the entry it will write; its bookkeeping moves at the post, as the
 * library's does. */
static bool recv_grant(struct pair *p, struct rc_rs_sge *e, uint32_t *slot)
{
	if (p->rx.rbuf_avail < HALF)
		return false;
	*e = (struct rc_rs_sge){ .addr = BASE + p->rbuf_free, .key = RKEY,
				 .length = HALF };
	*slot = p->remote_sge;
	p->rx.rbuf_avail -= HALF;
	p->rbuf_free = (p->rbuf_free + HALF) % RBUF;
	p->remote_sge = (p->remote_sge + 1) % RC_RS_SGL_SIZE;
	p->granted += HALF;
	return true;
}

/* One store of the placement of the grant's 16 bytes. */
static void place(struct pair *p, const struct rc_rs_sge *e, uint32_t slot)
{
	memcpy(&p->tsgl[slot], e, sizeof(*e));
}

/* The SGL message's receive completion at the sender. */
static void complete_sgl(struct pair *p, uint32_t len)
{
	assert_int_equal(rc_rs_grants_arrived(&p->g, len), 0);
}

/* A whole grant message, placed twice and then completed. */
static void grant_whole(struct pair *p)
{
	struct rc_rs_sge e;
	uint32_t slot = 0;

	assert_true(recv_grant(p, &e, &slot));
	place(p, &e, slot);
	place(p, &e, slot);
	complete_sgl(p, sizeof(e));
}

/* The sender sends what its grants allow, in DATA messages of at most
 * chunk bytes, each judged by the receiver; the bytes sent. */
static uint64_t send_all(struct pair *p, uint32_t chunk)
{
	uint64_t before = p->sent;
	const char *why = "";
	uint32_t n;

	while ((n = rc_rs_grants_left(&p->g, p->tsgl, false)) != 0) {
		uint64_t addr;
		uint32_t key;

		if (n > chunk)
			n = chunk;
		rc_rs_grants_use(&p->g, n, &addr, &key);
		assert_int_equal(key, RKEY);
		assert_true(addr >= BASE && addr + n <= BASE + RBUF);
		if (rc_rs_rx_msg(&p->rx, rc_rs_msg(RC_RS_OP_DATA, n), &why) < 0)
			p->refused++;
		p->sent += n;
	}
	return p->sent - before;
}

/* The receiver reads k bytes (whole messages' worth, oldest first). */
static void recv_read(struct pair *p, uint32_t k)
{
	while (k) {
		uint32_t m = rc_rs_rx_head_len(&p->rx);

		assert_true(m > 0);
		if (m > k)
			m = k;
		rc_rs_rx_consume(&p->rx, m);
		k -= m;
	}
}

/*
 * The failing interleaving: the sender looks for its next grant while
 * the receiver's grant is being placed (after the first store, before
 * the second and before the completion).  It must not take it yet; once
 * complete, it is taken once.  The receiver then reads only the first
 * half and grants it again; the sender fills that and must then stop:
 * the entry of the first grant is stale, not a new grant.
 */
static void test_rc_rs_grant__taken_mid_placement(void **state)
{
	struct rc_rs_sge e;
	struct pair p;
	uint32_t slot = 0;

	(void)state;
	pair_init(&p);
	assert_int_equal(send_all(&p, 1024), HALF);	/* the first half */
	assert_true(recv_grant(&p, &e, &slot));
	place(&p, &e, slot);
	/* Mid-placement: the entry looks written, its message is not
	 * complete. */
	assert_int_equal(rc_rs_grants_left(&p.g, p.tsgl, false), 0);
	place(&p, &e, slot);
	assert_int_equal(rc_rs_grants_left(&p.g, p.tsgl, false), 0);
	complete_sgl(&p, sizeof(e));
	assert_int_equal(send_all(&p, 1024), HALF);
	/* The receiver has read nothing: both halves are queued. */
	assert_int_equal(p.rx.queued, RBUF);
	recv_read(&p, HALF);
	grant_whole(&p);
	assert_int_equal(send_all(&p, 1024), HALF);
	/* Everything granted is sent; nothing more may go. */
	assert_int_equal(p.sent, p.granted);
	assert_int_equal(send_all(&p, 1024), 0);
	assert_int_equal(p.refused, 0);
}

/* A long stream with every grant taken at the worst moment the sender
 * can see: between the two stores of its placement. */
static void test_rc_rs_grant__stream(void **state)
{
	struct pair p;

	(void)state;
	pair_init(&p);
	for (int round = 0; round < 1000; round++) {
		struct rc_rs_sge e;
		uint32_t slot = 0;

		send_all(&p, 1000);
		recv_read(&p, p.rx.queued);
		while (recv_grant(&p, &e, &slot)) {
			place(&p, &e, slot);
			send_all(&p, 1000);	/* looks mid-placement */
			place(&p, &e, slot);
			complete_sgl(&p, sizeof(e));
		}
		assert_int_equal(p.refused, 0);
		assert_true(p.sent <= p.granted);
	}
	send_all(&p, 1000);
	assert_int_equal(p.sent, p.granted);
	assert_int_equal(p.refused, 0);
}

/* A credit update alone (a write of no bytes) is no grant; a grant is
 * one entry; more grants than entries we have not taken overwrite one,
 * and a write of another size is no grant of this protocol. */
static void test_rc_rs_grant__arrivals_checked(void **state)
{
	struct rc_rs_grants g;

	(void)state;
	rc_rs_grants_init(&g, (struct rc_rs_sge){ .addr = BASE, .key = RKEY,
						   .length = HALF });
	assert_int_equal(rc_rs_grants_arrived(&g, 0), 0);
	assert_int_equal(g.ready, 0);
	assert_int_equal(rc_rs_grants_arrived(&g, 8), -EPROTO);
	assert_int_equal(rc_rs_grants_arrived(&g, 32), -EPROTO);
	assert_int_equal(rc_rs_grants_arrived(&g, 16), 0);
	assert_int_equal(rc_rs_grants_arrived(&g, 16), 0);
	assert_int_equal(rc_rs_grants_arrived(&g, 16), -EPROTO);
	assert_int_equal(g.ready, RC_RS_SGL_SIZE);
}

/* The entry is read once into the copy: a later write into the entry
 * (the peer's next grant, or a hostile peer) changes nothing taken; a
 * length past what an immediate carries is bounded; swapped order. */
static void test_rc_rs_grant__copy(void **state)
{
	struct rc_rs_sge tsgl[RC_RS_SGL_SIZE] = { { 0 } };
	struct rc_rs_grants g;
	uint64_t addr;
	uint32_t key;

	(void)state;
	rc_rs_grants_init(&g, (struct rc_rs_sge){ .addr = BASE, .key = RKEY,
						   .length = 100 });
	assert_int_equal(rc_rs_grants_left(&g, tsgl, false), 100);
	rc_rs_grants_use(&g, 100, &addr, &key);
	assert_int_equal(addr, BASE);
	tsgl[1] = (struct rc_rs_sge){ .addr = 0x5000, .key = 7,
				      .length = 0xFFFFFFFFu };
	assert_int_equal(rc_rs_grants_arrived(&g, 16), 0);
	assert_int_equal(rc_rs_grants_left(&g, tsgl, false),
			 RC_RS_MSG_DATA_MASK);
	tsgl[1].addr = 0x9999;
	rc_rs_grants_use(&g, 10, &addr, &key);
	assert_int_equal(addr, 0x5000);
	assert_int_equal(key, 7);
	/* Never past the grant, whatever the caller asks. */
	rc_rs_grants_use(&g, 0xFFFFFFFFu, &addr, &key);
	assert_int_equal(addr, 0x500A);
	assert_int_equal(rc_rs_grants_left(&g, tsgl, false), 0);
	/* The next entry, written by a peer of the other byte order. */
	tsgl[0] = rc_rs_sge_to_peer((struct rc_rs_sge){ .addr = 0x7000,
							 .key = 9,
							 .length = 64 }, true);
	assert_int_equal(rc_rs_grants_arrived(&g, 16), 0);
	assert_int_equal(rc_rs_grants_left(&g, tsgl, true), 64);
	rc_rs_grants_use(&g, 64, &addr, &key);
	assert_int_equal(addr, 0x7000);
	assert_int_equal(key, 9);
	/* The memory is the peer's: taking never writes it. */
	assert_int_equal(tsgl[1].length, 0xFFFFFFFFu);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rc_rs_grant__taken_mid_placement),
		cmocka_unit_test(test_rc_rs_grant__stream),
		cmocka_unit_test(test_rc_rs_grant__arrivals_checked),
		cmocka_unit_test(test_rc_rs_grant__copy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
