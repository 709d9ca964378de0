/* SPDX-License-Identifier: MIT */
/*
 * USDT trace points (issue 15): static probes that bpftrace, perf and
 * SystemTap attach to by name, `usdt:PATH:PROVIDER:NAME`.  Provider
 * `podverbs` is our libibverbs.so.1 (and its soft provider), `podverbsd`
 * the engine.  Each probe lives in an ELF note (.note.stapsdt, listed by
 * `readelf -n`) that names its address, its arguments and a semaphore:
 * a counter in .probes that a tracer increments while it is attached.
 *
 * Cost when nobody traces: PV_USDT() tests the semaphore first (one load
 * and a branch marked unlikely) and builds no argument; the probe itself
 * is a single nop.  So a probe may sit in ibv_post_send.
 *
 * Probes are compiled in when <sys/sdt.h> (Debian's systemtap-sdt-dev) is
 * there and PV_NO_USDT is not defined; otherwise every macro here expands
 * to nothing (and PV_USDT_ENABLED() to 0), and mk/config.mk says so when
 * make starts.  Each binary defines its semaphores once, from the lists
 * below: libverbs/lv_usdt.c and providers/soft/engine/eng_usdt.c.  A new
 * probe is added to its list and used with PV_USDT(provider, name, ...),
 * at most 12 integer or pointer arguments (sdt.h's limit).
 */
#ifndef PV_USDT_H
#define PV_USDT_H

/* The library's probes (provider podverbs). */
#define PV_USDT_LIB_PROBES(X)						\
	X(podverbs, post_send)	/* qp_num, wrs posted, errno */		\
	X(podverbs, post_recv)	/* qp_num (0: SRQ), wrs posted, errno */\
	X(podverbs, poll_cq)	/* cq handle, completions returned */	\
	X(podverbs, reg_mr)	/* addr, length, access, lkey, errno */	\
	X(podverbs, dereg_mr)	/* lkey, errno */			\
	X(podverbs, create_qp)	/* qp_num, qp_type, errno */		\
	X(podverbs, destroy_qp)	/* qp_num, errno */			\
	X(podverbs, async_event) /* event_type, object handle */

/* The engine's probes (provider podverbsd). */
#define PV_USDT_ENG_PROBES(X)						\
	X(podverbsd, wqe_start)	/* client, qp_num, wr_id, opcode, len */\
	X(podverbsd, wqe_complete) /* client, qp_num, wr_id, status, opcode */\
	X(podverbsd, retransmit) /* qp_num, from psn, next psn before */\
	X(podverbsd, rnr_nak)	/* qp_num, psn, timer code, sent (1) or received (0) */\
	X(podverbsd, nak)	/* qp_num, psn, NAK code, sent (1) or received (0) */\
	X(podverbsd, cq_overflow) /* client, cq handle */		\
	X(podverbsd, cm_event)	/* client, cm id, event, status */

#if !defined(PV_NO_USDT) && defined(__has_include)
#if __has_include(<sys/sdt.h>)
#define PV_USDT_ON 1
#endif
#endif

#ifdef PV_USDT_ON
/* Before sdt.h: its notes then carry the semaphores' addresses, and
 * STAP_PROBEV takes any number of arguments. */
#define _SDT_HAS_SEMAPHORES 1
#define SDT_USE_VARIADIC 1
#include <sys/sdt.h>

#define PV_USDT_SEM(p, n) p##_##n##_semaphore
/* unsigned short, in .probes: the type and section tracers expect. */
#define PV_USDT_DECLARE(p, n) extern volatile unsigned short PV_USDT_SEM(p, n);
#define PV_USDT_DEFINE(p, n)						\
	__attribute__((section(".probes"), used))			\
	volatile unsigned short PV_USDT_SEM(p, n);

PV_USDT_LIB_PROBES(PV_USDT_DECLARE)
PV_USDT_ENG_PROBES(PV_USDT_DECLARE)

#define PV_USDT_ENABLED(p, n) __builtin_expect(PV_USDT_SEM(p, n) != 0, 0)
#define PV_USDT(p, n, ...)						\
	do {								\
		if (PV_USDT_ENABLED(p, n))				\
			STAP_PROBEV(p, n, __VA_ARGS__);			\
	} while (0)
#else
#define PV_USDT_DEFINE(p, n)
#define PV_USDT_ENABLED(p, n) 0
#define PV_USDT(p, n, ...) do { } while (0)
#endif

#endif /* PV_USDT_H */
