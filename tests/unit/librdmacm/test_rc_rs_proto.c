/* SPDX-License-Identifier: MIT */
/* Unit tests of the rsockets wire layer (librdmacm/rc_rs_proto.h): the
 * connect private data byte for byte as rdma-core lays it out, the
 * immediate encodings, the scaled iomap size, and the checks applied to
 * what a peer sends (credits, data lengths, grants). */
#include <endian.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "librdmacm/rc_rs_proto.h"
#include "librdmacm/rc_rs_rx.h"

static void test_rc_rs_proto__imm_layout(void **state)
{
	(void)state;
	/* rdma-core: op in bits 31..29, argument in 28..0. */
	assert_int_equal(rc_rs_msg(RC_RS_OP_DATA, 4096), 0x00001000u);
	assert_int_equal(rc_rs_msg(RC_RS_OP_SGL, 0x1234), 0x80001234u);
	assert_int_equal(rc_rs_msg(RC_RS_OP_CTRL, RC_RS_CTRL_DISCONNECT),
			 0xE0000000u);
	assert_int_equal(rc_rs_msg(RC_RS_OP_CTRL, RC_RS_CTRL_SHUTDOWN),
			 0xE0000002u);
	assert_int_equal(rc_rs_msg(RC_RS_OP_IOMAP_SGL, 3), 0xC0000003u);
	assert_int_equal(rc_rs_msg_op(0xE0000001u), RC_RS_OP_CTRL);
	assert_int_equal(rc_rs_msg_data(0xE0000001u), RC_RS_CTRL_KEEPALIVE);
	assert_int_equal(rc_rs_msg_op(0x1FFFFFFFu), RC_RS_OP_DATA);
	assert_int_equal(rc_rs_msg_data(0x9FFFFFFFu), 0x1FFFFFFFu);
	/* An argument never spills into the op bits. */
	assert_int_equal(rc_rs_msg(RC_RS_OP_DATA, 0xFFFFFFFFu), 0x1FFFFFFFu);
}

/* Control messages as rdma-core 44 sends them: disconnect and shutdown
 * a zero-length write with the CTRL immediate (bytes e0 00 00 0N on the
 * wire) into the peer's target SGL; keep-alive a zero-length write with
 * no immediate, to address 0 and rkey 0 (kernel rxe in the vm tier's
 * t_rs_interop shows opcode RDMA WRITE ONLY from Debian's library). */
static void test_rc_rs_proto__ctrl_wr(void **state)
{
	static const uint8_t disc[4] = { 0xE0, 0, 0, 0 };
	static const uint8_t shut[4] = { 0xE0, 0, 0, 2 };
	struct rc_rs_ctrl_wr c;
	uint32_t be;

	(void)state;
	rc_rs_ctrl_encode(RC_RS_CTRL_KEEPALIVE, 0x7f0012345000ull, 0x1234, &c);
	assert_false(c.with_imm);
	assert_true(c.addr == 0);
	assert_int_equal(c.rkey, 0);
	assert_int_equal(c.imm, 0);

	rc_rs_ctrl_encode(RC_RS_CTRL_DISCONNECT, 0x7f0012345000ull, 0x1234, &c);
	assert_true(c.with_imm);
	be = htobe32(c.imm);
	assert_memory_equal(&be, disc, 4);
	assert_true(c.addr == 0x7f0012345000ull);
	assert_int_equal(c.rkey, 0x1234);

	rc_rs_ctrl_encode(RC_RS_CTRL_SHUTDOWN, 0x1000, 7, &c);
	assert_true(c.with_imm);
	be = htobe32(c.imm);
	assert_memory_equal(&be, shut, 4);
}

static void test_rc_rs_proto__conn_bytes(void **state)
{
	struct rc_rs_conn c = {
		.flags = RC_RS_FLAG_IOMAP, .credits = 384, .iomap_size = 0,
		.target_sgl = { .addr = 0x1122334455667788ull, .key = 0xAABBCCDD,
				.length = 2 },
		.data_buf = { .addr = 0x0102030405060708ull, .key = 0x01020304,
			      .length = 65536 },
	};
	static const uint8_t want[40] = {
		1, 2, 0x01, 0x80, 0, 0, 0, 0,
		0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
		0xAA, 0xBB, 0xCC, 0xDD, 0, 0, 0, 2,
		1, 2, 3, 4, 5, 6, 7, 8,
		1, 2, 3, 4, 0, 1, 0, 0,
	};
	struct rc_rs_conn_wire w;
	struct rc_rs_conn back;

	(void)state;
	rc_rs_conn_encode(&c, &w);
	assert_memory_equal(&w, want, sizeof(want));
	assert_int_equal(rc_rs_conn_decode(&w, sizeof(w), &back), 0);
	assert_int_equal(back.credits, 384);
	assert_int_equal(back.flags, RC_RS_FLAG_IOMAP);
	assert_true(back.target_sgl.addr == c.target_sgl.addr);
	assert_int_equal(back.target_sgl.key, c.target_sgl.key);
	assert_int_equal(back.target_sgl.length, 2);
	assert_true(back.data_buf.addr == c.data_buf.addr);
	assert_int_equal(back.data_buf.length, 65536);
}

