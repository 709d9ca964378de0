/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the receive side's ICRC check with IPv4 ID recovery
 * (eng_wire_icrc_check_rx, eng_wire_iphdr.c).  The input's first 4 bytes
 * choose the family, an IPv4 ID and DF; the rest is a UDP payload (BTH ..
 * ICRC) in an exact-length copy.  Checked as received (any bytes: no
 * crash, no read past the end), and then sealed over the chosen header:
 * the check must then accept it and give back that header exactly, ID
 * and DF included (what the GRH shows).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "providers/soft/engine/eng_wire_icrc.h"
#include "providers/soft/engine/eng_wire_iphdr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t s4[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 1 };
static const uint8_t d4[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 2 };
static const uint8_t s6[16] = { 0xfd, [15] = 1 };
static const uint8_t d6[16] = { 0xfd, [15] = 2 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct eng_wire_ip sent, rx;
	uint8_t *pkt;
	uint16_t id, got;
	bool v6, df;
	size_t n;

	if (size < 4 || size > 4 + 9000)
		return 0;
	v6 = data[0] & 1;
	df = !(data[0] & 2);
	id = (uint16_t)(data[1] << 8 | data[2]);
	n = size - 4;
	pkt = malloc(n ? n : 1);
	if (!pkt)
		abort();
	memcpy(pkt, data + 4, n);
	if (eng_wire_ip_build(&rx, v6 ? s6 : s4, v6 ? d6 : d4, 4791, 4791,
			      (uint32_t)n, data[3], 64, 0) != 0)
		abort();
	(void)eng_wire_icrc_check_rx(&rx, pkt, n, &got);
	if (n >= 16) {
		eng_wire_ip_build(&sent, v6 ? s6 : s4, v6 ? d6 : d4, 4791,
				  4791, (uint32_t)n, data[3], 64, v6 ? 0 : id);
		if (!v6 && !df) {
			sent.ip[6] = 0;
			eng_wire_ip_set_id(&sent, id);
		}
		if (eng_icrc_seal(sent.ip, sent.iplen, sent.udp, pkt, n) != 0)
			abort();
		eng_wire_ip_build(&rx, v6 ? s6 : s4, v6 ? d6 : d4, 4791, 4791,
				  (uint32_t)n, data[3], 64, 0);
		if (eng_wire_icrc_check_rx(&rx, pkt, n, &got) != 0 ||
		    rx.iplen != sent.iplen ||
		    memcmp(rx.ip, sent.ip, sent.iplen) != 0 ||
		    (!v6 && got != id))
			abort();
	}
	free(pkt);
	return 0;
}
