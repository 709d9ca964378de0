/* SPDX-License-Identifier: MIT */
/*
 * Async events of a pod's device, seen by an application in the pod:
 * the pod's interface going down and up raises IBV_EVENT_PORT_ERR and
 * IBV_EVENT_PORT_ACTIVE (and ibv_query_port follows); the engine going
 * away raises IBV_EVENT_DEVICE_FATAL, after which posting fails with an
 * error instead of hanging and polling still answers.  The test script
 * passes three commands (run from the namespace the program started in):
 * link down, link up, stop the engine.  Side B only keeps its pod company.
 */
#include "dpt.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int home_system(struct dpt_side *s, const char *cmd)
{
	int here = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC), rc;

	CHECK(here >= 0, "open own netns");
	CHECK(setns(s->home_netns, CLONE_NEWNET) == 0, "setns home");
	rc = system(cmd);
	CHECK(setns(here, CLONE_NEWNET) == 0, "setns back");
	close(here);
	return rc;
}

/* Waits up to 5 s for an event of type want (others are skipped). */
static void want_event(struct dpt_side *s, enum ibv_event_type want)
{
	struct ibv_async_event ev;
	struct pollfd p = { .fd = s->ctx->async_fd, .events = POLLIN };

	for (;;) {
		int n = poll(&p, 1, 5000);

		CHECK(n == 1, "no %s within 5 s", ibv_event_type_str(want));
		CHECK(ibv_get_async_event(s->ctx, &ev) == 0,
		      "ibv_get_async_event: %s", strerror(errno));
		ibv_ack_async_event(&ev);
		dpt_log(s, "async event %s", ibv_event_type_str(ev.event_type));
		if (ev.event_type == want)
			return;
	}
}

static enum ibv_port_state port_state(struct dpt_side *s)
{
	struct ibv_port_attr pa;

	CHECK(ibv_query_port(s->ctx, 1, &pa) == 0, "ibv_query_port");
	return pa.state;
}

static int side_a(struct dpt_side *s)
{
	struct ibv_cq *cq = dpt_cq(s, 16, NULL);
	struct ibv_qp *qp = dpt_qp(s, IBV_QPT_UD, cq, NULL, NULL, 1);
	char *buf = dpt_buf(4096);
	struct ibv_mr *mr = dpt_mr(s, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_sge sge = { (uintptr_t)buf, 4096, mr->lkey };
	struct ibv_wc wc;
	int rc;

	CHECK(s->argc == 3, "usage: dpt_async NS_A NS_B DOWN_CMD UP_CMD STOP_CMD");
	dpt_ud_ready(qp, 0x1234);
	dpt_sync(s);

	CHECK(home_system(s, s->argv[0]) == 0, "link down: %s", s->argv[0]);
	want_event(s, IBV_EVENT_PORT_ERR);
	CHECK(port_state(s) != IBV_PORT_ACTIVE, "port ACTIVE with link down");
	CHECK(home_system(s, s->argv[1]) == 0, "link up: %s", s->argv[1]);
	want_event(s, IBV_EVENT_PORT_ACTIVE);
	CHECK(port_state(s) == IBV_PORT_ACTIVE, "port not ACTIVE after up");

	CHECK(home_system(s, s->argv[2]) == 0, "stop engine: %s", s->argv[2]);
	want_event(s, IBV_EVENT_DEVICE_FATAL);
	rwr = (struct ibv_recv_wr){ .wr_id = 1, .sg_list = &sge, .num_sge = 1 };
	rc = ibv_post_recv(qp, &rwr, &rbad);
	CHECK(rc != 0, "ibv_post_recv succeeded with the engine gone");
	CHECK(ibv_poll_cq(cq, 1, &wc) >= 0, "ibv_poll_cq failed after fatal");
	dpt_log(s, "port down/up events, DEVICE_FATAL when the engine stops, "
		"post then fails (%s): ok", strerror(rc));
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
