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
/* Byte swaps by the compiler's builtin: <endian.h> hides htobe64 under
 * strict -std=c11. */
static inline __attribute__((deprecated)) uint64_t htonll(uint64_t x)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return __builtin_bswap64(x);
#else
	return x;
#endif
}

static inline __attribute__((deprecated)) uint64_t ntohll(uint64_t x)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return __builtin_bswap64(x);
#else
	return x;
#endif
}
#define htonll htonll
#define ntohll ntohll
#endif

#endif /* INFINIBAND_ARCH_H */
