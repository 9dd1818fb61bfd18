/* ops/zorder/zcurve.c - value encodings, Morton and Hilbert keys, key sort. */
#include "ops/zorder/zcurve.h"

#include <pthread.h>
#include <string.h>

int zc_kind_is_fixed(pq_cmp_kind kind)
{
	switch (kind) {
	case PQ_CMP_BOOL:
	case PQ_CMP_I32:
	case PQ_CMP_U32:
	case PQ_CMP_I64:
	case PQ_CMP_U64:
	case PQ_CMP_FLOAT:
	case PQ_CMP_DOUBLE:
		return 1;
	default:
		return 0;
	}
}

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;
	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t encode_double(double d)
{
	uint64_t bits;
	if (d != d)
		return UINT64_MAX; /* every NaN after every number, NaNs equal */
	if (d == 0.0)
		d = 0.0;           /* -0.0 == +0.0 */
	memcpy(&bits, &d, sizeof(bits));
	return (bits >> 63) ? ~bits : bits | (UINT64_C(1) << 63);
}

uint64_t zc_encode_fixed(pq_cmp_kind kind, const uint8_t *v)
{
	switch (kind) {
	case PQ_CMP_BOOL:
		return v[0] != 0;
	case PQ_CMP_I32:
		return (uint64_t)(le32(v) ^ UINT32_C(0x80000000));
	case PQ_CMP_U32:
		return le32(v);
	case PQ_CMP_I64:
		return le64(v) ^ (UINT64_C(1) << 63);
	case PQ_CMP_U64:
		return le64(v);
	case PQ_CMP_FLOAT: {
		uint32_t b = le32(v);
		float f;
		memcpy(&f, &b, sizeof(f));
		return encode_double((double)f); /* widening is exact */
	}
	case PQ_CMP_DOUBLE: {
		uint64_t b = le64(v);
		double d;
		memcpy(&d, &b, sizeof(d));
		return encode_double(d);
	}
	default:
		return 0;
	}
}

uint64_t zc_encode_int96(const uint8_t *v)
{
	int64_t nanos = (int64_t)le64(v);
	int64_t day = (int32_t)le32(v + 8);
	int64_t micros = day * INT64_C(86400000000) + nanos / 1000;
	return (uint64_t)micros ^ (UINT64_C(1) << 63);
}

/* Bit b of x moved to bit 2b (x < 2^32). */
static uint64_t spread2(uint32_t x)
{
	uint64_t v = x;
	v = (v | v << 16) & UINT64_C(0x0000ffff0000ffff);
	v = (v | v << 8) & UINT64_C(0x00ff00ff00ff00ff);
	v = (v | v << 4) & UINT64_C(0x0f0f0f0f0f0f0f0f);
	v = (v | v << 2) & UINT64_C(0x3333333333333333);
	v = (v | v << 1) & UINT64_C(0x5555555555555555);
	return v;
}

uint64_t zc_morton(const uint32_t *ranks, size_t n, unsigned bits)
{
	uint64_t key = 0;
	int b;
	size_t i;
	if (n == 1)
		return ranks[0];
	if (n == 2) /* the common case, without the bit loop */
		return spread2(ranks[0] & (uint32_t)((UINT64_C(1) << bits) - 1)) << 1 |
		       spread2(ranks[1] & (uint32_t)((UINT64_C(1) << bits) - 1));
	for (b = (int)bits - 1; b >= 0; b--)
		for (i = 0; i < n; i++)
			key = key << 1 | ((ranks[i] >> b) & 1u);
	return key;
}

/* zc_hilbert_generic for two columns as a state machine, four levels per
 * table lookup (it runs once per row). Walking the levels from the top,
 * the generic algorithm applies to every lower level a composition of
 * "invert x0" and "swap x0, x1": a state of 3 bits (swap, flip0, flip1)
 * says what it does to the current level's bits, and a 4th bit carries
 * the parity its Gray-code step accumulates from the levels above. */
static unsigned hilbert_step(unsigned st, unsigned b0, unsigned b1, unsigned *out)
{
	unsigned s = st & 1, f0 = st >> 1 & 1, f1 = st >> 2 & 1, par = st >> 3 & 1, t;
	unsigned a0 = (s ? b1 : b0) ^ f0, a1 = (s ? b0 : b1) ^ f1;
	*out = (a0 ^ par) << 1 | (a1 ^ a0 ^ par);
	par ^= a1 ^ a0;
	f0 ^= a0;             /* x0 set: invert x0 below */
	if (a1) {
		f0 ^= 1;          /* x1 set: invert x0 below */
	} else {
		s ^= 1;           /* else swap x0 and x1 below */
		t = f0, f0 = f1, f1 = t;
	}
	return s | f0 << 1 | f1 << 2 | par << 3;
}

