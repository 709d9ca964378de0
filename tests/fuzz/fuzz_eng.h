/* SPDX-License-Identifier: MIT */
/*
 * A fuzzing fixture around the engine: one struct eng with one device
 * built from a made-up link (no namespaces, no root), and one client
 * connection over a socketpair with a pod's identity (uid 1000, the
 * device's network namespace, never admin), as
 * tests/unit/engine/test_eng_dispatch.c sets it up.  Requests go through
 * eng_conn_serve(), the entry point the engine's loop calls, so the
 * harness depends on no internal function of the dispatcher.
 */
#ifndef FUZZ_ENG_H
#define FUZZ_ENG_H

#include <stddef.h>
#include <stdint.h>

#include "common/pv_ipc.h"
#include "providers/soft/pv-soft-abi.h"
#include "providers/soft/engine/eng.h"
#include "providers/soft/engine/eng_loop.h"

struct fz_eng {
	struct eng e;
	struct eng_dev *dev;
	struct eng_conn *conn;		/* NULL once the engine closed it */
	int cli;			/* the pod's end of the socketpair */
	uint32_t seq;
	char reply[PV_IPC_MAX_MSG] __attribute__((aligned(8)));
	int reply_len;			/* payload bytes, or -errno */
	int fds[PV_IPC_MAX_FDS];	/* fds of the last reply (kept) */
	int nfds;
};

/* Quiet logs, fixed limits: once per process. */
void fz_eng_global_init(void);
int fz_eng_setup(struct fz_eng *f);
void fz_eng_teardown(struct fz_eng *f);
/* Sends one datagram (raw bytes) with optional fds, lets the engine
 * serve it, keeps the reply.  Returns the reply's status, -EAGAIN when
 * no reply came, -ECONNRESET when the engine dropped the connection. */
int fz_eng_send_raw(struct fz_eng *f, const void *msg, size_t len,
		    const int *fds, int nfds);
/* A framed request: header + len payload bytes. */
int fz_eng_call(struct fz_eng *f, uint16_t op, const void *req, uint32_t len,
		const int *fds, int nfds);
/* Closes the fds the last reply carried. */
void fz_eng_drop_fds(struct fz_eng *f);

#endif /* FUZZ_ENG_H */