static void test_rc_rs_proto__conn_hostile(void **state)
{
	struct rc_rs_conn c = {
		.credits = 16, .target_sgl = { .length = 2 },
		.data_buf = { .length = 4096 },
	};
	struct rc_rs_conn_wire w;
	struct rc_rs_conn out;
	uint8_t big[56] = { 0 };

	(void)state;
	rc_rs_conn_encode(&c, &w);
	/* Too short, or none at all. */
	assert_int_equal(rc_rs_conn_decode(&w, 39, &out), -EINVAL);
	assert_int_equal(rc_rs_conn_decode(NULL, 40, &out), -EINVAL);
	/* Longer private data (a REQ is padded to 56) is fine. */
	memcpy(big, &w, sizeof(w));
	assert_int_equal(rc_rs_conn_decode(big, sizeof(big), &out), 0);
	/* Each bad field alone. */
	w.version = 2;
	assert_int_equal(rc_rs_conn_decode(&w, sizeof(w), &out), -EPROTO);
	rc_rs_conn_encode(&c, &w);
	w.credits = 0;
	assert_int_equal(rc_rs_conn_decode(&w, sizeof(w), &out), -EPROTO);
	rc_rs_conn_encode(&c, &w);
	w.target_sgl.length = 0;
	assert_int_equal(rc_rs_conn_decode(&w, sizeof(w), &out), -EPROTO);
	c.target_sgl.length = RC_RS_SGL_MAX + 1;
	rc_rs_conn_encode(&c, &w);
	assert_int_equal(rc_rs_conn_decode(&w, sizeof(w), &out), -EPROTO);
	c.target_sgl.length = 2;
	c.data_buf.length = 0;
	rc_rs_conn_encode(&c, &w);
	assert_int_equal(rc_rs_conn_decode(&w, sizeof(w), &out), -EPROTO);
	c.data_buf.length = 0x20000000u;	/* over 29 bits */
	rc_rs_conn_encode(&c, &w);
	assert_int_equal(rc_rs_conn_decode(&w, sizeof(w), &out), -EPROTO);
}

static void test_rc_rs_proto__scale(void **state)
{
	(void)state;
	/* rdma-core's rs_value_to_scale(v, 8) / rs_scale_to_value. */
	assert_int_equal(rc_rs_scale(0), 0);
	assert_int_equal(rc_rs_scale(128), 128);
	assert_int_equal(rc_rs_scale(256), 0x81);
	assert_int_equal(rc_rs_scale(4096), 0x90);
	assert_int_equal(rc_rs_unscale(0x90), 4096);
	assert_int_equal(rc_rs_unscale(100), 100);
	assert_int_equal(rc_rs_unscale(rc_rs_scale(1000)), 768);
	assert_int_equal(rc_rs_scale(1u << 30), 0xFF);
}

static void test_rc_rs_proto__sge_order(void **state)
{
	struct rc_rs_sge s = { .addr = 0x0102030405060708ull, .key = 0x11223344,
			       .length = 0x00010000 };
	struct rc_rs_sge sw = rc_rs_sge_to_peer(s, true);

	(void)state;
	assert_true(sw.addr == 0x0807060504030201ull);
	assert_int_equal(sw.key, 0x44332211);
	assert_int_equal(sw.length, 0x00000100);
	sw = rc_rs_sge_from_peer(sw, true);
	assert_memory_equal(&sw, &s, sizeof(s));
	sw = rc_rs_sge_from_peer(s, false);
	assert_memory_equal(&sw, &s, sizeof(s));
}

