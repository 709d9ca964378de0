/* SPDX-License-Identifier: MIT */
/*
 * <infiniband/arch.h> of rdma-core 44: an obsolete header kept for old
 * sources; it now gives only htonll/ntohll (64-bit byte order; new code
 * uses htobe64/be64toh from <endian.h>).  The memory barrier macros it
 * once had are gone from libibverbs too.
 */
#ifndef INFINIBAND_ARCH_H
#define INFINIBAND_ARCH_H

#include <stdint.h>
#include <endian.h>

#warning "This header is obsolete."

#ifndef ntohll
#undef htonll
#undef ntohll
static inline __attribute__((deprecated)) uint64_t htonll(uint64_t x)
{
	return htobe64(x);
}

static inline __attribute__((deprecated)) uint64_t ntohll(uint64_t x)
{
	return be64toh(x);
}
#define htonll htonll
#define ntohll ntohll
#endif

#endif /* INFINIBAND_ARCH_H */