/* [state][x0 nibble << 4 | x1 nibble] -> 8 key bits | next state << 8 */
static uint16_t hilbert_nibbles[16][256];
static pthread_once_t hilbert_once = PTHREAD_ONCE_INIT;

static void hilbert_build(void)
{
	unsigned st, in, lvl;
	for (st = 0; st < 16; st++)
		for (in = 0; in < 256; in++) {
			unsigned cur = st, key = 0, o;
			for (lvl = 4; lvl-- > 0;) {
				cur = hilbert_step(cur, in >> (4 + lvl) & 1, in >> lvl & 1, &o);
				key = key << 2 | o;
			}
			hilbert_nibbles[st][in] = (uint16_t)(key | cur << 8);
		}
}

static uint64_t hilbert2(uint32_t x0, uint32_t x1, unsigned bits)
{
	unsigned st = 0, o, lvl = bits;
	uint64_t key = 0;
	pthread_once(&hilbert_once, hilbert_build);
	for (; lvl % 4; lvl--) {
		st = hilbert_step(st, x0 >> (lvl - 1) & 1, x1 >> (lvl - 1) & 1, &o);
		key = key << 2 | o;
	}
	for (; lvl; lvl -= 4) {
		uint16_t e = hilbert_nibbles[st][(x0 >> (lvl - 4) & 15) << 4 | (x1 >> (lvl - 4) & 15)];
		key = key << 8 | (e & 255);
		st = e >> 8;
	}
	return key;
}

uint64_t zc_hilbert(const uint32_t *ranks, size_t n, unsigned bits)
{
	if (n == 2 && bits > 0 && bits <= 32)
		return hilbert2(ranks[0], ranks[1], bits);
	return zc_hilbert_generic(ranks, n, bits);
}

uint64_t zc_hilbert_generic(const uint32_t *ranks, size_t n, unsigned bits)
{
	uint32_t x[ZC_MAX_DIMS], m, p, q, t;
	size_t i;
	if (n == 1 || n > ZC_MAX_DIMS || bits == 0)
		return n == 1 ? ranks[0] : zc_morton(ranks, n, bits);
	memcpy(x, ranks, n * sizeof(uint32_t));
	m = (uint32_t)1 << (bits - 1);
	/* inverse undo: per level, reflect or swap the lower bits */
	for (q = m; q > 1; q >>= 1) {
		p = q - 1;
		for (i = 0; i < n; i++) {
			if (x[i] & q) {
				x[0] ^= p;
			} else {
				t = (x[0] ^ x[i]) & p;
				x[0] ^= t;
				x[i] ^= t;
			}
		}
	}
	/* Gray encode */
	for (i = 1; i < n; i++)
		x[i] ^= x[i - 1];
	t = 0;
	for (q = m; q > 1; q >>= 1)
		if (x[n - 1] & q)
			t ^= q - 1;
	for (i = 0; i < n; i++)
		x[i] ^= t;
	return zc_morton(x, n, bits);
}

uint64_t zc_key(zc_curve curve, const uint32_t *ranks, size_t n, unsigned bits)
{
	return curve == ZC_CURVE_HILBERT ? zc_hilbert(ranks, n, bits) : zc_morton(ranks, n, bits);
}

#define RADIX_BITS 11
#define RADIX_SIZE (1u << RADIX_BITS)

void zc_sort(uint64_t *keys, uint32_t *idx, uint64_t *tmp_keys, uint32_t *tmp_idx, size_t n,
             unsigned key_bits)
{
	size_t count[RADIX_SIZE];
	unsigned shift;
	for (shift = 0; shift < key_bits && shift < 64; shift += RADIX_BITS) {
		size_t i, sum = 0, d;
		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[(keys[i] >> shift) & (RADIX_SIZE - 1)]++;
		for (d = 0; d < RADIX_SIZE; d++)
			if (count[d] == n)
				break;
		if (d < RADIX_SIZE)
			continue; /* every key has this digit: nothing moves */
		for (d = 0; d < RADIX_SIZE; d++) {
			size_t c = count[d];
			count[d] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++) {
			size_t pos = count[(keys[i] >> shift) & (RADIX_SIZE - 1)]++;
			tmp_keys[pos] = keys[i];
			tmp_idx[pos] = idx[i];
		}
		memcpy(keys, tmp_keys, n * sizeof(*keys));
		memcpy(idx, tmp_idx, n * sizeof(*idx));
	}
}
