/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the data path on rings a hostile pod writes.  Each
 * input sets up, through the IPC (fuzz_eng.h), a context with one memfd
 * MR, one CQ and two QPs of one type (RC, UC or UD) connected to each other
 * on the same device, maps their rings as the pod does, and then plays:
 *
 *   input  := type:u8 step*
 *   step   := 0 wqe   post a send WQE on QP A (SQ entry, then prod++)
 *           | 1 wqe   post a receive WQE on QP B
 *           | 2 wqe   post a receive WQE on QP A
 *           | 3 wqe   post a send WQE on QP B
 *           | 4 u32   set A's SQ prod to any value
 *           | 5       run one pass of the data path (eng_dp_run)
 *           | 6 u16 u32  write a word anywhere in A's ring memory
 *           | 7 u32   set the CQ's cons to any value
 *   wqe    := len:u8 bytes[len]  (zero-padded to the entry size)
 *
 * Each WQE also goes through eng_dp_send_wqe_check / eng_dp_recv_wqe_check
 * directly.  Inside WQE bytes, 8-byte aligned words 0xfffffffe_0000XXXX
 * become the MR's address + XXXX, and 4-byte words 0xffffff0K become:
 * K=1 the lkey, 2 the rkey, 3 the AH handle, 4 QP B's number, 5 QP A's
 * number, 6 the Q_Key; so valid SGEs and remote addresses are easy to
 * reach, and every field stays the fuzzer's to break.
 *
 * FUZZ_WQE_RACE=1 adds what a single-threaded harness cannot: during every
 * data-path pass a second thread keeps rewriting the num_sge and first SGE
 * of every receive entry of both QPs (valid, then huge, then valid...), as a
 * hostile pod's thread does after the engine checked the entry (issue 8,
 * finding 1).  Not deterministic, so off in the CI smoke.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/pv-soft-ring-abi.h"
#include "tests/fuzz/fuzz_eng.h"

#define MR_LEN		65536
#define QKEY		0x11111111u
#define MAX_STEPS	128

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct ring_view {
	uint8_t *base;		/* the ring header in our mapping */
	uint32_t num, esz;	/* geometry read once at map time */
	uint32_t prod;		/* our producer counter */
};

struct fz_qp {
	uint32_t handle, qpn;
	struct pv_ipc_qp_cap cap;
	void *map;
	size_t map_len;
	struct ring_view sq, rq;
};

static struct {
	struct fz_eng f;
	uint32_t qpt, pd, cq, ah, lkey, rkey;
	uint8_t *mr;
	void *cq_map;
	size_t cq_map_len;
	struct pv_ring_hdr *cq_hdr;
	struct fz_qp a, b;
} S;

static uint32_t reply_u32(unsigned int i)
{
	uint32_t v;

	memcpy(&v, S.f.reply + sizeof(struct pv_msg_hdr) + 4 * i, 4);
	return v;
}

static void *map_reply(size_t *len)
{
	struct pv_ipc_map_resp m;
	void *p;

	if (S.f.nfds < 1 || S.f.reply_len < (int)sizeof(m))
		return NULL;
	memcpy(&m, S.f.reply + sizeof(struct pv_msg_hdr), sizeof(m));
	p = mmap(NULL, m.map_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 S.f.fds[0], 0);
	if (p == MAP_FAILED)
		return NULL;
	*len = m.map_size;
	return p;
}

static void view(struct ring_view *v, void *map, uint32_t off)
{
	const struct pv_ring_hdr *h = (const void *)((uint8_t *)map + off);

	v->base = (uint8_t *)h;
	v->num = h->num_entries;
	v->esz = h->entry_size;
	v->prod = 0;
}

static void ah_attr(struct pv_ipc_ah_attr *a)
{
	static const uint8_t gid[16] = { [10] = 0xff, [11] = 0xff,
					 10, 0, 0, 1 };

	memset(a, 0, sizeof(*a));
	memcpy(a->dgid, gid, 16);
	a->hop_limit = 64;
	a->is_global = 1;
	a->port_num = 1;
}

