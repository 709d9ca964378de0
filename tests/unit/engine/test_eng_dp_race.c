/* SPDX-License-Identifier: MIT */
/*
 * A concurrent fuzzer of the engine's ring readers (issue 8, finding 1):
 * a thread rewrites ring memory at random (biased to the count fields
 * the engine validates) while the test fetches WQEs exactly as the
 * requester and responder do.  Every fetch that succeeds must hold a copy
 * that passes the same checks again (no field was read twice), and every
 * byte read must lie inside the ring (the ring is allocated to its exact
 * size, so ASan, `make check SAN=1`, flags a read past it).  Runs for
 * PV_RACE_MS milliseconds per case (default 500).
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include <infiniband/verbs.h>

#include "providers/soft/engine/eng_dp.h"

struct rewriter {
	uint8_t *ents;
	size_t bytes;
	uint32_t esz, max;
	atomic_bool stop;
	atomic_ulong writes;
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static uint64_t race_ms(void)
{
	const char *v = getenv("PV_RACE_MS");

	return v ? strtoull(v, NULL, 10) : 500;
}

/* Runs for PV_RACE_MS, and on a loaded machine longer (up to 30 s) until
 * the rewriter thread has been scheduled and both outcomes were seen:
 * a race that never raced proves nothing. */
static bool race_more(uint64_t start, struct rewriter *rw, unsigned long ok,
		      unsigned long bad)
{
	uint64_t t = now_ms() - start;

	if (t < race_ms())
		return true;
	if (t > 30000)
		return false;
	return atomic_load(&rw->writes) < 100000 || ok == 0 || bad == 0;
}

static void *rewrite(void *arg)
{
	struct rewriter *r = arg;
	unsigned seed = 12345;
	const uint32_t counts[] = { 0, 1, r->max, r->max + 1, 0xffff,
				    0xffffffffu, 256, 257 };

	while (!atomic_load_explicit(&r->stop, memory_order_relaxed)) {
		uint32_t slot = (uint32_t)rand_r(&seed) % (uint32_t)(r->bytes /
								     r->esz);
		volatile uint32_t *w = (volatile uint32_t *)(void *)
				       (r->ents + (size_t)slot * r->esz);
		uint32_t v = counts[(unsigned)rand_r(&seed) % 8];

		switch (rand_r(&seed) % 4) {
		case 0:		/* recv num_sge / send opcode+flags */
			w[2] = v;
			break;
		case 1:		/* send num_sge, inline_len */
			w[5] = v;
			w[9] = v;
			break;
		case 2:		/* any word of the slot */
			w[(unsigned)rand_r(&seed) % (r->esz / 4)] =
				(uint32_t)rand_r(&seed);
			break;
		default:	/* flip back to a legal count */
			w[2] = 1;
			w[5] = 1;
			w[9] = 1;
		}
		atomic_fetch_add_explicit(&r->writes, 1, memory_order_relaxed);
	}
	return NULL;
}

static void *ring_alloc(uint32_t num, uint32_t esz, struct eng_ring *r)
{
	/* header + entries exactly: a read past the last entry is out of
	 * the allocation */
	void *mem = malloc(sizeof(struct pv_ring_hdr) + (size_t)num * esz);

	assert_non_null(mem);
	memset(mem, 0, sizeof(struct pv_ring_hdr) + (size_t)num * esz);
	eng_dp_ring_init(r, mem, num, esz);
	return mem;
}

static void test_eng_dp_race__recv_fetch_under_rewrite(void **state)
{
	const uint32_t max_sge = 4;
	struct eng_dp_rwqe *w = malloc(sizeof(*w));
	struct rewriter rw = { .max = max_sge };
	unsigned long ok = 0, bad = 0;
	struct eng_ring r;
	pthread_t th;
	uint64_t start;
	uint32_t num, esz;
	void *mem;

	(void)state;
	assert_non_null(w);
	eng_dp_rq_geom(16, max_sge, &num, &esz);
	mem = ring_alloc(num, esz, &r);
	rw.ents = r.ents;
	rw.esz = esz;
	rw.bytes = (size_t)num * esz;
	assert_int_equal(pthread_create(&th, NULL, rewrite, &rw), 0);
	start = now_ms();
	while (race_more(start, &rw, ok, bad)) {
		for (uint32_t i = 0; i < 4096; i++) {
			struct pv_recv_wqe h;

			r.own = i;
			if (eng_dp_recv_wqe_fetch(&r, max_sge, w) < 0) {
				bad++;
				continue;
			}
			ok++;
			h.wr_id = w->wr_id;
			h.num_sge = w->num_sge;
			assert_int_equal(eng_dp_recv_wqe_check(&h, max_sge,
							       esz), 0);
			assert_true(w->num_sge <= max_sge);
		}
	}
	atomic_store(&rw.stop, true);
	pthread_join(th, NULL);
	print_message("recv fetch: %lu accepted, %lu rejected, %lu rewrites\n",
		      ok, bad, (unsigned long)atomic_load(&rw.writes));
	assert_true(ok > 0 && bad > 0);
	free(mem);
	free(w);
}

static void test_eng_dp_race__send_fetch_under_rewrite(void **state)
{
	struct pv_ipc_qp_cap cap = { .max_send_wr = 16, .max_send_sge = 3,
				     .max_inline_data = 40 };
	struct eng_dp_swqe *w = malloc(sizeof(*w));
	struct rewriter rw = { .max = 3 };
	unsigned long ok = 0, bad = 0;
	struct eng_ring r;
	pthread_t th;
	uint64_t start;
	uint32_t num, esz;
	void *mem;

	(void)state;
	assert_non_null(w);
	eng_dp_sq_geom(&cap, &num, &esz);
	mem = ring_alloc(num, esz, &r);
	rw.ents = r.ents;
	rw.esz = esz;
	rw.bytes = (size_t)num * esz;
	assert_int_equal(pthread_create(&th, NULL, rewrite, &rw), 0);
	start = now_ms();
	while (race_more(start, &rw, ok, bad)) {
		for (uint32_t i = 0; i < 4096; i++) {
			r.own = i;
			if (eng_dp_send_wqe_fetch(&r, IBV_QPT_RC, &cap, w) < 0) {
				bad++;
				continue;
			}
			ok++;
			assert_int_equal(eng_dp_send_wqe_check(&w->w, IBV_QPT_RC,
							       &cap, esz), 0);
			if (w->w.send_flags & 8)
				assert_true(w->w.inline_len <= 40);
			else
				assert_true(w->w.num_sge <= 3);
		}
	}
	atomic_store(&rw.stop, true);
	pthread_join(th, NULL);
	print_message("send fetch: %lu accepted, %lu rejected, %lu rewrites\n",
		      ok, bad, (unsigned long)atomic_load(&rw.writes));
	assert_true(ok > 0 && bad > 0);
	free(mem);
	free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eng_dp_race__recv_fetch_under_rewrite),
		cmocka_unit_test(test_eng_dp_race__send_fetch_under_rewrite),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
