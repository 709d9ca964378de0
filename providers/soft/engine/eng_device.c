/* SPDX-License-Identifier: MIT */
/*
 * The soft device registry: one device per (namespace, interface), named
 * uniquely within its namespace (every pod may call its device "rdma0").
 * The port follows the interface through a netlink watch in that
 * namespace: state, MTU and the RoCEv2 GID table.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "providers/soft/engine/eng.h"
#include "providers/soft/engine/eng_gid_own.h"
#include "providers/soft/engine/eng_limits.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_mcast.h"
#include "providers/soft/engine/eng_net.h"
#include "providers/soft/engine/eng_obj.h"
#include "providers/soft/engine/eng_port.h"
#include "providers/soft/engine/eng_stats.h"

#define ENG_DEV_ID_MAX	0xffffu

struct eng_dev *eng_dev_by_id(struct eng *e, uint32_t id)
{
	return eng_idtab_get(&e->devs, id);
}

bool eng_dev_visible(const struct eng_dev *d, const struct eng_conn *c)
{
	return d && c->ident.ns_known && netns_id_equal(&d->ns, &c->ident.ns);
}

/* A device in namespace ns whose name or ifname matches, or NULL. */
static struct eng_dev *find_in_ns(struct eng *e, const struct netns_id *ns,
				  const char *name, const char *ifname)
{
	for (uint32_t i = e->devs.min; i < e->devs.cap; i++) {
		struct eng_dev *d = e->devs.slot[i];

		if (!d || !netns_id_equal(&d->ns, ns))
			continue;
		if ((name && strcmp(d->name, name) == 0) ||
		    (ifname && strcmp(d->ifname, ifname) == 0))
			return d;
	}
	return NULL;
}

/* N of a name "pv<N>" as pick_name writes it (no sign, no leading
 * zero), or -1. */
static int64_t pv_number(const char *name)
{
	uint64_t n = 0;
	const char *p = name + 2;

	if (strncmp(name, "pv", 2) != 0 || !*p || (p[0] == '0' && p[1]))
		return -1;
	for (; *p; p++) {
		if (*p < '0' || *p > '9' || n > UINT32_MAX)
			return -1;
		n = n * 10 + (uint64_t)(*p - '0');
	}
	return n <= UINT32_MAX ? (int64_t)n : -1;
}

/* "pv<N>" for the least N no device of ns has: one walk over the
 * devices marking the taken N (a node's devices in one namespace made
 * this a walk per candidate, cubic in the count).  N <= the device count
 * always finds one free. */
static void pick_name(struct eng *e, const struct netns_id *ns, char *out)
{
	uint32_t nbits = e->devs.used + 1, n = 0;
	uint64_t *taken = calloc((nbits + 63) / 64, sizeof(*taken));

	for (uint32_t i = e->devs.min; taken && i < e->devs.cap; i++) {
		const struct eng_dev *d = e->devs.slot[i];
		int64_t k;

		if (!d || !netns_id_equal(&d->ns, ns))
			continue;
		k = pv_number(d->name);
		if (k >= 0 && k < nbits)
			taken[k / 64] |= 1ull << (k % 64);
	}
	while (taken && n < nbits && (taken[n / 64] >> (n % 64)) & 1)
		n++;
	free(taken);
	for (;; n++) {		/* without memory: the slow way */
		snprintf(out, PV_NAME_MAX, "pv%u", n);
		if (!find_in_ns(e, ns, out, NULL))
			return;
	}
}

/* The claims of the device eng_dev_add_claims is registering: they must
 * be in place before its first GID table is built (one loop thread). */
static const struct pv_ipc_adm_dev_claims *pending_claims;

static void claims_set(struct eng_dev *d,
		       const struct pv_ipc_adm_dev_claims *cl)
{
	uint32_t n = cl ? cl->count : 0;

	if (n > PV_GID_CLAIM_MAX)
		n = PV_GID_CLAIM_MAX;
	for (uint32_t i = 0; i < n; i++)
		memcpy(d->claim[i], cl->gid[i], 16);
	d->claim_count = n;
}

/* A new id, or keep's. */
static int64_t dev_id_alloc(struct eng *e, struct eng_dev *d,
			    const struct eng_dev_keep *keep)
{
	int64_t id;

	if (keep) {
		int ret = eng_idtab_alloc_at(&e->devs, keep->id, d);

		return ret < 0 ? ret : (int64_t)keep->id;
	}
	id = eng_idtab_alloc(&e->devs, d);
	return id < 0 ? eng_limit_hit(-ENOMEM) : id;
}

