/* SPDX-License-Identifier: MIT */
/*
 * A hostile pod (A) guesses the rkey of an MR its peer (B) never
 * advertised, over UC, where a wrong key is dropped silently (IBA
 * 9.7.5.1.x), so the attacker may try as fast as it can post.  A knows
 * what a peer would: B's advertised MR (address, rkey) and the address
 * of B's secret MR, never its key.  A first tries the keys an index-
 * plus-key-byte scheme would put next to the advertised one (the
 * secret MR was registered right after it), then random keys, until
 * DPT_GUESS_MAX tries or DPT_GUESS_SECS.  B checks its secret after
 * every batch.  Also: the advertised MR's lkey must not work as an
 * rkey, and the two keys must differ.  Prints tries, time and rate.
 */
#include "dpt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#define BUF		4096
#define BATCH		256
#define GUESS_MAX	1000000u
#define GUESS_SECS	5.0
#define SEED_PUB	3
#define SEED_SECRET	7

enum { CMD_DONE, CMD_CHECK_SECRET, CMD_CHECK_PUB };

struct b_info {
	uint32_t pub_lkey;
	uint64_t secret_addr;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void setup(struct dpt_side *s, struct ibv_cq **cq, struct ibv_qp **qp,
		  struct dpt_conn *me, struct dpt_conn *peer,
		  struct ibv_mr *mr)
{
	struct ibv_qp_cap cap = { .max_send_wr = BATCH, .max_recv_wr = 4,
				  .max_send_sge = 1, .max_recv_sge = 1,
				  .max_inline_data = 64 };

