/* SPDX-License-Identifier: MIT */
/*
 * An engine restart under traffic, seen by the applications of two pods
 * (tests/integration/engine_restart.sh):
 *  - both sides run an RC SEND ping-pong; once it runs, side A creates
 *    the file RUNNING and both keep going while the script SIGKILLs the
 *    engine;
 *  - each side must see IBV_EVENT_DEVICE_FATAL (not a hang) while a
 *    message is in flight;
 *  - once the script has started a new engine (it creates the file BACK),
 *    the same processes free their old objects, list the devices again,
 *    find theirs under the same name, node GUID and GID, open it and run
 *    a fresh ping-pong with checked data.
 *
 *   usage: dpt_restart NS_A NS_B RUNNING BACK
 */
#include "dpt.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MSG_LEN		256
#define WAIT_MS		10000

struct rs {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char *buf;		/* [0, MSG_LEN) receive, [MSG_LEN, 2*) send */
};

/* What must survive the restart. */
struct ident {
	char name[IBV_SYSFS_NAME_MAX];
	__be64 guid;
	union ibv_gid gid;
};

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void ident_of(struct dpt_side *s, struct ident *id)
{
	snprintf(id->name, sizeof(id->name), "%s",
		 ibv_get_device_name(s->ctx->device));
	id->guid = ibv_get_device_guid(s->ctx->device);
	id->gid = s->gid;
}

static void rs_setup(struct dpt_side *s, struct rs *r)
{
	struct dpt_conn mine, peer;

	r->cq = dpt_cq(s, 64, NULL);
	r->qp = dpt_qp(s, IBV_QPT_RC, r->cq, NULL, NULL, 1);
	r->buf = dpt_buf(2 * MSG_LEN);
	r->mr = dpt_mr(s, r->buf, 2 * MSG_LEN, DPT_ACCESS_ALL);
	dpt_conn_fill(s, &mine, r->qp, r->mr);
	dpt_swap(s, &mine, &peer);
	dpt_connect(r->qp, s, &peer, NULL);
}

/* The current context's DEVICE_FATAL has been read (each side is its
 * own process). */
static int fatal_got;

/* A DEVICE_FATAL read now or before from the async fd (other events are
 * logged and skipped). */