static void test_rc_rs_proto__credits(void **state)
{
	(void)state;
	assert_int_equal(rc_rs_seq_diff(2, 0xFFFF), 3);
	assert_int_equal(rc_rs_seq_diff(0xFFFF, 2), -3);
	/* Sent 10, peer queue 384: a limit of 10..394 is fine. */
	assert_int_equal(rc_rs_check_credit(10, 10, 384), 0);
	assert_int_equal(rc_rs_check_credit(394, 10, 384), 0);
	assert_int_equal(rc_rs_check_credit(395, 10, 384), -EPROTO);
	assert_int_equal(rc_rs_check_credit(9, 10, 384), -EPROTO);
	/* A queue deeper than int16_t (up to 0xFFFE). */
	assert_int_equal(rc_rs_check_credit(40000, 0, 0xFFFE), 0);
	assert_int_equal(rc_rs_check_credit(0xFFFE, 0, 0xFFFE), 0);
	/* Across the 16-bit wrap. */
	assert_int_equal(rc_rs_check_credit(100, 0xFFF0, 384), 0);
	assert_int_equal(rc_rs_check_credit(0xFFF0, 100, 384), -EPROTO);
}

static void test_rc_rs_proto__data_fits_grant(void **state)
{
	(void)state;
	/* 1 MiB ring, half granted (avail 512K): 512K may be queued. */
	assert_int_equal(rc_rs_check_data(4096, 0, 1 << 20, 1 << 19), 0);
	assert_int_equal(rc_rs_check_data(1 << 19, 0, 1 << 20, 1 << 19), 0);
	assert_int_equal(rc_rs_check_data(1, 1 << 19, 1 << 20, 1 << 19),
			 -EPROTO);
	assert_int_equal(rc_rs_check_data(0x1FFFFFFF, 0, 1 << 20, 0),
			 -EPROTO);
	/* Nothing granted at all. */
	assert_int_equal(rc_rs_check_data(1, 0, 4096, 4096), -EPROTO);
	assert_int_equal(rc_rs_check_data(1, 0, 4096, 8192), -EPROTO);
}

static void test_rc_rs_proto__xfer_size(void **state)
{
	uint32_t olen = RC_RS_OLAP_START;

	(void)state;
	/* Small sends go whole. */
	assert_int_equal(rc_rs_xfer_size(100, &olen, 1 << 20, 1 << 20), 100);
	assert_int_equal(olen, RC_RS_OLAP_START);
	/* A long one starts at 2K and doubles up to 64K. */
	assert_int_equal(rc_rs_xfer_size(1 << 20, &olen, 1 << 20, 1 << 20),
			 2048);
	assert_int_equal(rc_rs_xfer_size(1 << 20, &olen, 1 << 20, 1 << 20),
			 4096);
	for (int i = 0; i < 10; i++)
		rc_rs_xfer_size(1 << 20, &olen, 1 << 20, 1 << 20);
	assert_int_equal(olen, RC_RS_MAX_TRANSFER);
	assert_int_equal(rc_rs_xfer_size(1 << 20, &olen, 1 << 20, 1 << 20),
			 RC_RS_MAX_TRANSFER);
	/* Capped by send space and by the grant's remainder. */
	assert_int_equal(rc_rs_xfer_size(1 << 20, &olen, 3000, 1 << 20), 3000);
	assert_int_equal(rc_rs_xfer_size(1 << 20, &olen, 1 << 20, 10), 10);
}

static void test_rc_rs_proto__iomap_find(void **state)
{
	struct rc_rs_iomap tab[3] = {
		{ 0, { 0, 0, 0 } },			/* an empty slot */
		{ 4096, { 0x10000, 0x77, 1000 } },
		{ 0, { 0x20000, 0x88, 100 } },
	};
	struct rc_rs_iomap sw[3];
	uint64_t addr, room;
	uint32_t key;

	(void)state;
	assert_int_equal(rc_rs_iomap_find(tab, 3, false, 4096 + 10, &addr,
					  &key, &room), 0);
	assert_true(addr == 0x10000 + 10);
	assert_int_equal(key, 0x77);
	assert_true(room == 990);
	assert_int_equal(rc_rs_iomap_find(tab, 3, false, 99, &addr, &key,
					  &room), 0);
	assert_int_equal(key, 0x88);
	assert_true(room == 1);
	/* Just past a window, or in none. */
	assert_int_equal(rc_rs_iomap_find(tab, 3, false, 100, &addr, &key,
					  &room), -EINVAL);
	assert_int_equal(rc_rs_iomap_find(tab, 3, false, 4096 + 1000, &addr,
					  &key, &room), -EINVAL);
	/* A window at the top of the offset space cannot wrap. */
	tab[1].offset = UINT64_MAX - 10;
	assert_int_equal(rc_rs_iomap_find(tab, 2, false, 5, &addr, &key,
					  &room), -EINVAL);
	/* The peer's byte order. */
	for (int i = 0; i < 3; i++)
		sw[i] = rc_rs_iomap_swap(tab[i], true);
	assert_int_equal(rc_rs_iomap_find(sw, 3, true, 50, &addr, &key,
					  &room), 0);
	assert_true(addr == 0x20000 + 50);
}

