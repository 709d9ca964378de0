/* SPDX-License-Identifier: MIT */
/*
 * pvctl's session with the engine: connect to the socket the command
 * needs, say HELLO, call one request at a time; and the error messages
 * every request can end in.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "providers/soft/pvctl/pvctl.h"

int pvctl_fail(struct pvctl *c, int code, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "pvctl: %s: ", c->what);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

/* A message for errors every admin request can get. */
int pvctl_fail_common(struct pvctl *c, int err)
{
	if (err == -EPERM)
		return pvctl_fail(c, PVCTL_EXIT_FAIL, "permission denied "
				  "(admin requests are served to root on the "
				  "admin socket only)");
	if (err == -EPROTO || err == -EINVAL)
		return pvctl_fail(c, PVCTL_EXIT_FAIL, "engine rejected the "
				  "request: %s (version mismatch?)",
				  strerror(-err));
	return pvctl_fail(c, PVCTL_EXIT_FAIL, "%s", strerror(-err));
}

int pvctl_connect(struct pvctl *c)
{
	struct pv_ipc_hello h = { .abi_version = PV_IPC_VERSION };
	const char *path = c->sock == PVCTL_SOCK_ADMIN ? c->admin_socket :
			   c->socket;
	int ret;

	c->fd = pv_ipc_connect(path);
	if (c->fd < 0)
		return pvctl_fail(c, PVCTL_EXIT_UNREACH, "cannot reach the "
				  "engine at %s: %s%s", path, strerror(-c->fd),
				  c->fd == -EACCES && c->sock == PVCTL_SOCK_ADMIN ?
				  " (the admin socket is root's)" : "");
	ret = pv_ipc_call(c->fd, &c->seq, PV_OP_HELLO, &h, sizeof(h), &h,
			  sizeof(h), NULL, NULL, NULL);
	if (ret < 0)
		return pvctl_fail(c, PVCTL_EXIT_UNREACH, "engine at %s did not "
				  "answer HELLO: %s", path, strerror(-ret));
	return 0;
}

/* Calls op; the reply goes into a malloc'd buffer (*ret_buf). */
int pvctl_call(struct pvctl *c, uint16_t op, const void *req, uint32_t len,
	       void **ret_buf, uint32_t *ret_len)
{
	void *buf = calloc(1, PV_IPC_MAX_PAYLOAD);
	int ret;

	if (!buf)
		return -ENOMEM;
	ret = pv_ipc_call(c->fd, &c->seq, op, req, len, buf, PV_IPC_MAX_PAYLOAD,
			  ret_len, NULL, NULL);
	if (ret < 0) {
		free(buf);
		return ret;
	}
	*ret_buf = buf;
	return 0;
}
