/* SPDX-License-Identifier: MIT */
/* Unit tests of the link impairer's pure parts (tests/tools/pv-impair/):
 * impairment words, where a corruption lands in a frame, and one
 * direction's pipeline (rates, determinism, reordering, delay, pool). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "tests/tools/pv-impair/pvi_frame.h"
#include "tests/tools/pv-impair/pvi_path.h"
#include "tests/tools/pv-impair/pvi_report.h"
#include "tests/tools/pv-impair/pvi_rng.h"
#include "tests/tools/pv-impair/pvi_spec.h"

/* An Ethernet frame with an optional VLAN tag and an IPv4 (or IPv6)
 * header carrying proto with an L4 header of l4len and plen payload
 * bytes; returns the frame length. */
static size_t mk_frame(uint8_t *f, int vlan, int v6, int proto, size_t plen)
{
	size_t l3 = 14 + (vlan ? 4 : 0), l4, l4len = proto == 6 ? 20 : 8;

	memset(f, 0, 2048);
	if (vlan) {
		f[12] = 0x81; f[13] = 0x00; f[16] = v6 ? 0x86 : 0x08;
		f[17] = v6 ? 0xdd : 0x00;
	} else {
		f[12] = v6 ? 0x86 : 0x08; f[13] = v6 ? 0xdd : 0x00;
	}
	if (v6) {
		f[l3] = 0x60;
		f[l3 + 4] = (uint8_t)((l4len + plen) >> 8);
		f[l3 + 5] = (uint8_t)(l4len + plen);
		f[l3 + 6] = (uint8_t)proto;
		l4 = l3 + 40;
	} else {
		size_t tot = 20 + l4len + plen;

		f[l3] = 0x45;
		f[l3 + 2] = (uint8_t)(tot >> 8);
		f[l3 + 3] = (uint8_t)tot;
		f[l3 + 9] = (uint8_t)proto;
		l4 = l3 + 20;
	}
	if (proto == 17) {
		f[l4 + 4] = (uint8_t)((8 + plen) >> 8);
		f[l4 + 5] = (uint8_t)(8 + plen);
	} else if (proto == 6) {
		f[l4 + 12] = 5 << 4;
	}
	return l4 + l4len + plen;
}

static void test_pvi_frame__payload_spans(void **state)
{
	uint8_t f[2048];
	size_t off, n, len;

	(void)state;
	len = mk_frame(f, 0, 0, 17, 100);
	assert_int_equal(pvi_frame_l4_payload(f, len, &off, &n), 0);
	assert_int_equal(off, 14 + 20 + 8);
	assert_int_equal(n, 100);
	len = mk_frame(f, 1, 0, 6, 50);
	assert_int_equal(pvi_frame_l4_payload(f, len, &off, &n), 0);
	assert_int_equal(off, 18 + 20 + 20);
	assert_int_equal(n, 50);
	len = mk_frame(f, 0, 1, 17, 10);
	assert_int_equal(pvi_frame_l4_payload(f, len, &off, &n), 0);
	assert_int_equal(off, 14 + 40 + 8);
	assert_int_equal(n, 10);
	/* Ethernet padding past the IP length is not payload. */
	len = mk_frame(f, 0, 0, 17, 4);
	assert_int_equal(pvi_frame_l4_payload(f, 60, &off, &n), 0);
	assert_int_equal(n, 4);
	(void)len;
}