/* A receiver of 8 KiB with a queue of 4: half granted at connect. */
static void rx_setup(struct rc_rs_rx *rx, uint32_t *ring)
{
	memset(rx, 0, sizeof(*rx));
	rc_rs_rx_init(rx, ring, 5, 8192);
	rx->sseq_comp = 4;
	rx->peer_credits = 4;
}

static void test_rc_rs_rx__data_and_reads(void **state)
{
	struct rc_rs_rx rx;
	uint32_t ring[5];
	const char *why = NULL;

	(void)state;
	rx_setup(&rx, ring);
	assert_true(rc_rs_rx_empty(&rx));
	assert_int_equal(rc_rs_rx_msg(&rx, rc_rs_msg(RC_RS_OP_DATA, 1000),
				      &why), RC_RS_RX_NONE);
	assert_int_equal(rc_rs_rx_msg(&rx, rc_rs_msg(RC_RS_OP_DATA, 3096),
				      &why), RC_RS_RX_NONE);
	assert_int_equal(rx.queued, 4096);
	assert_int_equal(rc_rs_rx_head_len(&rx), 1000);
	/* The granted half is full: one more byte is a violation. */
	assert_int_equal(rc_rs_rx_msg(&rx, rc_rs_msg(RC_RS_OP_DATA, 1), &why),
			 -EPROTO);
	assert_string_equal(why, "more data than granted");
	/* Reading part of a message keeps it at the head. */
	rc_rs_rx_consume(&rx, 600);
	assert_int_equal(rc_rs_rx_head_len(&rx), 400);
	assert_int_equal(rx.rseq_no, 0);
	rc_rs_rx_consume(&rx, 5000);	/* capped at the message */
	assert_int_equal(rc_rs_rx_head_len(&rx), 3096);
	assert_int_equal(rx.rseq_no, 1);
	assert_int_equal(rx.rbuf_avail, 4096 + 1000);
	rc_rs_rx_consume(&rx, 3096);
	assert_true(rc_rs_rx_empty(&rx));
	assert_int_equal(rx.queued, 0);
	/* A zero-length message is counted, not queued (no false EOF). */
	assert_int_equal(rc_rs_rx_msg(&rx, rc_rs_msg(RC_RS_OP_DATA, 0), &why),
			 RC_RS_RX_NONE);
	assert_true(rc_rs_rx_empty(&rx));
	assert_int_equal(rx.rseq_no, 3);
}

static void test_rc_rs_rx__queue_overrun(void **state)
{
	struct rc_rs_rx rx;
	uint32_t ring[5];
	const char *why = NULL;

	(void)state;
	rx_setup(&rx, ring);
	rx.rbuf_avail = 0;		/* everything granted */
	for (int i = 0; i < 4; i++)
		assert_int_equal(rc_rs_rx_msg(&rx, rc_rs_msg(RC_RS_OP_DATA, 1),
					      &why), RC_RS_RX_NONE);
	assert_int_equal(rc_rs_rx_msg(&rx, rc_rs_msg(RC_RS_OP_DATA, 1), &why),
			 -EPROTO);
	assert_string_equal(why, "more messages than credits");
}

/* rdma-core's rsend still sends after SHUT_WR (t_rs_interop): what
 * comes after the peer's shutdown is checked, dropped and counted, its
 * bytes and credit freed at once; what came before is read as usual. */
