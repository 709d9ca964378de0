/* SPDX-License-Identifier: MIT */
/* Connection admission and the unproven deadline (eng_admission.h). */
#include <errno.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "providers/soft/engine/eng_admission.h"
#include "providers/soft/engine/eng_limits.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_stats.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Pod connections of one namespace, and how many of them are unproven. */
static uint32_t conns_in_ns(struct eng *e, uint64_t cookie,
			    uint32_t *ret_unproven)
{
	struct eng_list *pos, *tmp;
	uint32_t n = 0;

	*ret_unproven = 0;
	eng_list_for_each_safe(pos, tmp, &e->conns) {
		struct eng_conn *c = eng_container_of(pos, struct eng_conn,
						      link);

		if (c->ident.admin_socket || c->ident.ns_cookie != cookie)
			continue;
		n++;
		*ret_unproven += c->unproven;
	}
	return n;
}

static int refuse(const struct eng_ident *id, const char *why)
{
	eng_stat_inc(clients_rejected);
	eng_stat_inc(limit_hits);
	eng_warn("client pid %d uid %d rejected: %s", (int)id->pid,
		 (int)id->uid, why);
	return -ENOMEM;
}

int eng_admit(struct eng *e, const struct eng_ident *id)
{
	uint32_t in_ns, unproven_in_ns;

	if (id->admin_socket)
		return e->nadmin >= eng_lim.max_admin_clients ?
			refuse(id, "max_admin_clients") : 0;
	if (e->nconns - e->nadmin >= eng_lim.max_clients)
		return refuse(id, "max_clients");
	if (e->nunproven >= eng_lim.max_unproven)
		return refuse(id, "max_unproven (connections without HELLO)");
	in_ns = conns_in_ns(e, id->ns_cookie, &unproven_in_ns);
	if (in_ns >= eng_lim.max_clients_per_ns) {
		eng_stat_inc(clients_rejected_ns);
		return refuse(id, "max_clients_per_ns");
	}
	/* So that a few pods cannot keep the shared unproven pool full. */
	if (unproven_in_ns >= eng_lim.max_unproven_per_ns) {
		eng_stat_inc(clients_rejected_ns);
		return refuse(id, "max_unproven_per_ns");
	}
	return 0;
}

/* Arms the timer for the oldest unproven connection (the list is in
 * accept order), or disarms it. */
static void arm(struct eng *e)
{
	struct itimerspec its = { 0 };
	struct eng_list *pos, *tmp;

	if (e->unproven_timer.fd < 0)
		return;
	eng_list_for_each_safe(pos, tmp, &e->conns) {
		struct eng_conn *c = eng_container_of(pos, struct eng_conn,
						      link);
		uint64_t due;

		if (!c->unproven)
			continue;
		due = c->accepted_ns + eng_lim.unproven_ms * 1000000u;
		its.it_value.tv_sec = (time_t)(due / 1000000000u);
		its.it_value.tv_nsec = (long)(due % 1000000000u);
		if (!its.it_value.tv_sec && !its.it_value.tv_nsec)
			its.it_value.tv_nsec = 1;
		break;
	}
	timerfd_settime(e->unproven_timer.fd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void expire(struct eng *e, struct eng_pollable *p, uint32_t ev)
{
	uint64_t ticks, now = now_ns(), limit = eng_lim.unproven_ms * 1000000u;
	struct eng_list *pos, *tmp;

	if (read(p->fd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
		return;
	eng_list_for_each_safe(pos, tmp, &e->conns) {
		struct eng_conn *c = eng_container_of(pos, struct eng_conn,
						      link);

		if (!c->unproven || now - c->accepted_ns < limit)
			continue;
		eng_stat_inc(clients_unproven_expired);
		eng_dbg("client %u (pid %d): no namespace proven in %u ms: "
			"closed", c->id, (int)c->ident.pid,
			(unsigned)eng_lim.unproven_ms);
		e->conn_expired(e, c);
	}
	arm(e);
}

static void timer_open(struct eng *e)
{
	int fd;

	if (e->unproven_timer.fd >= 0)
		return;
	fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (fd < 0) {
		eng_warn("timerfd: %s: unproven connections never expire",
			 strerror(errno));
		return;
	}
	e->unproven_timer.fd = fd;
	e->unproven_timer.ready = expire;
	if (eng_poll_add(e, &e->unproven_timer) < 0) {
		close(fd);
		e->unproven_timer.fd = -1;
	}
}

void eng_admitted(struct eng *e, struct eng_conn *c)
{
	c->accepted_ns = now_ns();
	if (c->ident.admin_socket) {
		e->nadmin++;
		return;
	}
	if (c->ident.ns_known)
		return;
	c->unproven = true;
	if (!e->nunproven++) {
		timer_open(e);
		arm(e);
	}
}

void eng_conn_proven(struct eng *e, struct eng_conn *c)
{
	if (!c->unproven)
		return;
	c->unproven = false;
	e->nunproven--;
}

void eng_released(struct eng *e, struct eng_conn *c)
{
	if (c->ident.admin_socket)
		e->nadmin--;
	eng_conn_proven(e, c);
}