int eng_dev_register(struct eng *e, int ns_fd, const struct netns_id *ns,
		     const char *netns_path, const char *name, uint16_t pkey,
		     const struct netns_link *link, struct eng_dev **ret_dev)
{
	return eng_dev_register_kept(e, ns_fd, ns, netns_path, name, pkey,
				     link, NULL, ret_dev);
}

int eng_dev_register_kept(struct eng *e, int ns_fd, const struct netns_id *ns,
			  const char *netns_path, const char *name,
			  uint16_t pkey, const struct netns_link *link,
			  const struct eng_dev_keep *keep,
			  struct eng_dev **ret_dev)
{
	struct eng_dev *d;
	int64_t id;

	if (e->devs.used >= eng_lim.max_devices)
		return eng_limit_hit(-ENOMEM);
	if ((name[0] && find_in_ns(e, ns, name, NULL)) ||
	    find_in_ns(e, ns, NULL, link->name))
		return -EEXIST;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	id = dev_id_alloc(e, d, keep);
	if (id < 0) {
		free(d);
		return (int)id;
	}
	d->id = (uint32_t)id;
	if (name[0])
		snprintf(d->name, sizeof(d->name), "%s", name);
	else
		pick_name(e, ns, d->name);
	snprintf(d->ifname, sizeof(d->ifname), "%s", link->name);
	snprintf(d->netns_path, sizeof(d->netns_path), "%s", netns_path);
	d->ns_fd = ns_fd;
	d->ns = *ns;
	d->watch.fd = -1;
	d->pkey = pkey ? pkey : ENG_PKEY_DEFAULT;
	d->guid = keep && keep->guid ? keep->guid
				     : eng_port_guid_from_mac(link->mac);
	d->port_state = PV_PORT_DOWN;
	/* QP numbers are random 24-bit values (eng_idtab.h), never QP 0
	 * and 1 (the special QPs of IBA 10.2.5) nor 0xffffff (the
	 * multicast QPN, IBA 10.5.2.3 / 9.6.1.3). */
	eng_idtab_init_sparse(&d->qps, ENG_QPN_MIN, ENG_QPN_MAX,
			      ENG_QPN_QUARANTINE);
	/* XRC SRQ numbers: 24 bits (XRCETH), never 0, likewise random. */
	eng_idtab_init_sparse(&d->srqns, 1, ENG_QPN_MAX, ENG_QPN_QUARANTINE);
	eng_mrkeys_init(&d->mrs);
	claims_set(d, keep && keep->claims ? keep->claims : pending_claims);
	eng_dev_apply_link(e, d, link);
	eng_stat_inc(devices_added);
	eng_stat_inc(devices_live);
	*ret_dev = d;
	return 0;
}

static bool gids_differ(const struct eng_dev *d, const uint8_t (*g)[16],
			uint32_t n)
{
	if (n != d->gid_count)
		return true;
	for (uint32_t i = 0; i < n; i++)
		if (memcmp(d->gid[i].gid, g[i], 16) != 0)
			return true;
	return false;
}

/* GIDs held for devices not (yet) back after a restart (eng_state.c):
 * a device that owned a GID keeps it even if another that wants it too
 * is restored first. */
static uint32_t gid_reserved(struct eng *e, const struct eng_dev *self,
			     struct eng_gid_holder *h, uint32_t n)
{
	for (uint32_t i = 0; i < e->ngid_reserved; i++) {
		const struct eng_gid_holder *r = &e->gid_reserved[i];

		if (r->dev_id != self->id && !eng_dev_by_id(e, r->dev_id) &&
		    n < 2 * ENG_DEVICES_HARD_MAX)
			h[n++] = *r;
	}
	return n;
}

/* Every other live device's current table, then the reservations. */
static uint32_t gid_holders(struct eng *e, const struct eng_dev *self,
			    struct eng_gid_holder *h)
{
	uint32_t n = 0;

	for (uint32_t i = e->devs.min; i < e->devs.cap; i++) {
		struct eng_dev *x = e->devs.slot[i];

		if (!x || x == self || n >= ENG_DEVICES_HARD_MAX)
			continue;
		h[n++] = (struct eng_gid_holder){
			.dev_id = x->id, .count = x->gid_count, .gid = x->gid,
			.nclaims = x->claim_count,
			.claims = (const uint8_t (*)[16])x->claim };
	}
	return gid_reserved(e, self, h, n);
}

