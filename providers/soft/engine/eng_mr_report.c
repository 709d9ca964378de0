/* SPDX-License-Identifier: MIT */
/*
 * Memory-registration reports (eng_mr_report.h).
 *
 * Misaligned MRs: the engine reaches an MR through the memfd pages that
 * hold it (eng_dp_mem.c), so one whose start or end is off a page maps
 * the whole pages around it, and the provider moved the neighbouring
 * bytes of those pages onto the memfd along with it (soft_mr_share.c).
 * Nothing is refused for it, but it is what an operator chasing a
 * surprising memory figure wants to see: such MRs are counted
 * (dp_mr_misaligned), flagged in the report, and logged at debug level,
 * at most ENG_MR_LOG_BURST lines a second so a client registering
 * millions cannot flood the log.  MRs the engine cannot map at all are
 * refused and counted where that is decided (dp_mr_refused_*).
 */
#include <string.h>
#include <unistd.h>

#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_log.h"
#include "providers/soft/engine/eng_mr_report.h"
#include "providers/soft/engine/eng_mr_tally.h"
#include "providers/soft/engine/eng_obj.h"
#include "providers/soft/engine/eng_stats.h"

#define ENG_MR_LOG_BURST 10
#define NS_PER_S (1000ull * 1000 * 1000)

static uint64_t page_size(void)
{
	static uint64_t page;

	if (!page)
		page = (uint64_t)sysconf(_SC_PAGESIZE);
	return page;
}

static bool mr_misaligned(const struct eng_mr *mr)
{
	return eng_mr_misaligned(mr->addr, mr->length, page_size());
}

/* True while this second's debug lines are not used up; the first line
 * of a new second says how many the last ones suppressed. */
static bool log_allowed(uint64_t now, uint64_t *ret_suppressed)
{
	static uint64_t sec, used, suppressed;

	*ret_suppressed = 0;
	if (now / NS_PER_S != sec) {
		sec = now / NS_PER_S;
		used = 0;
		*ret_suppressed = suppressed;
		suppressed = 0;
	}
	if (used >= ENG_MR_LOG_BURST) {
		suppressed++;
		return false;
	}
	used++;
	return true;
}

void eng_mr_report_reg(struct eng_conn *c, const struct eng_mr *mr)
{
	uint64_t now = eng_dp_now_ns(), quiet;
	bool mis = mr_misaligned(mr);

	eng_mr_tally_add(&c->mr_tally, mr->length, mis, now);
	if (c->dev)
		eng_mr_tally_add(&c->dev->mr_tally, mr->length, mis, now);
	if (!mis)
		return;
	eng_stat_inc(dp_mr_misaligned);
	if (!log_allowed(now, &quiet))
		return;
	if (quiet)
		eng_dbg("%llu lines on misaligned MRs suppressed",
			(unsigned long long)quiet);
	eng_dbg("client %u: MR 0x%llx+%llu (lkey 0x%08x) is not page-aligned: "
		"the engine maps the whole pages around it", c->id,
		(unsigned long long)mr->addr, (unsigned long long)mr->length,
		mr->lkey);
}

void eng_mr_report_dereg(struct eng_conn *c, const struct eng_mr *mr)
{
	uint64_t now = eng_dp_now_ns();
	bool mis = mr_misaligned(mr);

	eng_mr_tally_sub(&c->mr_tally, mr->length, mis, now);
	if (c->dev)
		eng_mr_tally_sub(&c->dev->mr_tally, mr->length, mis, now);
}

void eng_mr_report_dev_lost(struct eng_conn *c)
{
	if (c->dev)
		eng_mr_tally_drop(&c->dev->mr_tally, &c->mr_tally,
				  eng_dp_now_ns());
}

void eng_mr_report_exit(const struct eng_conn *c)
{
	const struct eng_mr_tally *t = &c->mr_tally;

	if (!t->mrs)
		return;
	eng_info("client %u (pid %d, dev %u) exits with %llu MRs, %llu bytes "
		 "still registered (%llu misaligned; peak %llu MRs, %llu bytes)",
		 c->id, (int)c->ident.pid, c->dev_id,
		 (unsigned long long)t->mrs, (unsigned long long)t->bytes,
		 (unsigned long long)t->misaligned,
		 (unsigned long long)t->peak_mrs,
		 (unsigned long long)t->peak_bytes);
}

