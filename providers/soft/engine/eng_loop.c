/* SPDX-License-Identifier: MIT */
/* The engine object and its single-threaded epoll loop: the top of the
 * engine's call graph (main() calls it; its primitives are eng_poll.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "providers/soft/engine/eng.h"
#include "providers/soft/engine/eng_cm.h"
#include "providers/soft/engine/eng_cm_wire.h"
#include "providers/soft/engine/eng_csprng.h"
#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_loop.h"
#include "providers/soft/engine/eng_metrics.h"
#include "providers/soft/engine/eng_net.h"
#include "providers/soft/engine/eng_obj.h"

int eng_init(struct eng *e)
{
	memset(e, 0, sizeof(*e));
	e->listener.fd = -1;
	e->admin_listener.fd = -1;
	e->unproven_timer.fd = -1;
	e->accept_timer.fd = -1;
	e->sig.fd = -1;
	e->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	eng_list_init(&e->conns);
	eng_list_init(&e->xrcd_doms);
	eng_list_init(&e->net_dirty);
	e->conn_expired = eng_conn_close;
	eng_idtab_init(&e->devs, 1, 0xffff);
	eng_gidmap_init(&e->gids, (uint64_t)eng_csprng_u32() << 32 |
				  eng_csprng_u32());
	e->self_ns_known = netns_id_of_pid(getpid(), &e->self_ns) == 0;
	e->reply = malloc(PV_IPC_MAX_PAYLOAD);
	if (!e->reply)
		return -ENOMEM;
	e->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (e->epfd < 0) {
		free(e->reply);
		return -errno;
	}
	return 0;
}

void eng_fini(struct eng *e)
{
	struct eng_list *pos, *tmp;

	eng_list_for_each_safe(pos, tmp, &e->conns)
		eng_conn_close(e, eng_container_of(pos, struct eng_conn, link));
	for (uint32_t i = e->devs.min; i < e->devs.cap; i++)
		if (e->devs.slot[i])
			eng_dev_remove(e, e->devs.slot[i]);
	eng_idtab_fini(&e->devs);
	eng_gidmap_fini(&e->gids);
	eng_cm_fini(e);
	eng_cm_wire_fini(e);
	eng_dp_sched_fini(e);
	eng_net_fini(e);
	eng_metrics_fini(e);
	eng_unlisten(e);
	if (e->unproven_timer.fd >= 0)
		close(e->unproven_timer.fd);
	if (e->accept_timer.fd >= 0)
		close(e->accept_timer.fd);
	close(e->epfd);
	if (e->spare_fd >= 0)
		close(e->spare_fd);
	free(e->reply);
	free(e->deferred);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int eng_run(struct eng *e)
{
	struct epoll_event evs[64];
	uint64_t t_busy = mono_ns(), t_idle;

	while (!e->stop) {
		/* The data path decides how long to block (eng_dp_sched.c). */
		int64_t wait = eng_dp_wait_ns(e);
		struct timespec ts = { .tv_sec = wait / 1000000000,
				       .tv_nsec = wait % 1000000000 };
		int n;

		/* Time in epoll is idle, the rest busy (polling included). */
		t_idle = mono_ns();
		eng_stat_add(loop_busy_ns, t_idle - t_busy);
		n = epoll_pwait2(e->epfd, evs, 64, wait < 0 ? NULL : &ts, NULL);
		t_busy = mono_ns();
		eng_stat_add(loop_idle_ns, t_busy - t_idle);
		eng_dp_woke(e);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			eng_err("epoll_wait: %s", strerror(errno));
			return -errno;
		}
		eng_batch_begin(e);
		for (int i = 0; i < n && !e->stop; i++) {
			struct eng_pollable *p = evs[i].data.ptr;

			/* Closed earlier in this batch: memory still valid
			 * (deferred), fd set to -1. */
			if (p->fd >= 0)
				p->ready(e, p, evs[i].events);
		}
		eng_batch_end(e);
		eng_dp_run(e);
		eng_net_flush(e);
	}
	return 0;
}
