/* SPDX-License-Identifier: MIT */
#include "tests/tools/pv-impair/pvi_path.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tests/tools/pv-impair/pvi_frame.h"
#include "tests/tools/pv-impair/pvi_rng.h"

int pvi_path_new(struct pvi_path *p, const struct pvi_dir_cfg *cfg,
		 uint64_t seed, size_t frame_max, uint32_t batch,
		 uint32_t queue)
{
	memset(p, 0, sizeof(*p));
	if (!frame_max || !batch || batch > 4096 || queue > (1u << 20))
		return -EINVAL;
	p->cfg = *cfg;
	p->rng = seed;
	p->frame_max = frame_max;
	p->dq_cap = cfg->delay_us ? queue : 0;
	p->nframes = 2 * batch + PVI_HOLD_MAX + p->dq_cap;
	p->mem = calloc(p->nframes, frame_max);
	p->len = calloc(p->nframes, sizeof(*p->len));
	p->free_idx = calloc(p->nframes, sizeof(*p->free_idx));
	p->out = calloc(p->nframes, sizeof(*p->out));
	p->dq_idx = calloc(p->dq_cap + 1, sizeof(*p->dq_idx));
	p->dq_due = calloc(p->dq_cap + 1, sizeof(*p->dq_due));
	if (!p->mem || !p->len || !p->free_idx || !p->out || !p->dq_idx ||
	    !p->dq_due) {
		pvi_path_free(p);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < p->nframes; i++)
		p->free_idx[p->nfree++] = p->nframes - 1 - i;
	return 0;
}

void pvi_path_free(struct pvi_path *p)
{
	free(p->mem);
	free(p->len);
	free(p->free_idx);
	free(p->out);
	free(p->dq_idx);
	free(p->dq_due);
	memset(p, 0, sizeof(*p));
}

int pvi_path_get(struct pvi_path *p, uint32_t *ret_idx)
{
	if (p->nfree == 0)
		return -ENOBUFS;
	*ret_idx = p->free_idx[--p->nfree];
	return 0;
}

void pvi_path_put(struct pvi_path *p, uint32_t idx)
{
	p->free_idx[p->nfree++] = idx;
}

/* idx may leave: now, or after the delay. */
static void release(struct pvi_path *p, uint32_t idx, uint64_t now_ns)
{
	uint32_t tail;

	if (!p->cfg.delay_us) {
		p->out[p->nout++] = idx;
		return;
	}
	if (p->dq_n == p->dq_cap) {
		p->st.qdrop++;
		pvi_path_put(p, idx);
		return;
	}
	tail = (p->dq_head + p->dq_n) % p->dq_cap;
	p->dq_idx[tail] = idx;
	p->dq_due[tail] = now_ns + (uint64_t)p->cfg.delay_us * 1000;
	p->dq_n++;
}

/* A fresh frame passed the held ones: each that has waited for enough
 * later frames goes now, behind it. */
static void pass_held(struct pvi_path *p, uint64_t now_ns)
{
	uint32_t i = 0;

	while (i < p->nhold) {
		if (--p->hold[i].left == 0) {
			release(p, p->hold[i].idx, now_ns);
			p->hold[i] = p->hold[--p->nhold];
			continue;
		}
		i++;
	}
}

static void duplicate(struct pvi_path *p, uint32_t idx, uint64_t now_ns)
{
	uint32_t copy;

	if (pvi_path_get(p, &copy) < 0)
		return;
	memcpy(pvi_path_buf(p, copy), pvi_path_buf(p, idx), p->len[idx]);
	p->len[copy] = p->len[idx];
	p->st.dup++;
	release(p, copy, now_ns);
}

void pvi_path_input(struct pvi_path *p, uint32_t idx, uint32_t len,
		    uint64_t now_ns)
{
	int dup;

	p->st.rx++;
	p->st.rx_bytes += len;
	p->len[idx] = len;
	if (pvi_rng_hit(&p->rng, p->cfg.loss_ppm)) {
		p->st.drop++;
		pvi_path_put(p, idx);
		return;
	}
	if (pvi_rng_hit(&p->rng, p->cfg.corrupt_ppm)) {
		if (pvi_frame_corrupt(pvi_path_buf(p, idx), len,
				      pvi_rng_next(&p->rng)) >= 0)
			p->st.corrupt++;
		else
			p->st.corrupt_skip++;
	}
	dup = pvi_rng_hit(&p->rng, p->cfg.dup_ppm);
	if (pvi_rng_hit(&p->rng, p->cfg.reorder_ppm) &&
	    p->nhold < PVI_HOLD_MAX) {
		p->hold[p->nhold++] = (struct pvi_held){
			.idx = idx, .left = p->cfg.hold_frames,
			.deadline = now_ns + (uint64_t)p->cfg.hold_us * 1000,
		};
		p->st.reorder++;
		if (dup)
			duplicate(p, idx, now_ns);
		return;
	}
	release(p, idx, now_ns);
	if (dup)
		duplicate(p, idx, now_ns);
	pass_held(p, now_ns);
}

void pvi_path_tick(struct pvi_path *p, uint64_t now_ns)
{
	uint32_t i = 0;

	while (i < p->nhold) {
		if (p->hold[i].deadline <= now_ns) {
			release(p, p->hold[i].idx, now_ns);
			p->hold[i] = p->hold[--p->nhold];
			continue;
		}
		i++;
	}
	while (p->dq_n && p->dq_due[p->dq_head] <= now_ns) {
		p->out[p->nout++] = p->dq_idx[p->dq_head];
		p->dq_head = (p->dq_head + 1) % p->dq_cap;
		p->dq_n--;
	}
}

uint64_t pvi_path_next_due(const struct pvi_path *p)
{
	uint64_t due = UINT64_MAX;

	for (uint32_t i = 0; i < p->nhold; i++)
		if (p->hold[i].deadline < due)
			due = p->hold[i].deadline;
	if (p->dq_n && p->dq_due[p->dq_head] < due)
		due = p->dq_due[p->dq_head];
	return due;
}

void pvi_path_out_done(struct pvi_path *p)
{
	for (uint32_t i = 0; i < p->nout; i++)
		pvi_path_put(p, p->out[i]);
	p->nout = 0;
}
