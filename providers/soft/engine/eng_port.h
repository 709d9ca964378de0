/* SPDX-License-Identifier: MIT */
/* Pure pieces of a soft device's identity and port: GUID, MTU, keys. */
#ifndef ENG_PORT_H
#define ENG_PORT_H

#include <stdint.h>

/*
 * Bytes a RoCEv2 packet adds around its payload, worst case: IPv6 header
 * 40 (GIDs may be IPv6; IPv4 would be 20) + UDP 8 + BTH 12 + the largest
 * extension a payload-carrying packet has (RETH 16 + ImmDt 4) + ICRC 4.
 * The Ethernet header is outside the interface MTU.
 */
#define ENG_ROCE_OVERHEAD	(40 + 8 + 12 + 16 + 4 + 4)

/* The largest IB MTU (enum ibv_mtu, 1..5) whose packets fit an interface
 * MTU of netdev_mtu bytes; 0 when not even 256 fits. */
uint32_t eng_port_ib_mtu(uint32_t netdev_mtu);
/* Bytes of an enum ibv_mtu value (256 << (mtu - 1)); 0 if invalid. */
uint32_t eng_port_mtu_bytes(uint32_t ib_mtu);

/* Modified EUI-64 from a MAC (flip U/L, insert ff:fe), returned so that
 * its bytes in memory are in network order, as ibv_query_device shows. */
uint64_t eng_port_guid_from_mac(const uint8_t mac[6]);

/* PSNs and QP numbers are 24-bit fields of the BTH (IBA 9.2: PSN,
 * DestQP). */
#define ENG_BTH_24BIT_MASK	0xffffffu

/* QP numbers: 24 bits from ENG_QPN_MIN (QP0 and QP1 are the special QPs
 * of IBA 10.2.5, never handed out) below 0xffffff, the multicast QPN
 * (IBA 10.5.2.3); a freed one stays unused for the next
 * ENG_QPN_QUARANTINE frees on its device.  (Memory keys: eng_mrkey.h.) */
#define ENG_QPN_MIN		2u
#define ENG_QPN_MAX		(ENG_BTH_24BIT_MASK - 1)
#define ENG_QPN_QUARANTINE	4096u

/* The largest message the port takes (ibv_port_attr.max_msg_sz): the
 * IBA's 2^31 bytes.  The requester fails a longer WQE with
 * IBV_WC_LOC_LEN_ERR. */
#define ENG_PORT_MAX_MSG_SZ	(1u << 31)

/* Port attributes verbs.h keeps as plain numbers, in PortInfo's encodings
 * (IBA 14.2.5.6; ibv_query_port(3)): PortPhysicalState, LinkWidthActive,
 * LinkSpeedActive.  A soft port reports 4X EDR. */
#define ENG_PORT_PHYS_DISABLED	3
#define ENG_PORT_PHYS_LINK_UP	5
#define ENG_PORT_WIDTH_4X	2
#define ENG_PORT_SPEED_EDR	32

/* P_Key (IBA 10.9): the membership bit (1: full member) and the base
 * value; the default P_Key is 0xffff. */
#define ENG_PKEY_FULL_MEMBER	0x8000u
#define ENG_PKEY_BASE_MASK	0x7fffu
#define ENG_PKEY_DEFAULT	0xffffu

#endif /* ENG_PORT_H */