	*cq = dpt_cq(s, 2 * BATCH, NULL);
	*qp = dpt_qp(s, IBV_QPT_UC, *cq, NULL, &cap, 0);
	dpt_conn_fill(s, me, *qp, mr);
	dpt_swap(s, me, peer);
	dpt_connect(*qp, s, peer, NULL);
}

/* One inline RDMA WRITE of 8 bytes per key; the last WR is signaled. */
static void write_batch(struct ibv_qp *qp, struct ibv_cq *cq,
			const uint32_t *keys, int n, uint64_t addr)
{
	static const uint64_t junk = 0xa5a5a5a5a5a5a5a5ull;
	struct ibv_wc wc;

	for (int i = 0; i < n; i++) {
		struct ibv_sge sge = { (uintptr_t)&junk, 8, 0 };
		struct ibv_send_wr wr = {
			.wr_id = (uint64_t)i, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_INLINE |
				      (i == n - 1 ? IBV_SEND_SIGNALED : 0),
			.wr.rdma = { .remote_addr = addr, .rkey = keys[i] },
		};

		dpt_post_send(qp, &wr);
	}
	CHECK(dpt_poll(cq, &wc, 1, 5000) == 1, "batch completion");
	CHECK(wc.status == IBV_WC_SUCCESS, "UC write status %d", wc.status);
}

static uint8_t ask(struct dpt_side *s, uint32_t cmd)
{
	uint8_t r;

	dpt_send(s, &cmd, sizeof(cmd));
	dpt_recv(s, &r, sizeof(r));
	return r;
}

/* The n-th guess: first the neighbours of the advertised key's index
 * (index << 8 | byte, index +-1 and +-2), then uniform random keys. */
static uint32_t guess(uint32_t pub_rkey, uint32_t n)
{
	static const int step[4] = { 1, -1, 2, -2 };
	uint32_t k;

	if (n < 4 * 256)
		return (uint32_t)((int32_t)(pub_rkey >> 8) + step[n / 256]) << 8 |
		       (n % 256);
	if (getrandom(&k, sizeof(k), 0) != sizeof(k))
		k = (uint32_t)mrand48();
	return k;
}

static int side_a(struct dpt_side *s)
{
	struct dpt_conn me, peer;
	struct b_info bi;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	uint32_t keys[BATCH], tries = 0;
	double t0, dt;
	int written = 0;

	setup(s, &cq, &qp, &me, &peer, NULL);
	dpt_recv(s, &bi, sizeof(bi));
	/* The path works: a write with the advertised rkey lands. */
	keys[0] = peer.rkey;
	write_batch(qp, cq, keys, 1, peer.addr);
	CHECK(ask(s, CMD_CHECK_PUB) == 1, "a write with the advertised rkey "
	      "did not land");
	t0 = now_s();
	while (tries < GUESS_MAX && now_s() - t0 < GUESS_SECS) {
		for (int i = 0; i < BATCH; i++)
			keys[i] = guess(peer.rkey, tries + (uint32_t)i);
		write_batch(qp, cq, keys, BATCH, bi.secret_addr);
		tries += BATCH;
		if (ask(s, CMD_CHECK_SECRET)) {
			written = 1;
			break;
		}
	}
	dt = now_s() - t0;
	dpt_log(s, "%u rkey guesses in %.2f s (%.0f/s): B's unadvertised MR "
		"%s", tries, dt, tries / dt, written ? "WRITTEN" : "untouched");
	/* The advertised MR's lkey used as an rkey (at offset 64). */
	keys[0] = bi.pub_lkey;
	write_batch(qp, cq, keys, 1, peer.addr + 64);
	uint8_t lkey_landed = ask(s, CMD_CHECK_PUB) == 2;

	dpt_log(s, "write with B's lkey as rkey: %s", lkey_landed ?
		"LANDED" : "dropped");
	ask(s, CMD_DONE);
	CHECK(!written, "A wrote B's unadvertised MR after %u guesses "
	      "(%.1f ms)", tries, dt * 1e3);
	CHECK(!lkey_landed, "B's lkey works as an rkey");
	CHECK(peer.rkey != bi.pub_lkey, "rkey == lkey (0x%08x)", peer.rkey);
	return 0;
}

static int side_b(struct dpt_side *s)
{
	char *pub = dpt_buf(BUF), *secret = dpt_buf(BUF);
	struct dpt_conn me, peer;
	struct ibv_mr *mpub, *msec;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct b_info bi;
	uint32_t cmd;

	dpt_fill(pub, BUF, SEED_PUB);
	dpt_fill(secret, BUF, SEED_SECRET);
	mpub = dpt_mr(s, pub, BUF, DPT_ACCESS_ALL);
	msec = dpt_mr(s, secret, BUF, DPT_ACCESS_ALL);
	dpt_log(s, "advertised MR lkey 0x%08x rkey 0x%08x; secret MR lkey "
		"0x%08x rkey 0x%08x", mpub->lkey, mpub->rkey, msec->lkey,
		msec->rkey);
	setup(s, &cq, &qp, &me, &peer, mpub);
	bi.pub_lkey = mpub->lkey;
	bi.secret_addr = (uintptr_t)secret;
	dpt_send(s, &bi, sizeof(bi));
	for (;;) {
		uint8_t r = 0;

		dpt_recv(s, &cmd, sizeof(cmd));
		if (cmd == CMD_CHECK_SECRET)
			r = dpt_check(secret, BUF, SEED_SECRET) >= 0;
		else if (cmd == CMD_CHECK_PUB)
			/* 1: bytes 0..7 overwritten; 2: bytes 64..71 too */
			r = (uint8_t)((pub[0] == (char)0xa5) +
				      (pub[64] == (char)0xa5));
		dpt_send(s, &r, sizeof(r));
		if (cmd == CMD_DONE)
			break;
	}
	CHECK(dpt_check(secret, BUF, SEED_SECRET) < 0,
	      "B's secret MR modified at byte %d",
	      dpt_check(secret, BUF, SEED_SECRET));
	return 0;
}

int main(int argc, char **argv)
{
	return dpt_main(argc, argv, side_a, side_b);
}
