/* SPDX-License-Identifier: MIT */
#include "providers/soft/engine/eng_csprng.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

static struct {
	int seeded;
	uint32_t key[8];
	uint32_t nonce[3];
	uint32_t counter;		/* blocks since the last key */
	uint32_t buf[16];
	uint32_t left;			/* unused words at the end of buf */
} g;

static inline uint32_t rotl(uint32_t v, int n)
{
	return (v << n) | (v >> (32 - n));
}

#define QR(a, b, c, d)					\
	do {						\
		a += b; d ^= a; d = rotl(d, 16);	\
		c += d; b ^= c; b = rotl(b, 12);	\
		a += b; d ^= a; d = rotl(d, 8);		\
		c += d; b ^= c; b = rotl(b, 7);		\
	} while (0)

void eng_chacha20_block(const uint32_t key[8], uint32_t counter,
			const uint32_t nonce[3], uint32_t out[16])
{
	/* "expand 32-byte k", then key, counter, nonce (RFC 8439 2.3). */
	uint32_t in[16] = { 0x61707865, 0x3320646e, 0x79622d32, 0x6b206574 };
	uint32_t x[16];

	memcpy(&in[4], key, 32);
	in[12] = counter;
	memcpy(&in[13], nonce, 12);
	memcpy(x, in, sizeof(x));
	for (int i = 0; i < 10; i++) {
		QR(x[0], x[4], x[8], x[12]);
		QR(x[1], x[5], x[9], x[13]);
		QR(x[2], x[6], x[10], x[14]);
		QR(x[3], x[7], x[11], x[15]);
		QR(x[0], x[5], x[10], x[15]);
		QR(x[1], x[6], x[11], x[12]);
		QR(x[2], x[7], x[8], x[13]);
		QR(x[3], x[4], x[9], x[14]);
	}
	for (int i = 0; i < 16; i++)
		out[i] = x[i] + in[i];
}

void eng_csprng_seed(const uint8_t key[32])
{
	memcpy(g.key, key, sizeof(g.key));
	memset(g.nonce, 0, sizeof(g.nonce));
	g.counter = 0;
	g.left = 0;
	g.seeded = 1;
}

/* getrandom(2) never fails once the pool is initialised (Linux >= 3.17);
 * if it somehow does, the old key stays and is stirred with the clock so
 * the stream at least moves on. */
static void reseed(void)
{
	uint8_t key[32];
	size_t got = 0;

	while (got < sizeof(key)) {
		ssize_t n = getrandom(key + got, sizeof(key) - got, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (got < sizeof(key)) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		memcpy(key, g.key, sizeof(key));
		key[0] ^= (uint8_t)ts.tv_nsec;
		g.nonce[0] ^= (uint32_t)ts.tv_nsec;
		g.nonce[1] ^= (uint32_t)getpid();
		g.nonce[2]++;
	}
	memcpy(g.key, key, sizeof(g.key));
	g.counter = 0;
	g.left = 0;
	g.seeded = 1;
}

uint32_t eng_csprng_u32(void)
{
	if (!g.left) {
		if (!g.seeded || g.counter >= ENG_CSPRNG_RESEED)
			reseed();
		eng_chacha20_block(g.key, g.counter++, g.nonce, g.buf);
		g.left = 16;
	}
	return g.buf[--g.left];
}

uint32_t eng_csprng_below(uint32_t n)
{
	/* Reject the top (2^32 mod n) values so each residue is equally
	 * likely. */
	uint32_t lim = (uint32_t)(-n) % n;
	uint32_t v;

	do
		v = eng_csprng_u32();
	while (v < lim);
	return v % n;
}
