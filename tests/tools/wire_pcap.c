/* SPDX-License-Identifier: MIT */
/*
 * wire-pcap OUT.pcap [--corrupt N]: writes RoCEv2 frames built by the
 * engine's wire layer (eng_wire_put_hdrs + payload + eng_wire_trailer,
 * the ICRC by eng_icrc_compute over an iovec, as the net stage will send
 * them) into a pcap of Ethernet frames: every opcode we know, over IPv4
 * and IPv6, each payload-carrying one with pads 0..3 where the opcode
 * allows a pad, AETH syndromes of every kind.  tests/abi/wire_scapy.sh
 * has scapy and tshark check them.  --corrupt N flips one payload bit of
 * the Nth RoCE frame after its ICRC is computed (the checker must see it).
 * Prints the number of frames written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "providers/soft/engine/eng_wire_hdr.h"
#include "providers/soft/engine/eng_wire_icrc.h"
#include "providers/soft/engine/eng_wire_opcode.h"

#define FRAME_MAX 2048

static unsigned frames, corrupt_at;

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* One's complement sum of 16-bit words (RFC 1071). */
static uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Ethernet and IP headers for a UDP datagram of ulen bytes (its header
 * included); returns the offset where the UDP header goes. */
static size_t put_l2_l3(uint8_t *f, bool v6, size_t ulen, unsigned seq)
{
	static const uint8_t mac[12] = { 0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1 };
	uint8_t *ip = f + 14;

	memcpy(f, mac, 12);
	eng_put16(f + 12, v6 ? 0x86dd : 0x0800);
	if (!v6) {
		memset(ip, 0, 20);
		ip[0] = 0x45;
		ip[1] = (uint8_t)(seq & 3);	/* ECN varies: masked */
		eng_put16(ip + 2, (uint16_t)(20 + ulen));
		eng_put16(ip + 4, (uint16_t)seq);
		ip[6] = 0x40;			/* DF */
		ip[8] = (uint8_t)(64 - (seq & 7));
		ip[9] = 17;
		memcpy(ip + 12, "\x0a\x01\x00\x01\x0a\x02\x00\x01", 8);
		eng_put16(ip + 10, csum_fold(csum_add(0, ip, 20)));
		return 14 + 20;
	}
	memset(ip, 0, 40);
	ip[0] = 0x60 | (uint8_t)(seq & 0xf);	/* traffic class: masked */
	eng_put24(ip + 1, seq * 4099 & 0xfffff);
	eng_put16(ip + 4, (uint16_t)ulen);
	ip[6] = 17;
	ip[7] = (uint8_t)(64 - (seq & 7));
	memcpy(ip + 8, "\xfd\x00\0\0\0\0\0\0\0\0\0\0\0\x01\0\x01", 16);
	memcpy(ip + 24, "\xfd\x00\0\0\0\0\0\0\0\0\0\0\0\x02\0\x01", 16);
	return 14 + 40;
}

/* The UDP checksum over the pseudo-header (RFC 768 / RFC 8200 8.1). */
static void udp_csum(uint8_t *ip, bool v6, uint8_t *udp, size_t ulen)
{
	uint32_t sum = 17 + (uint32_t)ulen;
	uint16_t c;

	sum = v6 ? csum_add(sum, ip + 8, 32) : csum_add(sum, ip + 12, 8);
	c = csum_fold(csum_add(sum, udp, ulen));
	eng_put16(udp + 6, c ? c : 0xffff);
}

static int write_frame(FILE *out, const struct eng_pkt_hdrs *h, bool v6,
		       const uint8_t *payload, uint32_t paylen)
{
	uint8_t f[FRAME_MAX], hdr[ENG_WIRE_HDR_MAX], trailer[8];
	ssize_t hl = eng_wire_put_hdrs(h, paylen, hdr, sizeof(hdr));
	size_t ulen, ipend, len, off;
	uint8_t rec[16];
	uint32_t icrc;

	if (hl < 0)
		return (int)hl;
	ulen = 8 + (size_t)hl + paylen + eng_wire_pad(paylen) + ENG_ICRC_LEN;
	ipend = put_l2_l3(f, v6, ulen, frames);
	if (ipend + ulen > sizeof(f))
		return -EMSGSIZE;
	/* UDP header, then the RoCE packet as three pieces. */
	eng_put16(f + ipend, (uint16_t)(49152 + (frames & 0x3fff)));
	eng_put16(f + ipend + 2, ENG_WIRE_UDP_PORT);
	eng_put16(f + ipend + 4, (uint16_t)ulen);
	eng_put16(f + ipend + 6, 0);
	struct iovec iov[3] = {
		{ hdr, (size_t)hl },
		{ (void *)payload, paylen },
		{ trailer, eng_wire_pad(paylen) },
	};
	memset(trailer, 0, sizeof(trailer));
	if (eng_icrc_compute(f + 14, ipend - 14, f + ipend, iov, 3, &icrc) < 0)
		return -EINVAL;
	off = ipend + 8;
	memcpy(f + off, hdr, (size_t)hl);
	if (paylen)
		memcpy(f + off + hl, payload, paylen);
	eng_wire_trailer(paylen, icrc, f + off + hl + paylen);
	len = ipend + ulen;
	frames++;
	/* After the ICRC, before the UDP checksum: only the ICRC is off. */
	if (frames == corrupt_at)
		f[len - ENG_ICRC_LEN - 1] ^= 0x10;
	udp_csum(f + 14, v6, f + ipend, ulen);
	put_le32(rec, frames);			/* ts_sec */
	put_le32(rec + 4, 0);
	put_le32(rec + 8, (uint32_t)len);
	put_le32(rec + 12, (uint32_t)len);
	if (fwrite(rec, 16, 1, out) != 1 || fwrite(f, len, 1, out) != 1)
		return -EIO;
	return 0;
}

