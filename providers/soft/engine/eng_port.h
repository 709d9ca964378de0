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

/* Values of enum ibv_mtu. */
#define ENG_IB_MTU_256		1
#define ENG_IB_MTU_4096		5

/* The largest IB MTU (enum ibv_mtu, 1..5) whose packets fit an interface
 * MTU of netdev_mtu bytes; 0 when not even 256 fits. */
uint32_t eng_port_ib_mtu(uint32_t netdev_mtu);
/* Bytes of an enum ibv_mtu value (256 << (mtu - 1)); 0 if invalid. */
uint32_t eng_port_mtu_bytes(uint32_t ib_mtu);

/* Modified EUI-64 from a MAC (flip U/L, insert ff:fe), returned so that
 * its bytes in memory are in network order, as ibv_query_device shows. */
uint64_t eng_port_guid_from_mac(const uint8_t mac[6]);

/* Memory keys: index in the upper 24 bits, an 8-bit random "key" byte in
 * the lower 8, as hardware does, so keys are unique while the index lives
 * and not guessable from a neighbour's. */
static inline uint32_t eng_key_make(uint32_t index, uint8_t key_byte)
{
	return (index << 8) | key_byte;
}

static inline uint32_t eng_key_index(uint32_t key)
{
	return key >> 8;
}

#endif /* ENG_PORT_H */
