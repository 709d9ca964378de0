/* SPDX-License-Identifier: MIT */
/*
 * Event channels: a connection to the engine, proven by HELLO with this
 * thread's network namespace (as the verbs provider's), then CM_OPEN,
 * whose reply carries the event socket that becomes the channel's fd.
 * Closing the connection frees every id the engine holds for it.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/pv_ipc.h"
#include "librdmacm/rc_cm.h"
#include "librdmacm/rc_core.h"

static int hello(struct rc_chan *ch)
{
	struct pv_ipc_hello h = { .abi_version = PV_IPC_VERSION };
	int ns, ret;

	ns = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (ns < 0)
		return -errno;
	h.flags = PV_HELLO_NETNS;
	ret = pv_ipc_call_fds(ch->ctl, &ch->seq, PV_OP_HELLO, &h, sizeof(h),
			      &ns, 1, &h, sizeof(h), NULL, NULL, NULL);
	close(ns);
	return ret;
}

int rc_chan_open(struct rc_chan **out)
{
	struct pv_ipc_handle rep;
	struct rc_chan *ch;
	int fds[PV_IPC_MAX_FDS], nfds = 0, ret;

	ch = calloc(1, sizeof(*ch));
	if (!ch)
		return -ENOMEM;
	ch->pub.fd = -1;
	pthread_mutex_init(&ch->lock, NULL);
	ch->ctl = pv_ipc_connect(pv_ipc_socket_path());
	if (ch->ctl < 0) {
		ret = ch->ctl;
		goto err_free;
	}
	ret = hello(ch);
	if (ret == 0)
		ret = pv_ipc_call(ch->ctl, &ch->seq, PV_OP_CM_OPEN, NULL, 0,
				  &rep, sizeof(rep), NULL, fds, &nfds);
	if (ret == 0 && nfds != 1)
		ret = -EPROTO;
	for (int i = ret == 0 ? 1 : 0; i < nfds; i++)
		close(fds[i]);
	if (ret < 0)
		goto err_close;
	ch->pub.fd = fds[0];
	*out = ch;
	return 0;

err_close:
	close(ch->ctl);
err_free:
	pthread_mutex_destroy(&ch->lock);
	free(ch);
	if (rc_debug())
		fprintf(stderr, "librdmacm (podverbs): no CM channel from the "
			"engine at %s: %s\n", pv_ipc_socket_path(),
			strerror(-ret));
	return ret;
}

/*
 * A thread may still be blocked reading the channel (rping's CM thread
 * is, when its main thread destroys the channel).  On the kernel's
 * rdma_cm fd that read never returns; here the engine's hangup would end
 * it, so it sees `closing` and blocks for good instead (rc_event_read),
 * and the struct it uses stays allocated.
 */
void rc_chan_close(struct rc_chan *ch)
{
	if (!ch)
		return;
	atomic_store(&ch->closing, true);
	close(ch->pub.fd);
	close(ch->ctl);
	if (atomic_load(&ch->readers) == 0) {
		pthread_mutex_destroy(&ch->lock);
		free(ch);
	}
}

void rc_chan_ref(struct rc_chan *ch)
{
	atomic_fetch_add(&ch->refs, 1);
}

void rc_chan_unref(struct rc_chan *ch)
{
	if (atomic_fetch_sub(&ch->refs, 1) == 1)
		rc_chan_close(ch);
}

int rc_call(struct rc_chan *ch, uint16_t op, const void *req, uint32_t len,
	    void *resp, uint32_t resp_len)
{
	uint32_t got = 0;
	int ret;

	pthread_mutex_lock(&ch->lock);
	ret = pv_ipc_call(ch->ctl, &ch->seq, op, req, len, resp, resp_len,
			  &got, NULL, NULL);
	pthread_mutex_unlock(&ch->lock);
	if (ret == 0 && resp_len && got < resp_len)
		return -EPROTO;
	return ret;
}

struct rc_id *rc_id_find(struct rc_chan *ch, uint32_t handle)
{
	struct rc_id *id;

	pthread_mutex_lock(&ch->lock);
	for (id = ch->ids; id && id->handle != handle; id = id->next)
		;
	pthread_mutex_unlock(&ch->lock);
	return id;
}

void rc_id_link(struct rc_chan *ch, struct rc_id *id)
{
	pthread_mutex_lock(&ch->lock);
	id->ch = ch;
	id->next = ch->ids;
	ch->ids = id;
	pthread_mutex_unlock(&ch->lock);
}

void rc_id_unlink(struct rc_chan *ch, struct rc_id *id)
{
	pthread_mutex_lock(&ch->lock);
	for (struct rc_id **p = &ch->ids; *p; p = &(*p)->next) {
		if (*p == id) {
			*p = id->next;
			break;
		}
	}
	pthread_mutex_unlock(&ch->lock);
}

RC_EXPORT struct rdma_event_channel *rdma_create_event_channel(void)
{
	struct rc_chan *ch;
	int ret = rc_chan_open(&ch);

	if (ret < 0) {
		errno = -ret;
		return NULL;
	}
	return &ch->pub;
}

RC_EXPORT void rdma_destroy_event_channel(struct rdma_event_channel *channel)
{
	rc_chan_close((struct rc_chan *)channel);
}
