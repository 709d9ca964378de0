/* SPDX-License-Identifier: MIT */
/*
 * The engine's random numbers for anything a client must not predict:
 * memory keys, QP numbers.  A ChaCha20 keystream (RFC 8439 block
 * function) keyed from getrandom(2) at first use and re-keyed from it
 * every ENG_CSPRNG_RESEED blocks, so one leaked state does not expose
 * the keys handed out later.  One engine thread uses it: no locking.
 */
#ifndef ENG_CSPRNG_H
#define ENG_CSPRNG_H

#include <stdint.h>

#define ENG_CSPRNG_RESEED	(1u << 16)	/* 64-byte blocks per key */

/* Keys the generator from key (tests: a known stream); seeding from
 * getrandom happens on its own otherwise. */
void eng_csprng_seed(const uint8_t key[32]);
uint32_t eng_csprng_u32(void);
/* Uniform in [0, n) (n > 0), without modulo bias. */
uint32_t eng_csprng_below(uint32_t n);
/* RFC 8439 2.3: one ChaCha20 block (exposed for its test vector). */
void eng_chacha20_block(const uint32_t key[8], uint32_t counter,
			const uint32_t nonce[3], uint32_t out[16]);

#endif /* ENG_CSPRNG_H */
