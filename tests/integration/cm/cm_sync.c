/* SPDX-License-Identifier: MIT */
/*
 * Synchronous ids (NULL channel) over our librdmacm, the way rdma-core's
 * rdma_server/rdma_client use them but with heap buffers:
 *   cm_sync server ADDR PORT   rdma_create_ep(passive) + rdma_listen +
 *                              rdma_get_request + rdma_accept, echo 100
 *   cm_sync server-srq ADDR PORT  the same, the request's QP made after
 *                              rdma_create_srq, so it receives from the
 *                              id's SRQ (rdma_post_recv posts there)
 *   cm_sync client ADDR PORT   rdma_getaddrinfo + rdma_create_ep +
 *                              rdma_connect, 100 send/recv round trips
 *   cm_sync nonblock           a channel's fd with O_NONBLOCK: EAGAIN
 * Prints "ok ..." lines; exits 0 on success.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#define ROUNDS 100
#define MSG 64

static int die(const char *what)
{
	fprintf(stderr, "cm_sync: %s: %s\n", what, strerror(errno));
	return 1;
}

static const struct ibv_qp_init_attr qp_attr = {
	.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
		 .max_recv_sge = 1 },
	.sq_sig_all = 1,
};

/* passive 2: no QP for the requests (the caller makes it). */
static struct rdma_cm_id *endpoint(const char *addr, const char *port,
				   int passive)
{
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP }, *res;
	struct ibv_qp_init_attr attr = qp_attr;
	struct rdma_cm_id *id;

	if (passive)
		hints.ai_flags = RAI_PASSIVE;
	if (rdma_getaddrinfo(addr, port, &hints, &res))
		return die("rdma_getaddrinfo"), NULL;
	if (rdma_create_ep(&id, res, NULL, passive == 2 ? NULL : &attr)) {
		rdma_freeaddrinfo(res);
		return die("rdma_create_ep"), NULL;
	}
	rdma_freeaddrinfo(res);
	return id;
}

/* n round trips: the server receives then sends back, the client the
 * other way round; each message carries its round number. */
static int pingpong(struct rdma_cm_id *id, int server)
{
	char *buf = calloc(2, MSG);
	struct ibv_mr *mr;
	struct ibv_wc wc;

	mr = rdma_reg_msgs(id, buf, 2 * MSG);
	if (!mr)
		return die("rdma_reg_msgs");
	for (int i = 0; i < ROUNDS; i++) {
		if (rdma_post_recv(id, NULL, buf + MSG, MSG, mr))
			return die("rdma_post_recv");
		if (!server) {
			snprintf(buf, MSG, "round %d", i);
			if (rdma_post_send(id, NULL, buf, MSG, mr, 0) ||
			    rdma_get_send_comp(id, &wc) <= 0 ||
			    wc.status != IBV_WC_SUCCESS)
				return die("send");
		}
		if (rdma_get_recv_comp(id, &wc) <= 0 ||
		    wc.status != IBV_WC_SUCCESS)
			return die("recv");
		char want[MSG];

		snprintf(want, MSG, "round %d", i);
		if (strcmp(buf + MSG, want) != 0) {
			fprintf(stderr, "cm_sync: got '%s', want '%s'\n",
				buf + MSG, want);
			return 1;
		}
		if (server) {
			memcpy(buf, buf + MSG, MSG);
			if (rdma_post_send(id, NULL, buf, MSG, mr, 0) ||
			    rdma_get_send_comp(id, &wc) <= 0 ||
			    wc.status != IBV_WC_SUCCESS)
				return die("send back");
		}
	}
	rdma_dereg_mr(mr);
	free(buf);
	printf("ok %d round trips verified\n", ROUNDS);
	return 0;
}

/* The request's id gets an SRQ, then its QP, which takes the SRQ. */
static int srq_qp(struct rdma_cm_id *id)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct ibv_qp_init_attr qa = qp_attr;

	if (rdma_create_srq(id, NULL, &sa))
		return die("rdma_create_srq");
	if (rdma_create_qp(id, NULL, &qa))
		return die("rdma_create_qp");
	if (!id->srq || id->qp->srq != id->srq)
		return fprintf(stderr, "cm_sync: the QP lacks the id's SRQ\n"), 1;
	printf("ok QP made on the id's SRQ\n");
	return 0;
}

static int server(const char *addr, const char *port, int with_srq)
{
	struct rdma_cm_id *l = endpoint(addr, port, with_srq ? 2 : 1), *id;
	int ret;

	if (!l)
		return 1;
	if (rdma_listen(l, 1))
		return die("rdma_listen");
	printf("ok listening\n");
	fflush(stdout);
	if (rdma_get_request(l, &id))
		return die("rdma_get_request");
	if (with_srq && srq_qp(id))
		return 1;
	if (!id->qp || !id->pd)
		return fprintf(stderr, "cm_sync: request without QP/PD\n"), 1;
	if (rdma_accept(id, NULL))
		return die("rdma_accept");
	printf("ok accepted\n");
	ret = pingpong(id, 1);
	rdma_disconnect(id);
	rdma_destroy_ep(id);
	rdma_destroy_ep(l);
	return ret;
}

static int client(const char *addr, const char *port)
{
	struct rdma_cm_id *id = endpoint(addr, port, 0);
	struct rdma_conn_param cp = { .responder_resources = 1,
				      .initiator_depth = 1, .retry_count = 7,
				      .rnr_retry_count = 7 };
	int ret;

	if (!id)
		return 1;
	if (rdma_connect(id, &cp))
		return die("rdma_connect");
	printf("ok connected\n");
	ret = pingpong(id, 0);
	rdma_disconnect(id);
	rdma_destroy_ep(id);
	return ret;
}

static int nonblock(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_event *ev;
	struct pollfd p;

	if (!ch)
		return die("rdma_create_event_channel");
	p = (struct pollfd){ .fd = ch->fd, .events = POLLIN };
	if (poll(&p, 1, 0) != 0)
		return fprintf(stderr, "cm_sync: fd readable when empty\n"), 1;
	fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) | O_NONBLOCK);
	if (rdma_get_cm_event(ch, &ev) != -1 || errno != EAGAIN)
		return fprintf(stderr, "cm_sync: no EAGAIN\n"), 1;
	rdma_destroy_event_channel(ch);
	printf("ok O_NONBLOCK channel gives EAGAIN\n");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "server"))
		return server(argv[2], argv[3], 0);
	if (argc == 4 && !strcmp(argv[1], "server-srq"))
		return server(argv[2], argv[3], 1);
	if (argc == 4 && !strcmp(argv[1], "client"))
		return client(argv[2], argv[3]);
	if (argc == 2 && !strcmp(argv[1], "nonblock"))
		return nonblock();
	fprintf(stderr, "usage: cm_sync server|server-srq|client ADDR PORT | nonblock\n");
	return 2;
}