static void test_pvi_frame__refuses_others(void **state)
{
	uint8_t f[2048];
	size_t off, n, len;

	(void)state;
	len = mk_frame(f, 0, 0, 1, 20);			/* ICMP */
	assert_int_equal(pvi_frame_l4_payload(f, len, &off, &n), -ENOENT);
	len = mk_frame(f, 0, 0, 17, 0);			/* empty UDP */
	assert_int_equal(pvi_frame_l4_payload(f, len, &off, &n), -ENOENT);
	len = mk_frame(f, 0, 0, 17, 100);
	f[14 + 6] = 0x00; f[14 + 7] = 0x10;		/* fragment offset */
	assert_int_equal(pvi_frame_l4_payload(f, len, &off, &n), -ENOENT);
	len = mk_frame(f, 0, 0, 17, 100);
	assert_int_equal(pvi_frame_l4_payload(f, len - 1, &off, &n), -EBADMSG);
	assert_int_equal(pvi_frame_l4_payload(f, 13, &off, &n), -EBADMSG);
	f[14 + 20 + 5] = 4;				/* UDP length < 8 */
	assert_int_equal(pvi_frame_l4_payload(f, len, &off, &n), -EBADMSG);
	len = mk_frame(f, 0, 0, 6, 10);
	f[14 + 20 + 12] = 15 << 4;			/* data offset 60 > frame */
	assert_int_equal(pvi_frame_l4_payload(f, len, &off, &n), -EBADMSG);
	memset(f, 0, 64);
	f[12] = 0x08; f[13] = 0x06;			/* ARP */
	assert_int_equal(pvi_frame_l4_payload(f, 60, &off, &n), -ENOENT);
	f[12] = 0x81; f[13] = 0x00;			/* VLAN tag cut short */
	assert_int_equal(pvi_frame_l4_payload(f, 16, &off, &n), -EBADMSG);
}

static void test_pvi_frame__corrupt_flips_one_payload_bit(void **state)
{
	uint8_t f[2048], orig[2048];
	size_t len = mk_frame(f, 0, 0, 17, 64), diff = 0;
	long bit;

	(void)state;
	for (uint64_t r = 0; r < 2000; r += 7) {
		memcpy(orig, f, len);
		bit = pvi_frame_corrupt(f, len, r * 0x9e3779b97f4a7c15ull);
		assert_true(bit >= (14 + 28) * 8 && bit < (long)len * 8);
		diff = 0;
		for (size_t i = 0; i < len; i++)
			diff += (size_t)__builtin_popcount(f[i] ^ orig[i]);
		assert_int_equal(diff, 1);
		assert_int_equal((f[bit / 8] ^ orig[bit / 8]), 1 << (bit % 8));
		memcpy(f, orig, len);
	}
	len = mk_frame(f, 0, 0, 1, 20);
	assert_int_equal(pvi_frame_corrupt(f, len, 5), -ENOENT);
}

static void test_pvi_spec__words(void **state)
{
	struct pvi_dir_cfg c[PVI_NDIR];

	(void)state;
	pvi_spec_defaults(c);
	assert_int_equal(c[0].hold_frames, 3);
	assert_int_equal(pvi_spec_apply(c, "loss=3"), 0);
	assert_int_equal(c[PVI_AB].loss_ppm, 30000);
	assert_int_equal(c[PVI_BA].loss_ppm, 30000);
	assert_int_equal(pvi_spec_apply(c, "ab.corrupt=0.1"), 0);
	assert_int_equal(c[PVI_AB].corrupt_ppm, 1000);
	assert_int_equal(c[PVI_BA].corrupt_ppm, 0);
	assert_int_equal(pvi_spec_apply(c, "ba.delay=250"), 0);
	assert_int_equal(c[PVI_BA].delay_us, 250);
	assert_int_equal(c[PVI_AB].delay_us, 0);
	assert_int_equal(pvi_spec_apply(c, "reorder=5"), 0);
	assert_int_equal(pvi_spec_apply(c, "dup=100"), 0);
	assert_int_equal(pvi_spec_apply(c, "hold=64"), 0);
	assert_int_equal(pvi_spec_apply(c, "loss=100.5"), -EINVAL);
	assert_int_equal(pvi_spec_apply(c, "loss=-1"), -EINVAL);
	assert_int_equal(pvi_spec_apply(c, "loss=3x"), -EINVAL);
	assert_int_equal(pvi_spec_apply(c, "loss="), -EINVAL);
	assert_int_equal(pvi_spec_apply(c, "loss"), -EINVAL);
	assert_int_equal(pvi_spec_apply(c, "lossy=1"), -EINVAL);
	assert_int_equal(pvi_spec_apply(c, "hold=0"), -EINVAL);
	assert_int_equal(pvi_spec_apply(c, "hold=65"), -EINVAL);
	assert_int_equal(pvi_spec_apply(c, "delay=-5"), -EINVAL);
	assert_int_equal(pvi_spec_apply(c, "xy.loss=1"), -EINVAL);
	/* A refused word changed nothing. */
	assert_int_equal(c[PVI_AB].loss_ppm, 30000);
	assert_int_equal(c[PVI_AB].hold_frames, 64);
}

