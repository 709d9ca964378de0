/* SPDX-License-Identifier: MIT */
/*
 * LD_PRELOAD for a perftest -R client in t_cm_interop.sh: its second
 * rdma_connect waits until the file $PV_CM_GATE exists (at most 60 s).
 *
 * perftest connects twice to one port: first for its parameter exchange,
 * then, after a handshake over that connection, the test's own.  Its
 * server listens for the second only after the handshake, so a client
 * faster than the server (ours, against a TCG guest) sends the REQ to no
 * listener and gets REJ 8, and Debian 12's perftest 4.5-0.17 crashes in
 * its retry (rdma_cm_client_connection reuses the nodes
 * rdma_cm_destroy_cma freed; fixed upstream in perftest 3d9d8d0).  The
 * test creates the file once the server's second listener exists, which
 * takes the race out of perftest's protocol: nothing else changes.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

struct rdma_cm_id;
struct rdma_conn_param;

int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *param);

int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *param)
{
	static int calls;
	int (*next)(struct rdma_cm_id *, struct rdma_conn_param *);
	const char *gate = getenv("PV_CM_GATE");

	*(void **)&next = dlsym(RTLD_NEXT, "rdma_connect");
	if (!next)
		return -1;
	if (++calls == 2 && gate)
		for (int i = 0; i < 600 && access(gate, F_OK) != 0; i++)
			usleep(100000);
	return next(id, param);
}
