/* SPDX-License-Identifier: MIT */
/*
 * CRC-32 as Ethernet's FCS and zlib's crc32() compute it (reflected
 * polynomial 0xEDB88320; not CRC-32C, so SSE4.2's crc32 instruction does
 * not apply): the ICRC's engine (eng_wire_icrc.h).  It runs over every
 * byte on the wire, so x86-64 CPUs with PCLMULQDQ fold 64 bytes per step
 * with carry-less multiplies (Intel's "Fast CRC Computation for Generic
 * Polynomials Using PCLMULQDQ", 2009); elsewhere, and for the last few
 * bytes, a slice-by-8 table.  Pure.
 */
#ifndef ENG_WIRE_CRC32_H
#define ENG_WIRE_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* crc is 0 to start, or a previous result to go on: eng_crc32(eng_crc32(
 * 0, a, n), b, m) is the CRC of a then b. */
uint32_t eng_crc32(uint32_t crc, const void *buf, size_t len);

/* The same with the table method only (unit tests compare the two). */
uint32_t eng_crc32_portable(uint32_t crc, const void *buf, size_t len);

/* The register form the ICRC chains through: no pre/post inversion
 * (start from ~0u, finish with ~). */
uint32_t eng_crc32_update(uint32_t reg, const uint8_t *p, size_t len);

/* Whether eng_crc32() uses carry-less multiplies on this CPU. */
int eng_crc32_accelerated(void);

#endif /* ENG_WIRE_CRC32_H */