/* Logs and counts the conflicts that are new since the last rebuild, so
 * a link event that changes nothing does not repeat them. */
static void note_conflicts(struct eng_dev *d, const struct eng_gid_claim *cl)
{
	for (uint32_t i = 0; i < cl->nconflicts; i++) {
		struct netns_gid g;
		char txt[40];

		if (eng_gid_in(d->conflict, d->conflict_count,
			       cl->conflict[i]))
			continue;
		memcpy(g.raw, cl->conflict[i], 16);
		netns_gid_format(&g, txt);
		eng_stat_inc(gid_conflicts);
		eng_warn("device %s (%u): GID %s of %s is already device %u's; "
			 "left out of the table", d->name, d->id, txt,
			 d->ifname, cl->conflict_owner[i]);
	}
	memcpy(d->conflict, cl->conflict, sizeof(cl->conflict));
	d->conflict_count = cl->nconflicts;
}

static void gids_reclaim(struct eng *e, const struct eng_dev *released_by);
static void gids_evict(struct eng *e, const struct eng_dev *d);

/* The engine's GID index (eng_gidmap.h) follows d's table; this file is
 * its only writer.  An insert that finds no memory (a few KiB) leaves the
 * GID out: packets to it are dropped as not ours, and one claiming it as
 * its source is no longer seen as a forged local one, so it is counted
 * and logged. */
static void gids_unindex(struct eng *e, const struct eng_dev *d)
{
	for (uint32_t i = 0; i < d->gid_count; i++)
		eng_gidmap_del(&e->gids, d->gid[i].gid, d->id);
}

static void gids_index(struct eng *e, const struct eng_dev *d)
{
	for (uint32_t i = 0; i < d->gid_count; i++) {
		if (eng_gidmap_put(&e->gids, d->gid[i].gid, d->id) == 0)
			continue;
		eng_stat_inc(gid_index_nomem);
		eng_warn("device %s (%u): GID index out of memory",
			 d->name, d->id);
	}
}

/* Rebuilds d's table from its candidates, leaving out what other devices
 * own.  If d let a GID go, devices that wanted it get another look. */
static void gids_rebuild(struct eng *e, struct eng_dev *d, bool may_reclaim)
{
	/* 256 KiB at ENG_DEVICES_HARD_MAX: not on the stack.  One array
	 * serves the recursion below (evict, reclaim) because it is read
	 * only by eng_gid_claim_with, before any nested rebuild. */
	static struct eng_gid_holder h[2 * ENG_DEVICES_HARD_MAX];
	struct eng_gid_claim cl;
	uint32_t nh = gid_holders(e, d, h);
	bool released;

	eng_gid_claim_with(d->id, (const uint8_t (*)[16])d->want,
			   d->want_count, (const uint8_t (*)[16])d->claim,
			   d->claim_count, h, nh, &cl);
	note_conflicts(d, &cl);
	if (!gids_differ(d, (const uint8_t (*)[16])cl.gid, cl.count))
		return;
	released = eng_gid_released(d->gid, d->gid_count,
				    (const uint8_t (*)[16])cl.gid, cl.count);
	gids_unindex(e, d);
	memset(d->gid, 0, sizeof(d->gid));
	for (uint32_t i = 0; i < cl.count; i++) {
		memcpy(d->gid[i].gid, cl.gid[i], 16);
		d->gid[i].gid_type = PV_GID_TYPE_ROCE_V2;
	}
	d->gid_count = cl.count;
	gids_index(e, d);
	eng_stat_inc(gid_changes);
	eng_info("device %s (%u): GID table now has %u entries", d->name,
		 d->id, cl.count);
	eng_event_push_dev(e, d, IBV_EVENT_GID_CHANGE, PV_OBJ_PORT, 1);
	/* The GIDs a restart holds for d are the ones it has now. */
	if (d->recorded && e->devs_changed)
		e->devs_changed(e, d, 0);
	if (d->claim_count)
		gids_evict(e, d);
	if (released && may_reclaim)
		gids_reclaim(e, d);
}

/* d now holds GIDs it claims: a device that held one without claiming it
 * rebuilds, losing it (a conflict there).  Such a rebuild only removes
 * GIDs, and removes none that d could want, so the walk ends. */
