/* SPDX-License-Identifier: MIT */
/*
 * Where in an Ethernet frame a corruption goes: the L4 payload of a UDP
 * or TCP segment over IPv4 or IPv6 (after up to two VLAN tags), so the
 * damage is what a bad link does to data and the receiver's checks (UDP
 * or TCP checksum, RoCEv2's ICRC) are what must catch it; headers stay
 * intact so the frame is still delivered.  Pure: no I/O; every offset is
 * checked against the frame's length.
 */
#ifndef PVI_FRAME_H
#define PVI_FRAME_H

#include <stddef.h>
#include <stdint.h>

/* The L4 payload of frame f (len bytes): *ret_off and *ret_len (> 0).
 * -ENOENT for anything else (ARP, ICMP, a non-first IPv4 fragment, IPv6
 * extension headers, an empty payload), -EBADMSG for a truncated or
 * inconsistent header. */
int pvi_frame_l4_payload(const uint8_t *f, size_t len, size_t *ret_off,
			 size_t *ret_len);

/* Flips bit r % (8 * payload length) of f's L4 payload; returns the
 * frame-relative bit index flipped (byte * 8 + bit), or what
 * pvi_frame_l4_payload returned. */
long pvi_frame_corrupt(uint8_t *f, size_t len, uint64_t r);

#endif /* PVI_FRAME_H */
