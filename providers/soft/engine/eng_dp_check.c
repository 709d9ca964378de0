/* SPDX-License-Identifier: MIT */
/*
 * The checks a NIC makes on every memory access, and the semantics of
 * the two atomics (pure: no I/O).  Bounds are byte-exact (IBA 10.6.3.3:
 * an access is valid only if it lies entirely within the region).
 */
#include <infiniband/verbs.h>

#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_wr.h"

bool eng_dp_range_ok(uint64_t start, uint64_t mr_len, uint64_t va,
		     uint64_t len)
{
	if (va < start)
		return false;
	/* Offsets, not end addresses: nothing here can wrap. */
	if (va - start > mr_len)
		return false;
	return len <= mr_len - (va - start);
}

uint32_t eng_dp_remote_access_for(uint32_t wr_opcode)
{
	if (eng_wr_is_write(wr_opcode))
		return IBV_ACCESS_REMOTE_WRITE;
	if (eng_wr_is_read(wr_opcode))
		return IBV_ACCESS_REMOTE_READ;
	if (eng_wr_is_atomic(wr_opcode))
		return IBV_ACCESS_REMOTE_ATOMIC;
	return 0;
}

uint64_t eng_dp_atomic_apply(uint32_t wr_opcode, uint64_t *target,
			     uint64_t compare_add, uint64_t swap)
{
	uint64_t orig = *target;

	if (wr_opcode == IBV_WR_ATOMIC_CMP_AND_SWP) {
		if (orig == compare_add)
			*target = swap;
	} else {
		*target = orig + compare_add;
	}
	return orig;
}

uint32_t eng_dp_wc_opcode(uint32_t wr_opcode)
{
	switch (wr_opcode) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return IBV_WC_RDMA_WRITE;
	case IBV_WR_RDMA_READ:
		return IBV_WC_RDMA_READ;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		return IBV_WC_COMP_SWAP;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return IBV_WC_FETCH_ADD;
	case IBV_WR_BIND_MW:
		return IBV_WC_BIND_MW;
	case IBV_WR_LOCAL_INV:
		return IBV_WC_LOCAL_INV;
	}
	return IBV_WC_SEND;
}
