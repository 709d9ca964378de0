/* SPDX-License-Identifier: MIT */
/*
 * Framing of the engine IPC (common/pv-ipc-abi.h) over AF_UNIX
 * SOCK_SEQPACKET: send/receive one message with optional fds, validate
 * headers, and a blocking request/reply call for clients.  What each op
 * carries is the device's ABI (the soft device's request size and fd
 * tables: providers/soft/proto/pv_ipc_ops.h).  Functions return >= 0 on
 * success and -errno on failure; none logs.
 */
#ifndef PV_IPC_H
#define PV_IPC_H

#include <stddef.h>
#include <stdint.h>

#include "common/pv-ipc-abi.h"

/* The engine socket path: $PODVERBS_ENGINE or the default. */
const char *pv_ipc_socket_path(void);

/*
 * The admin socket: admin requests are served only there (never on the
 * pod socket, whose folder the device plugin mounts into pods).  Its
 * folder is root's, mode 0700.
 */
#define PV_IPC_ADMIN_SOCKET_ENV		"PODVERBS_ADMIN_SOCKET"
#define PV_IPC_DEFAULT_ADMIN_SOCKET	"/run/podverbs-admin/admin.sock"

/*
 * Pure: the admin socket that goes with pod socket sock when none is
 * named: "<sock's folder>-admin/admin.sock", a sibling of the pod
 * socket's folder, never inside it (/run/podverbs/engine.sock gives
 * PV_IPC_DEFAULT_ADMIN_SOCKET).  Returns 0, -EINVAL when sock has no
 * folder but "/" or ".", or -ENAMETOOLONG.
 */
int pv_ipc_admin_path_for(const char *sock, char *buf, size_t cap);

/* For tools: $PODVERBS_ADMIN_SOCKET, else pv_ipc_admin_path_for(sock)
 * into buf (falls back to the default when too long). */
const char *pv_ipc_admin_socket_path(const char *sock, char *buf,
				     size_t cap);

/* Connects (SOCK_SEQPACKET, CLOEXEC) to path; returns the fd or -errno. */
int pv_ipc_connect(const char *path);

/* Sends one message; fds (nfds <= PV_IPC_MAX_FDS) go as SCM_RIGHTS and stay
 * owned by the caller.  Returns 0 or -errno. */
int pv_ipc_send(int sock, uint16_t op, uint32_t seq, int32_t status,
		const void *payload, uint32_t len, const int *fds, int nfds);

/*
 * Receives one message into buf (cap bytes, at least the header).  On
 * success returns the payload length (payload at buf + sizeof(hdr)), and
 * stores received fds in fds[] (caller owns them; *nfds set, fds may be
 * NULL to close any that came).  Returns -ECONNRESET on end of stream,
 * -EPROTO for a malformed or truncated message (any fds that came are
 * dropped, see pv_ipc_set_fd_dropper), -EAGAIN on a non-blocking socket with nothing queued.
 */
int pv_ipc_recv(int sock, void *buf, size_t cap, int *fds, int *nfds);

/* How pv_ipc_recv disposes of fds it does not hand back (beyond
 * PV_IPC_MAX_FDS, or with a malformed message): close by default; the
 * engine passes its reaper (a close there could block). */
void pv_ipc_set_fd_dropper(void (*fn)(int fd));

/* Pure: checks a header against the number of bytes that arrived.
 * Returns 0 or -EPROTO. */
int pv_ipc_check_hdr(const struct pv_msg_hdr *hdr, size_t got);

/*
 * Client call: sends a request with the next sequence number of *seq and
 * waits for its reply.  Copies at most resp_cap payload bytes to resp and
 * sets *resp_len (may be NULL) to the payload length.  Fds in the reply are
 * stored in fds[] (up to PV_IPC_MAX_FDS; *nfds set) or closed when fds is
 * NULL.  Returns the reply's status (0 or -errno), or -errno of the
 * transport.
 */
int pv_ipc_call(int sock, uint32_t *seq, uint16_t op, const void *req,
		uint32_t req_len, void *resp, uint32_t resp_cap,
		uint32_t *resp_len, int *fds, int *nfds);

/* pv_ipc_call that also passes req_fds (nreq_fds <= PV_IPC_MAX_FDS, still
 * owned by the caller) with the request. */
int pv_ipc_call_fds(int sock, uint32_t *seq, uint16_t op, const void *req,
		    uint32_t req_len, const int *req_fds, int nreq_fds,
		    void *resp, uint32_t resp_cap, uint32_t *resp_len,
		    int *fds, int *nfds);

#endif /* PV_IPC_H */