static int qp_up(struct fz_qp *q, uint32_t dest)
{
	struct pv_ipc_qp_modify m;
	static const uint32_t states[] = { IBV_QPS_INIT, IBV_QPS_RTR,
					   IBV_QPS_RTS };
	/* ibv_qp_attr_mask bits per transition (IBA 10.2.4 / rdma-core). */
	uint32_t rc_masks[] = { 1 | 8 | 16 | 32,
				1 | 128 | 256 | 4096 | 131072 | 32768 |
				(1u << 20),
				1 | 512 | 1024 | 2048 | 8192 | 65536 };
	uint32_t uc_masks[] = { 1 | 8 | 16 | 32,
				1 | 128 | 256 | 4096 | (1u << 20), 1 | 65536 };
	uint32_t ud_masks[] = { 1 | 16 | 32 | 64, 1, 1 | 65536 };
	const uint32_t *masks = S.qpt == IBV_QPT_RC ? rc_masks :
				S.qpt == IBV_QPT_UC ? uc_masks : ud_masks;

	for (int i = 0; i < 3; i++) {
		memset(&m, 0, sizeof(m));
		m.qp_handle = q->handle;
		m.attr_mask = masks[i];
		m.attr.qp_state = states[i];
		m.attr.path_mtu = 3;
		m.attr.qkey = QKEY;
		m.attr.dest_qp_num = dest;
		m.attr.qp_access_flags = 0xf;
		m.attr.port_num = 1;
		m.attr.max_rd_atomic = m.attr.max_dest_rd_atomic = 1;
		m.attr.min_rnr_timer = 1;
		m.attr.timeout = 1;
		m.attr.retry_cnt = m.attr.rnr_retry = 1;
		ah_attr(&m.attr.ah_attr);
		if (fz_eng_call(&S.f, PV_OP_QP_MODIFY, &m, sizeof(m), NULL,
				0) != 0)
			return -1;
	}
	return 0;
}

static int qp_make(struct fz_qp *q)
{
	struct pv_ipc_qp_create c = { .pd_handle = S.pd,
				      .send_cq_handle = S.cq,
				      .recv_cq_handle = S.cq,
				      .qp_type = S.qpt,
				      .cap = { 8, 8, 4, 4, 64, 0 } };
	struct pv_ipc_handle h = { 0 };

	memset(q, 0, sizeof(*q));
	if (fz_eng_call(&S.f, PV_OP_QP_CREATE, &c, sizeof(c), NULL, 0) != 0)
		return -1;
	q->handle = reply_u32(0);
	q->qpn = reply_u32(1);
	memcpy(&q->cap, S.f.reply + sizeof(struct pv_msg_hdr) + 8,
	       sizeof(q->cap));
	h.handle = q->handle;
	if (fz_eng_call(&S.f, PV_OP_QP_MAP, &h, sizeof(h), NULL, 0) != 0)
		return -1;
	q->map = map_reply(&q->map_len);
	if (!q->map)
		return -1;
	{
		struct pv_ipc_map_resp m;

		memcpy(&m, S.f.reply + sizeof(struct pv_msg_hdr), sizeof(m));
		view(&q->sq, q->map, m.ring_off[0]);
		view(&q->rq, q->map, m.ring_off[1]);
	}
	fz_eng_drop_fds(&S.f);
	return 0;
}

