/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the engine's IPC dispatcher, as a hostile pod reaches
 * it.  One input is a sequence of requests on one connection, so that
 * object-creating requests are followed by requests on their handles:
 *
 *   record := op:u8 flags:u8 len:u16le payload[len]
 *   flags  bit 0  send the payload as the whole datagram (no header)
 *          bit 1  pad/cut the payload to the op's request size
 *          bit 2  attach a 64 KiB memfd (MR_REG's backing)
 *          bit 3  attach a pipe (a wrong kind of fd)
 *          bit 4  wrong protocol version in the header
 *          bit 5  header's len one more than the payload sent
 *          bit 6  run one pass of the data path afterwards
 *
 * Every 4-byte aligned word 0xffffff0K (K < 8) of a payload is replaced
 * before sending: K = 0 by the device's id, K = 1..7 by the handle the
 * K-th most recent successful create (PD, MR, CQ, QP, SRQ, AH, channel)
 * returned; 0xffffff1K by the second word of that reply (a QP's number,
 * an MR's lkey).  tests/fuzz/gen_seeds.py writes the seed corpus.
 * Fds of the engine's replies are closed; nothing is left open between
 * inputs (fresh engine per input).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "providers/soft/proto/pv_ipc_ops.h"
#include "providers/soft/engine/eng_dp.h"
#include "tests/fuzz/fuzz_eng.h"

#define MAX_RECORDS	64
#define NSLOTS		8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct fz_eng fx;
/* FUZZ_IPC_TRACE=1: print each request's status (checking seeds). */
static int trace;

/* slots[0..7]: handles (slot 0 the device id); slots[8..15]: the word
 * after each handle in its reply. */
static void patch_tokens(uint8_t *p, uint32_t len, const uint32_t *slots)
{
	for (uint32_t off = 0; off + 4 <= len; off += 4) {
		uint32_t w, b;

		memcpy(&w, p + off, 4);
		if (w >> 8 != 0xffffffu)
			continue;
		b = w & 0xff;
		if (b < 8)
			memcpy(p + off, &slots[b], 4);
		else if (b >= 0x10 && b < 0x18)
			memcpy(p + off, &slots[NSLOTS + b - 0x10], 4);
	}
}

static bool is_create(uint8_t op)
{
	switch (op) {
	case PV_OP_PD_ALLOC: case PV_OP_MR_REG: case PV_OP_CQ_CREATE:
	case PV_OP_QP_CREATE: case PV_OP_SRQ_CREATE: case PV_OP_AH_CREATE:
	case PV_OP_CHANNEL_CREATE: case PV_OP_XRCD: case PV_OP_QP_OPEN:
	case PV_OP_MW_ALLOC:
		return true;
	default:
		return false;
	}
}

static void remember(uint32_t *slots, const char *payload, int len)
{
	memmove(&slots[2], &slots[1], sizeof(*slots) * (NSLOTS - 2));
	memmove(&slots[NSLOTS + 2], &slots[NSLOTS + 1],
		sizeof(*slots) * (NSLOTS - 2));
	memcpy(&slots[1], payload, 4);
	slots[NSLOTS + 1] = 0;
	if (len >= 8)
		memcpy(&slots[NSLOTS + 1], payload + 4, 4);
}

static int make_fds(uint8_t flags, int *fds)
{
	int n = 0;

	if (flags & 4) {
		int m = memfd_create("fuzz-mr", MFD_CLOEXEC | MFD_ALLOW_SEALING);

		/* Written: the engine refuses a memfd with holes for an
		 * MR (eng_dp_mem.c), which would stop every MR_REG here. */
		static const char zeros[65536];

		if (m >= 0 && pwrite(m, zeros, sizeof(zeros), 0) ==
		    (ssize_t)sizeof(zeros))
			fds[n++] = m;
		else if (m >= 0)
			close(m);
	}
	if (flags & 8) {
		int p[2];

		if (pipe(p) == 0) {
			close(p[1]);
			fds[n++] = p[0];
		}
	}
	return n;
}

static void one_record(uint8_t op, uint8_t flags, const uint8_t *in,
		       uint32_t len, uint32_t *slots)
{
	static uint8_t msg[PV_IPC_MAX_MSG] __attribute__((aligned(8)));
	struct pv_msg_hdr h = { .magic = PV_IPC_MAGIC,
				.version = PV_IPC_VERSION, .op = op };
	uint8_t *pl = msg + sizeof(h);
	uint32_t min, max, plen = len;
	int fds[2], nfds, st;

	if (flags & 1) {
		memcpy(msg, in, len);
		nfds = make_fds(flags, fds);
		fz_eng_send_raw(&fx, msg, len, fds, nfds);
		for (int i = 0; i < nfds; i++)
			close(fds[i]);
		return;
	}
	if ((flags & 2) && pv_ipc_req_size(op, &min, &max) == 0)
		plen = min;
	if (plen > PV_IPC_MAX_PAYLOAD)
		plen = PV_IPC_MAX_PAYLOAD;
	memset(pl, 0, plen);
	memcpy(pl, in, len < plen ? len : plen);
	patch_tokens(pl, plen, slots);
	h.len = plen + ((flags & 32) ? 1 : 0);
	h.seq = ++fx.seq;
	if (flags & 16)
		h.version = PV_IPC_VERSION + 1;
	memcpy(msg, &h, sizeof(h));
	nfds = make_fds(flags, fds);
	st = fz_eng_send_raw(&fx, msg, sizeof(h) + plen, fds, nfds);
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
	if (trace)
		fprintf(stderr, "fuzz_ipc: %-14s flags %02x len %4u -> %d\n",
			pv_ipc_op_name(op), flags, plen, st);
	if (st == 0 && fx.reply_len >= 4 && is_create(op))
		remember(slots, fx.reply + sizeof(struct pv_msg_hdr),
			 fx.reply_len);
	fz_eng_drop_fds(&fx);
	if (flags & 64)
		eng_dp_run(&fx.e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int inited;
	uint32_t slots[2 * NSLOTS] = { 0 };
	size_t pos = 0;

	if (!inited) {
		fz_eng_global_init();
		trace = getenv("FUZZ_IPC_TRACE") != NULL;
		inited = 1;
	}
	if (fz_eng_setup(&fx) < 0)
		abort();	/* the fixture itself must work */
	slots[0] = fx.dev->id;
	for (int n = 0; n < MAX_RECORDS && pos + 4 <= size && fx.conn; n++) {
		uint8_t op = data[pos], flags = data[pos + 1];
		uint32_t len = (uint32_t)data[pos + 2] |
			       (uint32_t)data[pos + 3] << 8;

		pos += 4;
		if (len > size - pos)
			len = (uint32_t)(size - pos);
		one_record(op, flags, data + pos, len, slots);
		pos += len;
	}
	fz_eng_teardown(&fx);
	return 0;
}