/* ADM_MR_REPORT's reply being filled: rows from index `first` on. */
struct mr_rows {
	struct pv_ipc_adm_mr_report *out;
	uint32_t first, max;
	uint64_t now;
};

/* The next row to fill, or NULL when it is before the page or past it
 * (counted in total either way). */
static struct pv_ipc_adm_mr_row *row_next(struct mr_rows *m, uint32_t kind,
					  uint32_t dev_id)
{
	uint32_t n = m->out->total++;
	struct pv_ipc_adm_mr_row *row;

	if (n < m->first || m->out->count >= m->max)
		return NULL;
	row = &m->out->row[m->out->count++];
	memset(row, 0, sizeof(*row));
	row->kind = kind;
	row->dev_id = dev_id;
	return row;
}

static void tally_row(struct pv_ipc_adm_mr_row *row, struct eng_mr_tally *t,
		      uint64_t now)
{
	row->mrs = t->mrs;
	row->bytes = t->bytes;
	row->peak_mrs = t->peak_mrs;
	row->peak_bytes = t->peak_bytes;
	row->regs = t->regs;
	row->reg_bytes = t->reg_bytes;
	row->misaligned = t->misaligned;
	row->growth = eng_mr_tally_growth(t, now);
}

static void dev_rows(struct eng *e, struct mr_rows *m, uint32_t dev_id)
{
	for (uint32_t i = e->devs.min; i < e->devs.cap; i++) {
		struct eng_dev *d = e->devs.slot[i];
		struct pv_ipc_adm_mr_row *row;

		if (!d || (dev_id && d->id != dev_id))
			continue;
		row = row_next(m, PV_MR_ROW_DEV, d->id);
		if (!row)
			continue;
		tally_row(row, &d->mr_tally, m->now);
		row->netns_ino = d->ns.ino;
		memcpy(row->name, d->name, sizeof(row->name));
		row->name[sizeof(row->name) - 1] = '\0';
	}
}

static void mr_row(struct mr_rows *m, const struct eng_conn *c,
		   const struct eng_mr *mr)
{
	struct pv_ipc_adm_mr_row *row = row_next(m, PV_MR_ROW_MR, c->dev_id);

	if (!row)
		return;
	row->client_id = c->id;
	row->client_pid = (uint32_t)c->ident.pid;
	row->handle = mr->o.handle;
	row->lkey = mr->lkey;
	row->addr = mr->addr;
	row->mrs = 1;
	row->bytes = mr->length;
	if (mr_misaligned(mr)) {
		row->flags |= PV_MR_FLAG_MISALIGNED;
		row->misaligned = 1;
	}
}

static void client_rows(struct eng *e, struct mr_rows *m, uint32_t dev_id)
{
	struct eng_list *cp, *ct, *op, *ot;

	eng_list_for_each_safe(cp, ct, &e->conns) {
		struct eng_conn *c = eng_container_of(cp, struct eng_conn,
						      link);
		struct pv_ipc_adm_mr_row *row;

		if (!c->ctx_handle || (dev_id && c->dev_id != dev_id))
			continue;
		row = row_next(m, PV_MR_ROW_CLIENT, c->dev_id);
		if (row) {
			tally_row(row, &c->mr_tally, m->now);
			row->client_id = c->id;
			row->client_pid = (uint32_t)c->ident.pid;
		}
		eng_list_for_each_safe(op, ot, &c->objs) {
			struct eng_obj *o = eng_container_of(op, struct eng_obj,
							     link);

			/* Mapped MRs only: the ones the tallies count. */
			if (o->kind == PV_OBJ_MR && ((struct eng_mr *)o)->dp)
				mr_row(m, c, (const struct eng_mr *)o);
		}
	}
}

int eng_op_adm_mr_report(struct eng_req *r)
{
	const struct pv_ipc_dev_ref *ref = r->in;
	struct mr_rows m = {
		.out = r->out, .first = ref->index, .now = eng_dp_now_ns(),
		.max = (PV_IPC_MAX_PAYLOAD - sizeof(*m.out)) /
		       sizeof(m.out->row[0]),
	};

	memset(m.out, 0, sizeof(*m.out));
	dev_rows(r->e, &m, ref->dev_id);
	client_rows(r->e, &m, ref->dev_id);
	r->out_len = sizeof(*m.out) + m.out->count * sizeof(m.out->row[0]);
	return 0;
}