static int setup(uint8_t type)
{
	struct pv_ipc_hello hello = { .abi_version = PV_IPC_VERSION };
	struct pv_ipc_dev_ref ref = { 0 };
	struct {
		struct pv_ipc_mr_reg r;
		struct pv_ipc_mr_backing b;
	} mr = { { 0 }, { 0 } };
	struct pv_ipc_cq_create cq = { .cqe = 64 };
	struct pv_ipc_ah_create ah = { 0 };
	struct pv_ipc_handle h = { 0 };
	int mfd;

	S.qpt = IBV_QPT_RC + type % 3;
	if (fz_eng_setup(&S.f) < 0)
		return -1;
	ref.dev_id = S.f.dev->id;
	if (fz_eng_call(&S.f, PV_OP_HELLO, &hello, sizeof(hello), NULL, 0) ||
	    fz_eng_call(&S.f, PV_OP_CTX_OPEN, &ref, sizeof(ref), NULL, 0) ||
	    fz_eng_call(&S.f, PV_OP_PD_ALLOC, NULL, 0, NULL, 0))
		return -1;
	S.pd = reply_u32(0);
	mfd = memfd_create("fuzz-mr", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (mfd < 0 || ftruncate(mfd, MR_LEN) < 0)
		return -1;
	S.mr = mmap(NULL, MR_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	if (S.mr == MAP_FAILED) {
		S.mr = NULL;
		close(mfd);
		return -1;
	}
	/* Written, not just sized, as the provider populates what it
	 * shares: the engine refuses an MR over a memfd with holes
	 * (eng_dp_mem.c). */
	memset(S.mr, 0, MR_LEN);
	mr.r.pd_handle = S.pd;
	mr.r.access = 0xf;
	mr.r.addr = mr.r.iova = (uint64_t)(uintptr_t)S.mr;
	mr.r.length = MR_LEN;
	mr.b.has_fd = 1;
	if (fz_eng_call(&S.f, PV_OP_MR_REG, &mr, sizeof(mr), &mfd, 1)) {
		close(mfd);
		return -1;
	}
	close(mfd);
	S.lkey = reply_u32(1);
	S.rkey = reply_u32(2);
	if (fz_eng_call(&S.f, PV_OP_CTX_MAP, NULL, 0, NULL, 0) ||
	    fz_eng_call(&S.f, PV_OP_CQ_CREATE, &cq, sizeof(cq), NULL, 0))
		return -1;
	S.cq = h.handle = reply_u32(0);
	if (fz_eng_call(&S.f, PV_OP_CQ_MAP, &h, sizeof(h), NULL, 0))
		return -1;
	S.cq_map = map_reply(&S.cq_map_len);
	if (!S.cq_map)
		return -1;
	{
		struct pv_ipc_map_resp m;

		memcpy(&m, S.f.reply + sizeof(struct pv_msg_hdr), sizeof(m));
		S.cq_hdr = (void *)((uint8_t *)S.cq_map + m.ring_off[0]);
	}
	fz_eng_drop_fds(&S.f);
	if (qp_make(&S.a) || qp_make(&S.b))
		return -1;
	if (qp_up(&S.a, S.b.qpn) || qp_up(&S.b, S.a.qpn))
		return -1;
	ah.pd_handle = S.pd;
	ah_attr(&ah.attr);
	if (S.qpt == IBV_QPT_UD &&
	    fz_eng_call(&S.f, PV_OP_AH_CREATE, &ah, sizeof(ah), NULL, 0) == 0)
		S.ah = reply_u32(0);
	return 0;
}

static void unmap_all(void)
{
	if (S.a.map)
		munmap(S.a.map, S.a.map_len);
	if (S.b.map)
		munmap(S.b.map, S.b.map_len);
	if (S.cq_map)
		munmap(S.cq_map, S.cq_map_len);
	if (S.mr)
		munmap(S.mr, MR_LEN);
	memset(&S.a, 0, sizeof(S.a));
	memset(&S.b, 0, sizeof(S.b));
	S.cq_map = NULL;
	S.cq_hdr = NULL;
	S.mr = NULL;
}

static void patch(uint8_t *w, uint32_t len)
{
	const uint32_t words[8] = { 0, S.lkey, S.rkey, S.ah, S.b.qpn,
				    S.a.qpn, QKEY, 0 };

	for (uint32_t off = 0; off + 8 <= len; off += 8) {
		uint64_t v;

		memcpy(&v, w + off, 8);
		if (v >> 32 == 0xfffffffeu) {
			v = (uint64_t)(uintptr_t)S.mr + (v & 0xffff);
			memcpy(w + off, &v, 8);
		}
	}
	for (uint32_t off = 0; off + 4 <= len; off += 4) {
		uint32_t v;

		memcpy(&v, w + off, 4);
		if (v >> 8 == 0xffffffu && (v & 0xff) < 8)
			memcpy(w + off, &words[v & 7], 4);
	}
}

/* Copies a WQE into the next entry of r and publishes it. */
static void post(struct ring_view *r, const uint8_t *in, uint32_t len,
		 bool send, const struct pv_ipc_qp_cap *cap)
{
	uint8_t ent[4096];
	uint32_t esz = r->esz;

	if (!r->base || !esz || esz > sizeof(ent) || !r->num ||
	    (r->num & (r->num - 1)))
		return;
	memset(ent, 0, esz);
	memcpy(ent, in, len < esz ? len : esz);
	patch(ent, esz);
	/* The pure checks, on our copy. */
	if (send)
		eng_dp_send_wqe_check((const void *)ent, S.qpt, cap, esz);
	else
		eng_dp_recv_wqe_check((const void *)ent, cap->max_recv_sge,
				      esz);
	memcpy(r->base + sizeof(struct pv_ring_hdr) +
	       (size_t)(r->prod & (r->num - 1)) * esz, ent, esz);
	r->prod++;
	__atomic_store_n(&((struct pv_ring_hdr *)r->base)->prod, r->prod,
			 __ATOMIC_RELEASE);
}

/* FUZZ_WQE_TRACE=1: print the completions (checking seeds). */
static int trace;
static int race;
static volatile int racing, racer_up;

static void flip_ring(const struct ring_view *r, uint32_t k)
{
	if (!r->base || !r->num || (r->num & (r->num - 1)) || r->esz < 32)
		return;
	for (uint32_t i = 0; i < r->num; i++) {
		uint8_t *e = r->base + sizeof(struct pv_ring_hdr) +
			     (size_t)i * r->esz;
		uint32_t n = k & 1 ? 1 : 0xffffu;
		uint32_t len = k & 1 ? 64 : 0x7fffffffu;

		__atomic_store_n((uint32_t *)(e + 8), n, __ATOMIC_RELAXED);
		__atomic_store_n((uint32_t *)(e + 16 + 8), len,
				 __ATOMIC_RELAXED);
	}
}

static void *racer(void *arg)
{
	racer_up = 1;
	for (uint32_t k = 0; racing; k++) {
		flip_ring(&S.b.rq, k);
		flip_ring(&S.a.rq, k);
	}
	return arg;
}

static void run_pass(void)
{
	uint32_t prod;
	pthread_t t;
	bool started = false;

	if (race) {
		racing = 1;
		racer_up = 0;
		started = pthread_create(&t, NULL, racer, NULL) == 0;
		while (started && !racer_up)
			;	/* the rewrites must overlap the pass */
	}
	eng_dp_run(&S.f.e);
	if (started) {
		racing = 0;
		pthread_join(t, NULL);
	}
	if (!S.cq_hdr)
		return;
	/* Poll the CQ as a pod would, so it does not overflow. */
	prod = __atomic_load_n(&S.cq_hdr->prod, __ATOMIC_ACQUIRE);
	for (uint32_t c = S.cq_hdr->cons; trace && c != prod; c++) {
		const struct pv_cqe *q = (const void *)((const uint8_t *)
			S.cq_hdr + S.cq_hdr->entries_off +
			(size_t)(c & (S.cq_hdr->num_entries - 1)) *
			S.cq_hdr->entry_size);

		fprintf(stderr, "fuzz_wqe: cqe qp %u wr_id %llu status %u "
			"opcode %u len %u\n", q->qp_num,
			(unsigned long long)q->wr_id, q->status, q->opcode,
			q->byte_len);
	}
	__atomic_store_n(&S.cq_hdr->cons, prod, __ATOMIC_RELEASE);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t pos = 1;

	if (size < 1)
		return 0;
	fz_eng_global_init();
	trace = getenv("FUZZ_WQE_TRACE") != NULL;
	race = getenv("FUZZ_WQE_RACE") != NULL;
	if (setup(data[0]) < 0)
		abort();	/* the fixture itself must work */
	for (int n = 0; n < MAX_STEPS && pos < size && S.f.conn; n++) {
		uint8_t op = data[pos++] & 7;
		uint32_t len = 0, v = 0;
		uint16_t off = 0;

		if (op <= 3) {
			if (pos >= size)
				break;
			len = data[pos++];
			if (len > size - pos)
				len = (uint32_t)(size - pos);
		}
		switch (op) {
		case 0: post(&S.a.sq, data + pos, len, true, &S.a.cap); break;
		case 1: post(&S.b.rq, data + pos, len, false, &S.b.cap); break;
		case 2: post(&S.a.rq, data + pos, len, false, &S.a.cap); break;
		case 3: post(&S.b.sq, data + pos, len, true, &S.b.cap); break;
		case 4:
			if (size - pos >= 4)
				memcpy(&v, data + pos, 4);
			len = 4;
			if (S.a.sq.base)
				__atomic_store_n(&((struct pv_ring_hdr *)
						   S.a.sq.base)->prod, v,
						 __ATOMIC_RELEASE);
			break;
		case 5: run_pass(); break;
		case 6:
			if (size - pos >= 6) {
				memcpy(&off, data + pos, 2);
				memcpy(&v, data + pos + 2, 4);
			}
			len = 6;
			if (S.a.map && S.a.map_len >= 4)
				memcpy((uint8_t *)S.a.map +
				       (off % (S.a.map_len - 3)), &v, 4);
			break;
		case 7:
			if (size - pos >= 4)
				memcpy(&v, data + pos, 4);
			len = 4;
			if (S.cq_hdr)
				__atomic_store_n(&S.cq_hdr->cons, v,
						 __ATOMIC_RELEASE);
			break;
		}
		pos += len < size - pos ? len : size - pos;
	}
	run_pass();
	run_pass();
	fz_eng_teardown(&S.f);
	unmap_all();
	return 0;
}