static void fill(struct eng_pkt_hdrs *h, uint8_t op, uint32_t paylen, unsigned i)
{
	memset(h, 0, sizeof(*h));
	h->bth.opcode = op;
	h->bth.pkey = ENG_DEFAULT_PKEY;
	h->bth.dqpn = 0x11 + i;
	h->bth.psn = (0xfffff0 + i) & ENG_PSN_MASK;	/* crosses the wrap */
	h->bth.se = (eng_wire_op(op)->mask & ENG_OPF_END) && (i & 1);
	h->bth.ackreq = (eng_wire_op(op)->mask & ENG_OPF_ACKREQ) && (i & 2);
	h->deth = (struct eng_deth){ 0x11111111, 0x000100 + i };
	h->reth = (struct eng_reth){ 0x7f0000100000ull + i * 64, 0x1000 + i,
				     paylen ? paylen : 4096 };
	h->atmeth = (struct eng_atmeth){ 0x7f0000200000ull + i * 8, 0x2000 + i,
					 i, 0x5555 };
	h->aeth = (struct eng_aeth){ eng_aeth_syn_ack(ENG_AETH_CREDITS_INVALID), i };
	h->atmack_orig = 0x0123456789abcdefull + i;
	h->imm = 0xcafe0000u + i;
	h->ieth_rkey = 0x3000 + i;
}

/* Every opcode, both IP versions, pads 0..3 where allowed; then every
 * AETH syndrome kind on an ACK. */
static int write_all(FILE *out)
{
	static uint8_t payload[1024];
	static const uint8_t syns[] = { 0x00, 0x1f, 0x20 | 12, 0x3f, 0x60,
					0x61, 0x62, 0x63, 0x64 };
	struct eng_pkt_hdrs h;
	int ret;

	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 7 + 3);
	for (int v6 = 0; v6 < 2; v6++) {
		for (unsigned c = 0; c < 256; c++) {
			uint32_t m = eng_wire_op((uint8_t)c)->mask;

			if (!eng_wire_op_known((uint8_t)c))
				continue;
			for (uint32_t pad = 0; pad < 4; pad++) {
				uint32_t len = (m & ENG_OPF_PAYLOAD) ? 1024 - pad : 0;

				if (pad && (!(m & ENG_OPF_PAYLOAD) || !(m & ENG_OPF_END)))
					break;
				fill(&h, (uint8_t)c, len, frames);
				ret = write_frame(out, &h, v6, payload, len);
				if (ret < 0)
					return ret;
			}
		}
		for (size_t s = 0; s < sizeof(syns); s++) {
			fill(&h, ENG_OP_RC_ACK, 0, frames);
			h.aeth.syndrome = syns[s];
			ret = write_frame(out, &h, v6, NULL, 0);
			if (ret < 0)
				return ret;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	uint8_t ghdr[24] = { 0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0 };
	FILE *out;
	int ret;

	if (argc != 2 && !(argc == 4 && !strcmp(argv[2], "--corrupt"))) {
		fprintf(stderr, "usage: wire-pcap OUT.pcap [--corrupt N]\n");
		return 2;
	}
	if (argc == 4)
		corrupt_at = (unsigned)strtoul(argv[3], NULL, 0);
	out = fopen(argv[1], "we");
	if (!out) {
		perror(argv[1]);
		return 1;
	}
	put_le32(ghdr + 16, 65535);		/* snaplen */
	put_le32(ghdr + 20, 1);			/* LINKTYPE_ETHERNET */
	ret = fwrite(ghdr, sizeof(ghdr), 1, out) == 1 ? write_all(out) : -EIO;
	if (fclose(out) != 0 && ret == 0)
		ret = -EIO;
	if (ret < 0) {
		fprintf(stderr, "wire-pcap: %s\n", strerror(-ret));
		return 1;
	}
	printf("wire-pcap: %u frames\n", frames);
	return 0;
}
