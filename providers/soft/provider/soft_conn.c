/* SPDX-License-Identifier: MIT */
/* One client connection to the engine: connect + HELLO, serialised calls. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "providers/soft/provider/soft_provider.h"

/*
 * HELLO with an fd of this thread's own network namespace: the engine
 * shows the devices of the namespace the connection proves this way
 * (issue 8, finding 4), none without it.
 */
static int say_hello(struct soft_conn *c)
{
	struct pv_ipc_hello hello = { .abi_version = PV_IPC_VERSION };
	int ns, ret;

	ns = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (ns >= 0)
		hello.flags = PV_HELLO_NETNS;
	ret = soft_call_fds(c, PV_OP_HELLO, &hello, sizeof(hello), &ns,
			    ns >= 0 ? 1 : 0, &hello, sizeof(hello));
	if (ns >= 0)
		close(ns);
	return ret;
}

int soft_conn_open(struct soft_conn *c, const char *path)
{
	int ret;

	memset(c, 0, sizeof(*c));
	c->fd = pv_ipc_connect(path);
	if (c->fd < 0)
		return c->fd;
	pthread_mutex_init(&c->lock, NULL);
	ret = say_hello(c);
	if (ret < 0)
		goto err_close;
	return 0;

err_close:
	soft_conn_close(c);
	return ret;
}

void soft_conn_close(struct soft_conn *c)
{
	if (c->fd < 0)
		return;
	close(c->fd);
	c->fd = -1;
	pthread_mutex_destroy(&c->lock);
}

int soft_call(struct soft_conn *c, uint16_t op, const void *req,
	      uint32_t req_len, void *resp, uint32_t resp_cap,
	      uint32_t *resp_len, int *fds, int *nfds)
{
	int ret;

	pthread_mutex_lock(&c->lock);
	ret = pv_ipc_call(c->fd, &c->seq, op, req, req_len, resp, resp_cap,
			  resp_len, fds, nfds);
	pthread_mutex_unlock(&c->lock);
	return ret;
}

int soft_call_fds(struct soft_conn *c, uint16_t op, const void *req,
		  uint32_t req_len, const int *req_fds, int nreq_fds,
		  void *resp, uint32_t resp_len)
{
	uint32_t got = 0;
	int ret;

	pthread_mutex_lock(&c->lock);
	ret = pv_ipc_call_fds(c->fd, &c->seq, op, req, req_len, req_fds,
			      nreq_fds, resp, resp_len, &got, NULL, NULL);
	pthread_mutex_unlock(&c->lock);
	if (ret < 0)
		return ret;
	/* A reply shorter than its struct would leave fields unset. */
	if (resp_len && got < resp_len)
		return -EPROTO;
	return 0;
}

int soft_call_grown(struct soft_conn *c, uint16_t op, const void *req,
		    uint32_t req_len, void *resp, uint32_t resp_len,
		    uint32_t min_len, uint32_t *got)
{
	uint32_t n = 0;
	int ret;

	pthread_mutex_lock(&c->lock);
	ret = pv_ipc_call_fds(c->fd, &c->seq, op, req, req_len, NULL, 0,
			      resp, resp_len, &n, NULL, NULL);
	pthread_mutex_unlock(&c->lock);
	if (ret < 0)
		return ret;
	if (n < min_len)
		return -EPROTO;
	if (n < resp_len)
		memset((uint8_t *)resp + n, 0, resp_len - n);
	if (got)
		*got = n < resp_len ? n : resp_len;
	return 0;
}

int soft_call_fixed(struct soft_conn *c, uint16_t op, const void *req,
		    uint32_t req_len, void *resp, uint32_t resp_len)
{
	return soft_call_fds(c, op, req, req_len, NULL, 0, resp, resp_len);
}
