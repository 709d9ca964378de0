/* SPDX-License-Identifier: MIT */
/*
 * The RoCEv2 invariant CRC (IBTA Annex A17.3.3): CRC-32 (the polynomial and
 * conventions of Ethernet's FCS and zlib's crc32(), not CRC-32C) over
 *   8 bytes of 0xFF (standing in for the LRH),
 *   the IP header with the fields routers change set to all ones
 *     (IPv4: TOS, TTL, header checksum; IPv6: traffic class, flow label,
 *     hop limit),
 *   the UDP header with its checksum set to 0xFFFF,
 *   the BTH with byte 4 (FECN, BECN, resv6) set to 0xFF,
 *   the rest of the headers, the payload and the pad;
 * stored after the pad least-significant byte first.  Pure: the caller
 * hands in the headers it sends or received; nothing here does I/O.
 * The CRC itself is eng_wire_crc32.h's.
 */
#ifndef ENG_WIRE_ICRC_H
#define ENG_WIRE_ICRC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/*
 * The ICRC of a packet: ip is its IP header (iplen bytes: IPv4 with its
 * options, IHL * 4, or IPv6's 40 without extension headers), udp its
 * 8-byte UDP header, iov the UDP payload from the BTH up to and including
 * the pad (not the ICRC; the BTH may be split across iovecs).  Writes the
 * value to *ret_icrc; returns 0, or -EINVAL (not IPv4/IPv6, iplen not the
 * header's length, fewer than 12 bytes of BTH).
 */
int eng_icrc_compute(const uint8_t *ip, size_t iplen, const uint8_t *udp,
		     const struct iovec *iov, size_t iovcnt,
		     uint32_t *ret_icrc);

/* The ICRC of a contiguous packet bth .. ICRC (len bytes, ICRC last)
 * stored into its last 4 bytes.  Returns 0 or -EINVAL. */
int eng_icrc_seal(const uint8_t *ip, size_t iplen, const uint8_t *udp,
		  uint8_t *bth, size_t len);

/* Checks a received contiguous packet bth .. ICRC: 0 when its ICRC is
 * right, -EBADMSG when not, -EINVAL as eng_icrc_compute(). */
int eng_icrc_verify(const uint8_t *ip, size_t iplen, const uint8_t *udp,
		    const uint8_t *bth, size_t len);

#endif /* ENG_WIRE_ICRC_H */