static void test_rc_rs_rx__data_after_shutdown(void **state)
{
	struct rc_rs_rx rx;
	uint32_t ring[5];
	const char *why = NULL;

	(void)state;
	rx_setup(&rx, ring);
	assert_int_equal(rc_rs_rx_msg(&rx, rc_rs_msg(RC_RS_OP_DATA, 100), &why),
			 RC_RS_RX_NONE);
	assert_int_equal(rc_rs_rx_msg(&rx, rc_rs_msg(RC_RS_OP_CTRL,
						     RC_RS_CTRL_SHUTDOWN), &why),
			 RC_RS_RX_SHUTDOWN);
	assert_true(rx.peer_shut);
	assert_int_equal(rc_rs_rx_msg(&rx, rc_rs_msg(RC_RS_OP_DATA, 50), &why),
			 RC_RS_RX_NONE);
	assert_int_equal(rx.after_shut, 1);
	assert_int_equal(rx.queued, 100);
	assert_int_equal(rc_rs_rx_head_len(&rx), 100);
	assert_int_equal(rx.rbuf_avail, 4096 + 50);
	assert_int_equal(rx.rseq_no, 1);
	/* Past the grant is still a violation. */
	assert_int_equal(rc_rs_rx_msg(&rx, rc_rs_msg(RC_RS_OP_DATA, 5000), &why),
			 -EPROTO);
	assert_int_equal(rx.after_shut, 1);
	rc_rs_rx_consume(&rx, 100);
	assert_true(rc_rs_rx_empty(&rx));
	assert_int_equal(rx.rbuf_avail, 4096 + 150);
	assert_int_equal(rx.rseq_no, 2);
	/* A new connection starts with none. */
	rc_rs_rx_init(&rx, ring, 5, 8192);
	assert_false(rx.peer_shut);
	assert_int_equal(rx.after_shut, 0);
}

static void test_rc_rs_rx__credits_and_ctrl(void **state)
{
	struct rc_rs_rx rx;
	uint32_t ring[5];
	const char *why = NULL;

	(void)state;
	rx_setup(&rx, ring);
	rx.sseq_no = 3;
	assert_int_equal(rc_rs_rx_msg(&rx, rc_rs_msg(RC_RS_OP_SGL, 7), &why),
			 RC_RS_RX_NONE);
	assert_int_equal(rx.sseq_comp, 7);
	/* A lower limit narrows the window; below what we sent, or past a
	 * queue ahead, is refused. */
	assert_int_equal(rc_rs_rx_msg(&rx, rc_rs_msg(RC_RS_OP_SGL, 5), &why),
			 RC_RS_RX_NONE);
	assert_int_equal(rx.sseq_comp, 5);
	assert_int_equal(rc_rs_rx_msg(&rx, rc_rs_msg(RC_RS_OP_SGL, 2), &why),
			 -EPROTO);
	assert_int_equal(rc_rs_rx_msg(&rx, rc_rs_msg(RC_RS_OP_SGL, 8), &why),
			 -EPROTO);
	assert_int_equal(rx.sseq_comp, 5);
	assert_int_equal(rc_rs_rx_msg(&rx, rc_rs_msg(RC_RS_OP_CTRL,
						     RC_RS_CTRL_SHUTDOWN), &why),
			 RC_RS_RX_SHUTDOWN);
	assert_int_equal(rc_rs_rx_msg(&rx, rc_rs_msg(RC_RS_OP_CTRL,
						     RC_RS_CTRL_KEEPALIVE), &why),
			 RC_RS_RX_NONE);
	assert_int_equal(rc_rs_rx_msg(&rx, rc_rs_msg(RC_RS_OP_CTRL,
						     RC_RS_CTRL_DISCONNECT), &why),
			 RC_RS_RX_DISCONNECT);
	assert_int_equal(rc_rs_rx_msg(&rx, rc_rs_msg(RC_RS_OP_CTRL, 9), &why),
			 -EPROTO);
	assert_int_equal(rc_rs_rx_msg(&rx, rc_rs_msg(RC_RS_OP_RSVD, 0), &why),
			 -EPROTO);
	assert_int_equal(rc_rs_rx_msg(&rx, rc_rs_msg(RC_RS_OP_WRITE, 0), &why),
			 -EPROTO);
	assert_int_equal(rc_rs_rx_msg(&rx, rc_rs_msg(RC_RS_OP_IOMAP_SGL, 3),
				      &why), RC_RS_RX_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rc_rs_proto__imm_layout),
		cmocka_unit_test(test_rc_rs_proto__ctrl_wr),
		cmocka_unit_test(test_rc_rs_proto__conn_bytes),
		cmocka_unit_test(test_rc_rs_proto__conn_hostile),
		cmocka_unit_test(test_rc_rs_proto__scale),
		cmocka_unit_test(test_rc_rs_proto__sge_order),
		cmocka_unit_test(test_rc_rs_proto__credits),
		cmocka_unit_test(test_rc_rs_proto__data_fits_grant),
		cmocka_unit_test(test_rc_rs_proto__xfer_size),
		cmocka_unit_test(test_rc_rs_proto__iomap_find),
		cmocka_unit_test(test_rc_rs_rx__data_and_reads),
		cmocka_unit_test(test_rc_rs_rx__queue_overrun),
		cmocka_unit_test(test_rc_rs_rx__credits_and_ctrl),
		cmocka_unit_test(test_rc_rs_rx__data_after_shutdown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
