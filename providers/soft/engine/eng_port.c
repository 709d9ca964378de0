/* SPDX-License-Identifier: MIT */
#include "providers/soft/engine/eng_port.h"

#include <string.h>

#include <infiniband/verbs.h>

uint32_t eng_port_ib_mtu(uint32_t netdev_mtu)
{
	uint32_t best = 0;

	for (uint32_t m = IBV_MTU_256; m <= IBV_MTU_4096; m++)
		if ((uint64_t)eng_port_mtu_bytes(m) + ENG_ROCE_OVERHEAD <=
		    netdev_mtu)
			best = m;
	return best;
}

uint32_t eng_port_mtu_bytes(uint32_t ib_mtu)
{
	if (ib_mtu < IBV_MTU_256 || ib_mtu > IBV_MTU_4096)
		return 0;
	return 256u << (ib_mtu - 1);
}

uint64_t eng_port_guid_from_mac(const uint8_t mac[6])
{
	uint8_t b[8] = {
		mac[0] ^ 0x02, mac[1], mac[2], 0xff, 0xfe, mac[3], mac[4],
		mac[5],
	};
	uint64_t guid;

	memcpy(&guid, b, sizeof(guid));
	return guid;
}