static void gids_evict(struct eng *e, const struct eng_dev *d)
{
	for (uint32_t i = e->devs.min; i < e->devs.cap; i++) {
		struct eng_dev *x = e->devs.slot[i];
		bool holds = false;

		if (!x || x == d)
			continue;
		for (uint32_t k = 0; k < d->claim_count && !holds; k++)
			holds = eng_gid_table_has(x->gid, x->gid_count,
						  d->claim[k]) &&
				eng_gid_table_has(d->gid, d->gid_count,
						  d->claim[k]) &&
				!eng_gid_in((const uint8_t (*)[16])x->claim,
					    x->claim_count, d->claim[k]);
		if (holds)
			gids_rebuild(e, x, false);
	}
}

/* A rebuild here only adds GIDs (the device's own ones stay unowned by
 * anyone else), so it releases nothing and the walk ends. */
static void gids_reclaim(struct eng *e, const struct eng_dev *released_by)
{
	for (uint32_t i = e->devs.min; i < e->devs.cap; i++) {
		struct eng_dev *x = e->devs.slot[i];

		if (x && x != released_by && x->conflict_count)
			gids_rebuild(e, x, false);
	}
}

void eng_dev_gids_recheck(struct eng *e)
{
	gids_reclaim(e, NULL);
}

void eng_dev_apply_link(struct eng *e, struct eng_dev *d,
			const struct netns_link *link)
{
	struct netns_gid gids[ENG_GID_WANT_MAX];
	uint8_t old_state = d->port_state;
	uint32_t n = 0, mtu;

	d->link_present = link != NULL;
	if (link) {
		int got = netns_gid_table(link, gids, ENG_GID_WANT_MAX);

		n = got > 0 ? (uint32_t)got : 0;
		d->netdev_mtu = link->mtu;
		mtu = eng_port_ib_mtu(link->mtu);
		d->active_mtu = mtu ? mtu : IBV_MTU_256;
		d->port_state = link->up && link->running ? PV_PORT_ACTIVE
							  : PV_PORT_DOWN;
	} else {
		d->port_state = PV_PORT_DOWN;
	}
	for (uint32_t i = 0; i < n; i++)
		memcpy(d->want[i], gids[i].raw, 16);
	d->want_count = n;
	gids_rebuild(e, d, true);
	eng_net_dev_sync(e, d, link);
	if (d->port_state != old_state) {
		bool up = d->port_state == PV_PORT_ACTIVE;

		eng_stat_inc(port_state_changes);
		if (old_state == PV_PORT_ACTIVE)
			eng_hwc_dev_add(d, link_downed, 1);
		eng_info("device %s (%u): port %s%s", d->name, d->id,
			 up ? "ACTIVE" : "DOWN",
			 link ? "" : " (interface gone)");
		eng_event_push_dev(e, d,
				   up ? IBV_EVENT_PORT_ACTIVE : IBV_EVENT_PORT_ERR,
				   PV_OBJ_PORT, 1);
	}
}

static void refresh(struct eng *e, struct eng_dev *d)
{
	struct netns_link link;
	int ret = netns_link_get(d->ns_fd, d->ifname, &link);

	if (ret < 0 && ret != -ENODEV && ret != -ENOENT)
		eng_warn("device %s (%u): reading %s: %s", d->name, d->id,
			 d->ifname, strerror(-ret));
	eng_dev_apply_link(e, d, ret < 0 ? NULL : &link);
}

static void watch_ready(struct eng *e, struct eng_pollable *p, uint32_t ev)
{
	struct eng_dev *d = eng_container_of(p, struct eng_dev, watch);
	int ret = netns_watch_drain(p->fd);

	eng_stat_inc(link_events);
	/* An overrun (-ENOBUFS) lost notifications: re-read all the same. */
	if (ret < 0 && ret != -ENOBUFS && ret != -EAGAIN) {
		eng_warn("device %s (%u): link watch failed: %s; no longer "
			 "following %s", d->name, d->id, strerror(-ret),
			 d->ifname);
		eng_poll_del(e, p);
		close(p->fd);
		p->fd = -1;
	}
	if (ret != 0)
		refresh(e, d);
}

static const char *ns_label(const char *path)
{
	return path[0] ? path : "the engine's namespace";
}

int eng_dev_add_claims(struct eng *e, const struct pv_ipc_adm_dev_add *req,
		       const struct pv_ipc_adm_dev_claims *claims,
		       struct eng_dev **ret_dev)
{
	int ret;

	pending_claims = claims;
	ret = eng_dev_add(e, req, ret_dev);
	pending_claims = NULL;
	return ret;
}

int eng_dev_add(struct eng *e, const struct pv_ipc_adm_dev_add *req,
		struct eng_dev **ret_dev)
{
	return eng_dev_add_kept(e, req, NULL, ret_dev);
}