/* Feeds n frames (each carrying its sequence number in its UDP payload)
 * through p at time t; appends what came out to seq_out. */
static size_t feed(struct pvi_path *p, uint32_t first, uint32_t n,
		   uint64_t t, uint32_t *seq_out, size_t nseq)
{
	for (uint32_t i = first; i < first + n; i++) {
		uint32_t idx;
		uint8_t *f;
		size_t len;

		assert_int_equal(pvi_path_get(p, &idx), 0);
		f = pvi_path_buf(p, idx);
		len = mk_frame(f, 0, 0, 17, 64);
		memcpy(f + 42, &i, sizeof(i));
		pvi_path_input(p, idx, (uint32_t)len, t);
		pvi_path_tick(p, t);
		for (uint32_t k = 0; k < p->nout; k++)
			memcpy(&seq_out[nseq++], pvi_path_buf(p, p->out[k]) + 42,
			       sizeof(uint32_t));
		p->st.tx += p->nout;
		pvi_path_out_done(p);
	}
	return nseq;
}

static uint32_t seqs[400000];

static void test_pvi_path__rates_and_seed(void **state)
{
	struct pvi_dir_cfg c[PVI_NDIR];
	struct pvi_path p, q;
	const uint32_t n = 100000;

	(void)state;
	pvi_spec_defaults(c);
	assert_int_equal(pvi_spec_apply(c, "loss=3"), 0);
	assert_int_equal(pvi_spec_apply(c, "dup=1"), 0);
	assert_int_equal(pvi_spec_apply(c, "reorder=5"), 0);
	assert_int_equal(pvi_spec_apply(c, "corrupt=0.1"), 0);
	assert_int_equal(pvi_path_new(&p, &c[0], 42, 2048, 64, 0), 0);
	assert_int_equal(pvi_path_new(&q, &c[0], 42, 2048, 64, 0), 0);
	feed(&p, 0, n, 0, seqs, 0);
	/* Within 10 % of the rate asked (binomial sd is ~2 % of it). */
	assert_in_range(p.st.drop, 2700, 3300);
	assert_in_range(p.st.dup, 870, 1070);
	assert_in_range(p.st.reorder, 4140, 5060);
	assert_in_range(p.st.corrupt, 70, 130);
	assert_int_equal(p.st.rx, n);
	/* Held frames still waiting come out at their deadline. */
	pvi_path_tick(&p, UINT64_MAX - 1);
	p.st.tx += p.nout;
	pvi_path_out_done(&p);
	assert_int_equal(p.st.tx, n - p.st.drop + p.st.dup);
	assert_int_equal(p.nfree, p.nframes);
	/* The same seed makes the same decisions. */
	feed(&q, 0, n, 0, seqs, 0);
	assert_int_equal(q.st.drop, p.st.drop);
	assert_int_equal(q.st.dup, p.st.dup);
	assert_int_equal(q.st.reorder, p.st.reorder);
	pvi_path_free(&p);
	pvi_path_free(&q);
}