static int fatal_seen(struct dpt_side *s)
{
	struct pollfd p = { .fd = s->ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;

	if (fatal_got)
		return 1;
	while (poll(&p, 1, 0) == 1) {
		if (ibv_get_async_event(s->ctx, &ev) != 0)
			return 0;
		ibv_ack_async_event(&ev);
		if (ev.event_type == IBV_EVENT_DEVICE_FATAL)
			return fatal_got = 1;
		dpt_log(s, "async event %s", ibv_event_type_str(ev.event_type));
	}
	return 0;
}

/* 1: one completion in *wc; 0: the device died first (fatal_ok only). */
static int wc_or_fatal(struct dpt_side *s, struct rs *r, struct ibv_wc *wc,
		       int fatal_ok)
{
	long end = now_ms() + WAIT_MS;

	for (;;) {
		int n = ibv_poll_cq(r->cq, 1, wc);

		CHECK(n >= 0, "ibv_poll_cq returned %d", n);
		if (n == 1) {
			CHECK(wc->status == IBV_WC_SUCCESS || fatal_ok,
			      "completion status %s",
			      ibv_wc_status_str(wc->status));
			return wc->status == IBV_WC_SUCCESS ? 1 : 0;
		}
		if (fatal_ok && fatal_seen(s))
			return 0;
		CHECK(now_ms() < end, "no completion and no DEVICE_FATAL in "
		      "%d ms", WAIT_MS);
		sched_yield();
	}
}

static int post_recv_ok(struct rs *r)
{
	struct ibv_sge sge = { (uintptr_t)r->buf, MSG_LEN, r->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(r->qp, &wr, &bad);
}

static int post_send_ok(struct rs *r, unsigned seq)
{
	struct ibv_sge sge = { (uintptr_t)r->buf + MSG_LEN, MSG_LEN,
			       r->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr *bad;

	dpt_fill(r->buf + MSG_LEN, MSG_LEN, seq);
	return ibv_post_send(r->qp, &wr, &bad);
}

/* Waits for the next RECV completion; send completions that come first
 * are absorbed.  1, or 0 when the device died first (fatal_ok only). */
static int next_recv(struct dpt_side *s, struct rs *r, int fatal_ok)
{
	struct ibv_wc wc;

	do {
		if (!wc_or_fatal(s, r, &wc, fatal_ok))
			return 0;
	} while (wc.opcode != IBV_WC_RECV);
	return 1;
}

/*
 * One round: the initiator sends seq and waits for the echo, the other
 * side waits and echoes.  Returns 1, or 0 when the device died on the
 * way (only with fatal_ok: a failed post then counts as that too, and
 * the caller waits for the DEVICE_FATAL that must follow).
 */
static int round_trip(struct dpt_side *s, struct rs *r, unsigned seq,
		      int initiator, int fatal_ok)
{
	int rc;

	if (initiator) {
		rc = post_send_ok(r, seq);
		CHECK(rc == 0 || fatal_ok, "post_send: %s", strerror(rc));
		if (rc)
			return 0;
	}
	if (!next_recv(s, r, fatal_ok))
		return 0;
	CHECK(dpt_check(r->buf, MSG_LEN, seq) < 0, "message %u corrupt", seq);
	rc = post_recv_ok(r);
	if (rc == 0 && !initiator)
		rc = post_send_ok(r, seq);
	CHECK(rc == 0 || fatal_ok, "post after message %u: %s", seq,
	      strerror(rc));
	return rc == 0;
}

/* Traffic until the engine dies; returns the rounds done. */
static unsigned until_fatal(struct dpt_side *s, struct rs *r,
			    const char *running)
{
	unsigned seq = 0;
	long last = now_ms();

	CHECK(post_recv_ok(r) == 0, "post_recv");
	dpt_sync(s);
	while (round_trip(s, r, seq, s->name == 'A', 1)) {
		seq++;
		last = now_ms();
		if (running && seq == 200) {
			int fd = open(running, O_WRONLY | O_CREAT | O_CLOEXEC,
				      0644);

			CHECK(fd >= 0, "create %s: %s", running,
			      strerror(errno));
			close(fd);
		}
	}
	/* A failed post or a flushed completion ended the loop: the event
	 * must follow. */
	while (!fatal_seen(s))
		CHECK(now_ms() - last < WAIT_MS, "no DEVICE_FATAL within %d ms "
		      "of the last completion", WAIT_MS);
	dpt_log(s, "DEVICE_FATAL %ld ms after the last of %u round trips",
		now_ms() - last, seq);
	return seq;
}

/* Frees what the dead context held: succeeds, as after a kernel
 * device's disassociation. */
static void drop_old(struct dpt_side *s, struct rs *r)
{
	int rc;

	rc = ibv_destroy_qp(r->qp);
	CHECK(rc == 0, "ibv_destroy_qp on the dead device: %s", strerror(rc));
	rc = ibv_destroy_cq(r->cq);
	CHECK(rc == 0, "ibv_destroy_cq on the dead device: %s", strerror(rc));
	rc = ibv_dereg_mr(r->mr);
	CHECK(rc == 0, "ibv_dereg_mr on the dead device: %s", strerror(rc));
	rc = ibv_dealloc_pd(s->pd);
	CHECK(rc == 0, "ibv_dealloc_pd on the dead device: %s", strerror(rc));
	rc = ibv_close_device(s->ctx);
	CHECK(rc == 0, "ibv_close_device on the dead device: %s",
	      strerror(rc));
	free(r->buf);
	s->ctx = NULL;
	s->pd = NULL;
}

/* Lists the devices again (same process, same namespace) and opens the
 * one with the old name; its GUID and GID must not have changed. */
static void reopen(struct dpt_side *s, const struct ident *old)
{
	struct ibv_device **list;
	struct ibv_port_attr pa;
	struct ident now;
	int n, i;

	list = ibv_get_device_list(&n);
	CHECK(list, "ibv_get_device_list after the restart: %s",
	      strerror(errno));
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), old->name))
			break;
	CHECK(i < n, "device %s not listed after the restart (%d devices)",
	      old->name, n);
	s->ctx = ibv_open_device(list[i]);
	CHECK(s->ctx, "ibv_open_device after the restart: %s",
	      strerror(errno));
	fatal_got = 0;
	ibv_free_device_list(list);
	s->pd = ibv_alloc_pd(s->ctx);
	CHECK(s->pd, "ibv_alloc_pd after the restart: %s", strerror(errno));
	CHECK(ibv_query_gid(s->ctx, 1, 0, &s->gid) == 0, "ibv_query_gid");
	CHECK(ibv_query_port(s->ctx, 1, &pa) == 0, "ibv_query_port");
	CHECK(pa.state == IBV_PORT_ACTIVE, "port state %d", pa.state);
	s->mtu = pa.active_mtu;
	ident_of(s, &now);
	CHECK(now.guid == old->guid, "node GUID %016llx, was %016llx",
	      (unsigned long long)be64toh(now.guid),
	      (unsigned long long)be64toh(old->guid));
	CHECK(!memcmp(&now.gid, &old->gid, sizeof(now.gid)),
	      "GID 0 changed across the restart");
}

static void wait_file(const char *path, int secs)
{
	long end = now_ms() + secs * 1000L;

	while (access(path, F_OK) != 0) {
		CHECK(now_ms() < end, "%s not created within %d s", path, secs);
		usleep(50000);
	}
}

static int run(struct dpt_side *s)
{
	struct ident old;
	struct rs r;
	unsigned n;

	CHECK(s->argc == 2, "usage: dpt_restart NS_A NS_B RUNNING BACK");
	ident_of(s, &old);
	rs_setup(s, &r);
	until_fatal(s, &r, s->name == 'A' ? s->argv[0] : NULL);
	drop_old(s, &r);
	if (s->name == 'A')
		wait_file(s->argv[1], 30);
	alarm(60);
	dpt_sync(s);
	reopen(s, &old);
	rs_setup(s, &r);
	CHECK(post_recv_ok(&r) == 0, "post_recv after the restart");
	dpt_sync(s);
	for (n = 0; n < 100; n++)
		round_trip(s, &r, 1000 + n, s->name == 'A', 0);
	/* B stays until A has its last echo (its exit would free the QP
	 * with the echo still queued). */
	dpt_sync(s);
	dpt_log(s, "reopened %s (same GUID and GID) in the same process; "
		"%u round trips with checked data", old.name, n);
	return 0;
}

int main(int argc, char **argv)
{
	return dpt_main(argc, argv, run, run);
}