int eng_dev_add_kept(struct eng *e, const struct pv_ipc_adm_dev_add *req,
		     const struct eng_dev_keep *keep, struct eng_dev **ret_dev)
{
	struct netns_link link;
	struct netns_id ns;
	int ns_fd, watch_fd, ret;

	ns_fd = netns_open(req->netns_path);
	if (ns_fd < 0) {
		eng_warn("dev add: cannot open namespace %s: %s",
			 ns_label(req->netns_path), strerror(-ns_fd));
		return ns_fd;
	}
	ret = netns_id_of_fd(ns_fd, &ns);
	if (ret < 0)
		goto err_close_ns;
	if (keep && !netns_id_equal(&ns, &keep->ns)) {
		ret = -ESTALE;
		goto err_close_ns;
	}
	/* Watch first, then read: no change can fall between the two. */
	watch_fd = netns_watch_open(ns_fd);
	if (watch_fd < 0)
		eng_warn("dev add: no link watch in %s: %s",
			 ns_label(req->netns_path), strerror(-watch_fd));
	ret = netns_link_get(ns_fd, req->ifname, &link);
	if (ret < 0) {
		eng_warn("dev add: interface %s not found in %s: %s",
			 req->ifname, ns_label(req->netns_path),
			 strerror(-ret));
		ret = ret == -ENOENT ? -ENODEV : ret;
		goto err_close_watch;
	}
	ret = eng_dev_register_kept(e, ns_fd, &ns, req->netns_path,
				    req->name, req->pkey, &link, keep, ret_dev);
	if (ret < 0) {
		eng_warn("dev add: %s in %s: %s", req->ifname,
			 ns_label(req->netns_path), ret == -EEXIST ?
			 "name or interface already has a device there" :
			 strerror(-ret));
		goto err_close_watch;
	}
	(*ret_dev)->flags = req->flags;
	if (watch_fd >= 0) {
		(*ret_dev)->watch.fd = watch_fd;
		(*ret_dev)->watch.ready = watch_ready;
		if (eng_poll_add(e, &(*ret_dev)->watch) < 0) {
			close(watch_fd);
			(*ret_dev)->watch.fd = -1;
		}
	}
	eng_info("device %s (%u) added: %s in %s, %u GIDs, port %s",
		 (*ret_dev)->name, (*ret_dev)->id, req->ifname,
		 ns_label(req->netns_path), (*ret_dev)->gid_count,
		 (*ret_dev)->port_state == PV_PORT_ACTIVE ? "ACTIVE" : "DOWN");
	return 0;

err_close_watch:
	if (watch_fd >= 0)
		close(watch_fd);
err_close_ns:
	close(ns_fd);
	return ret;
}

void eng_dev_remove(struct eng *e, struct eng_dev *d)
{
	struct eng_list *pos, *tmp;

	eng_list_for_each_safe(pos, tmp, &e->conns) {
		struct eng_conn *c = eng_container_of(pos, struct eng_conn,
						      link);

		if (c->dev != d)
			continue;
		eng_event_push(c, IBV_EVENT_DEVICE_FATAL, PV_OBJ_NONE, 0);
		eng_objs_detach_dev(e, c);
	}
	if (d->watch.fd >= 0) {
		eng_poll_del(e, &d->watch);
		close(d->watch.fd);
		d->watch.fd = -1;
	}
	eng_net_dev_fini(e, d);
	if (d->ns_fd >= 0)
		close(d->ns_fd);
	eng_idtab_free(&e->devs, d->id);
	gids_unindex(e, d);
	/* Out of the registry, its GIDs are free for devices that wanted
	 * them. */
	if (d->gid_count)
		gids_reclaim(e, d);
	eng_idtab_fini(&d->qps);
	eng_idtab_fini(&d->srqns);
	eng_mrkeys_fini(&d->mrs);
	eng_stat_inc(devices_removed);
	eng_stat_dec(devices_live);
	eng_info("device %s (%u) removed", d->name, d->id);
	eng_defer_free(e, d);
}

void eng_dev_info(const struct eng_dev *d, struct pv_ipc_dev_info *out)
{
	memset(out, 0, sizeof(*out));
	out->dev_id = d->id;
	out->node_guid = d->guid;
	memcpy(out->name, d->name, sizeof(out->name));
	memcpy(out->ifname, d->ifname, sizeof(out->ifname));
	out->pkey = d->pkey;
	out->port_state = d->port_state;
	out->netdev_mtu = d->netdev_mtu;
	out->active_mtu = d->active_mtu;
	out->gid_conflicts = d->conflict_count;
	out->wire_state = eng_net_wire_state(d);
}