static void test_pvi_path__hold_goes_after_n(void **state)
{
	struct pvi_dir_cfg c[PVI_NDIR];
	struct pvi_path p;
	size_t n;

	(void)state;
	pvi_spec_defaults(c);
	assert_int_equal(pvi_spec_apply(c, "reorder=100"), 0);
	assert_int_equal(pvi_spec_apply(c, "hold=2"), 0);
	assert_int_equal(pvi_path_new(&p, &c[0], 1, 2048, 8, 0), 0);
	/* All held: nothing out until the deadline (2 ms). */
	n = feed(&p, 0, 3, 0, seqs, 0);
	assert_int_equal(n, 0);
	assert_int_equal(pvi_path_next_due(&p), 2000000);
	pvi_path_tick(&p, 1999999);
	assert_int_equal(p.nout, 0);
	pvi_path_tick(&p, 2000000);
	assert_int_equal(p.nout, 3);
	pvi_path_out_done(&p);
	pvi_path_free(&p);
	/* Nothing held but frame 0: it goes after frames 1 and 2. */
	pvi_spec_defaults(c);
	assert_int_equal(pvi_spec_apply(c, "hold=2"), 0);
	assert_int_equal(pvi_path_new(&p, &c[0], 1, 2048, 8, 0), 0);
	p.cfg.reorder_ppm = PVI_PPM;
	n = feed(&p, 0, 1, 0, seqs, 0);
	p.cfg.reorder_ppm = 0;
	n = feed(&p, 1, 3, 0, seqs, n);
	assert_int_equal(n, 4);
	assert_int_equal(seqs[0], 1);
	assert_int_equal(seqs[1], 2);
	assert_int_equal(seqs[2], 0);
	assert_int_equal(seqs[3], 3);
	pvi_path_free(&p);
}

static void test_pvi_path__delay_and_queue(void **state)
{
	struct pvi_dir_cfg c[PVI_NDIR];
	struct pvi_path p;
	size_t n;

	(void)state;
	pvi_spec_defaults(c);
	assert_int_equal(pvi_spec_apply(c, "delay=100"), 0);
	assert_int_equal(pvi_path_new(&p, &c[0], 1, 2048, 4, 4), 0);
	n = feed(&p, 0, 6, 1000, seqs, 0);
	assert_int_equal(n, 0);
	assert_int_equal(p.st.qdrop, 2);		/* queue of 4 */
	assert_int_equal(pvi_path_next_due(&p), 101000);
	pvi_path_tick(&p, 101000);
	assert_int_equal(p.nout, 4);
	pvi_path_out_done(&p);
	assert_int_equal(pvi_path_next_due(&p), UINT64_MAX);
	assert_int_equal(p.nfree, p.nframes);
	pvi_path_free(&p);
	assert_int_equal(pvi_path_new(&p, &c[0], 1, 0, 4, 4), -EINVAL);
}

static void test_pvi_report__line(void **state)
{
	struct pvi_stats st = { .rx = 10, .tx = 9, .drop = 1, .qdrop = 7 };
	char buf[512];

	(void)state;
	assert_true(pvi_report_line(buf, sizeof(buf), "ab", &st) > 0);
	assert_non_null(strstr(buf, "pv-impair ab rx=10 "));
	assert_non_null(strstr(buf, " tx=9 "));
	assert_non_null(strstr(buf, " drop=1 "));
	assert_non_null(strstr(buf, " qdrop=7 "));
	assert_int_equal(pvi_report_line(buf, 20, "ab", &st), -ENOSPC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pvi_frame__payload_spans),
		cmocka_unit_test(test_pvi_frame__refuses_others),
		cmocka_unit_test(test_pvi_frame__corrupt_flips_one_payload_bit),
		cmocka_unit_test(test_pvi_spec__words),
		cmocka_unit_test(test_pvi_path__rates_and_seed),
		cmocka_unit_test(test_pvi_path__hold_goes_after_n),
		cmocka_unit_test(test_pvi_path__delay_and_queue),
		cmocka_unit_test(test_pvi_report__line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
