/* SPDX-License-Identifier: MIT */
/*
 * Event sockets: the context's async socket (from CTX_OPEN) and one socket
 * per completion channel (from CHANNEL_CREATE).  The engine pushes bare
 * struct pv_ipc_event / pv_ipc_cq_event datagrams; a framed message (a
 * pv_msg_hdr in front) is accepted too.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "providers/soft/provider/soft_provider.h"

/* Pure: extracts an out_len-byte event from one received datagram. */
int soft_parse_event(const void *buf, size_t n, void *out, size_t out_len)
{
	const struct pv_msg_hdr *hdr = buf;

	if (n == out_len) {
		memcpy(out, buf, out_len);
		return 0;
	}
	if (n == sizeof(*hdr) + out_len && pv_ipc_check_hdr(hdr, n) == 0) {
		memcpy(out, (const char *)buf + sizeof(*hdr), out_len);
		return 0;
	}
	return -EPROTO;
}

/* Reads datagrams until one parses; a blocking or O_NONBLOCK fd alike. */
static int read_event(int fd, void *out, size_t out_len)
{
	union {
		struct pv_msg_hdr hdr;
		char bytes[128];
	} buf;

	for (;;) {
		ssize_t n = recv(fd, &buf, sizeof(buf), 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ECONNRESET;	/* the engine went away */
		if (soft_parse_event(&buf, (size_t)n, out, out_len) == 0)
			return 0;
		/* Not an event of ours: skip it. */
	}
}

/* The engine gone is this device's fatal error (IBA 11.6.3.3): reported
 * once; later reads fail with EIO rather than spin on a closed socket. */
static int engine_gone(struct soft_ctx *sc, struct pv_async_desc *ev)
{
	atomic_store(&sc->dead, true);
	soft_death_flush(sc);
	if (atomic_exchange(&sc->fatal_reported, true))
		return -EIO;
	ev->event_type = IBV_EVENT_DEVICE_FATAL;
	ev->kind = 0;
	ev->handle = 0;
	return 0;
}

int soft_read_async_event(struct pv_context *ctx, struct pv_async_desc *ev)
{
	struct pv_ipc_event e;
	int ret = read_event(ctx->vctx.context.async_fd, &e, sizeof(e));

	if (ret == -ECONNRESET || ret == -ECONNREFUSED || ret == -EPIPE)
		return engine_gone(soft_ctx_of(ctx), ev);
	if (ret < 0)
		return ret;
	ev->event_type = e.event_type;
	ev->kind = e.obj_kind;
	ev->handle = e.handle;
	return 0;
}

int soft_read_cq_event(struct pv_context *ctx, struct pv_channel *ch,
		       uint32_t *ret_cq_handle)
{
	struct pv_ipc_cq_event e;
	int ret = read_event(ch->ibv.fd, &e, sizeof(e));

	if (ret == -ECONNRESET || ret == -ECONNREFUSED || ret == -EPIPE)
		return soft_death_cq_event(soft_ctx_of(ctx), ch,
					   ret_cq_handle);
	if (ret < 0)
		return ret;
	*ret_cq_handle = e.cq_handle;
	return 0;
}

int soft_create_channel(struct pv_context *ctx, struct pv_channel *ch)
{
	int fds[PV_IPC_MAX_FDS], nfds = 0;
	struct pv_ipc_handle h;
	uint32_t got = 0;
	int ret;

	ret = soft_call(&soft_ctx_of(ctx)->conn, PV_OP_CHANNEL_CREATE, NULL, 0,
			&h, sizeof(h), &got, fds, &nfds);
	if (ret < 0)
		goto err_close_fds;
	if (nfds != 1 || got < sizeof(h)) {
		ret = -EPROTO;
		goto err_close_fds;
	}
	ch->handle = h.handle;
	ch->ibv.fd = fds[0];
	return 0;

err_close_fds:
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
	return ret;
}

int soft_destroy_channel(struct pv_context *ctx, struct pv_channel *ch)
{
	struct pv_ipc_handle h = { .handle = ch->handle };
	int ret;

	ret = soft_call_fixed(&soft_ctx_of(ctx)->conn, PV_OP_CHANNEL_DESTROY,
			      &h, sizeof(h), NULL, 0);
	/* The engine forgets the channel either way once asked (or is gone):
	 * our fd must not leak. */
	if (ret < 0 && ret != -ECONNRESET && ret != -EPIPE)
		return ret;
	close(ch->ibv.fd);
	ch->ibv.fd = -1;
	return 0;
}
