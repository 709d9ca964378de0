/* SPDX-License-Identifier: MIT */
/*
 * The checks a NIC makes on every memory access, and the semantics of
 * the two atomics (pure: no I/O).  Bounds are byte-exact (IBA 10.6.3.3:
 * an access is valid only if it lies entirely within the region).
 */
#include "providers/soft/engine/eng_dp.h"
#include "providers/soft/engine/eng_ibv.h"

#define WR_RDMA_WRITE		0
#define WR_RDMA_WRITE_WITH_IMM	1
#define WR_SEND			2
#define WR_SEND_WITH_IMM	3
#define WR_RDMA_READ		4
#define WR_ATOMIC_CMP_AND_SWP	5
#define WR_ATOMIC_FETCH_AND_ADD	6

/* enum ibv_wc_opcode */
#define WC_SEND		0
#define WC_RDMA_WRITE	1
#define WC_RDMA_READ	2
#define WC_COMP_SWAP	3
#define WC_FETCH_ADD	4

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
	switch (wr_opcode) {
	case WR_RDMA_WRITE:
	case WR_RDMA_WRITE_WITH_IMM:
		return ENG_ACCESS_REMOTE_WRITE;
	case WR_RDMA_READ:
		return ENG_ACCESS_REMOTE_READ;
	case WR_ATOMIC_CMP_AND_SWP:
	case WR_ATOMIC_FETCH_AND_ADD:
		return ENG_ACCESS_REMOTE_ATOMIC;
	}
	return 0;
}

uint64_t eng_dp_atomic_apply(uint32_t wr_opcode, uint64_t *target,
			     uint64_t compare_add, uint64_t swap)
{
	uint64_t orig = *target;

	if (wr_opcode == WR_ATOMIC_CMP_AND_SWP) {
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
	case WR_RDMA_WRITE:
	case WR_RDMA_WRITE_WITH_IMM:
		return WC_RDMA_WRITE;
	case WR_RDMA_READ:
		return WC_RDMA_READ;
	case WR_ATOMIC_CMP_AND_SWP:
		return WC_COMP_SWAP;
	case WR_ATOMIC_FETCH_AND_ADD:
		return WC_FETCH_ADD;
	}
	return WC_SEND;
}
