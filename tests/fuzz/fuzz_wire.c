/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the RoCEv2 packet parser (eng_wire_parse,
 * eng_wire_hdr.c) fed the input as a UDP payload (BTH .. ICRC) from an
 * exact-length copy, so a read past the end is caught by ASan.  Whatever
 * it accepts must survive our own builder: parse -> build -> parse gives
 * the same headers and payload, and the rebuilt packet is the input with
 * its reserved bits, pad bytes and ICRC cleared.  The ICRC code runs over
 * every accepted packet too: sealed, it verifies; one bit off, it does
 * not; and CRC-32's PCLMULQDQ path equals its tables on every input.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "providers/soft/engine/eng_wire_crc32.h"
#include "providers/soft/engine/eng_wire_hdr.h"
#include "providers/soft/engine/eng_wire_icrc.h"
#include "providers/soft/engine/eng_wire_opcode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An IPv4 and a UDP header for the ICRC (their values do not matter). */
static const uint8_t ip4[20] = { 0x45, 0, 0, 0, 0, 1, 0x40, 0, 64, 17, 0, 0,
				 10, 0, 0, 1, 10, 0, 0, 2 };
static const uint8_t udp[8] = { 0xc0, 0, 0x12, 0xb7, 0, 0, 0, 0 };

static void broken(void)
{
	abort();
}

static void round_trip(const uint8_t *in, size_t size, const struct eng_pkt *p)
{
	uint8_t *out = malloc(size);
	struct eng_pkt q;
	ssize_t n;

	if (!out)
		abort();
	n = eng_wire_build(&p->h, p->payload, p->paylen, out, size);
	if (n < 0 || (size_t)n != size)
		broken();
	if (eng_wire_parse(out, size, &q) != 0 ||
	    memcmp(&p->h, &q.h, sizeof(q.h)) != 0 || q.paylen != p->paylen ||
	    q.hdrlen != p->hdrlen || q.mask != p->mask ||
	    memcmp(q.payload, p->payload, p->paylen) != 0 || q.icrc != 0)
		broken();
	/* Only the bits the spec reserves (or masks) may differ in the
	 * headers: byte 4's resv6, byte 8's resv7, DETH's reserved byte,
	 * XRCETH's reserved byte (it comes right after the BTH). */
	for (uint32_t i = 0; i < p->hdrlen; i++) {
		uint8_t keep = 0xff;

		if (i == 4)
			keep = 0xc0;
		else if (i == 8)
			keep = 0x80;
		else if ((p->mask & ENG_HDR_DETH) && i == ENG_BTH_LEN + 4)
			keep = 0;
		else if ((p->mask & ENG_HDR_XRCETH) && i == ENG_BTH_LEN)
			keep = 0;
		if ((in[i] & keep) != (out[i] & keep))
			broken();
	}
	/* Seal and verify; one payload or header bit off fails. */
	if (eng_icrc_seal(ip4, sizeof(ip4), udp, out, size) != 0 ||
	    eng_icrc_verify(ip4, sizeof(ip4), udp, out, size) != 0)
		broken();
	out[size - 5] ^= 0x01;
	if (eng_icrc_verify(ip4, sizeof(ip4), udp, out, size) != -EBADMSG)
		broken();
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *exact = malloc(size ? size : 1);
	struct eng_pkt p;

	if (!exact)
		abort();
	memcpy(exact, data, size);
	/* Both CRC-32 paths agree on any bytes. */
	if (eng_crc32(0, exact, size) != eng_crc32_portable(0, exact, size))
		broken();
	if (eng_wire_parse(exact, size, &p) == 0) {
		if (p.hdrlen + p.paylen + eng_wire_pad(p.paylen) + ENG_ICRC_LEN != size ||
		    !eng_wire_op_known(p.h.bth.opcode))
			broken();
		(void)eng_wire_op_seq_ok(size > 1 ? exact[size - 1] : ENG_OP_NONE,
					 p.h.bth.opcode);
		round_trip(exact, size, &p);
	}
	free(exact);
	return 0;
}
