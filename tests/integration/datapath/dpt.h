/* SPDX-License-Identifier: MIT */
/*
 * A small harness for data-path integration tests: one program runs both
 * ends of a connection, side A in the parent and side B in a forked child,
 * each inside its own pod's network namespace (setns before any verbs
 * call, so each side's engine connection belongs to its pod).  The sides
 * talk over a socketpair to exchange QP numbers, GIDs and keys and to keep
 * in step.
 *
 *   usage: PROGRAM NETNS_PATH_A NETNS_PATH_B [ARGS...]
 *   (PODVERBS_ENGINE: side A's engine; PODVERBS_ENGINE_B, when set, side B's)
 *
 * A failed CHECK prints where and why and exits 1; the other side then
 * sees the socketpair close and fails too.  dpt_main's exit status is 0
 * only when both sides returned 0.
 */
#ifndef DPT_H
#define DPT_H

#include <infiniband/verbs.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond))						\
			dpt_fail(__FILE__, __LINE__, #cond, __VA_ARGS__); \
	} while (0)

/* Every RC test uses these remote rights unless it tests their absence. */
#define DPT_ACCESS_ALL (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

struct dpt_side {
	char name;		/* 'A' (parent) or 'B' (child) */
	int sock;		/* to the other side */
	pid_t peer_pid;		/* A only: B's pid */
	int home_netns;		/* fd of the namespace the program started in */
	int argc;		/* the program's extra arguments */
	char **argv;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	union ibv_gid gid;	/* GID index 0 */
	enum ibv_mtu mtu;	/* port active MTU */
};

/* What one side tells the other about a QP and a memory region. */
struct dpt_conn {
	uint32_t qpn;
	uint32_t psn;
	union ibv_gid gid;
	uint64_t addr;
	uint32_t rkey;
	uint32_t len;
};

/* Connection options; zero fields take the defaults noted. */
struct dpt_qp_opts {
	int access;		/* qp_access_flags (default DPT_ACCESS_ALL; -1 for none) */
	uint8_t timeout;	/* local ACK timeout (default 12) */
	uint8_t retry_cnt;	/* default 7 */
	uint8_t rnr_retry;	/* default 7 (infinite); 0xff for 0 */
	uint8_t min_rnr_timer;	/* responder's RNR NAK timer (default 1) */
};

typedef int (*dpt_side_fn)(struct dpt_side *s);

int dpt_main(int argc, char **argv, dpt_side_fn side_a, dpt_side_fn side_b);
void dpt_fail(const char *file, int line, const char *cond,
	      const char *fmt, ...)
	__attribute__((noreturn, format(printf, 4, 5)));
void dpt_log(struct dpt_side *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Exchanging data with the other side (exit on a short read: peer died). */
void dpt_send(struct dpt_side *s, const void *buf, size_t len);
void dpt_recv(struct dpt_side *s, void *buf, size_t len);
void dpt_sync(struct dpt_side *s);
void dpt_swap(struct dpt_side *s, const struct dpt_conn *mine,
	      struct dpt_conn *theirs);

/* Objects; every failure is a CHECK failure. */
struct ibv_cq *dpt_cq(struct dpt_side *s, int depth,
		      struct ibv_comp_channel *ch);
struct ibv_qp *dpt_qp(struct dpt_side *s, enum ibv_qp_type type,
		      struct ibv_cq *cq, struct ibv_srq *srq,
		      const struct ibv_qp_cap *cap, int sq_sig_all);
void *dpt_buf(size_t len);
struct ibv_mr *dpt_mr(struct dpt_side *s, void *buf, size_t len, int access);
void dpt_conn_fill(struct dpt_side *s, struct dpt_conn *c,
		   struct ibv_qp *qp, struct ibv_mr *mr);

/* RESET -> INIT -> RTR -> RTS for RC/UC (to the peer) and UD. */
void dpt_connect(struct ibv_qp *qp, struct dpt_side *s,
		 const struct dpt_conn *peer, const struct dpt_qp_opts *o);
void dpt_ud_ready(struct ibv_qp *qp, uint32_t qkey);

/* Posting one work request; CHECKs the post succeeded. */
void dpt_post_recv(struct ibv_qp *qp, uint64_t wr_id, void *addr,
		   uint32_t len, uint32_t lkey);
void dpt_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr);

/* Polling: dpt_poll returns how many of n completions arrived within ms;
 * dpt_wc waits for exactly one and CHECKs its status and opcode. */
int dpt_poll(struct ibv_cq *cq, struct ibv_wc *wc, int n, int ms);
void dpt_wc(struct ibv_cq *cq, struct ibv_wc *wc, enum ibv_wc_status status,
	    int opcode, const char *what);
void dpt_no_wc(struct ibv_cq *cq, int ms, const char *what);
enum ibv_qp_state dpt_qp_state(struct ibv_qp *qp);
const char *dpt_state_str(enum ibv_qp_state st);

/* Test patterns: byte i of a region seeded with seed. */
void dpt_fill(void *buf, size_t len, unsigned seed);
int dpt_check(const void *buf, size_t len, unsigned seed);

#endif /* DPT_H */