void eng_dev_attr(const struct eng_dev *d, struct pv_ipc_dev_attr *o)
{
	memset(o, 0, sizeof(*o));
	o->node_guid = d->guid;
	o->sys_image_guid = d->guid;
	o->max_mr_size = eng_lim.max_mr_size_mb << 20;
	o->page_size_cap = 0xfffff000u;	/* any power of two >= 4 KiB */
	o->vendor_id = PV_VENDOR_ID;
	o->vendor_part_id = PV_VENDOR_PART_ID;
	o->device_cap_flags = IBV_DEVICE_RESIZE_MAX_WR |
		IBV_DEVICE_CURR_QP_STATE_MOD | IBV_DEVICE_PORT_ACTIVE_EVENT |
		IBV_DEVICE_SYS_IMAGE_GUID | IBV_DEVICE_RC_RNR_NAK_GEN |
		IBV_DEVICE_SRQ_RESIZE | IBV_DEVICE_N_NOTIFY_CQ |
		IBV_DEVICE_MEM_WINDOW | IBV_DEVICE_MEM_WINDOW_TYPE_2B |
		IBV_DEVICE_XRC;
	o->max_qp = (uint32_t)eng_lim.max_qp;
	o->max_qp_wr = (uint32_t)eng_lim.max_qp_wr;
	o->max_sge = (uint32_t)eng_lim.max_sge;
	o->max_sge_rd = (uint32_t)eng_lim.max_sge;
	o->max_cq = (uint32_t)eng_lim.max_cq;
	o->max_cqe = (uint32_t)eng_lim.max_cqe;
	o->max_mr = (uint32_t)eng_lim.max_mr;
	o->max_mw = (uint32_t)eng_lim.max_mw;
	o->max_pd = (uint32_t)eng_lim.max_pd;
	o->max_qp_rd_atom = (uint32_t)eng_lim.max_rd_atom;
	/* The initiator depth is bounded apart from our responder
	 * resources: perftest sets max_rd_atomic to the peer's
	 * max_qp_rd_atom (kernel rxe's is 128), and what a requester has
	 * outstanding is held in its send window, not in resources. */
	o->max_qp_init_rd_atom = (uint32_t)eng_lim.max_init_rd_atom;
	o->max_srq = (uint32_t)eng_lim.max_srq;
	o->max_srq_wr = (uint32_t)eng_lim.max_srq_wr;
	o->max_srq_sge = (uint32_t)eng_lim.max_sge;
	o->max_ah = (uint32_t)eng_lim.max_ah;
	/* eng_mcast.h's bounds: a device attaches at most PER_DEV times (so
	 * to as many groups), each group holds PER_GROUP of its QPs. */
	o->max_mcast_grp = ENG_MCAST_PER_DEV;
	o->max_mcast_qp_attach = ENG_MCAST_PER_GROUP;
	o->max_total_mcast_qp_attach = ENG_MCAST_PER_DEV;
	o->max_pkeys = 1;
	o->atomic_cap = IBV_ATOMIC_HCA;
	o->max_inline_data = (uint32_t)eng_lim.max_inline;
	o->phys_port_cnt = 1;
	snprintf(o->fw_ver, sizeof(o->fw_ver), "podverbs %d", PV_IPC_VERSION);
}

void eng_dev_port_attr(const struct eng_dev *d, struct pv_ipc_port_attr *o)
{
	bool up = d->port_state == PV_PORT_ACTIVE;

	memset(o, 0, sizeof(*o));
	o->state = d->port_state;
	o->max_mtu = IBV_MTU_4096;
	o->active_mtu = d->active_mtu;
	o->netdev_mtu = d->netdev_mtu;
	/* The table's capacity, like hardware; entries past gid_count read
	 * as zero GIDs. */
	o->gid_tbl_len = PV_GID_TABLE_MAX;
	o->port_cap_flags = IBV_PORT_CM_SUP | IBV_PORT_IP_BASED_GIDS;
	o->max_msg_sz = ENG_PORT_MAX_MSG_SZ;
	o->pkey_tbl_len = 1;
	o->phys_state = up ? ENG_PORT_PHYS_LINK_UP : ENG_PORT_PHYS_DISABLED;
	o->active_width = ENG_PORT_WIDTH_4X;
	o->active_speed = ENG_PORT_SPEED_EDR;
	o->link_layer = IBV_LINK_LAYER_ETHERNET;
}
