/* SPDX-License-Identifier: MIT */
/* CRC-32 (reflected 0xEDB88320): PCLMULQDQ folding where the CPU has it,
 * slice-by-8 tables otherwise and for tails.  Pure. */
#include "providers/soft/engine/eng_wire_crc32.h"

#include <pthread.h>

#if defined(__x86_64__)
#include <immintrin.h>
#define HAVE_CLMUL_BUILD 1
#endif

/* Slice-by-8: tab[k][b] is the register after byte b followed by k zero
 * bytes, so 8 input bytes fold in with 8 independent lookups (8 KiB). */
static uint32_t tab[8][256];
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int use_clmul;

static void crc_init(void)
{
	for (uint32_t b = 0; b < 256; b++) {
		uint32_t c = b;

		for (int i = 0; i < 8; i++)
			c = (c >> 1) ^ (0xedb88320u & -(c & 1));
		tab[0][b] = c;
	}
	for (uint32_t b = 0; b < 256; b++)
		for (int k = 1; k < 8; k++)
			tab[k][b] = (tab[k - 1][b] >> 8) ^ tab[0][tab[k - 1][b] & 0xff];
#ifdef HAVE_CLMUL_BUILD
	__builtin_cpu_init();
	use_clmul = __builtin_cpu_supports("pclmul") &&
		    __builtin_cpu_supports("sse4.1");
#endif
}

static inline uint32_t load_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint32_t update_tables(uint32_t c, const uint8_t *p, size_t len)
{
	while (len >= 8) {
		uint32_t lo = load_le32(p) ^ c, hi = load_le32(p + 4);

		c = tab[7][lo & 0xff] ^ tab[6][(lo >> 8) & 0xff] ^
		    tab[5][(lo >> 16) & 0xff] ^ tab[4][lo >> 24] ^
		    tab[3][hi & 0xff] ^ tab[2][(hi >> 8) & 0xff] ^
		    tab[1][(hi >> 16) & 0xff] ^ tab[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		c = (c >> 8) ^ tab[0][(c ^ *p++) & 0xff];
	return c;
}

#ifdef HAVE_CLMUL_BUILD
/* Folding constants for the reflected polynomial (bit-reflected
 * x^n mod P, shifted left by one; the unit test checks the result
 * against the tables over many lengths and alignments):
 * 4 x 128-bit lanes 512 bits apart, one lane 128 bits on, 64 -> 32 bits,
 * and Barrett's P and mu for the final reduction. */
#define K1 0x0154442bd4ll
#define K2 0x01c6e41596ll
#define K3 0x01751997d0ll
#define K4 0x00ccaa009ell
#define K5 0x0163cd6124ll
#define P_X 0x01db710641ll
#define MU 0x01f7011641ll

/* x = x's low half * k's low half ^ x's high half * k's high half ^ y:
 * moves a 128-bit lane forward by the distance k encodes. */
#define FOLD(x, k, y) do { \
	__m128i lo_ = _mm_clmulepi64_si128(x, k, 0x00); \
	x = _mm_clmulepi64_si128(x, k, 0x11); \
	x = _mm_xor_si128(_mm_xor_si128(x, lo_), y); \
} while (0)

#define LOAD(p) _mm_loadu_si128((const __m128i *)(const void *)(p))

/* len >= 64 and a multiple of 16. */
__attribute__((target("pclmul,sse4.1")))
static uint32_t update_clmul(uint32_t reg, const uint8_t *p, size_t len)
{
	const __m128i k12 = _mm_set_epi64x(K2, K1), k34 = _mm_set_epi64x(K4, K3);
	const __m128i k5 = _mm_set_epi64x(0, K5), pmu = _mm_set_epi64x(MU, P_X);
	const __m128i low32 = _mm_set_epi32(0, -1, 0, -1);
	__m128i x1 = LOAD(p), x2 = LOAD(p + 16), x3 = LOAD(p + 32),
		x4 = LOAD(p + 48), t;

	x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128((int)reg));
	for (p += 64, len -= 64; len >= 64; p += 64, len -= 64) {
		FOLD(x1, k12, LOAD(p));
		FOLD(x2, k12, LOAD(p + 16));
		FOLD(x3, k12, LOAD(p + 32));
		FOLD(x4, k12, LOAD(p + 48));
	}
	FOLD(x1, k34, x2);
	FOLD(x1, k34, x3);
	FOLD(x1, k34, x4);
	for (; len >= 16; p += 16, len -= 16)
		FOLD(x1, k34, LOAD(p));
	/* 128 -> 64 -> 32 bits, then Barrett reduction. */
	t = _mm_clmulepi64_si128(x1, k34, 0x10);
	x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), t);
	t = _mm_srli_si128(x1, 4);
	x1 = _mm_clmulepi64_si128(_mm_and_si128(x1, low32), k5, 0x00);
	x1 = _mm_xor_si128(x1, t);
	t = _mm_clmulepi64_si128(_mm_and_si128(x1, low32), pmu, 0x10);
	t = _mm_clmulepi64_si128(_mm_and_si128(t, low32), pmu, 0x00);
	x1 = _mm_xor_si128(x1, t);
	return (uint32_t)_mm_extract_epi32(x1, 1);
}
#endif

uint32_t eng_crc32_update(uint32_t reg, const uint8_t *p, size_t len)
{
	pthread_once(&init_once, crc_init);
#ifdef HAVE_CLMUL_BUILD
	if (use_clmul && len >= 64) {
		size_t n = len & ~(size_t)15;

		reg = update_clmul(reg, p, n);
		p += n;
		len -= n;
	}
#endif
	return update_tables(reg, p, len);
}

uint32_t eng_crc32(uint32_t crc, const void *buf, size_t len)
{
	return ~eng_crc32_update(~crc, buf, len);
}

uint32_t eng_crc32_portable(uint32_t crc, const void *buf, size_t len)
{
	pthread_once(&init_once, crc_init);
	return ~update_tables(~crc, buf, len);
}

int eng_crc32_accelerated(void)
{
	pthread_once(&init_once, crc_init);
	return use_clmul;
}
