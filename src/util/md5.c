/* util/md5.c - MD5 as RFC 1321 specifies it: 64-byte blocks, four rounds of
 * sixteen steps on a little-endian state, the message padded with a 1 bit,
 * zeros and its bit length. */
#include "util/md5.h"

#include <stdio.h>
#include <string.h>

/* Per-step left rotations, four per round. */
static const uint8_t shifts[4][4] = {
	{ 7, 12, 17, 22 }, { 5, 9, 14, 20 }, { 4, 11, 16, 23 }, { 6, 10, 15, 21 },
};

/* floor(abs(sin(i + 1)) * 2^32), the additive constants of RFC 1321 3.4. */
static const uint32_t sines[64] = {
	0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a,
	0xa8304613, 0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be,
	0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340,
	0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
	0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8,
	0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c,
	0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
	0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
	0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92,
	0xffeff47d, 0x85845dd1, 0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1,
	0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};

static uint32_t rotl(uint32_t x, unsigned n)
{
	return (x << n) | (x >> (32 - n));
}

static void block(uint32_t st[4], const uint8_t *p)
{
	uint32_t w[16], a = st[0], b = st[1], c = st[2], d = st[3];
	unsigned i;
	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 |
		       (uint32_t)p[4 * i + 2] << 16 | (uint32_t)p[4 * i + 3] << 24;
	for (i = 0; i < 64; i++) {
		unsigned round = i / 16, g;
		uint32_t f, t;
		switch (round) {
		case 0: f = (b & c) | (~b & d); g = i; break;
		case 1: f = (d & b) | (~d & c); g = (5 * i + 1) % 16; break;
		case 2: f = b ^ c ^ d; g = (3 * i + 5) % 16; break;
		default: f = c ^ (b | ~d); g = (7 * i) % 16; break;
		}
		t = d;
		d = c;
		c = b;
		b = b + rotl(a + f + sines[i] + w[g], shifts[round][i % 4]);
		a = t;
	}
	st[0] += a;
	st[1] += b;
	st[2] += c;
	st[3] += d;
}

void loom_md5_hex(const void *data, size_t len, char out[33])
{
	uint32_t st[4] = { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476 };
	const uint8_t *p = data;
	uint8_t tail[128];
	uint64_t bits = (uint64_t)len * 8;
	size_t n = len, rest, padded, i;

	for (; n >= 64; n -= 64, p += 64)
		block(st, p);
	/* the last bytes, 0x80, zeros up to 56 mod 64, the 64-bit length */
	rest = n;
	memcpy(tail, p, rest);
	tail[rest] = 0x80;
	padded = rest + 1 + 8 <= 64 ? 64 : 128;
	memset(tail + rest + 1, 0, padded - rest - 1);
	for (i = 0; i < 8; i++)
		tail[padded - 8 + i] = (uint8_t)(bits >> (8 * i));
	for (i = 0; i < padded; i += 64)
		block(st, tail + i);
	for (i = 0; i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", (unsigned)(uint8_t)(st[i / 4] >> (8 * (i % 4))));
}
