/* SPDX-License-Identifier: MIT */
/*
 * XRC domains (IBA 19.2.5, ibv_open_xrcd(3)).  A client's XRCD object is
 * its handle on a domain.  Opened with a file, the domain is the one of
 * that file's inode on the client's device, shared by every client of
 * the device that opens the same file; never by two devices: a file
 * whose domain belongs to another device (a pod reaching another pod's
 * file through /proc/<pid>/root, say) is refused with EPERM and
 * counted.  Opened without one, the domain is private.  XRC SRQs and
 * XRC_RECV QPs hold the XRCD object they were made with; the responder
 * compares domains, not handles.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_obj.h"
#include "providers/soft/engine/eng_stats.h"

struct eng_xrcd_dom {
	struct eng_list link;		/* in eng.xrcd_doms; private: alone */
	uint32_t dev_id;		/* the device whose clients share it */
	bool named;			/* opened with a file */
	dev_t st_dev;
	ino_t st_ino;
	uint32_t refs;			/* XRCD objects on it */
};

static struct eng_xrcd_dom *dom_find(struct eng *e, const struct stat *st)
{
	struct eng_list *pos, *tmp;

	eng_list_for_each_safe(pos, tmp, &e->xrcd_doms) {
		struct eng_xrcd_dom *d = eng_container_of(pos,
						struct eng_xrcd_dom, link);

		if (d->st_dev == st->st_dev && d->st_ino == st->st_ino)
			return d;
	}
	return NULL;
}

static void xrcd_release(struct eng *e, struct eng_obj *o)
{
	struct eng_xrcd_dom *d = ((struct eng_xrcd *)o)->dom;

	(void)e;
	if (!d || --d->refs)
		return;
	if (d->named)
		eng_list_del(&d->link);
	free(d);
}

/* Counted each time, logged at most once a second (a client may ask
 * in a loop). */
static void refused_log(const struct eng_req *r)
{
	static uint64_t warned_ns;
	uint64_t now = eng_dp_now_ns();

	eng_stat_inc(xrcd_refused);
	if (now - warned_ns < 1000000000ull)
		return;
	warned_ns = now;
	eng_warn("client %u: XRC domain file of another device refused",
		 r->c->id);
}

/* The domain an open names: the file's (shared, made on O_CREAT) or a
 * new private one. */
static int dom_get(struct eng_req *r, const struct pv_ipc_xrcd *in,
		   struct eng_xrcd_dom **ret)
{
	struct eng_xrcd_dom *d = NULL;
	struct stat st;
	int fd = r->in_nfds ? r->in_fds[0] : -1;

	if (fd >= 0) {
		if (fstat(fd, &st) < 0)
			return -EBADF;
		d = dom_find(r->e, &st);
	}
	if (d && d->dev_id != r->c->dev->id) {
		refused_log(r);
		return -EPERM;
	}
	if (d && (in->oflags & O_CREAT) && (in->oflags & O_EXCL))
		return -EEXIST;
	if (d) {
		d->refs++;
		*ret = d;
		return 0;
	}
	if (fd >= 0 && !(in->oflags & O_CREAT))
		return -EINVAL;	/* no domain yet and not asked to make one */
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->dev_id = r->c->dev->id;
	d->refs = 1;
	eng_list_init(&d->link);
	if (fd >= 0) {
		d->named = true;
		d->st_dev = st.st_dev;
		d->st_ino = st.st_ino;
		eng_list_add_tail(&r->e->xrcd_doms, &d->link);
	}
	*ret = d;
	return 0;
}

static int xrcd_open(struct eng_req *r, const struct pv_ipc_xrcd *in)
{
	struct pv_ipc_handle *out = r->out;
	struct eng_xrcd *x;
	int ret;

	if (in->oflags & ~(uint32_t)(O_CREAT | O_EXCL))
		return -EINVAL;
	x = eng_obj_create(r, PV_OBJ_XRCD, sizeof(*x), xrcd_release, &ret);
	if (!x)
		return ret;
	ret = dom_get(r, in, &x->dom);
	if (ret < 0) {
		eng_obj_destroy(r->e, &x->o);
		return ret;
	}
	eng_stat_inc(xrcd_opened);
	out->handle = x->o.handle;
	r->out_len = sizeof(*out);
	return 0;
}

int eng_op_xrcd(struct eng_req *r)
{
	const struct pv_ipc_xrcd *in = r->in;
	struct eng_xrcd *x;

	if (in->reserved)
		return -EINVAL;
	switch (in->cmd) {
	case PV_XRCD_OPEN:
		if (in->handle)
			return -EINVAL;
		return xrcd_open(r, in);
	case PV_XRCD_CLOSE:
		if (r->in_nfds || in->oflags)
			return -EINVAL;
		x = eng_obj_get(r->c, in->handle, PV_OBJ_XRCD);
		if (!x)
			return -EINVAL;
		return eng_obj_destroy(r->e, &x->o);
	}
	return -EINVAL;
}

struct eng_srq *eng_xrcd_srq_find(struct eng_dev *dev, uint32_t srq_num)
{
	if (!dev || !srq_num)
		return NULL;
	return eng_idtab_get(&dev->srqns, srq_num);
}

bool eng_xrcd_same(const struct eng_xrcd *a, const struct eng_xrcd *b)
{
	return a && b && a->dom == b->dom;
}
